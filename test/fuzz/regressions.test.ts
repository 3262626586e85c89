/**
 * One case per server fault the fuzzer (test/fuzz/fuzz.test.ts) found: each was a 500 before its fix, and
 * must stay a clear answer. The request is the shrunk form of the fuzzer's finding.
 */
import { backends, createNamespace, stopBackends, type TestApi } from '../http/helpers.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describeEtcd } from '../harness/describe-etcd.js';
import { eventually } from '../server/helpers.js';

const [memory] = backends().filter((b) => b.name === 'memory');
let api: TestApi;
let ns: string;
beforeAll(async () => {
  api = await memory!.start();
  ns = await createNamespace(api);
});
afterAll(() => stopBackends([memory!]));

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' }, ...extra });

describe('a warning quoting a client-chosen field name', () => {
  it('escapes control and non-ASCII characters as Go quotes them (was ERR_INVALID_CHAR, 500)', async () => {
    const body = JSON.stringify(cm('warn-1')).replace('"data"', '"x\\u0000\\n\\ud83d\\ude00é\\ude00":1,"data"');
    const res = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body, query: { fieldValidation: 'Warn' } });
    expect(res.status).toBe(201);
    expect(res.warnings()).toEqual(['299 - "unknown field \\"x\\x00\\n\\U0001f600\\u00e9\\ufffd\\""']);
  });
});

describe('metadata that is not an object', () => {
  it.each([['"x"', 'string'], ['[1]', 'array'], ['7', 'number'], ['true', 'bool']])('metadata %s is 400 on create and update (was a TypeError, 500)', async (meta, type) => {
    const create = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":${meta},"data":{}}` });
    expect(create.status).toBe(400);
    expect(create.json().message).toBe(`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal ${type} into Go struct field ConfigMap.metadata of type v1.ObjectMeta`);
    const update = await api.request('PUT', `/api/v1/namespaces/${ns}/configmaps/meta`, { body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":${meta},"data":{}}` });
    expect(update.status).toBe(400);
  });

  it('null metadata is skipped as Go skips it: the name comes from the URL', async () => {
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('null-meta') })).status).toBe(201);
    const res = await api.request('PUT', `/api/v1/namespaces/${ns}/configmaps/null-meta`, { body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":null,"data":{}}' });
    expect(res.status).toBe(200);
    expect(res.json().metadata.name).toBe('null-meta');
  });
});

describe('a strategic merge patch kube answers with a 500', () => {
  it.each([
    [{ $patch: 'bogus' }, 'unknown patch type: bogus in map: map[$patch:bogus]'],
    [{ $patch: 'merge', data: { a: 'c' } }, 'unknown patch type: merge in map: map[$patch:merge data:map[a:c]]'],
  ])('%j is 400 with kube\'s message', async (patch, message) => {
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('smp-1') })).status).toBeLessThan(300);
    const res = await api.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/smp-1`, { body: patch, headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message });
    await api.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/smp-1`);
  });
});

describe('YAML 1.1 types that are not JSON', () => {
  it('!!binary, timestamps, !!set and !!omap decode to strings, maps and lists (!!binary was a Uint8Array: 500)', async () => {
    const body = [
      'apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: yaml-types', '  annotations:', '    b: !!binary aGVsbG8=',
      '    t: 2001-12-14t21:59:43.10-05:00', 'data:', '  a: x',
    ].join('\n');
    const res = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body, headers: { 'Content-Type': 'application/yaml' } });
    expect(res.status).toBe(201);
    expect(res.json().metadata.annotations).toEqual({ b: 'aGVsbG8=', t: '2001-12-14t21:59:43.10-05:00' });
    const set = await api.request('PUT', `/api/v1/namespaces/${ns}/configmaps/yaml-types`, {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: yaml-types}\ndata: !!set {x}\nbinaryData: !!omap [{k: aGk=}]\n',
      headers: { 'Content-Type': 'application/yaml' },
    });
    // A set is a map of nulls (a ConfigMap's data values must be strings): a 4xx, never a 500.
    expect(set.status).toBeGreaterThanOrEqual(400);
    expect(set.status).toBeLessThan(500);
  });
});

