/**
 * Namespace lifecycle over HTTP on both backends: the bootstrap namespaces, creating into a missing
 * namespace (404) or a terminating one (403 NamespaceTerminating), deleting a namespace (200 with the
 * Terminating object), the in-server controller emptying it and then removing it, an object's finalizer
 * holding the namespace until it is patched away, and the namespaces that may not be deleted.
 */
import { eventually } from '../server/helpers.js';
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type ApiResponse, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

function expectStatus(res: ApiResponse, code: number, reason: string, message: string): any {
  expect(res.status).toBe(code);
  const body = res.json();
  expect(body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message });
  return body;
}

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { k: 'v' } });

describeBackends(all, (b) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await b.start();
  });

  const gone = (path: string) => async () => (await api.request('GET', path)).status === 404;

  it.each(['default', 'platform-system', 'platform-public'])('%s exists after start, Active, with the kubernetes finalizer', async (name) => {
    const res = await api.request('GET', `/api/v1/namespaces/${name}`);
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name, uid: expect.any(String), creationTimestamp: expect.any(String) },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  });

  it('a created namespace is Active with the kubernetes finalizer', async () => {
    const name = uniqueName('ns');
    const res = await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } });
    expect(res.status).toBe(201);
    expect(res.json()).toMatchObject({ kind: 'Namespace', metadata: { name }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  });

  it.each([
    ['configmaps', configMap('c')],
    ['secrets', { metadata: { name: 's' } }],
    ['serviceaccounts', { metadata: { name: 'sa' } }],
  ])('creating %s in a missing namespace is 404 namespaces "x" not found', async (resource, body) => {
    const missing = uniqueName('missing');
    const res = await api.request('POST', `/api/v1/namespaces/${missing}/${resource}`, { body });
    const status = expectStatus(res, 404, 'NotFound', `namespaces "${missing}" not found`);
    expect(status.details).toEqual({ name: missing, kind: 'namespaces' });
  });

  it('creating in a missing namespace persists nothing', async () => {
    const missing = uniqueName('missing');
    await api.request('POST', `/api/v1/namespaces/${missing}/configmaps`, { body: configMap('c') });
    const list = await api.request('GET', '/api/v1/configmaps', { query: { fieldSelector: `metadata.namespace=${missing}` } });
    expect(list.json().items).toEqual([]);
  });

  it('deleting a namespace answers 200 with the object Terminating; new content is 403; its content and then the namespace go', async () => {
    const ns = await createNamespace(api);
    await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c1') });
    await api.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 's1' }, stringData: { a: 'b' } } });
    await api.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name: 'sa1' } } });
    await api.request('POST', `/api/v1/namespaces/${ns}/podtemplates`, {
      body: { metadata: { name: 't1' }, template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    });

    // kubectl's delete body.
    const del = await api.request('DELETE', `/api/v1/namespaces/${ns}`, { body: { propagationPolicy: 'Background' } });
    expect(del.status).toBe(200);
    const marked = del.json();
    expect(marked).toMatchObject({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: ns, deletionTimestamp: expect.any(String) }, status: { phase: 'Terminating' } });
    expect(Number.isNaN(Date.parse(marked.metadata.deletionTimestamp))).toBe(false);

    const create = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('late') });
    const forbidden = expectStatus(create, 403, 'Forbidden', `configmaps "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`);
    expect(forbidden.details).toMatchObject({
      name: 'late',
      kind: 'configmaps',
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }],
    });

    for (const r of ['configmaps/c1', 'secrets/s1', 'serviceaccounts/sa1', 'podtemplates/t1']) {
      await eventually(gone(`/api/v1/namespaces/${ns}/${r}`), `${r} removed from ${ns}`);
    }
    await eventually(gone(`/api/v1/namespaces/${ns}`), `namespace ${ns} removed`);
    expectStatus(await api.request('GET', `/api/v1/namespaces/${ns}`), 404, 'NotFound', `namespaces "${ns}" not found`);
    // The name is free again.
    expect((await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
  });

  it('a namespace being deleted is Terminating in get and list until it goes', async () => {
    const ns = await createNamespace(api);
    await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('held', { finalizers: ['example.com/hold'] }) });
    expect((await api.request('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    const got = (await api.request('GET', `/api/v1/namespaces/${ns}`)).json();
    expect(got.status.phase).toBe('Terminating');
    expect(got.metadata.deletionTimestamp).toEqual(expect.any(String));
    const listed = (await api.request('GET', '/api/v1/namespaces', { query: { fieldSelector: `metadata.name=${ns}` } })).json();
    expect(listed.items[0].status.phase).toBe('Terminating');
    // A second delete while the content is being removed: kube's 409.
    const again = await api.request('DELETE', `/api/v1/namespaces/${ns}`);
    expectStatus(again, 409, 'Conflict', `Operation cannot be fulfilled on namespaces "${ns}": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.`);
    await api.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/held`, { body: { metadata: { finalizers: null } } });
    await eventually(gone(`/api/v1/namespaces/${ns}`), `namespace ${ns} removed`);
  });

  it('an object with a finalizer keeps the namespace Terminating until the finalizer is patched away', async () => {
    const ns = await createNamespace(api);
    await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('held', { finalizers: ['example.com/hold'] }) });
    await api.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { metadata: { name: 'free' } } });
    expect((await api.request('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);

    // The controller has run once the free secret is gone, and the held config map only got marked.
    await eventually(gone(`/api/v1/namespaces/${ns}/secrets/free`), 'the secret removed');
    await eventually(async () => (await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/held`)).json().metadata?.deletionTimestamp !== undefined, 'the held config map marked');
    const held = await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/held`);
    expect(held.status).toBe(200);
    expect(held.json().metadata).toMatchObject({ finalizers: ['example.com/hold'], deletionTimestamp: expect.any(String) });
    const nsNow = await api.request('GET', `/api/v1/namespaces/${ns}`);
    expect(nsNow.status).toBe(200);
    expect(nsNow.json()).toMatchObject({ status: { phase: 'Terminating' }, spec: { finalizers: ['kubernetes'] } });

    const patch = await api.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/held`, {
      body: [{ op: 'remove', path: '/metadata/finalizers' }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(patch.status).toBe(200);
    await eventually(gone(`/api/v1/namespaces/${ns}/configmaps/held`), 'the held config map removed');
    await eventually(gone(`/api/v1/namespaces/${ns}`), `namespace ${ns} removed`);
  });

  it('a Namespace\'s own metadata.finalizers hold it after its content is gone', async () => {
    const ns = uniqueName('ns');
    expect((await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns, finalizers: ['example.com/ns-hold'] } } })).status).toBe(201);
    await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('c') });
    expect((await api.request('DELETE', `/api/v1/namespaces/${ns}`)).status).toBe(200);
    await eventually(gone(`/api/v1/namespaces/${ns}/configmaps/c`), 'the content removed');
    // The kubernetes finalizer is removed once the content is gone; the namespace's own one remains.
    await eventually(async () => ((await api.request('GET', `/api/v1/namespaces/${ns}`)).json().spec?.finalizers ?? []).length === 0, 'the kubernetes finalizer removed');
    const held = await api.request('GET', `/api/v1/namespaces/${ns}`);
    expect(held.status).toBe(200);
    expect(held.json()).toMatchObject({ metadata: { finalizers: ['example.com/ns-hold'] }, status: { phase: 'Terminating' } });
    expect((await api.request('PATCH', `/api/v1/namespaces/${ns}`, { body: { metadata: { finalizers: null } } })).status).toBe(200);
    await eventually(gone(`/api/v1/namespaces/${ns}`), `namespace ${ns} removed`);
  });

  it('dryRun=All on a namespace delete changes nothing', async () => {
    const ns = await createNamespace(api);
    const res = await api.request('DELETE', `/api/v1/namespaces/${ns}`, { query: { dryRun: 'All' } });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
    const after = (await api.request('GET', `/api/v1/namespaces/${ns}`)).json();
    expect(after.status.phase).toBe('Active');
    expect(after.metadata.deletionTimestamp).toBeUndefined();
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('ok') })).status).toBe(201);
  });

  it.each(['default', 'platform-system', 'platform-public'])('%s may not be deleted: 403, also in a dry run', async (name) => {
    for (const query of [{}, { dryRun: 'All' }] as Record<string, string>[]) {
      const res = await api.request('DELETE', `/api/v1/namespaces/${name}`, { query });
      const body = expectStatus(res, 403, 'Forbidden', `namespaces "${name}" is forbidden: this namespace may not be deleted`);
      expect(body.details).toEqual({ name, kind: 'namespaces' });
    }
    const still = (await api.request('GET', `/api/v1/namespaces/${name}`)).json();
    expect(still.status.phase).toBe('Active');
    expect(still.metadata.deletionTimestamp).toBeUndefined();
  });

  it('a missing namespace cannot be deleted: 404', async () => {
    const missing = uniqueName('missing');
    expectStatus(await api.request('DELETE', `/api/v1/namespaces/${missing}`), 404, 'NotFound', `namespaces "${missing}" not found`);
  });
});
