/**
 * The fixed authorizers of `--authorization-mode`, and the superuser group every mode list starts with.
 *
 * - AlwaysAllow allows everything (no reason). AlwaysDeny has no opinion with the reason
 *   `Everything is forbidden.`, as Kubernetes' (so `RBAC,AlwaysDeny` still lets RBAC allow; nothing after
 *   it is asked only because nothing after it can say more).
 * - `system:masters` is allowed everything before any configured authorizer is asked, as kube-apiserver puts
 *   its privileged-group authorizer first: the generated admin works from the first request, before the
 *   RBAC caches are loaded and whatever the bindings say.
 */
import { mastersGroup } from '../auth/user-info.js';
import { NO_OPINION, type AuthorizationResult, type Authorizer } from './authorizer.js';

const ALLOW: AuthorizationResult = Object.freeze({ decision: 'allow', reason: '' });
const DENY: AuthorizationResult = Object.freeze({ decision: 'no-opinion', reason: 'Everything is forbidden.' });

export const alwaysAllow: Authorizer = Object.freeze({ authorize: () => ALLOW });
export const alwaysDeny: Authorizer = Object.freeze({ authorize: () => DENY });

/** Allows members of any of `groups`; no opinion for others. */
export function privilegedGroups(groups: readonly string[] = [mastersGroup]): Authorizer {
  return {
    authorize(a) {
      for (const g of a.user.groups) if (groups.includes(g)) return ALLOW;
      return NO_OPINION;
    },
  };
}