describe('a conversion the verb cannot answer', () => {
  const PARTIAL = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
  const PARTIAL_LIST = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';

  it('is 406 before a create writes anything (it was 406 after the write: an unacknowledged object)', async () => {
    const res = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('pom-1'), headers: { Accept: PARTIAL_LIST } });
    expect(res.status).toBe(406);
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/pom-1`)).status).toBe(404);
  });

  it('is 406 before a deletecollection deletes anything; fitting conversions still work', async () => {
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('pom-2', { metadata: { name: 'pom-2', labels: { pom: 'x' } } }) })).status).toBe(201);
    const refused = await api.request('DELETE', `/api/v1/namespaces/${ns}/configmaps`, { query: { labelSelector: 'pom=x' }, headers: { Accept: PARTIAL } });
    expect(refused.status).toBe(406);
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/pom-2`)).status).toBe(200);
    const update = await api.request('PUT', `/api/v1/namespaces/${ns}/configmaps/pom-2`, { body: cm('pom-2', { data: { a: 'changed' } }), headers: { Accept: PARTIAL_LIST } });
    expect(update.status).toBe(406);
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/pom-2`)).json().data).toEqual({ a: 'b' });
    const fits = await api.request('PUT', `/api/v1/namespaces/${ns}/configmaps/pom-2`, { body: cm('pom-2', { data: { a: 'c' } }), headers: { Accept: PARTIAL } });
    expect(fits.status).toBe(200);
    expect(fits.json()).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'pom-2' } });
  });

  it('an invalid includeObject of a Table is 400 before a write (a PUT wrote, then answered 400)', async () => {
    const res = await api.request('PUT', `/api/v1/namespaces/${ns}/configmaps/pom-2`, {
      body: cm('pom-2', { data: { a: 'table' } }), query: { includeObject: 'x' }, headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
    });
    expect(res.status).toBe(400);
    expect(res.json().message).toBe('Unable to convert to Table as requested: includeObject: Invalid value: "x": must be \'Metadata\', \'Object\', \'None\', or empty');
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/pom-2`)).json().data).toEqual({ a: 'c' });
  });
});

describe('a CustomResourceDefinition schema with a null property', () => {
  it('is 422 as in Go, where null is an empty schema without a type (the default check read a null node: 500)', async () => {
    const crd = {
      apiVersion: 'apiextensions.platform.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'things.null.example.com' },
      spec: {
        group: 'null.example.com', scope: 'Namespaced', names: { plural: 'things', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' }, odd: null } } } } } }],
      },
    };
    const res = await api.request('POST', '/apis/apiextensions.platform.io/v1/customresourcedefinitions', { body: crd });
    expect(res.status).toBe(422);
    expect(res.json().message).toBe('CustomResourceDefinition.apiextensions.platform.io "things.null.example.com" is invalid: '
      + 'spec.validation.openAPIV3Schema.properties[spec].properties[odd].type: Required value: must not be empty for specified object fields');
  });
});

describeEtcd('an object larger than etcd takes (etcd)', () => {
  const [etcd] = backends().filter((b) => b.name === 'etcd');
  let big: TestApi;
  beforeAll(async () => {
    big = await etcd!.start();
  });
  afterAll(() => stopBackends([etcd!]));

  it('is 413, not 503 "storage backend unavailable": past etcd\'s request limit and past its gRPC receive limit', async () => {
    // CSR names are any path segment, so a long one is stored: it is in the key and in the value.
    const spec = (parseYaml(readFileSync(join(__dirname, '..', 'fixtures', 'kinds', 'certificates.certificatesigningrequests.yaml'), 'utf8')) as { object: { spec: unknown } }).object.spec;
    const csr = (name: string) => ({ apiVersion: 'certificates.platform.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec });
    const path = '/apis/certificates.platform.io/v1/certificatesigningrequests';
    // 2 x 0.8 MB: past etcd's 1.5 MiB --max-request-bytes ("etcdserver: request is too large").
    const value = await big.request('POST', path, { body: csr('v'.repeat(800_000)) });
    expect(value.status).toBe(413);
    expect(value.json()).toMatchObject({ reason: 'RequestEntityTooLarge', message: 'Request entity too large: the object is larger than the storage backend accepts' });
    // 2 x 1.2 MB: past etcd's gRPC receive limit (2 MiB): RESOURCE_EXHAUSTED before etcd sees it.
    const grpc = await big.request('POST', path, { body: csr('g'.repeat(1_200_000)) });
    expect(grpc.status).toBe(413);
    // Nothing was stored, and the server still serves.
    expect((await big.request('GET', path)).json().items).toEqual([]);
  });
});

describe('an escaped lone surrogate in a JSON body', () => {
  it('becomes U+FFFD as Go decodes it, so a name matches its own key (it kept the surrogate: the object and its key differed)', async () => {
    const body = `{"apiVersion":"rbac.platform.io/v1","kind":"Role","metadata":{"name":"a\\ud800b","labels":{"x":"y"},"annotations":{"k":"v\\udc00"}},"rules":[]}`;
    const res = await api.request('POST', `/apis/rbac.platform.io/v1/namespaces/${ns}/roles`, { body });
    expect(res.status).toBe(201);
    expect(res.json().metadata).toMatchObject({ name: 'a\ufffdb', annotations: { k: 'v\ufffd' } });
    const got = await api.request('GET', `/apis/rbac.platform.io/v1/namespaces/${ns}/roles/${encodeURIComponent('a\ufffdb')}`);
    expect(got.status).toBe(200);
    expect(got.json().metadata.name).toBe('a\ufffdb');
  });
});

describe('a /watch/ path with a method other than GET', () => {
  it('is 405 at once (it streamed a watch that never ended)', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND']) {
      const res = await api.request(method, `/api/v1/watch/namespaces/${ns}/configmaps`, { body: cm('w') });
      expect({ method, status: res.status }).toEqual({ method, status: 405 });
    }
    const get = await api.request('GET', `/api/v1/watch/namespaces/${ns}/configmaps`, { query: { timeoutSeconds: '1' } });
    expect(get.status).toBe(200);
  });
});

describe('a query pair with a malformed percent-escape', () => {
  it('is dropped as Go drops it: `watch=false%zz` on an object is a GET (it was a watch that never ended)', async () => {
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('escaped') })).status).toBe(201);
    const got = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/escaped?watch=false%zz`, { headers: { Accept: 'application/json;stream=watch' } });
    expect(got.status).toBe(200);
    expect(got.json()).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'escaped' } });
    // The well-formed pairs around it still count; a pair with ';' goes too (Go refuses semicolons): the
    // selector `a;b` would be a 400.
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('escaped-2') })).status).toBe(201);
    const list = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps?limit=1&x=%&labelSelector=a;b`);
    expect(list.status).toBe(200);
    expect(list.json().items).toHaveLength(1);
    expect(list.json().metadata.continue).toEqual(expect.any(String));
  });
});

