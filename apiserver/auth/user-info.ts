/** Who a request acts as, after authentication (and, later, impersonation). Never mutated once attached. */
export interface UserInfo {
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** Group every authenticated user belongs to (added by the server, as Kubernetes does). */
export const authenticatedGroup = 'system:authenticated';
/** Group of anonymous requests. */
export const unauthenticatedGroup = 'system:unauthenticated';
/** Superuser group: RBAC lets it do anything. */
export const mastersGroup = 'system:masters';

/** The user of a request that carried no credentials, where anonymous access is allowed. */
export const anonymousUser: UserInfo = Object.freeze({
  name: 'system:anonymous',
  uid: '',
  groups: Object.freeze([unauthenticatedGroup]),
});

/** `groups` plus `system:authenticated` (once), for a user resolved from credentials. */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(authenticatedGroup)) return user;
  return Object.freeze({ ...user, groups: Object.freeze([...user.groups, authenticatedGroup]) });
}
