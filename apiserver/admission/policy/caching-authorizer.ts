/**
 * The authorizer policy expressions see during one request (Kubernetes' caching authorizer): every
 * distinct check is asked of the server's authorizer once per request, however many policies, bindings,
 * params and expressions repeat it. The key is every attribute of the check, with the user's groups and
 * extra values sorted (differently ordered but equal users share answers). Not shared across requests:
 * RBAC changes apply to the next request.
 */
import type { AuthorizerLike, AuthzAttributes, AuthzResult } from '../../cel/library/authz.js';

export function cachingAuthorizer(inner: AuthorizerLike): AuthorizerLike {
  const decisions = new Map<string, AuthzResult>();
  return {
    authorize(a: AuthzAttributes): AuthzResult {
      const u = a.user;
      const extra = Object.entries(u.extra ?? {})
        .map(([k, v]) => [k, [...v].sort()] as const)
        .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
      const key = JSON.stringify([
        a.verb,
        a.namespace,
        a.apiGroup,
        a.apiVersion,
        a.resource,
        a.subresource,
        a.name,
        a.isResourceRequest,
        a.path,
        a.fieldSelector ?? '',
        a.labelSelector ?? '',
        u.name,
        u.uid,
        [...u.groups].sort(),
        extra,
      ]);
      let d = decisions.get(key);
      if (d === undefined) {
        try {
          d = inner.authorize(a);
        } catch (e) {
          // An authorizer that fails is the Decision's `errored()` (Kubernetes returns its error with no opinion).
          d = { decision: 'no-opinion', reason: '', error: e instanceof Error ? e.message : String(e) };
        }
        decisions.set(key, d);
      }
      return d;
    },
  };
}
