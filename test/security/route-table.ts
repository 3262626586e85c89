/**
 * The routes a running server serves, read from the server itself so that a new route is enumerated
 * without editing the tests:
 *
 * - resource routes: every path and operation of every `/openapi/v3/<document>` (each group version,
 *   custom resources included), parsed into Kubernetes' request attributes (verb, group, resource with its
 *   sub-resource, namespaced or not, collection or item); a collection GET also yields its `?watch=true`
 *   form. `checkAgainstDiscovery` then proves the documents complete: every resource, sub-resource and
 *   verb that aggregated discovery announces has a route here. `discoveryRoutes` adds the same from
 *   discovery itself (the only source for an aggregated server's group versions, whose documents are
 *   theirs);
 * - non-resource routes: apiserver/endpoints/non-resource-paths.ts (the server's list), each template
 *   filled from the server's own answers (discovery, the OpenAPI index, the health checks it lists).
 */
import { Agent, request } from 'node:https';
import { nonResourcePaths } from '../../apiserver/endpoints/non-resource-paths.js';

export interface Server { readonly url: string; readonly ca: string }

export interface Response { readonly status: number; readonly headers: Record<string, string | string[] | undefined>; readonly body: string }

export interface Call {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** A watch: resolved on the response headers, the stream is dropped. */
  readonly stream?: boolean;
}

