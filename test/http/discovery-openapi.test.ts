/**
 * Discovery and OpenAPI over real servers on both backends: legacy discovery (/api, /apis, /api/v1 with
 * short names, verbs and sub-resources), aggregated discovery with kubectl's Accept header and the exact
 * Content-Type it requires, /openapi/v2 and /openapi/v3 (hashed per-group-version documents, Cache-Control,
 * ETag and 304, x-kubernetes-group-version-kind), the k8s.io group domain (kube names) and
 * --runtime-config disabling a resource.
 */
import { backends, describeBackends, stopBackends, type ApiResponse, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const KUBECTL_DISCOVERY =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const CORE = ['bindings', 'configmaps', 'events', 'namespaces', 'nodes', 'persistentvolumeclaims', 'pods', 'podtemplates', 'replicationcontrollers', 'secrets', 'serviceaccounts', 'services'];

type Resource = { name: string; singularName: string; namespaced: boolean; kind: string; verbs: string[]; shortNames?: string[] };

const resourcesOf = (res: ApiResponse): Map<string, Resource> => new Map((res.json().resources as Resource[]).map((r) => [r.name, r]));

/** The resources of the core group in an aggregated discovery document. */
function aggregatedCore(body: any): { resource: string; responseKind: { kind: string }; shortNames?: string[]; scope: string; verbs: string[]; subresources?: any[] }[] {
  expect(body.items).toHaveLength(1);
  const v1 = body.items[0].versions.find((v: any) => v.version === 'v1');
  return v1.resources;
}

async function v3Doc(api: TestApi, gv = 'api/v1'): Promise<{ url: string; res: ApiResponse }> {
  const root = (await api.request('GET', '/openapi/v3')).json();
  const url = root.paths[gv].serverRelativeURL as string;
  return { url, res: await api.request('GET', url) };
}

describeBackends(all, (b) => {
  describe('default group domain', () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await b.start();
    });

    it('/api lists the core versions and the server address', async () => {
      const res = await api.request('GET', '/api', { query: { timeout: '32s' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const port = new URL(api.url).port;
      expect(res.json()).toEqual({ kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }] });
    });

    it('/apis is an APIGroupList without the core group', async () => {
      const res = await api.request('GET', '/apis');
      expect(res.status).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ kind: 'APIGroupList', apiVersion: 'v1' });
      expect(Array.isArray(body.groups)).toBe(true);
      expect(body.groups.map((g: any) => g.name)).not.toContain('');
    });

    it('/api/v1 lists every core resource with kind, scope, verbs and short names', async () => {
      const res = await api.request('GET', '/api/v1');
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
      const r = resourcesOf(res);
      expect([...r.keys()].filter((n) => !n.includes('/')).sort()).toEqual(CORE);
      expect(r.get('namespaces')).toMatchObject({ singularName: 'namespace', namespaced: false, kind: 'Namespace', shortNames: ['ns'], verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] });
      expect(r.get('configmaps')).toMatchObject({ singularName: 'configmap', namespaced: true, kind: 'ConfigMap', shortNames: ['cm'] });
      expect(r.get('serviceaccounts')).toMatchObject({ namespaced: true, kind: 'ServiceAccount', shortNames: ['sa'] });
      expect(r.get('nodes')).toMatchObject({ namespaced: false, kind: 'Node', shortNames: ['no'] });
      expect(r.get('secrets')).toMatchObject({ namespaced: true, kind: 'Secret', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'] });
      expect(r.get('secrets')!.shortNames).toBeUndefined();
    });

    it('/api/v1 lists the status sub-resources of namespaces and nodes', async () => {
      const r = resourcesOf(await api.request('GET', '/api/v1'));
      expect(r.get('namespaces/status')).toEqual({ name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] });
      expect(r.get('nodes/status')).toMatchObject({ namespaced: false, kind: 'Node', verbs: ['get', 'patch', 'update'] });
      expect(r.has('secrets/status')).toBe(false);
    });

    it('aggregated /api with kubectl\'s Accept header: the exact Content-Type and every resource with a responseKind', async () => {
      const res = await api.request('GET', '/api', { headers: { Accept: KUBECTL_DISCOVERY } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(AGGREGATED_V2);
      const body = res.json();
      expect(body).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
      const resources = aggregatedCore(body);
      expect(resources.map((r) => r.resource).sort()).toEqual(CORE);
      for (const r of resources) expect(r.responseKind).toMatchObject({ kind: expect.any(String) });
      const ns = resources.find((r) => r.resource === 'namespaces')!;
      expect(ns).toMatchObject({ scope: 'Cluster', shortNames: ['ns'], responseKind: { group: '', version: 'v1', kind: 'Namespace' } });
      expect(ns.subresources).toEqual([expect.objectContaining({ subresource: 'status', verbs: ['get', 'patch', 'update'] })]);
      expect(resources.find((r) => r.resource === 'configmaps')).toMatchObject({ scope: 'Namespaced', shortNames: ['cm'] });
    });

    it('aggregated /apis answers in the same Content-Type; v2beta1 when only it is asked', async () => {
      const apis = await api.request('GET', '/apis', { headers: { Accept: KUBECTL_DISCOVERY } });
      expect(apis.status).toBe(200);
      expect(apis.headers['content-type']).toBe(AGGREGATED_V2);
      expect(apis.json()).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', items: expect.any(Array) });
      const beta = await api.request('GET', '/api', { headers: { Accept: AGGREGATED_V2BETA1 } });
      expect(beta.headers['content-type']).toBe(AGGREGATED_V2BETA1);
      expect(beta.json()).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2beta1' });
    });

    it('aggregated discovery has an ETag and answers If-None-Match with 304', async () => {
      const first = await api.request('GET', '/api', { headers: { Accept: KUBECTL_DISCOVERY } });
      const etag = first.headers.etag as string;
      expect(etag).toEqual(expect.any(String));
      const again = await api.request('GET', '/api', { headers: { Accept: KUBECTL_DISCOVERY, 'If-None-Match': etag } });
      expect(again.status).toBe(304);
      expect(again.raw.length).toBe(0);
    });

    it('discovery with only unsupported media types is 406', async () => {
      const res = await api.request('GET', '/api/v1', { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
      expect(res.status).toBe(406);
      expect(res.json()).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
    });

    it('/openapi/v2 is a Swagger document with group-version-kinds, an ETag and 304', async () => {
      const res = await api.request('GET', '/openapi/v2', { headers: { Accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const doc = res.json();
      expect(doc.swagger).toBe('2.0');
      const gvks = Object.values(doc.definitions as Record<string, any>).flatMap((d) => d['x-kubernetes-group-version-kind'] ?? []);
      for (const kind of ['Secret', 'ConfigMap', 'Namespace', 'Node', 'ServiceAccount', 'PodTemplate', 'SecretList']) {
        expect(gvks).toContainEqual({ group: '', version: 'v1', kind });
      }
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/namespaces/{namespace}/secrets/{name}', '/api/v1/nodes/{name}/status']));
      const etag = res.headers.etag as string;
      expect(etag).toEqual(expect.any(String));
      expect((await api.request('GET', '/openapi/v2', { headers: { 'If-None-Match': etag } })).status).toBe(304);
    });

    it('/openapi/v3 lists api/v1 with a hashed URL; the root has an ETag and 304', async () => {
      const res = await api.request('GET', '/openapi/v3', { query: { timeout: '32s' } });
      expect(res.status).toBe(200);
      const root = res.json();
      expect(root.paths['api/v1'].serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/i);
      const etag = res.headers.etag as string;
      expect((await api.request('GET', '/openapi/v3', { headers: { 'If-None-Match': etag } })).status).toBe(304);
    });

    it('/openapi/v3/api/v1?hash=H is immutable for a year, with an ETag and 304', async () => {
      const { url, res } = await v3Doc(api);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, immutable');
      const expires = Date.parse(res.headers.expires as string);
      expect(expires - Date.now()).toBeGreaterThan(364 * 24 * 3600 * 1000);
      const etag = res.headers.etag as string;
      expect(etag).toEqual(expect.any(String));
      const again = await api.request('GET', url, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
    });

    it('/openapi/v3/api/v1 without a hash is not cached; a stale hash is 301 to the current URL', async () => {
      const { url } = await v3Doc(api);
      const plain = await api.request('GET', '/openapi/v3/api/v1');
      expect(plain.status).toBe(200);
      expect(plain.headers['cache-control']).toBe('no-cache, private');
      const stale = await api.request('GET', '/openapi/v3/api/v1', { query: { hash: 'DEADBEEF' } });
      expect(stale.status).toBe(301);
      expect(stale.headers.location).toBe(url);
    });

    it('the api/v1 document: schemas with group-version-kinds, PATCH with its media types and fieldValidation', async () => {
      const doc = (await v3Doc(api)).res.json();
      expect(doc.openapi).toMatch(/^3\./);
      const gvks = Object.values(doc.components.schemas as Record<string, any>).flatMap((s) => s['x-kubernetes-group-version-kind'] ?? []);
      for (const kind of ['Secret', 'ConfigMap', 'Namespace', 'Node', 'ServiceAccount', 'PodTemplate']) expect(gvks).toContainEqual({ group: '', version: 'v1', kind });
      const patch = doc.paths['/api/v1/namespaces/{namespace}/secrets/{name}'].patch;
      expect(Object.keys(patch.requestBody.content)).toEqual(expect.arrayContaining([
        'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml',
      ]));
      const params = [...(patch.parameters ?? []), ...(doc.paths['/api/v1/namespaces/{namespace}/secrets/{name}'].parameters ?? [])];
      const names = params.map((p: any) => p.name ?? p.$ref);
      expect(names.some((n: string) => /fieldValidation/.test(n))).toBe(true);
      expect(patch['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Secret' });
      // Under platform.io the other extensions carry the domain's word.
      expect(patch['x-platform-action']).toBe('patch');
      expect(patch['x-kubernetes-action']).toBeUndefined();
      // Except the ones kubectl reads by their Kubernetes names in every mode: the group-version-kind, and
      // the patch strategy and merge key that client-side apply builds its strategic merge patches from
      // (published under both names).
      const kubeExtensions = new Set(JSON.stringify(doc).match(/"x-kubernetes-[a-z-]+"/g));
      expect([...kubeExtensions].sort()).toEqual(['"x-kubernetes-group-version-kind"', '"x-kubernetes-patch-merge-key"', '"x-kubernetes-patch-strategy"']);
      expect(JSON.stringify(doc)).toContain('"x-platform-patch-merge-key"');
    });

    it('an unknown group version document is 404', async () => {
      expect((await api.request('GET', '/openapi/v3/apis/nope.example.com/v1')).status).toBe(404);
    });
  });

  describe('--group-domain=k8s.io', () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await b.start({ groupDomain: 'k8s.io' });
    });

    it.each(['default', 'kube-system', 'kube-public'])('%s exists', async (name) => {
      const res = await api.request('GET', `/api/v1/namespaces/${name}`);
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ metadata: { name }, status: { phase: 'Active' } });
    });

    it('no platform-* namespaces', async () => {
      const names = (await api.request('GET', '/api/v1/namespaces')).json().items.map((i: any) => i.metadata.name).sort();
      expect(names).toEqual(['default', 'kube-public', 'kube-system']);
    });

    it('openapi uses the x-kubernetes-* extensions', async () => {
      const doc = (await v3Doc(api)).res.json();
      const patch = doc.paths['/api/v1/namespaces/{namespace}/secrets/{name}'].patch;
      expect(patch['x-kubernetes-action']).toBe('patch');
      expect(patch['x-platform-action']).toBeUndefined();
      expect(JSON.stringify(doc)).not.toContain('"x-platform-');
    });

    it('Table under meta.k8s.io and discovery as usual', async () => {
      const res = await api.request('GET', '/api/v1/namespaces', { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      expect(res.json()).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      const disc = await api.request('GET', '/api', { headers: { Accept: KUBECTL_DISCOVERY } });
      expect(disc.headers['content-type']).toBe(AGGREGATED_V2);
    });
  });

  describe('--runtime-config=v1/configmaps=false', () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await b.start({ runtimeConfig: 'v1/configmaps=false' });
    });

    it('configmaps are not served: 404 on the collection, the object and all namespaces', async () => {
      for (const [method, path] of [
        ['GET', '/api/v1/namespaces/default/configmaps'],
        ['GET', '/api/v1/namespaces/default/configmaps/x'],
        ['GET', '/api/v1/configmaps'],
        ['POST', '/api/v1/namespaces/default/configmaps'],
      ] as const) {
        const res = await api.request(method, path, method === 'POST' ? { body: { metadata: { name: 'x' } } } : {});
        expect(res.status).toBe(404);
        expect(res.json()).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
      }
    });

    it('configmaps are absent from legacy and aggregated discovery and from OpenAPI', async () => {
      const legacy = resourcesOf(await api.request('GET', '/api/v1'));
      expect(legacy.has('configmaps')).toBe(false);
      expect(legacy.has('secrets')).toBe(true);
      const aggregated = aggregatedCore((await api.request('GET', '/api', { headers: { Accept: KUBECTL_DISCOVERY } })).json());
      expect(aggregated.map((r) => r.resource).sort()).toEqual(CORE.filter((r) => r !== 'configmaps'));
      const doc = (await v3Doc(api)).res.json();
      expect(Object.keys(doc.paths).some((p) => p.includes('configmaps'))).toBe(false);
      const gvks = Object.values(doc.components.schemas as Record<string, any>).flatMap((s) => s['x-kubernetes-group-version-kind'] ?? []);
      expect(gvks).not.toContainEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
    });

    it('other resources are still served', async () => {
      const res = await api.request('POST', '/api/v1/namespaces/default/secrets', { body: { metadata: { name: 'still' } } });
      expect(res.status).toBe(201);
    });
  });
});
