/**
 * Every non-resource path the server answers, as data: the request metrics fold paths into labels by it
 * (metrics/request-metrics.ts), and the authorization matrix of the security tests
 * (test/security/authorization-matrix.test.ts) enumerates these besides the resource routes it reads from
 * the OpenAPI documents, and checks that this list and what the server answers agree (each template
 * answered, kube's other well-known non-resource paths 404). A new non-resource endpoint belongs here.
 *
 * Templates use `{placeholder}` segments; the test fills them from the server's own documents: `{version}`
 * and `{group}` from discovery, `{check}` from `/<endpoint>?verbose`, `{document}` from the `/openapi/v3`
 * index. Authorization of each is the filter chain's (filters/authorization.ts), never the handler's.
 */
export interface NonResourcePath {
  /** The path, or a template with `{placeholder}` segments. */
  readonly path: string;
  /** Who serves it. */
  readonly servedBy: string;
}

export const nonResourcePaths: readonly NonResourcePath[] = Object.freeze([
  { path: '/api', servedBy: 'endpoints/discovery (legacy and aggregated discovery)' },
  { path: '/api/{version}', servedBy: 'endpoints/discovery' },
  { path: '/apis', servedBy: 'endpoints/discovery (legacy and aggregated discovery)' },
  { path: '/apis/{group}', servedBy: 'endpoints/discovery' },
  { path: '/apis/{group}/{version}', servedBy: 'endpoints/discovery' },
  { path: '/openapi/v2', servedBy: 'endpoints/openapi' },
  { path: '/openapi/v3', servedBy: 'endpoints/openapi' },
  { path: '/openapi/v3/{document}', servedBy: 'endpoints/openapi' },
  { path: '/version', servedBy: 'endpoints/version.ts' },
  { path: '/version/', servedBy: 'endpoints/version.ts' },
  { path: '/healthz', servedBy: 'endpoints/health.ts' },
  { path: '/healthz/{check}', servedBy: 'endpoints/health.ts' },
  { path: '/livez', servedBy: 'endpoints/health.ts' },
  { path: '/livez/{check}', servedBy: 'endpoints/health.ts' },
  { path: '/readyz', servedBy: 'endpoints/health.ts' },
  { path: '/readyz/{check}', servedBy: 'endpoints/health.ts' },
  { path: '/metrics', servedBy: 'endpoints/metrics.ts' },
  { path: '/.well-known/openid-configuration', servedBy: 'endpoints/oidc-discovery.ts' },
  { path: '/openid/v1/jwks', servedBy: 'endpoints/oidc-discovery.ts' },
]);
