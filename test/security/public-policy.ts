/**
 * What Kubernetes 1.32 grants without any binding of one's own (bootstrap policy: the cluster roles bound
 * to `system:authenticated` and `system:unauthenticated`), as data, held by the test independently of the
 * server's own bootstrap policy so that a server-side change to it shows up as a matrix failure:
 *
 * - `system:public-info-viewer` (authenticated and unauthenticated): get /healthz /livez /readyz /version
 *   /version/ (exact: the health sub-checks such as /readyz/etcd are `system:monitoring`'s);
 * - `system:discovery` (authenticated): get /api /api/* /apis /apis/* /healthz /livez /openapi /openapi/*
 *   /readyz /version /version/;
 * - `system:basic-user` (authenticated): create selfsubjectaccessreviews and selfsubjectrulesreviews
 *   (authorization.k8s.io), selfsubjectreviews (authentication.k8s.io).
 *
 * `system:service-account-issuer-discovery` is bound to `system:serviceaccounts` only, so a plain user and
 * anonymous get 403 on /.well-known/openid-configuration and /openid/v1/jwks.
 */

/** A non-resource URL rule: exact, or a prefix when it ends in `*` (RBAC's matching). */
export interface UrlGrant { readonly verbs: readonly string[]; readonly urls: readonly string[] }
/** A resource rule; `group` in kube's spelling (`*.k8s.io` is mapped to the server's domain). */
export interface ResourceGrant { readonly verbs: readonly string[]; readonly group: string; readonly resources: readonly string[] }

export interface PublicPolicy {
  readonly urls: readonly UrlGrant[];
  readonly resources: readonly ResourceGrant[];
}

const publicInfoViewer: UrlGrant = { verbs: ['get'], urls: ['/healthz', '/livez', '/readyz', '/version', '/version/'] };
const discovery: UrlGrant = {
  verbs: ['get'],
  urls: ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'],
};
const basicUser: readonly ResourceGrant[] = [
  { verbs: ['create'], group: 'authorization.k8s.io', resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
  { verbs: ['create'], group: 'authentication.k8s.io', resources: ['selfsubjectreviews'] },
];

/** A user with no bindings of its own: member of `system:authenticated` only. */
export const authenticatedPolicy: PublicPolicy = { urls: [publicInfoViewer, discovery], resources: basicUser };
/** A request without credentials: `system:anonymous` in `system:unauthenticated`. */
export const anonymousPolicy: PublicPolicy = { urls: [publicInfoViewer], resources: [] };

/** RBAC's non-resource URL match. */
export function urlMatches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : pattern === path;
}

/** `group` in kube's spelling as the server serves it (`authorization.k8s.io` -> `authorization.<domain>`). */
export function servedGroup(group: string, domain: string): string {
  return group.endsWith('.k8s.io') ? `${group.slice(0, -'.k8s.io'.length)}.${domain}` : group;
}

/** Whether `policy` allows a non-resource request. */
export function allowsUrl(policy: PublicPolicy, verb: string, path: string): boolean {
  return policy.urls.some((g) => g.verbs.includes(verb) && g.urls.some((u) => urlMatches(u, path)));
}

/** Whether `policy` allows a resource request (`resource` may be `pods/status`). */
export function allowsResource(policy: PublicPolicy, domain: string, verb: string, group: string, resource: string): boolean {
  return policy.resources.some((g) => g.verbs.includes(verb) && servedGroup(g.group, domain) === group && g.resources.includes(resource));
}
