import { naming } from '../../naming/naming.js';
import { serviceAccounts } from '../../registry/kinds/core/serviceaccount.js';
import { parseRuntimeConfig } from '../../config/runtime-config.js';
import { chooseDiscovery } from './accept.js';
import { ifNoneMatchHits } from './cached-body.js';
import { discoveryDocuments } from './discovery-documents.js';
import { discoveryEndpoints } from './discovery-endpoints.js';
import { storageVersionHash } from './legacy-documents.js';
import { startTestApp, type TestApp } from './test-app.js';
import { testKinds } from './test-kinds.js';
import { compareVersionPriority } from './version-priority.js';

const kubectlAccept =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const body = (res: Response): Promise<any> => res.json();
const v2Type = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const platform = naming('platform.io');
const k8s = naming('k8s.io');

describe('version priority', () => {
  it('orders stable, beta, alpha, then other names', () => {
    const versions = ['v1alpha1', 'foo1', 'v1', 'v2beta1', 'v10', 'v11alpha2', 'v1beta2', 'v2', 'foo10', 'v1beta1'];
    expect([...versions].sort(compareVersionPriority)).toEqual(['v10', 'v2', 'v1', 'v2beta1', 'v1beta2', 'v1beta1', 'v11alpha2', 'v1alpha1', 'foo1', 'foo10']);
  });
});

describe('chooseDiscovery', () => {
  it('picks aggregated v2 for kubectl, v2beta1 for kubectl 1.27-1.29, legacy otherwise', () => {
    expect(chooseDiscovery(kubectlAccept, true)).toEqual({ kind: 'aggregated', version: 'v2' });
    expect(chooseDiscovery('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json', true))
      .toEqual({ kind: 'aggregated', version: 'v2beta1' });
    expect(chooseDiscovery(kubectlAccept, false)).toEqual({ kind: 'legacy' });
    expect(chooseDiscovery(undefined, true)).toEqual({ kind: 'legacy' });
    expect(chooseDiscovery('*/*', true)).toEqual({ kind: 'legacy' });
    expect(chooseDiscovery('application/json;as=Table;v=v1;g=meta.k8s.io,application/json', true)).toEqual({ kind: 'legacy' });
  });

  it('honours q-values and refuses what it cannot serve', () => {
    expect(chooseDiscovery(`application/json;q=0.5,${v2Type}`, true)).toEqual({ kind: 'aggregated', version: 'v2' });
    expect(chooseDiscovery('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList', true)).toEqual({ kind: 'none' });
    expect(chooseDiscovery('text/html', true)).toEqual({ kind: 'none' });
    expect(chooseDiscovery('application/json;q=0', true)).toEqual({ kind: 'none' });
  });
});

describe('ifNoneMatchHits', () => {
  it('matches exact, listed, weak and star tags', () => {
    expect(ifNoneMatchHits('"A"', '"A"')).toBe(true);
    expect(ifNoneMatchHits('"B", W/"A"', '"A"')).toBe(true);
    expect(ifNoneMatchHits('*', '"A"')).toBe(true);
    expect(ifNoneMatchHits('"B"', '"A"')).toBe(false);
    expect(ifNoneMatchHits(undefined, '"A"')).toBe(false);
  });
});

describe('storageVersionHash', () => {
  it('matches kube-apiserver for well-known kinds', () => {
    expect(storageVersionHash('', 'v1', 'ConfigMap')).toBe('qFsyl6wFWjQ=');
    expect(storageVersionHash('apps', 'v1', 'Deployment')).toBe('8aSe+NMegvE=');
  });
});

