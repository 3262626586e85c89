/**
 * The scale sub-resource and the deprecated-version Warning of custom resources over real HTTPS: a kind
 * built by customResourceKinds from a small CRD (status + scale sub-resources; one deprecated version with
 * Kubernetes' default text, one with its own), served by apiEndpoints (set `widgets.example.com`, keys under
 * `example.com/widgets`, validation style crd) behind a started server in k8s.io mode. Protobuf Scales are
 * read with an independent protobufjs description; `kubectl scale` runs against the server.
 */
import { kubectlAsync as kubectl } from './kubectl-async.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import type { KubeObject } from '../../apiserver/api/object.js';
import { apiEndpoints } from '../../apiserver/endpoints/api-endpoints.js';
import { naming } from '../../apiserver/naming/naming.js';
import { customResourceKinds, CUSTOM_RESOURCE_VALIDATION_STYLE } from '../../apiserver/registry/kinds/apiextensions/custom-resource-kinds.js';
import { builtinKinds } from '../../apiserver/registry/kinds/index.js';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { openStore } from '../../storage/open-store.js';
import type { Store } from '../../storage/interface.js';
import { eventually, startTestServer, stopAll, tempDir } from '../server/helpers.js';
import { apiRequest, createNamespace, type ApiResponse, type TestApi } from './helpers.js';
import { readFileSync } from 'node:fs';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';

const K8S = naming('k8s.io');

const versionSchema = {
  openAPIV3Schema: {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { replicas: { type: 'integer' }, color: { type: 'string' } } },
      status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
    },
  },
};
const subresources = {
  status: {},
  scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
};
const crd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: versionSchema, subresources },
      { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: versionSchema, subresources },
      { name: 'v1alpha1', served: true, storage: false, deprecated: true, deprecationWarning: 'widgets v1alpha1 go away soon', schema: versionSchema },
    ],
  },
};

/** An independent description of the Scale wire form (autoscaling/v1 generated.proto numbers). */
const proto = protobuf.parse(`
  syntax = "proto2"; package t;
  message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
  message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
  message ObjectMeta { optional string name = 1; optional string namespace = 3; optional string uid = 5; optional string resourceVersion = 6; }
  message ScaleSpec { optional int32 replicas = 1; }
  message ScaleStatus { optional int32 replicas = 1; optional string selector = 2; }
  message Scale { optional ObjectMeta metadata = 1; optional ScaleSpec spec = 2; optional ScaleStatus status = 3; }
`).root;
const PB = 'application/vnd.kubernetes.protobuf';

let store: Store;
let server: RunningServer;
let api: TestApi;
let ns: string;
let counter = 0;

beforeAll(async () => {
  const dataDir = tempDir('scale-test-');
  store = await openStore({ backend: 'memory', dataDir: join(dataDir, 'store') });
  const served = apiEndpoints({ store, naming: K8S, kinds: builtinKinds(), prefix: '/registry' });
  served.resources.serveSet('widgets.example.com', customResourceKinds(crd, K8S), {
    resourcePrefix: 'example.com/widgets',
    validationStyle: CUSTOM_RESOURCE_VALIDATION_STYLE,
  });
  server = await startTestServer({ dataDir, groupDomain: 'k8s.io' }, { store, api: served.filter });
  const token = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
  const base = { url: server.url, ca: server.caPem!, token };
  api = { server, url: server.url, token, ca: server.caPem!, request: (m, p, o) => apiRequest(base, m, p, o) };
  ns = await createNamespace(api);
});

afterAll(async () => {
  await stopAll();
  await store.close();
});

const widgets = (version = 'v1') => `/apis/example.com/${version}/namespaces/${ns}/widgets`;

/** Creates a Widget (and its status, when given) and returns its name. */
async function widget(spec: object, status?: object): Promise<string> {
  counter += 1;
  const name = `w${counter}`;
  const created = await api.request('POST', widgets(), { body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec }, query: { fieldManager: 'creator' } });
  expect(created.status).toBe(201);
  if (status !== undefined) {
    const s = await api.request('PATCH', `${widgets()}/${name}/status`, { body: { status } });
    expect(s.status).toBe(200);
  }
  return name;
}