const agents = new Map<string, Agent>();
/** Keep-alive connections per server and CA (the matrix sends thousands of requests). */
function agentFor(s: Server): Agent {
  let a = agents.get(s.url);
  if (a === undefined) {
    a = new Agent({ keepAlive: true, maxSockets: 8, ca: s.ca });
    agents.set(s.url, a);
  }
  return a;
}
/** Closes the keep-alive connections (afterAll). */
export function closeAgents(): void {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

/** One request; `token` null sends no credentials. */
export function send(s: Server, token: string | null, c: Call): Promise<Response> {
  const payload = c.body === undefined ? undefined : Buffer.from(typeof c.body === 'string' ? c.body : JSON.stringify(c.body));
  const headers: Record<string, string> = { ...c.headers };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (payload !== undefined) {
    headers['Content-Type'] ??= c.method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    const req = request(new URL(c.path, s.url), { method: c.method, agent: agentFor(s), headers }, (res) => {
      const status = res.statusCode ?? 0;
      if (c.stream === true && status < 300) {
        res.destroy();
        resolve({ status, headers: res.headers, body: '' });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (b: Buffer) => chunks.push(b));
      res.on('end', () => resolve({ status, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export async function getJson(s: Server, token: string, path: string, headers: Record<string, string> = {}): Promise<any> {
  const r = await send(s, token, { method: 'GET', path, headers });
  if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${r.body.slice(0, 300)}`);
  return JSON.parse(r.body);
}

/** A resource route in Kubernetes' authorization terms. */
export interface ResourceRoute {
  readonly kind: 'resource';
  /** `GET /api/v1/namespaces/{namespace}/pods/{name}/status` */
  readonly route: string;
  readonly method: string;
  readonly verb: string;
  readonly group: string;
  readonly version: string;
  /** With its sub-resource: `pods/status`. */
  readonly resource: string;
  readonly namespaced: boolean;
  /** The concrete request (placeholders filled). */
  readonly call: Call;
  /** For writes: `dryRun=All` (and a selector that matches nothing for deletecollection) so an allowed
   * request changes nothing. */
  readonly harmless: Call;
}

export interface NonResourceRoute {
  readonly kind: 'non-resource';
  readonly route: string;
  readonly method: string;
  readonly verb: string;
  readonly template: string;
  readonly call: Call;
}

export type Route = ResourceRoute | NonResourceRoute;

const verbOfMethod: Record<string, string> = { post: 'create', put: 'update', patch: 'patch' };
/** Absent names: the admin's requests reach the handler and answer 404 / 422, nothing is changed. */
export const placeholderName = 'matrix-absent';
export const placeholderNamespace = 'default';

/** Every operation of every OpenAPI v3 document, as resource routes. */
export async function resourceRoutes(s: Server, adminToken: string): Promise<ResourceRoute[]> {
  const index = await getJson(s, adminToken, '/openapi/v3');
  const routes: ResourceRoute[] = [];
  for (const doc of Object.keys(index.paths as object)) {
    const m = /^(?:api\/(v[^/]+)|apis\/([^/]+)\/([^/]+))$/.exec(doc);
    if (m === null) throw new Error(`unexpected OpenAPI v3 document ${doc}`);
    const group = m[2] ?? '';
    const version = m[1] ?? m[3]!;
    const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    const spec = await getJson(s, adminToken, `/openapi/v3/${doc}`);
    for (const [path, item] of Object.entries<Record<string, any>>(spec.paths)) {
      if (!path.startsWith(`${prefix}/`)) throw new Error(`${doc}: path ${path} outside ${prefix}`);
      let segs = path.slice(prefix.length + 1).split('/');
      const watchPath = segs[0] === 'watch';
      if (watchPath) segs = segs.slice(1);
      const namespaced = segs[0] === 'namespaces' && segs[1] === '{namespace}' && segs.length > 2;
      if (namespaced) segs = segs.slice(2);
      const [res, name, sub] = segs as [string, string | undefined, string | undefined];
      if (segs.length > 3 || (name !== undefined && name !== '{name}')) throw new Error(`${doc}: cannot parse ${path}`);
      const resource = sub === undefined ? res : `${res}/${sub}`;
      const concrete = path.replace('{namespace}', placeholderNamespace).replace('{name}', placeholderName);
      for (const [method, op] of Object.entries<any>(item)) {
        if (method === 'parameters') continue;
        const gvk = op['x-kubernetes-group-version-kind'] as { group: string; version: string; kind: string } | undefined;
        let verb: string;
        if (method === 'get') verb = watchPath ? 'watch' : name === undefined ? 'list' : 'get';
        else if (method === 'delete') verb = name === undefined ? 'deletecollection' : 'delete';
        else verb = verbOfMethod[method] ?? method;
        const body = method === 'post' || method === 'put'
          ? { apiVersion: gvk === undefined ? (group === '' ? version : `${group}/${version}`) : (gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`), kind: gvk?.kind ?? 'Unknown', metadata: { name: placeholderName } }
          : method === 'patch' ? {} : undefined;
        const upper = method.toUpperCase();
        const base: Call = { method: upper, path: concrete, ...(body === undefined ? {} : { body }), ...(verb === 'watch' ? { stream: true } : {}) };
        const mutating = upper !== 'GET';
        const harmlessQuery = verb === 'deletecollection' ? '?dryRun=All&labelSelector=matrix-none%3Dnone' : mutating ? '?dryRun=All' : '';
        const common = { kind: 'resource' as const, method: upper, group, version, resource, namespaced };
        routes.push({ ...common, route: `${upper} ${path}`, verb, call: base, harmless: { ...base, path: concrete + harmlessQuery } });
        if (verb === 'list') {
          // The same collection watched with ?watch=true (verb watch).
          const w: Call = { method: 'GET', path: `${concrete}?watch=true`, stream: true };
          routes.push({ ...common, route: `GET ${path}?watch=true`, verb: 'watch', call: w, harmless: w });
        }
      }
    }
  }
  return routes;
}

const aggregatedAccept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

/**
 * Every resource, sub-resource and verb aggregated discovery announces must have a route; returns what
 * is missing (empty when the OpenAPI documents cover discovery).
 */
export async function checkAgainstDiscovery(s: Server, adminToken: string, routes: readonly ResourceRoute[]): Promise<string[]> {
  const have = new Set(routes.map((r) => `${r.group}/${r.version} ${r.resource} ${r.verb}`));
  const missing: string[] = [];
  for (const root of ['/api', '/apis']) {
    const list = await getJson(s, adminToken, root, { Accept: aggregatedAccept });
    for (const g of list.items as any[]) {
      const group = g.metadata?.name ?? '';
      for (const v of g.versions as any[]) {
        for (const r of v.resources as any[]) {
          const want = (resource: string, verbs: readonly string[]) => {
            for (const verb of verbs) {
              const key = `${group}/${v.version} ${resource} ${verb}`;
              // Sub-resources announce the parent's style of verbs (get/update/patch, create for connect ones).
              if (!have.has(key)) missing.push(key);
            }
          };
          want(r.resource, r.verbs ?? []);
          for (const sub of (r.subresources ?? []) as any[]) want(`${r.resource}/${sub.subresource}`, sub.verbs ?? []);
        }
      }
    }
  }
  return missing;
}

const collectionVerbs: Record<string, string> = { list: 'GET', watch: 'GET', create: 'POST', deletecollection: 'DELETE' };
const itemVerbs: Record<string, string> = { get: 'GET', update: 'PUT', patch: 'PATCH', delete: 'DELETE' };
const subresourceVerbs: Record<string, string> = { get: 'GET', update: 'PUT', patch: 'PATCH', create: 'POST' };

/**
 * The resource routes aggregated discovery announces, built from its resources, scopes, verbs and
 * sub-resources with Kubernetes' path shapes: for group versions whose OpenAPI document is not complete
 * (an aggregated server's), and as a second source everywhere (duplicates of the OpenAPI routes are
 * dropped by `uniqueRoutes`).
 */
export async function discoveryRoutes(s: Server, adminToken: string): Promise<ResourceRoute[]> {
  const routes: ResourceRoute[] = [];
  for (const root of ['/api', '/apis']) {
    const list = await getJson(s, adminToken, root, { Accept: aggregatedAccept });
    for (const g of list.items as any[]) {
      const group: string = g.metadata?.name ?? '';
      for (const v of g.versions as any[]) {
        const version: string = v.version;
        const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
        const apiVersion = group === '' ? version : `${group}/${version}`;
        for (const r of v.resources as any[]) {
          const namespaced = r.scope === 'Namespaced';
          const collection = namespaced ? `${prefix}/namespaces/${placeholderNamespace}/${r.resource}` : `${prefix}/${r.resource}`;
          const item = `${collection}/${placeholderName}`;
          const kind: string = r.responseKind?.kind ?? 'Unknown';
          const add = (verb: string, method: string, path: string, resource: string) => {
            const body = method === 'POST' || method === 'PUT' ? { apiVersion, kind, metadata: { name: placeholderName } } : method === 'PATCH' ? {} : undefined;
            const watch = verb === 'watch';
            const concrete = watch ? `${path}?watch=true` : path;
            const call: Call = { method, path: concrete, ...(body === undefined ? {} : { body }), ...(watch ? { stream: true } : {}) };
            const query = verb === 'deletecollection' ? '?dryRun=All&labelSelector=matrix-none%3Dnone' : method === 'GET' ? '' : '?dryRun=All';
            routes.push({ kind: 'resource', route: `${method} ${concrete} (discovery)`, method, verb, group, version, resource, namespaced, call, harmless: { ...call, path: concrete + query } });
          };
          for (const verb of (r.verbs ?? []) as string[]) {
            if (collectionVerbs[verb] !== undefined) {
              add(verb, collectionVerbs[verb]!, collection, r.resource);
              // A namespaced resource is also listed and watched across namespaces.
              if (namespaced && (verb === 'list' || verb === 'watch')) add(verb, 'GET', `${prefix}/${r.resource}`, r.resource);
            }
            if (itemVerbs[verb] !== undefined) add(verb, itemVerbs[verb]!, item, r.resource);
          }
          for (const sub of (r.subresources ?? []) as any[]) {
            for (const verb of (sub.verbs ?? []) as string[]) {
              const method = subresourceVerbs[verb];
              if (method === undefined) throw new Error(`${apiVersion} ${r.resource}/${sub.subresource}: verb ${verb} has no route shape here: teach route-table.ts`);
              add(verb, method, `${item}/${sub.subresource}`, `${r.resource}/${sub.subresource}`);
            }
          }
        }
      }
    }
  }
  return routes;
}

/** One route per method, concrete path (with query) and verb: the first source wins. */
export function uniqueRoutes<T extends Route>(routes: readonly T[]): T[] {
  const seen = new Set<string>();
  return routes.filter((r) => {
    const key = `${r.method} ${r.call.path} ${r.verb} ${r.call.headers?.Accept ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The checks `/<endpoint>?verbose` lists (`[+]etcd ok` -> `etcd`). */
async function healthChecks(s: Server, token: string, endpoint: string): Promise<string[]> {
  const r = await send(s, token, { method: 'GET', path: `/${endpoint}?verbose` });
  return [...r.body.matchAll(/^\[[+-]\]([^ ]+) /gm)].map((m) => m[1]!);
}

/** apiserver/endpoints/non-resource-paths.ts with every template filled from the server's answers. */
export async function nonResourceRoutes(s: Server, adminToken: string): Promise<NonResourceRoute[]> {
  const apiVersions: string[] = (await getJson(s, adminToken, '/api')).versions;
  const groups: { name: string; versions: { version: string }[] }[] = (await getJson(s, adminToken, '/apis')).groups;
  const documents = Object.keys((await getJson(s, adminToken, '/openapi/v3')).paths as object);
  const checks: Record<string, string[]> = {};
  for (const e of ['healthz', 'livez', 'readyz']) checks[e] = await healthChecks(s, adminToken, e);
  const routes: NonResourceRoute[] = [];
  for (const { path: template } of nonResourcePaths) {
    let paths: string[];
    if (template === '/api/{version}') paths = apiVersions.map((v) => `/api/${v}`);
    else if (template === '/apis/{group}') paths = groups.map((g) => `/apis/${g.name}`);
    else if (template === '/apis/{group}/{version}') paths = groups.flatMap((g) => g.versions.map((v) => `/apis/${g.name}/${v.version}`));
    else if (template === '/openapi/v3/{document}') paths = documents.map((d) => `/openapi/v3/${d}`);
    else if (/^\/(healthz|livez|readyz)\/\{check\}$/.test(template)) {
      const e = template.split('/')[1]!;
      paths = checks[e]!.map((c) => `/${e}/${c}`);
      if (paths.length === 0) throw new Error(`${e} lists no checks`);
    } else if (template.includes('{')) throw new Error(`non-resource-paths.ts: no filler for template ${template}: teach test/security/route-table.ts`);
    else paths = [template];
    if (paths.length === 0) throw new Error(`no path for template ${template}`);
    for (const path of paths) {
      routes.push({ kind: 'non-resource', route: `GET ${path}`, method: 'GET', verb: 'get', template, call: { method: 'GET', path } });
      // Aggregated discovery: the same path and verb, another representation.
      if (path === '/api' || path === '/apis') {
        routes.push({ kind: 'non-resource', route: `GET ${path} (aggregated)`, method: 'GET', verb: 'get', template, call: { method: 'GET', path, headers: { Accept: aggregatedAccept } } });
      }
    }
  }
  // Writes to the non-resource paths: verbs other than get (`post`, `delete`) are granted to nobody.
  for (const path of ['/api', '/apis', '/version', '/healthz', '/metrics', '/openapi/v2']) {
    routes.push({ kind: 'non-resource', route: `POST ${path}`, method: 'POST', verb: 'post', template: path, call: { method: 'POST', path, body: {} } });
    routes.push({ kind: 'non-resource', route: `DELETE ${path}`, method: 'DELETE', verb: 'delete', template: path, call: { method: 'DELETE', path } });
  }
  return routes;
}

/**
 * Kubernetes' other non-resource paths (debugging, logs, legacy swagger, SLIs): not served here, so an
 * admin gets 404. Should one become served, it must be listed in non-resource-paths.ts (and this entry
 * removed), which puts it in the matrix.
 */
export const unservedKubePaths: readonly string[] = [
  '/logs', '/logs/', '/logs/kube-apiserver.log',
  '/debug/pprof/', '/debug/pprof/profile', '/debug/pprof/heap', '/debug/flags/v',
  '/debug/api_priority_and_fairness/dump_priority_levels', '/debug/api_priority_and_fairness/dump_queues',
  '/debug/api_priority_and_fairness/dump_requests',
  '/metrics/slis', '/configz', '/flagz', '/statusz',
  '/swagger.json', '/swagger-2.0.0.pb-v1', '/swaggerapi', '/ui', '/ui/', '/openapi',
  '/apis/apiextensions.k8s.io', '/healthz/poststarthook/start-apiextensions-informers',
];