describe('discovery documents', () => {
  const docs = discoveryDocuments(testKinds, platform);
  const json = (b: { bytes: Buffer }) => JSON.parse(b.bytes.toString());

  it('groups the core group first, then named groups with versions by priority', () => {
    expect(docs.groups.map((g) => [g.name, g.versions.map((v) => v.version)])).toEqual([
      ['', ['v1']], ['apps', ['v1']], ['certificates.platform.io', ['v1', 'v1beta1']],
    ]);
  });

  it('lists named groups in /apis with their preferred version', () => {
    expect(json(docs.groupList)).toEqual({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [
        { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } },
        {
          name: 'certificates.platform.io',
          versions: [
            { groupVersion: 'certificates.platform.io/v1', version: 'v1' },
            { groupVersion: 'certificates.platform.io/v1beta1', version: 'v1beta1' },
          ],
          preferredVersion: { groupVersion: 'certificates.platform.io/v1', version: 'v1' },
        },
      ],
    });
    expect(json(docs.groupDocs.get('apps')!)).toMatchObject({ kind: 'APIGroup', apiVersion: 'v1', name: 'apps' });
  });

  it('lists resources and sub-resources in /api/v1', () => {
    const list = json(docs.resourceLists.get('v1')!);
    expect(list.apiVersion).toBeUndefined();
    expect(list).toMatchObject({ kind: 'APIResourceList', groupVersion: 'v1' });
    expect(list.resources).toEqual([
      {
        name: 'namespaces', singularName: 'namespace', namespaced: false, kind: 'Namespace',
        verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['ns'],
        storageVersionHash: storageVersionHash('', 'v1', 'Namespace'),
      },
      { name: 'namespaces/status', singularName: '', namespaced: false, kind: 'Namespace', verbs: ['get', 'patch', 'update'] },
      {
        name: 'secrets', singularName: 'secret', namespaced: true, kind: 'Secret',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        storageVersionHash: storageVersionHash('', 'v1', 'Secret'),
      },
    ]);
    const apps = json(docs.resourceLists.get('apps/v1')!);
    expect(apps).toMatchObject({ kind: 'APIResourceList', apiVersion: 'v1', groupVersion: 'apps/v1' });
    expect(apps.resources[0]).toMatchObject({ name: 'deployments', shortNames: ['deploy'], categories: ['all'] });
  });

  it('lists a sub-resource of another kind with that kind\'s group and version (serviceaccounts/token)', () => {
    for (const [domain, group] of [['k8s.io', 'authentication.k8s.io'], ['platform.io', 'authentication.platform.io']] as const) {
      const d = discoveryDocuments([serviceAccounts], naming(domain));
      expect(json(d.resourceLists.get('v1')!).resources[1]).toEqual({
        name: 'serviceaccounts/token', singularName: '', namespaced: true, group, version: 'v1', kind: 'TokenRequest', verbs: ['create'],
      });
      const sa = json(d.aggregatedCore.v2).items[0].versions[0].resources[0];
      expect(sa.responseKind).toEqual({ group: '', version: 'v1', kind: 'ServiceAccount' });
      expect(sa.subresources).toEqual([{ subresource: 'token', responseKind: { group, version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] }]);
    }
  });

  it('builds aggregated lists with every field kubectl needs', () => {
    const core = json(docs.aggregatedCore.v2);
    expect(core).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {} });
    expect(core.items).toHaveLength(1);
    expect(core.items[0].metadata).toEqual({ creationTimestamp: null });
    expect(core.items[0].versions[0]).toMatchObject({ version: 'v1', freshness: 'Current' });
    expect(core.items[0].versions[0].resources[0]).toEqual({
      resource: 'namespaces',
      responseKind: { group: '', version: 'v1', kind: 'Namespace' },
      scope: 'Cluster',
      singularResource: 'namespace',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ns'],
      subresources: [{ subresource: 'status', responseKind: { group: '', version: 'v1', kind: 'Namespace' }, verbs: ['get', 'patch', 'update'] }],
    });
    const groups = json(docs.aggregatedGroups.v2beta1);
    expect(groups.apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
    expect(groups.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['apps', 'certificates.platform.io']);
    expect(groups.items[0].versions[0].resources[0]).toMatchObject({
      resource: 'deployments', scope: 'Namespaced', singularResource: 'deployment', categories: ['all'], shortNames: ['deploy'],
      responseKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    });
  });

  it('names groups under the k8s.io domain', () => {
    const d = discoveryDocuments(testKinds, k8s);
    expect(d.groups.map((g) => g.name)).toEqual(['', 'apps', 'certificates.k8s.io']);
    expect(d.resourceLists.has('certificates.k8s.io/v1beta1')).toBe(true);
  });

  it('leaves out what --runtime-config disables', () => {
    const rc = parseRuntimeConfig('certificates.platform.io/v1=false,v1/secrets=false');
    const d = discoveryDocuments(testKinds, platform, (g, v, r) => rc.enabled(g, v, r));
    // v1beta1 is beta: off by default; v1 is disabled: the group disappears.
    expect(d.groups.map((g) => g.name)).toEqual(['', 'apps']);
    expect(json(d.resourceLists.get('v1')!).resources.map((r: { name: string }) => r.name)).toEqual(['namespaces', 'namespaces/status']);
    expect(JSON.stringify(json(d.aggregatedGroups.v2))).not.toContain('certificates');
    const beta = parseRuntimeConfig('certificates.platform.io/v1beta1');
    const d2 = discoveryDocuments(testKinds, platform, (g, v, r) => beta.enabled(g, v, r));
    expect(d2.groups.find((g) => g.name === 'certificates.platform.io')!.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1']);
  });
});

