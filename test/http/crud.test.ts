/**
 * CRUD through HTTP on real servers, on the embedded store and on a real etcd: every kind of the REST
 * machinery issue (Secret, ConfigMap, ServiceAccount, PodTemplate, Namespace, Node) created, read, listed,
 * replaced, patched (JSON Patch and JSON Merge Patch) and deleted as Kubernetes does it; ObjectMeta rules,
 * optimistic concurrency, the status sub-resource of Node, and `dryRun=All` on every write verb.
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type ApiResponse, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const RV = /^[1-9]\d*$/;
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };

const conflictMessage = (resource: string, name: string): string =>
  `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`;

/** A failure Status body, in full. */
function status(code: number, reason: string, message: string, details?: Record<string, unknown>): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details === undefined ? {} : { details }), code };
}

function expectStatus(res: ApiResponse, code: number, reason: string, message: string, details?: Record<string, unknown>): void {
  expect({ status: res.status, body: res.json() }).toEqual({ status: code, body: status(code, reason, message, details) });
}

const podTemplate = (name: string, image = 'nginx:1.27'): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'PodTemplate',
  metadata: { name },
  template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } },
});

const node = (name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { zone: 'a' } },
  spec: { podCIDR: '10.244.1.0/24', taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }] },
  status: { capacity: { cpu: '4', memory: '8Gi' }, conditions: [{ type: 'Ready', status: 'True' }] },
});

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  const path = (resource: string, name = ''): string => `/api/v1/namespaces/${ns}/${resource}${name === '' ? '' : `/${name}`}`;
  const post = (resource: string, body: unknown, query?: Record<string, string>) =>
    api.request('POST', path(resource), { body, headers: { 'User-Agent': 'crud-test/1.0' }, ...(query === undefined ? {} : { query }) });
  const get = (p: string) => api.request('GET', p);

  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api, uniqueName('crud'));
  });

  describe('Secret', () => {
    let created: Record<string, unknown> & { metadata: Record<string, unknown> };

    it('create answers 201 with the generated fields, stringData merged into data and never returned', async () => {
      const res = await post('secrets', {
        apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', labels: { app: 'db' } },
        data: { user: b64('admin'), password: b64('old') }, stringData: { password: 'new', extra: 'x' },
      });
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toBe('application/json');
      created = res.json();
      expect(created).toEqual({
        apiVersion: 'v1', kind: 'Secret', type: 'Opaque',
        data: { user: b64('admin'), password: b64('new'), extra: b64('x') },
        metadata: {
          name: 'db', namespace: ns, labels: { app: 'db' },
          uid: expect.stringMatching(UID), creationTimestamp: expect.stringMatching(TIME), resourceVersion: expect.stringMatching(RV),
          managedFields: [{
            manager: 'crud-test', operation: 'Update', apiVersion: 'v1', time: expect.stringMatching(TIME), fieldsType: 'FieldsV1',
            fieldsV1: expect.objectContaining({ 'f:data': expect.any(Object), 'f:type': {} }),
          }],
        },
      });
      expect(created).not.toHaveProperty('stringData');
    });

    it('get answers 200 with the stored object', async () => {
      const res = await get(path('secrets', 'db'));
      expect(res.status).toBe(200);
      expect(res.json()).toEqual(created);
    });

    it('list answers SecretList v1 with a collection resourceVersion', async () => {
      const res = await get(path('secrets'));
      expect(res.status).toBe(200);
      const list = res.json();
      expect(list).toMatchObject({ kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: expect.stringMatching(RV) } });
      expect(Number(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(Number(created.metadata.resourceVersion));
      expect(list.items.map((s: { metadata: { name: string } }) => s.metadata.name)).toEqual(['db']);
      expect(list.items[0].data).toEqual(created.data);
    });

    it('list across all namespaces finds it with its namespace', async () => {
      const res = await get('/api/v1/secrets');
      expect(res.status).toBe(200);
      expect(res.json().items).toEqual(expect.arrayContaining([expect.objectContaining({ metadata: expect.objectContaining({ name: 'db', namespace: ns }) })]));
    });

    it('PUT replaces the object: 200, new resourceVersion, uid and creationTimestamp kept', async () => {
      const body = { ...created, data: { user: b64('root') }, stringData: { token: 't' } };
      const res = await api.request('PUT', path('secrets', 'db'), { body });
      expect(res.status).toBe(200);
      const updated = res.json();
      expect(updated.data).toEqual({ user: b64('root'), token: b64('t') });
      expect(updated).not.toHaveProperty('stringData');
      expect(updated.metadata.uid).toBe(created.metadata.uid);
      expect(updated.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
      expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
      expect((await get(path('secrets', 'db'))).json()).toEqual(updated);
    });

    it('PUT with a stale resourceVersion is 409 Conflict with the optimistic-lock message', async () => {
      const res = await api.request('PUT', path('secrets', 'db'), { body: { ...created, data: { user: b64('stale') } } });
      expectStatus(res, 409, 'Conflict', conflictMessage('secrets', 'db'), { name: 'db', kind: 'secrets' });
      expect((await get(path('secrets', 'db'))).json().data.user).toBe(b64('root'));
    });

    it('PUT without a resourceVersion is an unconditional update', async () => {
      const res = await api.request('PUT', path('secrets', 'db'), { body: { metadata: { name: 'db' }, data: { only: b64('1') } } });
      expect(res.status).toBe(200);
      expect(res.json().data).toEqual({ only: b64('1') });
    });

    it('PUT of a missing Secret is 404 (no create on update)', async () => {
      const res = await api.request('PUT', path('secrets', 'nope'), { body: { metadata: { name: 'nope' } } });
      expectStatus(res, 404, 'NotFound', 'secrets "nope" not found', { name: 'nope', kind: 'secrets' });
    });

    it('merge patch adds keys and removes one with null', async () => {
      const res = await api.request('PATCH', path('secrets', 'db'), { body: { data: { a: b64('A'), only: null }, metadata: { labels: { tier: 'x' } } } });
      expect(res.status).toBe(200);
      expect(res.json().data).toEqual({ a: b64('A') });
      // The unconditional PUT above replaced the labels too.
      expect(res.json().metadata.labels).toEqual({ tier: 'x' });
    });

    it('JSON patch applies operations in order', async () => {
      const res = await api.request('PATCH', path('secrets', 'db'), {
        headers: JSON_PATCH,
        body: [{ op: 'add', path: '/data/b', value: b64('B') }, { op: 'remove', path: '/data/a' }, { op: 'replace', path: '/metadata/labels/tier', value: 'y' }],
      });
      expect(res.status).toBe(200);
      expect(res.json().data).toEqual({ b: b64('B') });
      expect(res.json().metadata.labels).toEqual({ tier: 'y' });
    });

    it('a JSON patch whose test op fails is 422 and changes nothing', async () => {
      const before = (await get(path('secrets', 'db'))).json();
      const res = await api.request('PATCH', path('secrets', 'db'), {
        headers: JSON_PATCH,
        body: [{ op: 'test', path: '/metadata/labels/tier', value: 'z' }, { op: 'remove', path: '/data/b' }],
      });
      // Kubernetes answers JSON patch failures with NewGenericServerResponse(422, ..., isUnexpectedResponse=false):
      // the generic message and empty details.
      expectStatus(res, 422, 'Invalid', 'the server rejected our request due to an error in our request', {});
      expect((await get(path('secrets', 'db'))).json()).toEqual(before);
    });

    it('a patch carrying a stale resourceVersion is 409 Conflict', async () => {
      const res = await api.request('PATCH', path('secrets', 'db'), { body: { metadata: { resourceVersion: created.metadata.resourceVersion }, data: { c: b64('C') } } });
      expectStatus(res, 409, 'Conflict', conflictMessage('secrets', 'db'), { name: 'db', kind: 'secrets' });
    });

    it('patching a missing object is 404', async () => {
      const res = await api.request('PATCH', path('secrets', 'ghost'), { body: { data: {} } });
      expectStatus(res, 404, 'NotFound', 'secrets "ghost" not found', { name: 'ghost', kind: 'secrets' });
    });

    it('type is immutable: 422 with the field path', async () => {
      const res = await api.request('PATCH', path('secrets', 'db'), { body: { type: 'example.com/other' } });
      expectStatus(res, 422, 'Invalid', 'Secret "db" is invalid: type: Invalid value: "example.com/other": field is immutable', {
        name: 'db', kind: 'Secret',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "example.com/other": field is immutable', field: 'type' }],
      });
    });

    it('an immutable Secret refuses data changes but accepts metadata changes', async () => {
      expect((await post('secrets', { metadata: { name: 'frozen' }, immutable: true, stringData: { k: 'v' } })).status).toBe(201);
      const res = await api.request('PATCH', path('secrets', 'frozen'), { body: { data: { k: b64('w') } } });
      expectStatus(res, 422, 'Invalid', 'Secret "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set', {
        name: 'frozen', kind: 'Secret',
        causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set', field: 'data' }],
      });
      const unset = await api.request('PATCH', path('secrets', 'frozen'), { body: { immutable: false } });
      expect(unset.status).toBe(422);
      expect(unset.json().message).toBe('Secret "frozen" is invalid: immutable: Forbidden: field is immutable when `immutable` is set');
      const labels = await api.request('PATCH', path('secrets', 'frozen'), { body: { metadata: { labels: { ok: 'yes' } } } });
      expect(labels.status).toBe(200);
      expect(labels.json().metadata.labels).toEqual({ ok: 'yes' });
    });

    it('the well-known types require their keys', async () => {
      // Kubernetes' kubernetes.io/tls, under the group domain.
      const res = await post('secrets', { metadata: { name: 'tls' }, type: 'platform.io/tls', data: { 'tls.crt': b64('c') } });
      expect(res.status).toBe(422);
      expect(res.json().details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'data[tls.key]' }]);
    });

    it('data over 1 MiB in total is 422', async () => {
      const big = Buffer.alloc(600 * 1024, 'a').toString('base64');
      const res = await post('secrets', { metadata: { name: 'big' }, data: { a: big, b: big } });
      expect(res.status).toBe(422);
      expect(res.json().message).toMatch(/^Secret "big" is invalid: data: Too long: (must have at most|may not be more than) 1048576 bytes$/);
      expect((await get(path('secrets', 'big'))).status).toBe(404);
    });

    it('delete answers a Success Status with the uid; the object is gone', async () => {
      const current = (await get(path('secrets', 'db'))).json();
      const res = await api.request('DELETE', path('secrets', 'db'));
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success',
        details: { name: 'db', kind: 'secrets', uid: current.metadata.uid },
      });
      expectStatus(await get(path('secrets', 'db')), 404, 'NotFound', 'secrets "db" not found', { name: 'db', kind: 'secrets' });
      expectStatus(await api.request('DELETE', path('secrets', 'db')), 404, 'NotFound', 'secrets "db" not found', { name: 'db', kind: 'secrets' });
    });

    it('delete with a uid precondition that does not match is 409', async () => {
      const res = await api.request('DELETE', path('secrets', 'frozen'), { body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } } });
      expect(res.status).toBe(409);
      expect(res.json()).toMatchObject({ reason: 'Conflict', details: { name: 'frozen', kind: 'secrets' } });
      expect(res.json().message).toMatch(/^Operation cannot be fulfilled on secrets "frozen": Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: /);
    });
  });

  describe('ConfigMap', () => {
    it('create, get, update, merge patch and delete', async () => {
      const c = await post('configmaps', { metadata: { name: 'cfg' }, data: { a: '1' }, binaryData: { bin: b64('\u0001\u0002') } });
      expect(c.status).toBe(201);
      expect(c.json()).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' }, binaryData: { bin: b64('\u0001\u0002') } });
      const obj = c.json();
      const u = await api.request('PUT', path('configmaps', 'cfg'), { body: { ...obj, data: { a: '2', b: '3' } } });
      expect(u.status).toBe(200);
      expect(u.json().data).toEqual({ a: '2', b: '3' });
      const p = await api.request('PATCH', path('configmaps', 'cfg'), { body: { data: { b: null, c: '4' } } });
      expect(p.status).toBe(200);
      expect(p.json().data).toEqual({ a: '2', c: '4' });
      expect((await get(path('configmaps', 'cfg'))).json()).toEqual(p.json());
      const d = await api.request('DELETE', path('configmaps', 'cfg'));
      expect(d.status).toBe(200);
      expect(d.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'cfg', kind: 'configmaps', uid: obj.metadata.uid } });
      expect((await get(path('configmaps', 'cfg'))).status).toBe(404);
    });

    it('list answers ConfigMapList', async () => {
      const res = await get(path('configmaps'));
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: expect.stringMatching(RV) }, items: expect.any(Array) });
    });

    it('an immutable ConfigMap refuses data changes', async () => {
      expect((await post('configmaps', { metadata: { name: 'frozen' }, immutable: true, data: { a: '1' } })).status).toBe(201);
      const res = await api.request('PATCH', path('configmaps', 'frozen'), { body: { data: { a: '2' } } });
      expectStatus(res, 422, 'Invalid', 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set', {
        name: 'frozen', kind: 'ConfigMap',
        causes: [{ reason: 'FieldValueForbidden', message: 'Forbidden: field is immutable when `immutable` is set', field: 'data' }],
      });
    });

    it('keys must be valid config keys; the same key in data and binaryData is refused', async () => {
      const res = await post('configmaps', { metadata: { name: 'keys' }, data: { 'bad key': 'x', dup: 'y' }, binaryData: { dup: b64('z') } });
      expect(res.status).toBe(422);
      const fields = res.json().details.causes.map((c: { field: string }) => c.field);
      // Kubernetes reports the duplicate under data.
      expect(fields).toEqual(['data[bad key]', 'data[dup]']);
      expect(res.json().details.causes[1].message).toBe('Invalid value: "dup": duplicate of key present in binaryData');
    });

    it('data over 1 MiB in total is 422', async () => {
      const half = 'a'.repeat(600 * 1024);
      const res = await post('configmaps', { metadata: { name: 'big' }, data: { a: half, b: half } });
      expect(res.status).toBe(422);
      expect(res.json().reason).toBe('Invalid');
      expect(res.json().message).toMatch(/^ConfigMap "big" is invalid: .*Too long: (must have at most|may not be more than) 1048576 bytes$/);
    });
  });

  describe('ServiceAccount', () => {
    it('create, get, list, patch; delete answers the deleted object', async () => {
      const c = await post('serviceaccounts', { metadata: { name: 'robot' }, secrets: [{ name: 'robot-token' }] });
      expect(c.status).toBe(201);
      expect(c.json()).toMatchObject({ kind: 'ServiceAccount', apiVersion: 'v1', metadata: { name: 'robot', namespace: ns }, secrets: [{ name: 'robot-token' }] });
      expect((await get(path('serviceaccounts', 'robot'))).json()).toEqual(c.json());
      const l = (await get(path('serviceaccounts'))).json();
      expect(l.kind).toBe('ServiceAccountList');
      expect(l.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain('robot');
      const p = await api.request('PATCH', path('serviceaccounts', 'robot'), { body: { automountServiceAccountToken: false } });
      expect(p.status).toBe(200);
      expect(p.json().automountServiceAccountToken).toBe(false);
      const d = await api.request('DELETE', path('serviceaccounts', 'robot'));
      expect(d.status).toBe(200);
      expect(d.json()).toEqual(p.json());
      expect((await get(path('serviceaccounts', 'robot'))).status).toBe(404);
    });
  });

  describe('PodTemplate', () => {
    it('create tracks generation from 1; a template change bumps it, a metadata change does not', async () => {
      const c = await post('podtemplates', podTemplate('web'));
      expect(c.status).toBe(201);
      expect(c.json().metadata.generation).toBe(1);
      expect(c.json().template.spec.containers[0]).toMatchObject({ name: 'web', image: 'nginx:1.27', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' });
      const labels = await api.request('PATCH', path('podtemplates', 'web'), { body: { metadata: { labels: { a: 'b' } } } });
      expect(labels.json().metadata.generation).toBe(1);
      const image = await api.request('PATCH', path('podtemplates', 'web'), {
        headers: JSON_PATCH, body: [{ op: 'replace', path: '/template/spec/containers/0/image', value: 'nginx:1.28' }],
      });
      expect(image.status).toBe(200);
      expect(image.json().metadata.generation).toBe(2);
    });

    it('an invalid template is 422 with field paths', async () => {
      const res = await post('podtemplates', { metadata: { name: 'bad' }, template: { spec: { containers: [{ name: 'Web' }] } } });
      expect(res.status).toBe(422);
      expect(res.json().details.causes.map((c: { field: string }) => c.field)).toEqual(expect.arrayContaining([
        'template.spec.containers[0].name', 'template.spec.containers[0].image',
      ]));
    });

    it('delete answers the deleted object', async () => {
      const current = (await get(path('podtemplates', 'web'))).json();
      const d = await api.request('DELETE', path('podtemplates', 'web'));
      expect(d.status).toBe(200);
      expect(d.json()).toEqual(current);
    });
  });

  describe('Namespace', () => {
    it('create sets phase Active, the kubernetes finalizer and the name label', async () => {
      const name = uniqueName('nsx');
      const res = await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name } } });
      expect(res.status).toBe(201);
      expect(res.json()).toMatchObject({
        kind: 'Namespace', apiVersion: 'v1',
        metadata: { name, labels: { 'platform.io/metadata.name': name } },
        spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' },
      });
      expect(res.json().metadata).not.toHaveProperty('namespace');
    });

    it('the bootstrap namespaces exist', async () => {
      const names = (await get('/api/v1/namespaces')).json().items.map((n: { metadata: { name: string } }) => n.metadata.name);
      expect(names).toEqual(expect.arrayContaining(['default', 'platform-system', 'platform-public', ns]));
    });

    it('a name that is not a DNS label is 422 with Kubernetes message', async () => {
      const res = await api.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'Bad.Name' } } });
      const msg = 'Invalid value: "Bad.Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')';
      expectStatus(res, 422, 'Invalid', `Namespace "Bad.Name" is invalid: metadata.name: ${msg}`, {
        name: 'Bad.Name', kind: 'Namespace', causes: [{ reason: 'FieldValueInvalid', message: msg, field: 'metadata.name' }],
      });
    });

    it('create into a missing namespace is 404 namespaces "x" not found', async () => {
      const res = await api.request('POST', '/api/v1/namespaces/no-such-ns/configmaps', { body: { metadata: { name: 'a' } } });
      expectStatus(res, 404, 'NotFound', 'namespaces "no-such-ns" not found', { name: 'no-such-ns', kind: 'namespaces' });
    });

    it('delete answers the namespace, Terminating; new content is refused (403) until it is gone', async () => {
      const name = await createNamespace(api, uniqueName('gone'));
      expect((await api.request('POST', `/api/v1/namespaces/${name}/secrets`, { body: { metadata: { name: 's' } } })).status).toBe(201);
      const res = await api.request('DELETE', `/api/v1/namespaces/${name}`);
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ kind: 'Namespace', metadata: { name, deletionTimestamp: expect.stringMatching(TIME) }, status: { phase: 'Terminating' } });
      const refused = await api.request('POST', `/api/v1/namespaces/${name}/configmaps`, { body: { metadata: { name: 'late' } } });
      if (refused.status !== 404) {
        // Still terminating (the controller may already have removed it: then 404).
        expect(refused.status).toBe(403);
        expect(refused.json()).toMatchObject({
          reason: 'Forbidden',
          message: `configmaps "late" is forbidden: unable to create new content in namespace ${name} because it is being terminated`,
          details: { name: 'late', kind: 'configmaps', causes: [{ reason: 'NamespaceTerminating', message: `namespace ${name} is being terminated`, field: 'metadata.namespace' }] },
        });
      }
    });
  });

  describe('Node', () => {
    it('create (cluster-scoped, status accepted on create), get and list', async () => {
      const res = await api.request('POST', '/api/v1/nodes', { body: node('n1') });
      expect(res.status).toBe(201);
      const n = res.json();
      expect(n).toMatchObject({ kind: 'Node', apiVersion: 'v1', metadata: { name: 'n1' }, spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] } });
      expect(n.metadata).not.toHaveProperty('namespace');
      expect(n.status.capacity).toEqual({ cpu: '4', memory: '8Gi' });
      expect((await get('/api/v1/nodes/n1')).json()).toEqual(n);
      const l = (await get('/api/v1/nodes')).json();
      expect(l).toMatchObject({ kind: 'NodeList', apiVersion: 'v1' });
      expect(l.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain('n1');
    });

    it('PUT on the main resource keeps the old status', async () => {
      const cur = (await get('/api/v1/nodes/n1')).json();
      const res = await api.request('PUT', '/api/v1/nodes/n1', { body: { ...cur, spec: { ...cur.spec, unschedulable: true }, status: { capacity: { cpu: '64' } } } });
      expect(res.status).toBe(200);
      expect(res.json().spec.unschedulable).toBe(true);
      expect(res.json().status).toEqual(cur.status);
    });

    it('PUT on /status changes only the status', async () => {
      const cur = (await get('/api/v1/nodes/n1')).json();
      const res = await api.request('PUT', '/api/v1/nodes/n1/status', {
        body: { ...cur, metadata: { ...cur.metadata, labels: { zone: 'b' } }, spec: { ...cur.spec, unschedulable: false }, status: { ...cur.status, capacity: { cpu: '8', memory: '16Gi' } } },
      });
      expect(res.status).toBe(200);
      const n = res.json();
      expect(n.status.capacity).toEqual({ cpu: '8', memory: '16Gi' });
      expect(n.spec.unschedulable).toBe(true);
      expect(n.metadata.labels).toEqual({ zone: 'a' });
      expect(n.metadata.managedFields.map((m: { subresource?: string }) => m.subresource ?? '')).toContain('status');
    });

    it('merge patch on /status changes the status; on the main resource a status patch is ignored', async () => {
      const s = await api.request('PATCH', '/api/v1/nodes/n1/status', { body: { status: { capacity: { pods: '110' } } } });
      expect(s.status).toBe(200);
      expect(s.json().status.capacity).toEqual({ cpu: '8', memory: '16Gi', pods: '110' });
      const m = await api.request('PATCH', '/api/v1/nodes/n1', { body: { status: { capacity: { pods: '1' } }, metadata: { labels: { x: 'y' } } } });
      expect(m.status).toBe(200);
      expect(m.json().status.capacity.pods).toBe('110');
      expect(m.json().metadata.labels).toEqual({ zone: 'a', x: 'y' });
    });

    it('GET /status reads the whole node', async () => {
      const res = await get('/api/v1/nodes/n1/status');
      expect(res.status).toBe(200);
      expect(res.json()).toEqual((await get('/api/v1/nodes/n1')).json());
    });

    it('the pod CIDR is set once: changing it is 422', async () => {
      const res = await api.request('PATCH', '/api/v1/nodes/n1', { body: { spec: { podCIDR: '10.244.2.0/24', podCIDRs: ['10.244.2.0/24'] } } });
      expect(res.status).toBe(422);
      expect(res.json().details.causes.map((c: { field: string }) => c.field)).toContain('spec.podCIDRs');
    });

    it('delete answers a Success Status', async () => {
      const cur = (await get('/api/v1/nodes/n1')).json();
      const res = await api.request('DELETE', '/api/v1/nodes/n1');
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'n1', kind: 'nodes', uid: cur.metadata.uid } });
    });
  });

  describe('ObjectMeta', () => {
    it('generateName makes a unique name: the prefix and 5 random characters', async () => {
      const one = await post('configmaps', { metadata: { generateName: 'gen-' } });
      const two = await post('configmaps', { metadata: { generateName: 'gen-' } });
      expect([one.status, two.status]).toEqual([201, 201]);
      expect(one.json().metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(one.json().metadata.generateName).toBe('gen-');
      expect(two.json().metadata.name).not.toBe(one.json().metadata.name);
      expect((await get(path('configmaps', one.json().metadata.name))).status).toBe(200);
    });

    it('neither name nor generateName is 422 name or generateName is required', async () => {
      const res = await post('configmaps', { metadata: {} });
      expectStatus(res, 422, 'Invalid', 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required', {
        kind: 'ConfigMap', causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }],
      });
    });

    it('a Secret name must be a DNS subdomain', async () => {
      const res = await post('secrets', { metadata: { name: 'Not_Valid' } });
      expect(res.status).toBe(422);
      expect(res.json().details.causes).toEqual([{
        reason: 'FieldValueInvalid', field: 'metadata.name',
        message: 'Invalid value: "Not_Valid": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      }]);
    });

    it('label keys and values are validated with Kubernetes messages', async () => {
      const res = await post('configmaps', { metadata: { name: 'lbl', labels: { 'bad key!': 'v', ok: 'bad value!' } } });
      expect(res.status).toBe(422);
      const causes = res.json().details.causes;
      expect(causes).toEqual(expect.arrayContaining([
        expect.objectContaining({ field: 'metadata.labels', message: expect.stringContaining('Invalid value: "bad key!": name part must consist of alphanumeric characters') }),
        expect.objectContaining({ field: 'metadata.labels', message: expect.stringContaining('Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters') }),
      ]));
    });

    it('annotations over 256 KiB in total are 422', async () => {
      const res = await post('configmaps', { metadata: { name: 'ann', annotations: { a: 'x'.repeat(256 * 1024) } } });
      expect(res.status).toBe(422);
      expect(res.json().details.causes).toEqual([expect.objectContaining({ field: 'metadata.annotations', reason: 'FieldValueTooLong' })]);
      expect(res.json().details.causes[0].message).toMatch(/^Too long: (must have at most|may not be more than) 262144 bytes$/);
    });

    it('uid and creationTimestamp sent by a client are replaced by the server', async () => {
      const res = await post('configmaps', { metadata: { name: 'sys', uid: 'client-uid', creationTimestamp: '2001-01-01T00:00:00Z' } });
      expect(res.status).toBe(201);
      expect(res.json().metadata.uid).toMatch(UID);
      expect(res.json().metadata.creationTimestamp).not.toBe('2001-01-01T00:00:00Z');
    });

    it('an update cannot change uid or creationTimestamp', async () => {
      const cur = (await get(path('configmaps', 'sys'))).json();
      const res = await api.request('PUT', path('configmaps', 'sys'), { body: { ...cur, metadata: { ...cur.metadata, creationTimestamp: '2001-01-01T00:00:00Z' }, data: { a: 'b' } } });
      expect(res.status).toBe(200);
      expect(res.json().metadata.creationTimestamp).toBe(cur.metadata.creationTimestamp);
      expect(res.json().metadata.uid).toBe(cur.metadata.uid);
    });

    it('create of an existing name is 409 AlreadyExists', async () => {
      const res = await post('configmaps', { metadata: { name: 'sys' } });
      expectStatus(res, 409, 'AlreadyExists', 'configmaps "sys" already exists', { name: 'sys', kind: 'configmaps' });
    });

    it('a Secret, a ConfigMap and a ServiceAccount do not track generation', async () => {
      const cur = (await get(path('configmaps', 'sys'))).json();
      expect(cur.metadata).not.toHaveProperty('generation');
    });
  });

  describe('deletecollection', () => {
    it('deletes the selected objects and answers a Success Status (document 2)', async () => {
      for (const [n, team] of [['dc-a', 'red'], ['dc-b', 'red'], ['dc-c', 'blue']]) {
        expect((await post('configmaps', { metadata: { name: n, labels: { team: team! } } })).status).toBe(201);
      }
      const res = await api.request('DELETE', path('configmaps'), { query: { labelSelector: 'team=red' } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { kind: 'configmaps' } });
      const left = (await get(path('configmaps'))).json().items.map((i: { metadata: { name: string } }) => i.metadata.name);
      expect(left).toContain('dc-c');
      expect(left).not.toContain('dc-a');
      expect(left).not.toContain('dc-b');
    });
  });

  describe('dryRun=All', () => {
    it('create: same shape (201, uid, creationTimestamp), nothing persisted', async () => {
      const res = await post('secrets', { metadata: { name: 'dry' }, stringData: { a: 'b' } }, { dryRun: 'All' });
      expect(res.status).toBe(201);
      expect(res.json()).toMatchObject({ kind: 'Secret', metadata: { name: 'dry', namespace: ns, uid: expect.stringMatching(UID), creationTimestamp: expect.stringMatching(TIME) }, data: { a: b64('b') }, type: 'Opaque' });
      expect(res.json()).not.toHaveProperty('stringData');
      expect((await get(path('secrets', 'dry'))).status).toBe(404);
    });

    it('create with generateName fills a name and persists nothing', async () => {
      const before = (await get(path('configmaps'))).json().items.length;
      const res = await post('configmaps', { metadata: { generateName: 'dry-' } }, { dryRun: 'All' });
      expect(res.status).toBe(201);
      expect(res.json().metadata.name).toMatch(/^dry-.{5}$/);
      expect((await get(path('configmaps'))).json().items.length).toBe(before);
    });

    it('create of an existing name is still 409', async () => {
      const res = await post('configmaps', { metadata: { name: 'sys' } }, { dryRun: 'All' });
      expect(res.status).toBe(409);
      expect(res.json().reason).toBe('AlreadyExists');
    });

    it('update: 200 with the change, nothing persisted', async () => {
      const cur = (await get(path('configmaps', 'sys'))).json();
      const res = await api.request('PUT', path('configmaps', 'sys'), { query: { dryRun: 'All' }, body: { ...cur, data: { dry: 'run' } } });
      expect(res.status).toBe(200);
      expect(res.json().data).toEqual({ dry: 'run' });
      expect((await get(path('configmaps', 'sys'))).json()).toEqual(cur);
    });

    it('patch (merge and json): 200 with the change, nothing persisted', async () => {
      const cur = (await get(path('configmaps', 'sys'))).json();
      const m = await api.request('PATCH', path('configmaps', 'sys'), { query: { dryRun: 'All' }, body: { data: { m: '1' } } });
      expect(m.status).toBe(200);
      expect(m.json().data.m).toBe('1');
      const j = await api.request('PATCH', path('configmaps', 'sys'), { query: { dryRun: 'All' }, headers: JSON_PATCH, body: [{ op: 'add', path: '/data/j', value: '2' }] });
      expect(j.status).toBe(200);
      expect(j.json().data.j).toBe('2');
      expect((await get(path('configmaps', 'sys'))).json()).toEqual(cur);
    });

    it('delete with dryRun in the query: the same Status, the object stays', async () => {
      const cur = (await get(path('configmaps', 'sys'))).json();
      const res = await api.request('DELETE', path('configmaps', 'sys'), { query: { dryRun: 'All' } });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'sys', kind: 'configmaps', uid: cur.metadata.uid } });
      expect((await get(path('configmaps', 'sys'))).json()).toEqual(cur);
    });

    it('delete with dryRun in the DeleteOptions body (kubectl --dry-run=server): the object stays', async () => {
      const res = await api.request('DELETE', path('configmaps', 'sys'), { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', dryRun: ['All'] } });
      expect(res.status).toBe(200);
      expect(res.json().status).toBe('Success');
      expect((await get(path('configmaps', 'sys'))).status).toBe(200);
    });

    it('delete of a ServiceAccount answers the object, which stays', async () => {
      expect((await post('serviceaccounts', { metadata: { name: 'dry-sa' } })).status).toBe(201);
      const res = await api.request('DELETE', path('serviceaccounts', 'dry-sa'), { query: { dryRun: 'All' } });
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ kind: 'ServiceAccount', metadata: { name: 'dry-sa' } });
      expect((await get(path('serviceaccounts', 'dry-sa'))).status).toBe(200);
    });

    it('deletecollection: answers a Success Status, deletes nothing', async () => {
      const before = (await get(path('configmaps'))).json().items.map((i: { metadata: { name: string } }) => i.metadata.name).sort();
      expect(before.length).toBeGreaterThan(0);
      const res = await api.request('DELETE', path('configmaps'), { query: { dryRun: 'All' } });
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ kind: 'Status', status: 'Success' });
      expect((await get(path('configmaps'))).json().items.map((i: { metadata: { name: string } }) => i.metadata.name).sort()).toEqual(before);
    });

    it('an unknown dryRun value is 422 against the options kind', async () => {
      const res = await post('configmaps', { metadata: { name: 'x' } }, { dryRun: 'Yes' });
      const cause = 'Unsupported value: []string{"Yes"}: supported values: "All"';
      expectStatus(res, 422, 'Invalid', `CreateOptions.meta.k8s.io "" is invalid: dryRun: ${cause}`, {
        group: 'meta.k8s.io', kind: 'CreateOptions', causes: [{ reason: 'FieldValueNotSupported', message: cause, field: 'dryRun' }],
      });
      expect((await get(path('configmaps', 'x'))).status).toBe(404);
    });
  });
});
