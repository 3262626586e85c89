/**
 * What the RBAC kinds' write checks need to know about the writer: the user, the server's authorizer (for
 * the `escalate` and `bind` verbs) and the RBAC rule resolver (the rules the user holds). The
 * authorization filter leaves `RequestAccess` on the request; handlers pass a `Requester` down to the
 * registry with the write (WriteOptions.requester), and the registry hands it to the kind's hooks
 * (StrategyContext.requester). Writes without one are the server's own (bootstrap policy, controllers)
 * and are not checked, as kube-apiserver's loopback client is a superuser.
 */
import type { UserInfo } from '../auth/user-info.js';
import type { Authorizer } from './authorizer.js';
import type { RuleResolver } from './rbac-index.js';

export interface RequestAccess {
  readonly authorizer: Authorizer;
  /** Undefined when RBAC is not among the modes: users hold no rules then. */
  readonly ruleResolver: RuleResolver | undefined;
}

export interface Requester extends RequestAccess {
  readonly user: UserInfo;
}

/** The requester of a request that passed authorization; undefined before it (or without the filter). */
export function requesterOf(state: { readonly user?: UserInfo; readonly access?: RequestAccess }): Requester | undefined {
  if (state.user === undefined || state.access === undefined) return undefined;
  return { user: state.user, authorizer: state.access.authorizer, ruleResolver: state.access.ruleResolver };
}
