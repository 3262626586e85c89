/**
 * Issue 18, "every API path is authorized": a matrix over the server's whole route table (route-table.ts:
 * every operation of every OpenAPI v3 document, checked complete against aggregated discovery, with its
 * watch forms; every non-resource path of apiserver/endpoints/non-resource-paths.ts with its templates
 * filled from the server's answers), including a custom resource with status and scale and the
 * `--runtime-config`-gated groups, against these subjects:
 *
 * - a user with no bindings (a static token; only `system:authenticated`): 403 on every route except
 *   Kubernetes' defaults for authenticated users (public-policy.ts: discovery, OpenAPI, health, version,
 *   the self-subject reviews), where authorization passes (anything but 401/403);
 * - a service account with no bindings: the same, plus the issuer discovery documents
 *   (`system:service-account-issuer-discovery` is bound to `system:serviceaccounts`);
 * - anonymous (no credentials): 401 or 403 everywhere but `system:public-info-viewer`'s paths;
 * - an admin (`system:masters`): anything but 401/403, and never a 5xx (writes are dry runs on absent
 *   names, so the table changes nothing);
 * - an invalid bearer token: 401 everywhere; no credentials with `--anonymous-auth=false`: 401 everywhere.
 *
 * The table also holds an aggregated API (an APIService whose backend is test/aggregator/widget-backend.ts):
 * its requests are refused by this server's chain before any proxying.
 *
 * A new route is in the table without editing this file (a resource through OpenAPI and discovery, a
 * non-resource path through the list, whose agreement with the server is checked here too), so a route
 * that skipped authorization, or that answers a subject Kubernetes would refuse, fails a row.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { eventually, startTestServer, stopAll, tempDir } from '../server/helpers.js';
import {
  allowsResource, allowsUrl, anonymousPolicy, authenticatedPolicy, type PublicPolicy,
} from './public-policy.js';
import {
  checkAgainstDiscovery, closeAgents, discoveryRoutes, getJson, nonResourceRoutes, resourceRoutes, send, uniqueRoutes,
  unservedKubePaths, type Call, type ResourceRoute, type Response, type Route, type Server,
} from './route-table.js';
import { generateCa, issueCert } from '../server/proxy-certs.js';
import { startWidgetBackend, type WidgetBackend } from '../aggregator/widget-backend.js';

const adminToken = 'matrix-admin-token-0123456789';
const nobodyToken = 'matrix-nobody-token-0123456789';

let server: RunningServer;
let s: Server;
let domain: string;
let saToken: string;
let routes: Route[];
let openapiRoutes: ResourceRoute[];
let backend: WidgetBackend;
/** An aggregated API (an APIService with a backend): its routes are proxied after the chain's checks. */
const widgetGroup = 'widgets.example.com';

/** Runs `calls` with at most `width` in flight, results in order. */
async function pool<T, R>(items: readonly T[], width: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  }));
  return out;
}

const crdGroup = 'matrix.example.com';

