/**
 * Authorization: what a request asks to do (`AuthorizationAttributes`, from the request info and the user
 * after impersonation) and the decision of an authorizer. Authorizers are synchronous and in-memory (RBAC
 * reads an index kept current by the watch caches of the RBAC kinds): no store read per request.
 *
 * `--authorization-mode` builds a union in order (`RBAC`, `AlwaysAllow`, `AlwaysDeny`): the first
 * authorizer with an opinion (allow or deny) decides; when all have none, the request is denied.
 */
import type { UserInfo } from '../auth/user-info.js';

export interface AuthorizationAttributes {
  readonly user: UserInfo;
  /**
   * Resource requests: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`,
   * and the special verbs (`impersonate`, `bind`, `escalate`, `approve`, `sign`, `use`). Non-resource
   * requests: the HTTP method lower-cased (`get` for GET and HEAD, `post`, `put`, `patch`, `delete`), as
   * kube's request info maps them.
   */
  readonly verb: string;
  readonly isResourceRequest: boolean;
  /** Non-resource requests: the URL path (`/metrics`, `/healthz/etcd`). */
  readonly path: string;
  readonly namespace: string;
  /** '' for the core group. */
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface AuthorizationResult {
  readonly decision: Decision;
  /** Appended to the Forbidden message when not empty (kube: `...: <reason>`). */
  readonly reason: string;
}

export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): AuthorizationResult;
}

export const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'no-opinion', reason: '' });

/**
 * The first authorizer with an opinion decides; none: no opinion (the filter then denies), with the
 * reasons the authorizers gave joined by newlines, as Kubernetes' union does.
 */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    authorize(a) {
      let reasons: string[] | undefined;
      for (const z of authorizers) {
        const r = z.authorize(a);
        if (r.decision !== 'no-opinion') return r;
        if (r.reason !== '') (reasons ??= []).push(r.reason);
      }
      return reasons === undefined ? NO_OPINION : { decision: 'no-opinion', reason: reasons.join('\n') };
    },
  };
}
