/**
 * Issue 14, item 6: a value of the wrong JSON type in a built-in kind is a decoding error, 400 BadRequest
 * in Kubernetes' words, on create, update, patch and status writes, and changes nothing; schema rule
 * violations stay 422; custom resources keep 422 for both (they are decoded as unstructured JSON).
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api);
  });

  const cms = () => `/api/v1/namespaces/${ns}/configmaps`;

  it.each([
    ['a string for a boolean', { immutable: 'yes' }, 'cannot unmarshal string into Go struct field ConfigMap.immutable of type bool'],
    ['a number for a string map value', { data: { a: 1 } }, 'cannot unmarshal number into Go struct field ConfigMap.data of type string'],
    ['an array for a map', { data: ['a'] }, 'cannot unmarshal array into Go struct field ConfigMap.data of type map[string]string'],
    ['an object for a string in metadata', { metadata: { generateName: { a: 1 } } }, 'cannot unmarshal object into Go struct field ConfigMap.metadata.generateName of type string'],
  ])('create with %s: 400, nothing stored', async (_what, fields, text) => {
    const name = uniqueName('cm');
    const res = await api.request('POST', cms(), { body: { apiVersion: 'v1', kind: 'ConfigMap', ...fields, metadata: { name, ...(fields as { metadata?: object }).metadata } } });
    expect(res.status).toBe(400);
    expect(res.json()).toEqual(expect.objectContaining({ kind: 'Status', reason: 'BadRequest', code: 400, message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: ${text}` }));
    expect((await api.request('GET', `${cms()}/${name}`)).status).toBe(404);
  });

  it('an int32 out of range is a decoding error too; a rule violation stays 422', async () => {
    const leases = `/apis/coordination.platform.io/v1/namespaces/${ns}/leases`;
    const big = await api.request('POST', leases, { body: { apiVersion: 'coordination.platform.io/v1', kind: 'Lease', metadata: { name: 'big' }, spec: { leaseDurationSeconds: 2 ** 40 } } });
    expect([big.status, big.json().message]).toEqual([400, 'Lease in version "v1" cannot be handled as a Lease: json: cannot unmarshal number 1099511627776 into Go struct field Lease.spec.leaseDurationSeconds of type int32']);
    const negative = await api.request('POST', leases, { body: { apiVersion: 'coordination.platform.io/v1', kind: 'Lease', metadata: { name: 'neg' }, spec: { leaseDurationSeconds: -1 } } });
    expect([negative.status, negative.json().details.causes.map((c: { field: string }) => c.field)]).toEqual([422, ['spec.leaseDurationSeconds']]);
  });

  it('update, patch and status writes: 400, the object unchanged', async () => {
    const name = uniqueName('ns');
    expect((await api.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } })).status).toBe(201);
    const before = (await api.request('GET', `/api/v1/namespaces/${name}`)).json();
    const put = await api.request('PUT', `/api/v1/namespaces/${name}`, { body: { ...before, metadata: { ...before.metadata, finalizers: 'x' } } });
    expect([put.status, put.json().message]).toEqual([400, 'Namespace in version "v1" cannot be handled as a Namespace: json: cannot unmarshal string into Go struct field Namespace.metadata.finalizers of type []string']);
    const patch = await api.request('PATCH', `/api/v1/namespaces/${name}`, { body: { metadata: { labels: { a: true } } } });
    expect([patch.status, patch.json().message]).toEqual([400, 'Namespace in version "v1" cannot be handled as a Namespace: json: cannot unmarshal bool into Go struct field Namespace.metadata.labels of type string']);
    const status = await api.request('PATCH', `/api/v1/namespaces/${name}/status`, { body: { status: { phase: 1 } } });
    expect([status.status, status.json().message]).toEqual([400, 'Namespace in version "v1" cannot be handled as a Namespace: json: cannot unmarshal number into Go struct field Namespace.status.phase of type string']);
    expect((await api.request('GET', `/api/v1/namespaces/${name}`)).json().metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });
});