beforeAll(async () => {
  const dir = tempDir();
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${adminToken},matrix-admin,admin-uid,"system:masters"\n${nobodyToken},matrix-nobody,nobody-uid\n`);
  const proxyCa = await generateCa('front-proxy-ca');
  const proxyClient = await issueCert(proxyCa, 'front-proxy-client');
  writeFileSync(join(dir, 'proxy.crt'), proxyClient.certPem);
  writeFileSync(join(dir, 'proxy.key'), proxyClient.keyPem);
  backend = await startWidgetBackend({ group: widgetGroup, version: 'v1alpha1', serviceName: 'widgets-api', namespace: 'widgets', proxyClientCa: proxyCa.certPem });
  // api/all: the groups off by default (networking v1beta1 ...) are served too, so they are in the table.
  server = await startTestServer(
    { dataDir: join(dir, 'data'), tokenAuthFile: tokens, runtimeConfig: 'api/all=true', proxyClient: { certFile: join(dir, 'proxy.crt'), keyFile: join(dir, 'proxy.key') } },
    { aggregation: { serviceResolver: () => ({ host: '127.0.0.1', port: backend.port }), availabilityIntervalMs: 300 } },
  );
  s = { url: server.url, ca: server.caPem! };
  const groups: { name: string }[] = (await getJson(s, adminToken, '/apis')).groups;
  domain = groups.map((g) => g.name).find((g) => g.startsWith('rbac.'))!.slice('rbac.'.length);

  const apiService = await send(s, adminToken, { method: 'POST', path: `/apis/apiregistration.${domain}/v1/apiservices`, body: {
    apiVersion: `apiregistration.${domain}/v1`, kind: 'APIService', metadata: { name: `v1alpha1.${widgetGroup}` },
    spec: { group: widgetGroup, version: 'v1alpha1', groupPriorityMinimum: 1000, versionPriority: 15, service: { namespace: 'widgets', name: 'widgets-api', port: 8443 }, caBundle: backend.caBundle },
  } });
  if (apiService.status !== 201) throw new Error(`APIService: ${apiService.status} ${apiService.body}`);
  await eventually(async () => ((await getJson(s, adminToken, '/apis')).groups as { name: string }[]).some((g) => g.name === widgetGroup), 'the aggregated group in discovery');

  // A custom resource with both sub-resources, namespaced: its routes join the table once served.
  const crd = await send(s, adminToken, { method: 'POST', path: `/apis/apiextensions.${domain}/v1/customresourcedefinitions`, body: {
    apiVersion: `apiextensions.${domain}/v1`, kind: 'CustomResourceDefinition', metadata: { name: `widgets.${crdGroup}` },
    spec: {
      group: crdGroup, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: {
          spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
          status: { type: 'object', properties: { replicas: { type: 'integer' } } },
        } } },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
      }],
    },
  } });
  if (crd.status !== 201) throw new Error(`CRD: ${crd.status} ${crd.body}`);
  await eventually(async () => `apis/${crdGroup}/v1` in (await getJson(s, adminToken, '/openapi/v3')).paths, 'the CRD in /openapi/v3');

  // A service account's token (TokenRequest): a subject in system:serviceaccounts with no bindings.
  const sa = await send(s, adminToken, { method: 'POST', path: '/api/v1/namespaces/default/serviceaccounts', body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'matrix-sa' } } });
  if (sa.status !== 201) throw new Error(`SA: ${sa.status} ${sa.body}`);
  const tr = await send(s, adminToken, { method: 'POST', path: '/api/v1/namespaces/default/serviceaccounts/matrix-sa/token', body: { apiVersion: `authentication.${domain}/v1`, kind: 'TokenRequest', spec: {} } });
  if (tr.status !== 201) throw new Error(`TokenRequest: ${tr.status} ${tr.body}`);
  saToken = JSON.parse(tr.body).status.token;

  openapiRoutes = await resourceRoutes(s, adminToken);
  routes = [...uniqueRoutes([...openapiRoutes, ...(await discoveryRoutes(s, adminToken))]), ...(await nonResourceRoutes(s, adminToken))];
}, 60_000);

afterAll(async () => {
  closeAgents();
  await stopAll();
  await backend?.stop();
});

/** The service accounts' extra grant (`system:service-account-issuer-discovery`). */
const serviceAccountPolicy: PublicPolicy = {
  urls: [...authenticatedPolicy.urls, { verbs: ['get'], urls: ['/.well-known/openid-configuration', '/openid/v1/jwks'] }],
  resources: authenticatedPolicy.resources,
};

function allowed(policy: PublicPolicy, r: Route): boolean {
  return r.kind === 'resource'
    ? allowsResource(policy, domain, r.verb, r.group, r.resource)
    : allowsUrl(policy, r.verb, r.call.path.split('?')[0]!);
}

interface Row { readonly route: Route; readonly res: Response }
const describeRow = ({ route, res }: Row): string => `${route.route} -> ${res.status} ${res.body.slice(0, 160).replace(/\s+/g, ' ')}`;

it('the route table covers everything discovery announces, every kind of route and sub-resource', async () => {
  const resources = routes.filter((r) => r.kind === 'resource');
  // The OpenAPI documents cover discovery, except the aggregated server's group (its document is its own).
  expect((await checkAgainstDiscovery(s, adminToken, openapiRoutes)).filter((m) => !m.startsWith(`${widgetGroup}/`))).toEqual([]);
  expect(resources.filter((r) => r.group === widgetGroup).map((r) => r.verb).sort()).toEqual(expect.arrayContaining(['create', 'get', 'list', 'watch']));
  const subresources = new Set(resources.map((r) => r.resource.split('/')[1]).filter((x) => x !== undefined));
  // The sub-resources the server serves today; more may come (then they are in the table as well).
  for (const sub of ['status', 'scale', 'binding', 'token', 'approval']) expect(subresources).toContain(sub);
  const verbs = new Set(resources.map((r) => r.verb));
  for (const v of ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection']) expect(verbs).toContain(v);
  expect(resources.some((r) => r.group === crdGroup && r.resource === 'widgets/scale')).toBe(true);
  expect(resources.some((r) => r.namespaced) && resources.some((r) => !r.namespaced)).toBe(true);
  const paths = new Set(routes.filter((r) => r.kind === 'non-resource').map((r) => r.call.path));
  for (const p of ['/api', '/api/v1', '/apis', '/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1', '/metrics', '/version',
    '/healthz', '/livez', '/readyz', '/readyz/etcd', '/livez/ping', '/.well-known/openid-configuration', '/openid/v1/jwks']) {
    expect(paths).toContain(p);
  }
  expect(routes.length).toBeGreaterThan(400);
  expect(resources.some((r) => r.group.startsWith("networking."))).toBe(true); // api/all=true took effect
});

it('non-resource-paths.ts agrees with the server: each listed path is served, kube\'s unlisted ones are not', async () => {
  const listed = routes.filter((r) => r.kind === 'non-resource' && r.method === 'GET');
  const notServed = (await pool(listed, 8, async (r) => ({ route: r, res: await send(s, adminToken, r.call) })))
    .filter((x) => x.res.status === 404 || x.res.status === 401 || x.res.status === 403);
  expect(notServed.map(describeRow)).toEqual([]);
  const unlisted = (await pool(unservedKubePaths, 8, async (path) => ({ path, res: await send(s, adminToken, { method: 'GET', path }) })))
    .filter((x) => x.res.status !== 404);
  expect(unlisted.map((x) => `${x.path} -> ${x.res.status}: served, so list it in apiserver/endpoints/non-resource-paths.ts`)).toEqual([]);
  // An unknown path: 404 to the admin, but a user without rights learns nothing (403 before routing).
  expect((await send(s, adminToken, { method: 'GET', path: '/matrix-unknown/path' })).status).toBe(404);
  expect((await send(s, nobodyToken, { method: 'GET', path: '/matrix-unknown/path' })).status).toBe(403);
});

async function runAs(token: string | null, policy: PublicPolicy, refused: readonly number[]): Promise<{ wrong: string[]; allowedCount: number }> {
  const rows = await pool(routes, 8, async (route) => ({ route, res: await send(s, token, route.kind === 'resource' ? route.call : route.call) }));
  const wrong: string[] = [];
  let allowedCount = 0;
  for (const row of rows) {
    const ok = allowed(policy, row.route);
    if (ok) allowedCount += 1;
    const denied = row.res.status === 401 || row.res.status === 403;
    if (ok && denied) wrong.push(`should pass authorization: ${describeRow(row)}`);
    if (!ok && !refused.includes(row.res.status)) wrong.push(`should be refused (${refused.join('/')}): ${describeRow(row)}`);
  }
  return { wrong, allowedCount };
}

it('a user with no bindings is refused (403) everywhere but Kubernetes\' defaults for authenticated users', async () => {
  const { wrong, allowedCount } = await runAs(nobodyToken, authenticatedPolicy, [403]);
  expect(wrong).toEqual([]);
  expect(allowedCount).toBeGreaterThan(20); // discovery of every group version, OpenAPI, health, version, reviews
});

it('a service account with no bindings: the same, plus the issuer discovery documents', async () => {
  const { wrong } = await runAs(saToken, serviceAccountPolicy, [403]);
  expect(wrong).toEqual([]);
});

it('anonymous requests are refused (401/403) everywhere but system:public-info-viewer\'s paths', async () => {
  const { wrong, allowedCount } = await runAs(null, anonymousPolicy, [401, 403]);
  expect(wrong).toEqual([]);
  expect(allowedCount).toBeGreaterThanOrEqual(5);
});

it('an invalid token is 401 on every route, public ones included (kube: a presented credential must verify)', async () => {
  const rows = await pool(routes, 8, async (route) => ({ route, res: await send(s, 'matrix-wrong-token', route.call) }));
  expect(rows.filter((r) => r.res.status !== 401).map(describeRow)).toEqual([]);
});

it('an admin passes authorization on every route, and no route answers it with a 5xx', async () => {
  const rows = await pool(routes, 8, async (route) => ({ route, res: await send(s, adminToken, route.kind === 'resource' ? route.harmless : route.call) }));
  const wrong = rows.filter((r) => r.res.status === 401 || r.res.status === 403 || r.res.status >= 500);
  expect(wrong.map(describeRow)).toEqual([]);
  // The dry runs changed nothing: the bootstrap roles the other subjects rely on are all still there.
  expect((await send(s, nobodyToken, { method: 'GET', path: '/apis' })).status).toBe(200);
});

it('impersonation is authorized too: a user with no bindings may not impersonate, the admin may', async () => {
  const as = (token: string, headers: Record<string, string>): Promise<Response> =>
    send(s, token, { method: 'GET', path: '/version', headers } satisfies Call);
  const attempts: Record<string, string>[] = [{ 'Impersonate-User': 'matrix-admin' }, { 'Impersonate-User': 'x', 'Impersonate-Group': 'system:masters' }, { 'Impersonate-Uid': 'u', 'Impersonate-User': 'x' }];
  for (const h of attempts) {
    expect((await as(nobodyToken, h)).status).toBe(403);
  }
  expect((await as(adminToken, { 'Impersonate-User': 'matrix-nobody' })).status).toBe(200);
  // The admin acting as the user without bindings is that user: refused where it is refused.
  const r = await send(s, adminToken, { method: 'GET', path: '/api/v1/secrets', headers: { 'Impersonate-User': 'matrix-nobody' } });
  expect(r.status).toBe(403);
});

it('with --anonymous-auth=false, a request without credentials is 401 on every route, public ones included', async () => {
  const closed = await startTestServer({ anonymousAuth: false });
  const t: Server = { url: closed.url, ca: closed.caPem! };
  const rows = await pool(routes, 8, async (route) => ({ route, res: await send(t, null, route.call) }));
  expect(rows.filter((r) => r.res.status !== 401).map(describeRow)).toEqual([]);
});