describe('a custom resource whose metadata members have the wrong type', () => {
  it('is 400 as a decoding error on create, update and apply (ObjectMeta validation iterated a number: 500)', async () => {
    const crd = {
      apiVersion: 'apiextensions.platform.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.meta.example.com' },
      spec: {
        group: 'meta.example.com', scope: 'Namespaced', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
      },
    };
    expect((await api.request('POST', '/apis/apiextensions.platform.io/v1/customresourcedefinitions', { body: crd })).status).toBe(201);
    const path = `/apis/meta.example.com/v1/namespaces/${ns}/gadgets`;
    await eventually(async () => (await api.request('GET', path)).status === 200, 'gadgets served', 20_000);
    const gadget = (meta: Record<string, unknown>) => ({ apiVersion: 'meta.example.com/v1', kind: 'Gadget', metadata: { name: 'g', ...meta }, spec: {} });
    const refused = await api.request('POST', path, { body: gadget({ finalizers: 42 }) });
    expect(refused.status).toBe(400);
    expect(refused.json().message).toContain('json: cannot unmarshal number into Go struct field Gadget.metadata.finalizers of type []string');
    expect((await api.request('POST', path, { body: gadget({}) })).status).toBe(201);
    const stored = (await api.request('GET', `${path}/g`)).json();
    for (const meta of [{ finalizers: 42 }, { labels: 'x' }, { ownerReferences: { a: 1 } }]) {
      const put = await api.request('PUT', `${path}/g`, { body: { ...stored, metadata: { ...stored.metadata, ...meta } } });
      expect({ meta, status: put.status }).toEqual({ meta, status: 400 });
    }
    const apply = await api.request('PATCH', `${path}/g`, {
      query: { fieldManager: 'fuzz', force: 'true' },
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: 'apiVersion: meta.example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  finalizers: 42\nspec: {}\n',
    });
    expect(apply.status).toBe(400);
    expect((await api.request('GET', `${path}/g`)).json().metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
  });
});
