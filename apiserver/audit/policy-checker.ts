/**
 * Which audit level, omitted stages and managed-fields treatment a request gets: the first rule of the
 * policy that matches decides (kube's policy checker); no match is level None with the policy's omitted
 * stages. A rule matches when every list it sets matches:
 * - `users`: the user's name; `userGroups`: any of the user's groups; `verbs`: the request's verb (kube's
 *   audit verbs: get, list, watch, create, update, patch, delete, deletecollection; the lower-case method for
 *   non-resource requests);
 * - `namespaces` or `resources`: only resource requests; the namespace ('' for cluster-scoped requests);
 *   per group: no resources = all of the group; `*`; `res` (not its sub-resources); `res/sub`; `*\/sub`
 *   (that sub-resource of any resource); `res/*` (the resource and all its sub-resources); `resourceNames`
 *   narrows to those names;
 * - `nonResourceURLs`: only non-resource requests; exact path, `*`, or a prefix ending in `*`.
 *
 * Each rule's answer is computed once at load (a frozen object), so evaluating allocates nothing.
 */
import type { UserInfo } from '../auth/user-info.js';
import type { RequestInfo } from '../request/request-info.js';
import { auditStages, type AuditLevel, type AuditPolicy, type AuditStage, type PolicyRule } from './policy.js';

/** Bits of `omitStages`, one per stage. */
export const stageBit: Readonly<Record<AuditStage, number>> = Object.freeze({
  RequestReceived: 1,
  ResponseStarted: 2,
  ResponseComplete: 4,
  Panic: 8,
});

export interface RequestAuditConfig {
  readonly level: AuditLevel;
  /** Bit set of the stages not to emit (`stageBit`). */
  readonly omitStages: number;
  readonly omitManagedFields: boolean;
}

function stageMask(...lists: (readonly AuditStage[])[]): number {
  let mask = 0;
  for (const l of lists) for (const s of l) mask |= stageBit[s];
  return mask;
}

export class PolicyChecker {
  readonly #rules: readonly PolicyRule[];
  readonly #answers: readonly RequestAuditConfig[];
  readonly #none: RequestAuditConfig;

  constructor(policy: AuditPolicy) {
    this.#rules = policy.rules;
    this.#answers = policy.rules.map((r) => Object.freeze({
      level: r.level,
      omitStages: stageMask(policy.omitStages, r.omitStages),
      omitManagedFields: r.omitManagedFields ?? policy.omitManagedFields,
    }));
    this.#none = Object.freeze({ level: 'None', omitStages: stageMask(policy.omitStages), omitManagedFields: policy.omitManagedFields });
  }

  /** The configuration of a request by `user` (the authenticated caller, before impersonation). */
  evaluate(user: UserInfo | undefined, info: RequestInfo): RequestAuditConfig {
    const rules = this.#rules;
    for (let i = 0; i < rules.length; i++) {
      if (ruleMatches(rules[i]!, user, info)) return this.#answers[i]!;
    }
    return this.#none;
  }
}

function ruleMatches(r: PolicyRule, user: UserInfo | undefined, info: RequestInfo): boolean {
  if (r.users.length > 0 && (user === undefined || !r.users.includes(user.name))) return false;
  if (r.userGroups.length > 0) {
    if (user === undefined || !user.groups.some((g) => r.userGroups.includes(g))) return false;
  }
  if (r.verbs.length > 0 && !r.verbs.includes(info.verb)) return false;
  if (r.namespaces.length > 0 || r.resources.length > 0) return resourceMatches(r, info);
  if (r.nonResourceURLs.length > 0) return !info.isResourceRequest && r.nonResourceURLs.some((spec) => pathMatches(info.path, spec));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatches(r: PolicyRule, info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  if (r.namespaces.length > 0 && !r.namespaces.includes(info.namespace)) return false;
  if (r.resources.length === 0) return true;
  const { resource, subresource, name } = info;
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  for (const gr of r.resources) {
    if (gr.group !== info.apiGroup) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (subresource !== '' && res.startsWith('*/') && res.slice(2) === subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === resource) return true;
    }
  }
  return false;
}

/** The stages of a bit set, for messages and tests. */
export function stagesOf(mask: number): AuditStage[] {
  return auditStages.filter((s) => (mask & stageBit[s]) !== 0);
}