const getWidget = async (name: string): Promise<KubeObject> => (await api.request('GET', `${widgets()}/${name}`)).json();

function expectStatus(res: ApiResponse, code: number, message?: string): void {
  expect({ status: res.status, body: res.json() }).toMatchObject({ status: code, body: { kind: 'Status', code, ...(message === undefined ? {} : { message }) } });
}

describe('GET scale', () => {
  it('builds the Scale from the paths and the parent metadata', async () => {
    const name = await widget({ replicas: 2, color: 'red' }, { replicas: 1, selector: 'app=w' });
    const parent = await getWidget(name);
    const res = await api.request('GET', `${widgets()}/${name}/scale`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toEqual({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: {
        name, namespace: ns, uid: parent.metadata.uid, resourceVersion: parent.metadata.resourceVersion, creationTimestamp: parent.metadata.creationTimestamp,
      },
      spec: { replicas: 2 },
      status: { replicas: 1, selector: 'app=w' },
    });
  });

  it('status replicas absent read as 0, no selector; spec replicas absent is 500 as upstream', async () => {
    const name = await widget({ replicas: 0 });
    const res = await api.request('GET', `${widgets()}/${name}/scale`);
    expect(res.json()).toMatchObject({ spec: {}, status: { replicas: 0 } });
    expect(res.json().status.selector).toBeUndefined();
    const bare = await widget({ color: 'blue' });
    expectStatus(await api.request('GET', `${widgets()}/${bare}/scale`), 500, 'Internal error occurred: the spec replicas field ".spec.replicas" does not exist');
  });

  it('a missing parent is 404 on every verb; other verbs are 405', async () => {
    for (const [method, body] of [['GET', undefined], ['PUT', { spec: { replicas: 1 } }], ['PATCH', { spec: { replicas: 1 } }]] as const) {
      expectStatus(await api.request(method, `${widgets()}/nope/scale`, { body }), 404, 'widgets.example.com "nope" not found');
    }
    const name = await widget({ replicas: 1 });
    expect((await api.request('DELETE', `${widgets()}/${name}/scale`)).status).toBe(405);
  });

  it('answers in protobuf (autoscaling/v1 envelope) and YAML', async () => {
    const name = await widget({ replicas: 4 }, { replicas: 3, selector: 'a=b' });
    const res = await api.request('GET', `${widgets()}/${name}/scale`, { headers: { Accept: PB } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(PB);
    expect(res.raw.subarray(0, 4).equals(Buffer.from([0x6b, 0x38, 0x73, 0x00]))).toBe(true);
    const u = proto.lookupType('t.Unknown').decode(res.raw.subarray(4)) as any;
    expect(u.typeMeta).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale' });
    const scale = proto.lookupType('t.Scale').toObject(proto.lookupType('t.Scale').decode(u.raw)) as any;
    expect(scale).toMatchObject({ metadata: { name, namespace: ns }, spec: { replicas: 4 }, status: { replicas: 3, selector: 'a=b' } });
    const yaml = await api.request('GET', `${widgets()}/${name}/scale`, { headers: { Accept: 'application/yaml' } });
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(yaml.text()).toContain('kind: Scale');
  });
});

describe('writes through scale', () => {
  it('PUT writes spec replicas into the parent (generation bumped, managedFields under sub-resource scale)', async () => {
    const name = await widget({ replicas: 1, color: 'red' });
    const res = await api.request('PUT', `${widgets()}/${name}/scale`, {
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas: 5 } },
      query: { fieldManager: 'scaler' },
    });
    expect(res.status).toBe(200);
    const parent = await getWidget(name);
    expect(res.json()).toMatchObject({ kind: 'Scale', spec: { replicas: 5 }, metadata: { resourceVersion: parent.metadata.resourceVersion } });
    expect(parent.spec).toEqual({ replicas: 5, color: 'red' });
    expect(parent.metadata.generation).toBe(2);
    const entries = parent.metadata.managedFields!;
    expect(entries.find((e) => e.manager === 'scaler')).toMatchObject({
      operation: 'Update', apiVersion: 'example.com/v1', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    // The creator no longer owns the replicas it set.
    expect(entries.find((e) => e.manager === 'creator')!.fieldsV1).toEqual({ 'f:spec': { '.': {}, 'f:color': {} } });
  });

  it('merge patch and JSON patch apply to the Scale; strategic merge patch is 415 for custom resources', async () => {
    const name = await widget({ replicas: 1 });
    const merge = await api.request('PATCH', `${widgets()}/${name}/scale`, { body: { spec: { replicas: 3 } } });
    expect(merge.status).toBe(200);
    expect(merge.json().spec).toEqual({ replicas: 3 });
    const json = await api.request('PATCH', `${widgets()}/${name}/scale`, {
      body: [{ op: 'test', path: '/spec/replicas', value: 3 }, { op: 'replace', path: '/spec/replicas', value: 4 }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(json.status).toBe(200);
    expect((await getWidget(name)).spec).toEqual({ replicas: 4 });
    const smp = await api.request('PATCH', `${widgets()}/${name}/scale`, { body: { spec: { replicas: 9 } }, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    expect(smp.status).toBe(415);
  });

  it('a parent without spec replicas: a patch that sets them works, one that leaves them is 400', async () => {
    const name = await widget({ color: 'green' });
    expectStatus(await api.request('PATCH', `${widgets()}/${name}/scale`, { body: { metadata: { labels: { a: 'b' } } } }), 400,
      'the spec replicas field ".spec.replicas" cannot be empty');
    const res = await api.request('PATCH', `${widgets()}/${name}/scale`, { body: { spec: { replicas: 2 } } });
    expect(res.status).toBe(200);
    expect((await getWidget(name)).spec).toEqual({ color: 'green', replicas: 2 });
  });

  it('a stale resourceVersion is 409; the current one is honoured', async () => {
    const name = await widget({ replicas: 1 });
    const rv = (await getWidget(name)).metadata.resourceVersion!;
    expect((await api.request('PATCH', `${widgets()}/${name}/scale`, { body: { spec: { replicas: 2 } } })).status).toBe(200);
    const stale = await api.request('PUT', `${widgets()}/${name}/scale`, { body: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name, resourceVersion: rv }, spec: { replicas: 7 } } });
    expectStatus(stale, 409, `Operation cannot be fulfilled on widgets.example.com "${name}": the object has been modified; please apply your changes to the latest version and try again`);
    const current = (await getWidget(name)).metadata.resourceVersion!;
    const ok = await api.request('PUT', `${widgets()}/${name}/scale`, { body: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name, resourceVersion: current }, spec: { replicas: 7 } } });
    expect(ok.status).toBe(200);
    expect((await getWidget(name)).spec).toEqual({ replicas: 7 });
  });

  it('negative replicas are the custom resource validation 422; wrong body kind or name is 400', async () => {
    const name = await widget({ replicas: 1 });
    const res = await api.request('PATCH', `${widgets()}/${name}/scale`, { body: { spec: { replicas: -1 } } });
    expectStatus(res, 422, `Widget.example.com "${name}" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer`);
    expect(res.json().details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: -1: should be a non-negative integer', field: '.spec.replicas' }]);
    expect((await api.request('PUT', `${widgets()}/${name}/scale`, { body: { kind: 'Widget', apiVersion: 'example.com/v1', metadata: { name }, spec: { replicas: 2 } } })).status).toBe(400);
    expect((await api.request('PUT', `${widgets()}/${name}/scale`, { body: { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'other' }, spec: { replicas: 2 } } })).status).toBe(400);
    // A replicas value of the wrong type in the Scale is refused before the parent is touched.
    const typed = await api.request('PATCH', `${widgets()}/${name}/scale`, { body: { spec: { replicas: 'many' } } });
    expect(typed.status).toBe(422);
    expect((await getWidget(name)).spec).toEqual({ replicas: 1 });
  });

  it('the parent validates its scale paths on its own writes too (status replicas through /status)', async () => {
    const name = await widget({ replicas: 1 });
    const res = await api.request('PATCH', `${widgets()}/${name}/status`, { body: { status: { replicas: -3 } } });
    expectStatus(res, 422, `Widget.example.com "${name}" is invalid: .status.replicas: Invalid value: -3: should be a non-negative integer`);
    const main = await api.request('PATCH', `${widgets()}/${name}`, { body: { spec: { replicas: -2 } } });
    expect(main.status).toBe(422);
  });

  it('dryRun=All answers the would-be Scale and stores nothing', async () => {
    const name = await widget({ replicas: 1 });
    const before = await getWidget(name);
    const res = await api.request('PATCH', `${widgets()}/${name}/scale`, { body: { spec: { replicas: 9 } }, query: { dryRun: 'All' } });
    expect(res.status).toBe(200);
    expect(res.json().spec).toEqual({ replicas: 9 });
    expect(await getWidget(name)).toEqual(before);
  });

  it('server-side apply of a Scale: conflicts with the replicas owner, force takes them, managedFields on the parent', async () => {
    const name = await widget({ replicas: 1, color: 'red' });
    const config = `apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: ${name}\nspec:\n  replicas: 6\n`;
    const headers = { 'Content-Type': 'application/apply-patch+yaml' };
    const conflict = await api.request('PATCH', `${widgets()}/${name}/scale`, { body: config, headers, query: { fieldManager: 'hpa' } });
    expect(conflict.status).toBe(409);
    expect(conflict.json().message).toContain('conflict with "creator"');
    const forced = await api.request('PATCH', `${widgets()}/${name}/scale`, { body: config, headers, query: { fieldManager: 'hpa', force: 'true' } });
    expect(forced.status).toBe(200);
    expect(forced.json().spec).toEqual({ replicas: 6 });
    const parent = await getWidget(name);
    expect(parent.spec).toEqual({ replicas: 6, color: 'red' });
    const entries = parent.metadata.managedFields!;
    expect(entries.find((e) => e.manager === 'hpa')).toMatchObject({
      operation: 'Apply', apiVersion: 'example.com/v1', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } },
    });
    expect(entries.find((e) => e.manager === 'creator')!.fieldsV1).toEqual({ 'f:spec': { '.': {}, 'f:color': {} } });
    // Applying again by the owner is no conflict.
    const again = await api.request('PATCH', `${widgets()}/${name}/scale`, { body: config.replace('6', '8'), headers, query: { fieldManager: 'hpa' } });
    expect(again.status).toBe(200);
    expect((await getWidget(name)).spec).toEqual({ replicas: 8, color: 'red' });
  });
});

describe('discovery and OpenAPI', () => {
  it('legacy and aggregated discovery list widgets/scale as autoscaling/v1 Scale', async () => {
    const list = (await api.request('GET', '/apis/example.com/v1')).json();
    expect(list.resources.find((r: { name: string }) => r.name === 'widgets/scale')).toEqual({
      name: 'widgets/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'],
    });
    expect(list.resources.map((r: { name: string }) => r.name)).toEqual(['widgets', 'widgets/scale', 'widgets/status']);
    const aggregated = await api.request('GET', '/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const group = aggregated.json().items.find((g: { metadata: { name: string } }) => g.metadata.name === 'example.com');
    const v1 = group.versions.find((v: { version: string }) => v.version === 'v1');
    expect(v1.resources[0].subresources).toEqual([
      { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'status', responseKind: { group: 'example.com', version: 'v1', kind: 'Widget' }, verbs: ['get', 'patch', 'update'] },
    ]);
  });

  it('OpenAPI v2 and v3 publish the scale path with the Scale definition', async () => {
    const path = '/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale';
    const v2 = (await api.request('GET', '/openapi/v2')).json();
    expect(Object.keys(v2.paths[path])).toEqual(expect.arrayContaining(['get', 'put', 'patch', 'parameters']));
    expect(v2.paths[path].get.operationId).toBe('readExampleComV1NamespacedWidgetScale');
    expect(v2.paths[path].get.responses['200'].schema).toEqual({ $ref: '#/definitions/io.k8s.api.autoscaling.v1.Scale' });
    expect(v2.paths[path].patch.consumes).not.toContain('application/strategic-merge-patch+json');
    expect(v2.definitions['io.k8s.api.autoscaling.v1.Scale']['x-kubernetes-group-version-kind']).toEqual([{ group: 'autoscaling', version: 'v1', kind: 'Scale' }]);
    const root = (await api.request('GET', '/openapi/v3')).json();
    const v3 = (await api.request('GET', root.paths['apis/example.com/v1'].serverRelativeURL)).json();
    expect(v3.paths[path].put['x-kubernetes-group-version-kind']).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(v3.components.schemas['io.k8s.api.autoscaling.v1.Scale'].properties.spec).toBeDefined();
  });
});

describe('deprecated versions', () => {
  it('every request of a deprecated version warns (default text names the newer version), errors too', async () => {
    const list = await api.request('GET', widgets('v1beta1'));
    expect(list.status).toBe(200);
    expect(list.warnings()).toEqual(['299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"']);
    const missing = await api.request('GET', `${widgets('v1beta1')}/nope/scale`);
    expect(missing.status).toBe(404);
    expect(missing.warnings()).toEqual(['299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"']);
    const own = await api.request('GET', widgets('v1alpha1'));
    expect(own.warnings()).toEqual(['299 - "widgets v1alpha1 go away soon"']);
    expect((await api.request('GET', widgets('v1'))).warnings()).toEqual([]);
  });
});

describe('kubectl scale', () => {
  it('scales a custom resource through the scale sub-resource', async () => {
    const name = await widget({ replicas: 1 });
    const home = mkdtempSync(join(tmpdir(), 'scale-kubectl-'));
    try {
      const out = await kubectl(['--kubeconfig', server.kubeconfigPath!, '-n', ns, 'scale', `widgets.example.com/${name}`, '--replicas=3'], home);
      expect(out).toMatchObject({ status: 0, stdout: `widget.example.com/${name} scaled\n` });
      expect((await getWidget(name)).spec).toEqual({ replicas: 3 });
      const current = await kubectl(['--kubeconfig', server.kubeconfigPath!, '-n', ns, 'scale', `widgets.example.com/${name}`, '--current-replicas=3', '--replicas=5'], home);
      expect(current.status).toBe(0);
      expect((await getWidget(name)).spec).toEqual({ replicas: 5 });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('through the CRD controller of a started server (k8s.io mode)', () => {
  it('a definition with a scale sub-resource serves /scale once established; kubectl scale and the deprecation warning work', async () => {
    const dir = tempDir('scale-e2e-');
    const full = await startTestServer({ dataDir: dir, groupDomain: 'k8s.io' });
    const token = readFileSync(adminTokenPath(dir), 'utf8').trim();
    const base = { url: full.url, ca: full.caPem!, token };
    const req = (m: string, p: string, o = {}) => apiRequest(base, m, p, o);
    const created = await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd });
    expect(created.status).toBe(201);
    await eventually(async () => (await req('GET', '/apis/example.com/v1/widgets')).status === 200, 'widgets served', 10_000);
    const space = `e2e-${process.pid}`;
    expect((await req('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: space } } })).status).toBe(201);
    const path = `/apis/example.com/v1/namespaces/${space}/widgets`;
    expect((await req('POST', path, { body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a' }, spec: { replicas: 1 } } })).status).toBe(201);
    const home = mkdtempSync(join(tmpdir(), 'scale-kubectl-'));
    try {
      const out = await kubectl(['--kubeconfig', full.kubeconfigPath!, '-n', space, 'scale', 'widget/a', '--replicas=4'], home);
      expect(out).toMatchObject({ status: 0, stdout: 'widget.example.com/a scaled\n' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    const scale = await req('GET', `${path}/a/scale`);
    expect(scale.json()).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 4 }, status: { replicas: 0 } });
    const old = await req('GET', `/apis/example.com/v1beta1/namespaces/${space}/widgets/a/scale`);
    expect(old.status).toBe(200);
    expect(old.json().spec).toEqual({ replicas: 4 });
    expect(old.warnings()).toEqual(['299 - "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"']);
  }, 60_000);
});