describe('discoveryEndpoints over HTTP', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(discoveryEndpoints({ naming: platform, kinds: testKinds, serverAddress: '10.0.0.1:6443' }));
  });
  afterAll(() => app.close());

  it('answers kubectl\'s /api and /apis with aggregated v2 and the exact Content-Type', async () => {
    for (const path of ['/api', '/apis', '/apis/']) {
      const res = await app.get(`${path}?timeout=32s`, { Accept: kubectlAccept });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe(v2Type);
      expect(res.headers.get('cache-control')).toBe('public');
      expect(res.headers.get('vary')).toBe('Accept');
      expect(res.headers.get('etag')).toMatch(/^"[0-9A-F]{128}"$/);
      expect((await body(res)).kind).toBe('APIGroupDiscoveryList');
    }
  });

  it('answers v2beta1 with its own Content-Type', async () => {
    const res = await app.get('/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' });
    expect(res.headers.get('content-type')).toBe('application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
    expect((await body(res)).apiVersion).toBe('apidiscovery.k8s.io/v2beta1');
  });

  it('answers 304 to a matching If-None-Match and 200 to a stale one', async () => {
    const first = await app.get('/apis', { Accept: kubectlAccept });
    const etag = first.headers.get('etag')!;
    const again = await app.get('/apis', { Accept: kubectlAccept, 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
    const stale = await app.get('/apis', { Accept: kubectlAccept, 'If-None-Match': '"0000"' });
    expect(stale.status).toBe(200);
    const core = await app.get('/api', { Accept: kubectlAccept });
    expect(core.headers.get('etag')).not.toBe(etag);
  });

  it('serves the legacy documents as application/json', async () => {
    const api = await app.get('/api', { Accept: 'application/json' });
    expect(api.headers.get('content-type')).toBe('application/json');
    expect(api.headers.get('cache-control')).toBe('no-cache, private');
    expect(await api.json()).toEqual({
      kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '10.0.0.1:6443' }],
    });
    expect((await body(await app.get('/apis'))).kind).toBe('APIGroupList');
    expect((await body(await app.get('/api/v1'))).groupVersion).toBe('v1');
    expect((await body(await app.get('/apis/apps'))).kind).toBe('APIGroup');
    expect((await body(await app.get('/apis/certificates.platform.io/v1beta1/'))).groupVersion).toBe('certificates.platform.io/v1beta1');
  });

  it('passes unknown groups, versions and deeper paths to the next filter', async () => {
    for (const path of ['/apis/nope', '/apis/apps/v2', '/api/v2', '/api/v1/secrets', '/apis/certificates.k8s.io']) {
      const res = await app.get(path);
      expect(res.status).toBe(404);
      expect((await body(res)).reason).toBe('NotFound');
    }
  });

  it('answers 406 when no Accept clause can be served', async () => {
    const res = await app.get('/apis', { Accept: 'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList' });
    expect(res.status).toBe(406);
    expect((await body(res)).message).toContain('only the following media types are accepted: application/json');
    expect((await app.get('/api/v1', { Accept: v2Type })).status).toBe(406);
  });

  it('publishes the address the request reached when none is configured', async () => {
    const local = await startTestApp(discoveryEndpoints({ naming: platform, kinds: testKinds }));
    try {
      const doc = await body(await local.get('/api'));
      expect(doc.serverAddressByClientCIDRs[0].serverAddress).toBe(local.url.replace('http://', ''));
    } finally {
      await local.close();
    }
  });

  it('rebuilds the documents when the kinds array changes', async () => {
    let kinds = testKinds.slice(0, 2);
    const dyn = await startTestApp(discoveryEndpoints({ naming: k8s, kinds: () => kinds }));
    try {
      expect((await body(await dyn.get('/apis'))).groups).toEqual([]);
      kinds = [...testKinds];
      expect((await body(await dyn.get('/apis'))).groups.map((g: { name: string }) => g.name)).toEqual(['apps', 'certificates.k8s.io']);
    } finally {
      await dyn.close();
    }
  });
});
