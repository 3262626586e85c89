/**
 * Server-side apply and managedFields through HTTP, on the embedded store and on a real etcd, modelled on
 * Kubernetes' behaviour (test/integration/apiserver/apply): create on apply, appliers and updaters sharing
 * an object, conflicts and force, shared ownership, removal of what an applier stops applying, list maps,
 * sets and atomic values from the schemas, the status sub-resource, the managedFields reset, bucketing of
 * Update managers, and the preconditions of PATCH (a resourceVersion in the body, If-Match).
 */
import { backends, createNamespace, describeBackends, stopBackends, uniqueName, type ApiResponse, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const APPLY = { 'Content-Type': 'application/apply-patch+yaml' };
const JSON_PATCH = { 'Content-Type': 'application/json-patch+json' };

type Obj = Record<string, any>;
interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Obj;
  subresource?: string;
}

const entries = (o: Obj): Entry[] => o.metadata.managedFields ?? [];
const entryOf = (o: Obj, manager: string, operation = 'Apply', subresource?: string): Entry | undefined =>
  entries(o).find((e) => e.manager === manager && e.operation === operation && e.subresource === subresource);
const fieldsOf = (o: Obj, manager: string, operation = 'Apply', subresource?: string): Obj | undefined => entryOf(o, manager, operation, subresource)?.fieldsV1;

function status409(res: ApiResponse, message: string, causes: { field: string; message: string }[]): void {
  expect({ status: res.status, body: res.json() }).toEqual({
    status: 409,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Conflict',
      details: { causes: causes.map((c) => ({ reason: 'FieldManagerConflict', message: c.message, field: c.field })) },
      code: 409,
    },
  });
}

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  const cmPath = (name: string): string => `/api/v1/namespaces/${ns}/configmaps/${name}`;
  const ptPath = (name: string): string => `/api/v1/namespaces/${ns}/podtemplates/${name}`;
  const nodePath = (name: string): string => `/api/v1/nodes/${name}`;
  const cm = (name: string, data?: Record<string, string>, meta: Obj = {}): Obj => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...meta },
    ...(data === undefined ? {} : { data }),
  });
  const apply = (path: string, body: unknown, manager: string | undefined, query: Record<string, string> = {}, headers: Record<string, string> = {}) =>
    api.request('PATCH', path, {
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { ...APPLY, ...headers },
      query: { ...(manager === undefined ? {} : { fieldManager: manager }), ...query },
    });
  const merge = (path: string, body: unknown, manager: string, headers: Record<string, string> = {}) =>
    api.request('PATCH', path, { body, query: { fieldManager: manager }, headers });
  const get = async (path: string): Promise<Obj> => (await api.request('GET', path)).json();
  /** Applies and expects a 2xx, returning the object. */
  const ok = async (path: string, body: unknown, manager: string, query: Record<string, string> = {}): Promise<Obj> => {
    const res = await apply(path, body, manager, query);
    if (res.status !== 200 && res.status !== 201) throw new Error(`apply ${path} as ${manager}: ${res.status} ${res.text()}`);
    return res.json();
  };

  beforeAll(async () => {
    api = await b.start();
    ns = await createNamespace(api, uniqueName('apply'));
  });

  describe('create on apply and the apply request', () => {
    it('apply of a missing object creates it (201) with one Apply entry', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), cm(name, { a: '1' }, { labels: { app: 'x' } }), 'alice');
      expect(res.status).toBe(201);
      const o = res.json();
      expect(o.data).toEqual({ a: '1' });
      expect(o.metadata.uid).toBeDefined();
      expect(o.metadata.managedFields).toEqual([
        {
          manager: 'alice',
          operation: 'Apply',
          apiVersion: 'v1',
          time: expect.stringMatching(TIME),
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
        },
      ]);
      expect((await get(cmPath(name))).data).toEqual({ a: '1' });
    });

    it('re-applying the same configuration changes nothing: same resourceVersion and time', async () => {
      const name = uniqueName('cm');
      const first = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const res = await apply(cmPath(name), cm(name, { a: '1' }), 'alice');
      expect(res.status).toBe(200);
      expect(res.json().metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      expect(res.json().metadata.managedFields).toEqual(first.metadata.managedFields);
    });

    it('a YAML body is accepted as well as JSON', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: "v"\n  size: "1"\n`, 'yaml-user');
      expect(res.status).toBe(201);
      expect(res.json().data).toEqual({ k: "v", size: "1" });
    });

    it('fieldManager is required: 422 against PatchOptions', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), cm(name, { a: '1' }), undefined);
      expect(res.status).toBe(422);
      expect(res.json().message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    });

    it('force is refused on other patch types: 422', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const res = await api.request('PATCH', cmPath(name), { body: { data: { a: '2' } }, query: { force: 'true' } });
      expect(res.status).toBe(422);
      expect(res.json().message).toBe('PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
    });

    it("kubectl's request (fieldValidation=Strict, force=false) creates and updates", async () => {
      const name = uniqueName('cm');
      const q = { fieldValidation: 'Strict', force: 'false' };
      expect((await apply(cmPath(name), cm(name, { a: '1' }), 'kubectl', q)).status).toBe(201);
      const res = await apply(cmPath(name), cm(name, { a: '2' }), 'kubectl', q);
      expect(res.status).toBe(200);
      expect(res.json().data).toEqual({ a: '2' });
    });

    it('dryRun=All on a missing object answers 201 with the object and stores nothing', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), cm(name, { a: '1' }), 'alice', { dryRun: 'All' });
      expect(res.status).toBe(201);
      expect(res.json().data).toEqual({ a: '1' });
      expect(entryOf(res.json(), 'alice')).toBeDefined();
      expect((await api.request('GET', cmPath(name))).status).toBe(404);
    });

    it('dryRun=All on an existing object answers the result and stores nothing', async () => {
      const name = uniqueName('cm');
      const created = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const res = await apply(cmPath(name), cm(name, { a: '2' }), 'alice', { dryRun: 'All' });
      expect(res.status).toBe(200);
      expect(res.json().data).toEqual({ a: '2' });
      expect(await get(cmPath(name))).toEqual(created);
    });

    it('another kind in the body is 400 invalid object type', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), { apiVersion: 'v1', kind: 'Secret', metadata: { name } }, 'alice');
      expect([res.status, res.json().message]).toEqual([400, 'invalid object type: /v1, Kind=Secret']);
    });

    it('another apiVersion in the body is 400 invalid object type', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name } }, 'alice');
      expect([res.status, res.json().message]).toEqual([400, 'invalid object type: apps/v1, Kind=ConfigMap']);
    });

    it('managedFields in the configuration are 400', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), cm(name, { a: '1' }, { managedFields: [{ manager: 'x', operation: 'Apply' }] }), 'alice');
      expect([res.status, res.json().message]).toEqual([400, 'metadata.managedFields must be nil']);
    });

    it('an undeclared field is 400 naming it', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), { ...cm(name, { a: '1' }), datax: { b: '2' } }, 'alice');
      expect([res.status, res.json().reason, res.json().message]).toEqual([
        400,
        'BadRequest',
        `failed to create typed patch object (${ns}/${name}; /v1, Kind=ConfigMap): .datax: field not declared in schema`,
      ]);
    });

    it('a body name other than the URL name is 400', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), cm('other', { a: '1' }), 'alice');
      expect([res.status, res.json().message]).toEqual([400, `the name of the object (other) does not match the name on the URL (${name})`]);
    });

    it('duplicate keys: 400 with fieldValidation=Strict, a warning with Warn', async () => {
      const name = uniqueName('cm');
      const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"1","a":"2"}}`;
      const strict = await apply(cmPath(name), body, 'alice', { fieldValidation: 'Strict' });
      expect([strict.status, strict.json().message]).toEqual([400, 'error strict decoding YAML: duplicate field "data.a"']);
      const warn = await apply(cmPath(name), body, 'alice', { fieldValidation: 'Warn' });
      expect(warn.status).toBe(201);
      expect(warn.warnings()).toEqual(['299 - "duplicate field \\"data.a\\""']);
      expect(warn.json().data).toEqual({ a: '2' });
    });

    it('the merged object is validated: 422', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), cm(name, { 'bad key!': '1' }), 'alice');
      expect(res.status).toBe(422);
      expect(res.json().reason).toBe('Invalid');
    });

    it('apply creating in a namespace that does not exist is 404 for the namespace', async () => {
      const res = await apply(`/api/v1/namespaces/no-such-ns/configmaps/x`, cm('x', { a: '1' }), 'alice');
      expect([res.status, res.json().message]).toEqual([404, 'namespaces "no-such-ns" not found']);
    });

    it('a configuration with metadata null or without metadata updates the object named by the URL', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const res = await apply(cmPath(name), { apiVersion: 'v1', kind: 'ConfigMap', metadata: null, data: { b: '2' } }, 'bob');
      expect(res.status).toBe(200);
      expect(res.json().metadata.name).toBe(name);
      expect(res.json().data).toEqual({ a: '1', b: '2' });
      const missing = uniqueName('cm');
      const create = await apply(cmPath(missing), { apiVersion: 'v1', kind: 'ConfigMap', data: { b: '2' } }, 'bob');
      expect([create.status, create.json().message]).toEqual([400, `the name of the object () does not match the name on the URL (${missing})`]);
    });

    it('a uid in a configuration that would create is 409 uid mismatch; a wrong uid on update is 409 too', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), cm(name, { a: '1' }, { uid: '6a0c4d1e-0000-4000-8000-000000000000' }), 'alice');
      expect([res.status, res.json().message]).toEqual([
        409,
        `Operation cannot be fulfilled on configmaps "${name}": uid mismatch: the provided object specified uid 6a0c4d1e-0000-4000-8000-000000000000, and no existing object was found`,
      ]);
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const same = await apply(cmPath(name), cm(name, { a: '2' }, { uid: o.metadata.uid }), 'alice');
      expect(same.status).toBe(200);
      const wrong = await apply(cmPath(name), cm(name, { a: '3' }, { uid: '6a0c4d1e-0000-4000-8000-000000000000' }), 'alice');
      expect(wrong.status).toBe(409);
    });

    it('an apply that leaves the applier owning nothing writes no entry for it', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), cm(name), 'alice');
      expect(res.status).toBe(201);
      expect(res.json().metadata.managedFields).toBeUndefined();
    });

    it('apply through /status of a missing object is 404', async () => {
      const name = uniqueName('node');
      const res = await apply(`${nodePath(name)}/status`, { apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { phase: 'Running' } }, 'ctrl');
      expect(res.status).toBe(404);
    });
  });

  describe('two appliers: conflicts, force, shared ownership', () => {
    it('changing a field another applier owns is 409 with one FieldManagerConflict cause, and changes nothing', async () => {
      const name = uniqueName('cm');
      const created = await ok(cmPath(name), cm(name, { k: 'a' }), 'alice');
      const res = await apply(cmPath(name), cm(name, { k: 'b' }), 'bob');
      status409(res, 'Apply failed with 1 conflict: conflict with "alice": .data.k', [{ field: '.data.k', message: 'conflict with "alice"' }]);
      expect(await get(cmPath(name))).toEqual(created);
    });

    it('a conflict with an Update manager names its apiVersion', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { k: 'a' }), 'alice');
      expect((await merge(cmPath(name), { data: { k: 'edited' } }, 'kubectl-edit')).status).toBe(200);
      const res = await apply(cmPath(name), cm(name, { k: 'mine' }), 'alice');
      status409(res, 'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.k', [{ field: '.data.k', message: 'conflict with "kubectl-edit" using v1' }]);
    });

    it('several conflicts: counted, grouped by manager, one cause each', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { x: '1', y: '1' }), 'alice');
      expect((await merge(cmPath(name), { data: { z: '1' } }, 'bob')).status).toBe(200);
      const res = await apply(cmPath(name), cm(name, { x: '2', y: '2', z: '2' }), 'carol');
      status409(res, 'Apply failed with 3 conflicts: conflicts with "alice":\n- .data.x\n- .data.y\nconflicts with "bob" using v1:\n- .data.z', [
        { field: '.data.x', message: 'conflict with "alice"' },
        { field: '.data.y', message: 'conflict with "alice"' },
        { field: '.data.z', message: 'conflict with "bob" using v1' },
      ]);
    });

    it('fields set by the creating Update manager conflict too (kubectl create, then apply)', async () => {
      const name = uniqueName('cm');
      const res0 = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm(name, { k: 'v' }), query: { fieldManager: 'kubectl-create' } });
      expect(res0.status).toBe(201);
      const res = await apply(cmPath(name), cm(name, { k: 'w' }), 'kubectl');
      status409(res, 'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.k', [{ field: '.data.k', message: 'conflict with "kubectl-create" using v1' }]);
    });

    it('force=true takes the conflicting field: new value, ownership moved', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { k: 'a', other: 'x' }), 'alice');
      const o = await ok(cmPath(name), cm(name, { k: 'b' }), 'bob', { force: 'true' });
      expect(o.data).toEqual({ k: 'b', other: 'x' });
      expect(fieldsOf(o, 'alice')).toEqual({ 'f:data': { '.': {}, 'f:other': {} } });
      expect(fieldsOf(o, 'bob')).toEqual({ 'f:data': { '.': {}, 'f:k': {} } });
    });

    it('force=true that takes every field of a manager removes its entry', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { k: 'a' }), 'alice');
      expect((await merge(cmPath(name), { data: { k: 'e' } }, 'editor')).status).toBe(200);
      const o = await ok(cmPath(name), cm(name, { k: 'b' }), 'bob', { force: 'true' });
      expect(entries(o).map((e) => `${e.manager}/${e.operation}`).sort()).toEqual(['alice/Apply', 'bob/Apply']);
      expect(fieldsOf(o, 'alice')).toEqual({ 'f:data': {} });
    });

    it('two appliers sending the same value share it without conflict', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { k: 'same' }), 'alice');
      const res = await apply(cmPath(name), cm(name, { k: 'same' }), 'bob');
      expect(res.status).toBe(200);
      const o = res.json();
      expect(fieldsOf(o, 'alice')).toEqual({ 'f:data': { '.': {}, 'f:k': {} } });
      expect(fieldsOf(o, 'bob')).toEqual({ 'f:data': { '.': {}, 'f:k': {} } });
    });

    it('a shared field stays when one applier stops sending it; the other keeps it alone', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { k: 'same', a: '1' }), 'alice');
      await ok(cmPath(name), cm(name, { k: 'same' }), 'bob');
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      expect(o.data).toEqual({ k: 'same', a: '1' });
      expect(fieldsOf(o, 'alice')).toEqual({ 'f:data': { '.': {}, 'f:a': {} } });
      expect(fieldsOf(o, 'bob')).toEqual({ 'f:data': { '.': {}, 'f:k': {} } });
    });

    it('a shared field is removed when both appliers stop sending it', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { k: 'same', a: '1' }), 'alice');
      await ok(cmPath(name), cm(name, { k: 'same', b: '1' }), 'bob');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const o = await ok(cmPath(name), cm(name, { b: '1' }), 'bob');
      expect(o.data).toEqual({ a: '1', b: '1' });
    });

    it('a shared field changed by one of its appliers conflicts with the other', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { k: 'same' }), 'alice');
      await ok(cmPath(name), cm(name, { k: 'same' }), 'bob');
      const res = await apply(cmPath(name), cm(name, { k: 'new' }), 'bob');
      status409(res, 'Apply failed with 1 conflict: conflict with "alice": .data.k', [{ field: '.data.k', message: 'conflict with "alice"' }]);
    });

    it('applying the value an Update manager set shares it with that manager', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      expect((await merge(cmPath(name), { data: { k: 'v' } }, 'editor')).status).toBe(200);
      const o = await ok(cmPath(name), cm(name, { a: '1', k: 'v' }), 'alice');
      expect(fieldsOf(o, 'alice')).toEqual({ 'f:data': { '.': {}, 'f:a': {}, 'f:k': {} } });
      expect(fieldsOf(o, 'editor', 'Update')).toEqual({ 'f:data': { 'f:k': {} } });
    });

    it('appliers owning disjoint fields never conflict', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }, { labels: { team: 'x' } }), 'alice');
      const o = await ok(cmPath(name), cm(name, { b: '2' }, { annotations: { note: 'y' } }), 'bob');
      expect(o.data).toEqual({ a: '1', b: '2' });
      expect(o.metadata.labels).toEqual({ team: 'x' });
      expect(o.metadata.annotations).toEqual({ note: 'y' });
      expect(fieldsOf(o, 'bob')).toEqual({ 'f:data': { '.': {}, 'f:b': {} }, 'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} } } });
    });

    it('eight appliers at once on one object: every one lands (the merge is redone on each retry)', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { base: '0' }), 'base');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => apply(cmPath(name), cm(name, { [`k${i}`]: String(i) }), `m${i}`)));
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
      const o = await get(cmPath(name));
      expect(o.data).toEqual({ base: '0', ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, String(i)])) });
      for (let i = 0; i < 8; i++) expect(fieldsOf(o, `m${i}`)).toEqual({ 'f:data': { '.': {}, [`f:k${i}`]: {} } });
    });

    it('the same manager applying through the main resource and through /status is two entries', async () => {
      const name = uniqueName('node');
      await ok(nodePath(name), { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { a: 'b' } } }, 'agent');
      const o = await ok(`${nodePath(name)}/status`, { apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { phase: 'Running' } }, 'agent');
      expect(fieldsOf(o, 'agent')).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
      expect(fieldsOf(o, 'agent', 'Apply', 'status')).toEqual({ 'f:status': { '.': {}, 'f:phase': {} } });
    });
  });

  describe('fields an applier stops applying', () => {
    it('a field the applier alone owned is removed', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1', b: '2' }), 'alice');
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      expect(o.data).toEqual({ a: '1' });
      expect(fieldsOf(o, 'alice')).toEqual({ 'f:data': { '.': {}, 'f:a': {} } });
    });

    it('a label is removed, other metadata stays', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }, { labels: { x: '1', y: '2' }, annotations: { keep: 'me' } }), 'alice');
      const o = await ok(cmPath(name), cm(name, { a: '1' }, { labels: { x: '1' }, annotations: { keep: 'me' } }), 'alice');
      expect(o.metadata.labels).toEqual({ x: '1' });
      expect(o.metadata.annotations).toEqual({ keep: 'me' });
    });

    it('a whole map goes when the applier stops sending it', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1', b: '2' }, { labels: { x: '1' } }), 'alice');
      const o = await ok(cmPath(name), cm(name, undefined, { labels: { x: '1' } }), 'alice');
      expect(o.data).toBeUndefined();
      expect(fieldsOf(o, 'alice')).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } } });
    });

    it('a field an Update manager changed since is kept (the updater owns it now)', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1', b: '2' }), 'alice');
      expect((await merge(cmPath(name), { data: { b: 'edited' } }, 'editor')).status).toBe(200);
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      expect(o.data).toEqual({ a: '1', b: 'edited' });
      expect(fieldsOf(o, 'editor', 'Update')).toEqual({ 'f:data': { 'f:b': {} } });
    });

    it('fields the applier never applied are not removed', async () => {
      const name = uniqueName('cm');
      const res0 = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm(name, { created: 'yes' }), query: { fieldManager: 'creator' } });
      expect(res0.status).toBe(201);
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const o = await ok(cmPath(name), cm(name, { b: '1' }), 'alice');
      expect(o.data).toEqual({ created: 'yes', b: '1' });
    });

    it('a field taken by force is not removed when its former applier stops sending it', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1', k: 'x' }), 'alice');
      await ok(cmPath(name), cm(name, { k: 'y' }), 'bob', { force: 'true' });
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      expect(o.data).toEqual({ a: '1', k: 'y' });
    });

    it('re-applying a removed field brings it back, owned by the applier', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1', b: '2' }), 'alice');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const o = await ok(cmPath(name), cm(name, { a: '1', b: '3' }), 'alice');
      expect(o.data).toEqual({ a: '1', b: '3' });
      expect(fieldsOf(o, 'alice')).toEqual({ 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } });
    });

    it('a null value in the configuration removes the field and keeps it owned', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }, { labels: { x: '1', y: '2' } }), 'alice');
      const o = await ok(cmPath(name), { ...cm(name, { a: '1' }), metadata: { name, labels: { x: '1', y: null } } }, 'alice');
      expect(o.metadata.labels).toEqual({ x: '1' });
    });
  });

  describe('Update managers', () => {
    it('a merge patch takes an applied field silently (no conflict for updates)', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { k: 'a', j: 'b' }), 'alice');
      const res = await merge(cmPath(name), { data: { k: 'patched' } }, 'patcher');
      expect(res.status).toBe(200);
      const o = res.json();
      expect(fieldsOf(o, 'alice')).toEqual({ 'f:data': { '.': {}, 'f:j': {} } });
      expect(entryOf(o, 'patcher', 'Update')).toEqual({
        manager: 'patcher', operation: 'Update', apiVersion: 'v1', time: expect.stringMatching(TIME), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } },
      });
    });

    it('PUT records only the fields it added or changed', async () => {
      const name = uniqueName('cm');
      const o0 = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const res = await api.request('PUT', cmPath(name), { body: { ...o0, data: { a: '1', b: '2' } }, query: { fieldManager: 'replacer' } });
      expect(res.status).toBe(200);
      expect(fieldsOf(res.json(), 'replacer', 'Update')).toEqual({ 'f:data': { 'f:b': {} } });
    });

    it('an update removing a field removes it from every manager', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1', b: '2' }), 'alice');
      const res = await merge(cmPath(name), { data: { b: null } }, 'cleaner');
      expect(res.status).toBe(200);
      expect(fieldsOf(res.json(), 'alice')).toEqual({ 'f:data': { '.': {}, 'f:a': {} } });
      expect(entryOf(res.json(), 'cleaner', 'Update')).toBeUndefined();
    });

    it('successive updates of one manager accumulate; a no-op update keeps its time', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      await merge(cmPath(name), { data: { x: '1' } }, 'ctl');
      const second = (await merge(cmPath(name), { data: { y: '1' } }, 'ctl')).json();
      expect(fieldsOf(second, 'ctl', 'Update')).toEqual({ 'f:data': { 'f:x': {}, 'f:y': {} } });
      const noop = await merge(cmPath(name), { data: { y: '1' } }, 'ctl');
      expect(noop.json().metadata.resourceVersion).toBe(second.metadata.resourceVersion);
      expect(entryOf(noop.json(), 'ctl', 'Update')).toEqual(entryOf(second, 'ctl', 'Update'));
    });

    it('Apply entries come before Update entries', async () => {
      const name = uniqueName('cm');
      await merge(cmPath(name), {}, 'x').catch(() => undefined);
      await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm(name, { c: '1' }), query: { fieldManager: 'aaa-creator' } });
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'zzz-applier');
      expect(entries(o).map((e) => e.operation)).toEqual(['Apply', 'Update']);
    });

    it('more than ten Update managers: the oldest fold into ancient-changes, at most ten Update entries', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { base: '1' }), 'alice');
      for (let i = 0; i < 12; i++) {
        const res = await merge(cmPath(name), { data: { [`k${i}`]: 'v' } }, `updater-${String(i).padStart(2, '0')}`);
        expect(res.status).toBe(200);
      }
      const o = await get(cmPath(name));
      const updates = entries(o).filter((e) => e.operation === 'Update');
      expect(updates.length).toBe(10);
      const bucket = updates.find((e) => e.manager === 'ancient-changes');
      expect(bucket).toMatchObject({ operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1' });
      const owned = updates.flatMap((e) => Object.keys(e.fieldsV1['f:data'] ?? {}));
      expect(owned.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `f:k${i}`).sort());
      expect(entryOf(o, 'alice')).toBeDefined();
      expect(new Set(updates.map((e) => e.manager)).size).toBe(10);
    });

    it('the manager of an update without fieldManager comes from the User-Agent', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const res = await api.request('PATCH', cmPath(name), { body: { data: { b: '1' } }, headers: { 'User-Agent': 'my-controller/1.2 (linux)' } });
      expect(entryOf(res.json(), 'my-controller', 'Update')).toBeDefined();
    });
  });

  describe('list maps, sets and atomic values from the schema', () => {
    const container = (name: string, image: string, extra: Obj = {}): Obj => ({ name, image, ...extra });
    const pt = (name: string, containers: Obj[], meta: Obj = {}): Obj => ({
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name, ...meta },
      template: { spec: { containers } },
    });
    const names = (o: Obj): string[] => o.template.spec.containers.map((c: Obj) => c.name);

    it('elements of a list map are owned by key: k:{"name":...}', async () => {
      const name = uniqueName('pt');
      const o = await ok(ptPath(name), pt(name, [container('web', 'nginx')]), 'alice');
      expect(fieldsOf(o, 'alice')).toEqual({
        'f:template': { '.': {}, 'f:spec': { '.': {}, 'f:containers': { '.': {}, 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
      });
    });

    it('two appliers each own their own element of the same list', async () => {
      const name = uniqueName('pt');
      await ok(ptPath(name), pt(name, [container('web', 'nginx')]), 'alice');
      const o = await ok(ptPath(name), pt(name, [container('sidecar', 'envoy')]), 'bob');
      expect(names(o)).toEqual(['web', 'sidecar']);
      expect(Object.keys(fieldsOf(o, 'bob')!['f:template']['f:spec']['f:containers'])).toEqual(['.', 'k:{"name":"sidecar"}']);
    });

    it("an element an applier stops sending is removed; the other applier's stays", async () => {
      const name = uniqueName('pt');
      await ok(ptPath(name), pt(name, [container('web', 'nginx'), container('extra', 'busybox')]), 'alice');
      await ok(ptPath(name), pt(name, [container('sidecar', 'envoy')]), 'bob');
      const o = await ok(ptPath(name), pt(name, [container('web', 'nginx')]), 'alice');
      expect(names(o)).toEqual(['web', 'sidecar']);
    });

    it('changing a field of an element another applier owns conflicts, with the keyed path', async () => {
      const name = uniqueName('pt');
      await ok(ptPath(name), pt(name, [container('web', 'nginx:1')]), 'alice');
      const res = await apply(ptPath(name), pt(name, [container('web', 'nginx:2')]), 'bob');
      status409(res, 'Apply failed with 1 conflict: conflict with "alice": .template.spec.containers[name="web"].image', [
        { field: '.template.spec.containers[name="web"].image', message: 'conflict with "alice"' },
      ]);
    });

    it('another applier may add fields inside an element it does not own', async () => {
      const name = uniqueName('pt');
      await ok(ptPath(name), pt(name, [container('web', 'nginx')]), 'alice');
      const o = await ok(ptPath(name), pt(name, [container('web', 'nginx', { workingDir: '/srv' })]), 'bob');
      expect(o.template.spec.containers[0]).toMatchObject({ name: 'web', image: 'nginx', workingDir: '/srv' });
    });

    it('multi-key elements use every key, a missing key taken from its default', async () => {
      const name = uniqueName('pt');
      const o = await ok(ptPath(name), pt(name, [container('web', 'nginx', { ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP' }] })]), 'alice');
      const c = fieldsOf(o, 'alice')!['f:template']['f:spec']['f:containers']['k:{"name":"web"}'];
      expect(Object.keys(c['f:ports'])).toEqual(['.', 'k:{"containerPort":53,"protocol":"UDP"}', 'k:{"containerPort":80,"protocol":"TCP"}']);
    });

    it('a defaulted key matches the explicit one: another applier renaming that port conflicts (TestDefaultMissingKeys)', async () => {
      const name = uniqueName('pt');
      await ok(ptPath(name), pt(name, [container('web', 'nginx', { ports: [{ name: 'foo', containerPort: 80 }] })]), 'alice');
      const res = await apply(ptPath(name), pt(name, [container('web', 'nginx', { ports: [{ name: 'bar', containerPort: 80, protocol: 'TCP' }] })]), 'bob');
      expect(res.status).toBe(409);
      expect(res.json().details.causes.map((c: Obj) => c.field)).toEqual(['.template.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"].name']);
    });

    it('an element an updater changed inside is still removed when its applier drops it', async () => {
      const name = uniqueName('pt');
      await ok(ptPath(name), pt(name, [container('web', 'nginx')]), 'alice');
      const patched = await api.request('PATCH', ptPath(name), {
        body: [{ op: 'add', path: '/template/spec/containers/0/workingDir', value: '/srv' }],
        headers: JSON_PATCH,
        query: { fieldManager: 'controller' },
      });
      expect(patched.status).toBe(200);
      const o = await ok(ptPath(name), pt(name, [container('other', 'nginx')]), 'alice');
      expect(names(o)).toEqual(['other']);
    });

    it('an element without its key takes the key field\'s default ("") and fails validation: 422', async () => {
      const name = uniqueName('pt');
      const res = await apply(ptPath(name), pt(name, [{ image: 'nginx' }]), 'alice');
      expect([res.status, res.json().reason]).toEqual([422, 'Invalid']);
      expect(res.json().details.causes.map((c: Obj) => c.field)).toContain('template.spec.containers[0].name');
    });

    it('duplicate elements in a configuration are 400', async () => {
      const name = uniqueName('pt');
      const res = await apply(ptPath(name), pt(name, [container('web', 'a'), container('web', 'b')]), 'alice');
      expect(res.status).toBe(400);
      expect(res.json().message).toContain('.template.spec.containers: duplicate entries for key [name="web"]');
    });

    it('new elements keep the live order and come where the configuration puts them', async () => {
      const name = uniqueName('pt');
      await ok(ptPath(name), pt(name, [container('a', 'x'), container('c', 'x')]), 'alice');
      const o = await ok(ptPath(name), pt(name, [container('a', 'x'), container('b', 'x'), container('c', 'x')]), 'alice');
      expect(names(o)).toEqual(['a', 'b', 'c']);
    });

    it('env entries merge by name across appliers', async () => {
      const name = uniqueName('pt');
      await ok(ptPath(name), pt(name, [container('web', 'nginx', { env: [{ name: 'A', value: '1' }] })]), 'alice');
      const o = await ok(ptPath(name), pt(name, [container('web', 'nginx', { env: [{ name: 'B', value: '2' }] })]), 'bob');
      expect(o.template.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: '2' }]);
    });

    it('a set (metadata.finalizers): elements owned by value, v:"..."; each applier keeps its own', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, undefined, { finalizers: ['example.com/a'] }), 'alice');
      const o = await ok(cmPath(name), cm(name, undefined, { finalizers: ['example.com/b'] }), 'bob');
      expect(o.metadata.finalizers).toEqual(['example.com/a', 'example.com/b']);
      expect(fieldsOf(o, 'bob')).toEqual({ 'f:metadata': { 'f:finalizers': { '.': {}, 'v:"example.com/b"': {} } } });
      const after = await ok(cmPath(name), cm(name, undefined, {}), 'alice');
      expect(after.metadata.finalizers).toEqual(['example.com/b']);
      await ok(cmPath(name), cm(name, undefined, {}), 'bob');
      expect((await get(cmPath(name))).metadata.finalizers).toBeUndefined();
    });

    it('the same set element sent by two appliers is shared, not a conflict', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, undefined, { finalizers: ['example.com/x'] }), 'alice');
      const res = await apply(cmPath(name), cm(name, undefined, { finalizers: ['example.com/x'] }), 'bob');
      expect(res.status).toBe(200);
      await ok(cmPath(name), cm(name, undefined, {}), 'alice');
      expect((await get(cmPath(name))).metadata.finalizers).toEqual(['example.com/x']);
      await ok(cmPath(name), cm(name, undefined, {}), 'bob');
    });

    it('an atomic list is one field: another value from another applier conflicts on the list', async () => {
      const name = uniqueName('pt');
      const o = await ok(ptPath(name), pt(name, [container('web', 'nginx', { args: ['-a'] })]), 'alice');
      expect(fieldsOf(o, 'alice')!['f:template']['f:spec']['f:containers']['k:{"name":"web"}']['f:args']).toEqual({});
      const res = await apply(ptPath(name), pt(name, [container('web', 'nginx', { args: ['-a', '-b'] })]), 'bob');
      status409(res, 'Apply failed with 1 conflict: conflict with "alice": .template.spec.containers[name="web"].args', [
        { field: '.template.spec.containers[name="web"].args', message: 'conflict with "alice"' },
      ]);
    });

    it('force on an atomic list replaces it whole', async () => {
      const name = uniqueName('pt');
      await ok(ptPath(name), pt(name, [container('web', 'nginx', { args: ['-a', '-b'] })]), 'alice');
      const o = await ok(ptPath(name), pt(name, [container('web', 'nginx', { args: ['-c'] })]), 'bob', { force: 'true' });
      expect(o.template.spec.containers[0].args).toEqual(['-c']);
    });

    it('an atomic map is one field (configMapKeyRef): no paths inside it', async () => {
      const name = uniqueName('pt');
      const env = [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }];
      const o = await ok(ptPath(name), pt(name, [container('web', 'nginx', { env })]), 'alice');
      const e = fieldsOf(o, 'alice')!['f:template']['f:spec']['f:containers']['k:{"name":"web"}']['f:env']['k:{"name":"X"}'];
      expect(e).toEqual({ '.': {}, 'f:name': {}, 'f:valueFrom': { '.': {}, 'f:configMapKeyRef': {} } });
      const env2 = [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'other' } } }];
      const res = await apply(ptPath(name), pt(name, [container('web', 'nginx', { env: env2 })]), 'bob');
      expect(res.json().details.causes).toEqual([
        { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.template.spec.containers[name="web"].env[name="X"].valueFrom.configMapKeyRef' },
      ]);
    });

    it('an atomic list of a Node (spec.taints) is replaced whole by its applier', async () => {
      const name = uniqueName('node');
      const node = (taints: Obj[]): Obj => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { taints } });
      await ok(nodePath(name), node([{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'NoSchedule' }]), 'alice');
      const o = await ok(nodePath(name), node([{ key: 'c', effect: 'NoExecute' }]), 'alice');
      expect(o.spec.taints).toEqual([{ key: 'c', effect: 'NoExecute' }]);
      expect(fieldsOf(o, 'alice')).toEqual({ 'f:spec': { '.': {}, 'f:taints': {} } });
    });
  });

  describe('status sub-resource', () => {
    const node = (name: string, extra: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, ...extra });

    it('status applied through /status is owned with subresource status', async () => {
      const name = uniqueName('node');
      await ok(nodePath(name), node(name, { spec: { unschedulable: true } }), 'admin');
      const o = await ok(`${nodePath(name)}/status`, node(name, { status: { capacity: { cpu: '4' } } }), 'kubelet');
      expect(o.status.capacity).toEqual({ cpu: '4' });
      expect(entryOf(o, 'kubelet', 'Apply', 'status')).toEqual({
        manager: 'kubelet', operation: 'Apply', apiVersion: 'v1', time: expect.stringMatching(TIME), fieldsType: 'FieldsV1', subresource: 'status',
        fieldsV1: { 'f:status': { '.': {}, 'f:capacity': { '.': {}, 'f:cpu': {} } } },
      });
    });

    it('status sent to the main resource is neither applied nor owned', async () => {
      const name = uniqueName('node');
      await ok(nodePath(name), node(name, { spec: { unschedulable: true } }), 'admin');
      const o = await ok(nodePath(name), node(name, { spec: { unschedulable: true }, status: { capacity: { cpu: '4' } } }), 'admin');
      expect(o.status?.capacity).toBeUndefined();
      expect(fieldsOf(o, 'admin')).toEqual({ 'f:spec': { '.': {}, 'f:unschedulable': {} } });
    });

    it('spec and status appliers never conflict', async () => {
      const name = uniqueName('node');
      await ok(nodePath(name), node(name, { spec: { unschedulable: true } }), 'admin');
      await ok(`${nodePath(name)}/status`, node(name, { status: { capacity: { cpu: '4' } } }), 'kubelet');
      const res = await apply(nodePath(name), node(name, { spec: { unschedulable: false } }), 'admin');
      expect(res.status).toBe(200);
      expect(res.json().status.capacity).toEqual({ cpu: '4' });
    });

    it('a conflict with a status applier names the sub-resource', async () => {
      const name = uniqueName('node');
      await ok(nodePath(name), node(name), 'admin');
      await ok(`${nodePath(name)}/status`, node(name, { status: { capacity: { cpu: '4' } } }), 'kubelet');
      const res = await apply(`${nodePath(name)}/status`, node(name, { status: { capacity: { cpu: '8' } } }), 'other');
      status409(res, 'Apply failed with 1 conflict: conflict with "kubelet" with subresource "status": .status.capacity.cpu', [
        { field: '.status.capacity.cpu', message: 'conflict with "kubelet" with subresource "status"' },
      ]);
    });

    it('a status Update takes a field from the status applier; PUT /status records subresource status', async () => {
      const name = uniqueName('node');
      await ok(nodePath(name), node(name), 'admin');
      await ok(`${nodePath(name)}/status`, node(name, { status: { capacity: { cpu: '4', memory: '1Gi' } } }), 'kubelet');
      const res = await api.request('PATCH', `${nodePath(name)}/status`, { body: { status: { capacity: { cpu: '16' } } }, query: { fieldManager: 'fixer' } });
      expect(res.status).toBe(200);
      expect(fieldsOf(res.json(), 'fixer', 'Update', 'status')).toEqual({ 'f:status': { 'f:capacity': { 'f:cpu': {} } } });
      expect(fieldsOf(res.json(), 'kubelet', 'Apply', 'status')).toEqual({ 'f:status': { '.': {}, 'f:capacity': { '.': {}, 'f:memory': {} } } });
    });

    it('a status applier that stops sending a condition removes it', async () => {
      const name = uniqueName('node');
      await ok(nodePath(name), node(name), 'admin');
      await ok(`${nodePath(name)}/status`, node(name, { status: { capacity: { cpu: '4', pods: '10' } } }), 'kubelet');
      const o = await ok(`${nodePath(name)}/status`, node(name, { status: { capacity: { cpu: '4' } } }), 'kubelet');
      expect(o.status.capacity).toEqual({ cpu: '4' });
    });
  });

  describe('managedFields reset', () => {
    it('a JSON patch replacing managedFields with one empty entry removes them all', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      await merge(cmPath(name), { data: { b: '1' } }, 'bob');
      const res = await api.request('PATCH', cmPath(name), { body: [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }], headers: JSON_PATCH });
      expect(res.status).toBe(200);
      expect(res.json().metadata.managedFields).toBeUndefined();
      expect((await get(cmPath(name))).metadata.managedFields).toBeUndefined();
    });

    it('a reset with other changes: the writer owns only what it changed', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const res = await api.request('PATCH', cmPath(name), {
        body: [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }, { op: 'add', path: '/data/b', value: '2' }],
        headers: JSON_PATCH,
        query: { fieldManager: 'resetter' },
      });
      expect(res.status).toBe(200);
      expect(res.json().metadata.managedFields).toEqual([
        { manager: 'resetter', operation: 'Update', apiVersion: 'v1', time: expect.stringMatching(TIME), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:b': {} } } },
      ]);
    });

    it('after a reset, updates do not track the object again; an apply does', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      await api.request('PATCH', cmPath(name), { body: [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }], headers: JSON_PATCH });
      const upd = await merge(cmPath(name), { data: { b: '2' } }, 'editor');
      expect(upd.status).toBe(200);
      expect(upd.json().metadata.managedFields).toBeUndefined();
      const o = await ok(cmPath(name), cm(name, { c: '3' }), 'alice');
      expect(entries(o).map((e) => e.manager)).toEqual(['alice']);
      const upd2 = await merge(cmPath(name), { data: { b: '9' } }, 'editor');
      expect(fieldsOf(upd2.json(), 'editor', 'Update')).toEqual({ 'f:data': { 'f:b': {} } });
    });

    it('an empty list does not reset (merge patch and PUT)', async () => {
      const name = uniqueName('cm');
      const o0 = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const m = await merge(cmPath(name), { metadata: { managedFields: [] } }, 'x');
      expect(m.json().metadata.managedFields).toEqual(o0.metadata.managedFields);
      const cur = await get(cmPath(name));
      const p = await api.request('PUT', cmPath(name), { body: { ...cur, metadata: { ...cur.metadata, managedFields: [] } } });
      expect(p.json().metadata.managedFields).toEqual(o0.metadata.managedFields);
    });

    it('a PUT with one empty entry resets too', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const cur = await get(cmPath(name));
      const res = await api.request('PUT', cmPath(name), { body: { ...cur, metadata: { ...cur.metadata, managedFields: [{}] } } });
      expect(res.status).toBe(200);
      expect(res.json().metadata.managedFields).toBeUndefined();
    });

    it('after a reset the former owners no longer conflict, and re-applying records the applier again', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { k: 'a' }), 'alice');
      await api.request('PATCH', cmPath(name), { body: [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }], headers: JSON_PATCH });
      const res = await apply(cmPath(name), cm(name, { k: 'b' }), 'bob');
      expect(res.status).toBe(200);
      expect(entries(res.json()).map((e) => e.manager)).toEqual(['bob']);
    });

    it('a merge patch with one empty entry resets too', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const res = await merge(cmPath(name), { metadata: { managedFields: [{}] } }, 'x');
      expect(res.status).toBe(200);
      expect(res.json().metadata.managedFields).toBeUndefined();
    });

    it('managedFields sent through /status are ignored: neither taken nor a reset', async () => {
      const name = uniqueName('node');
      const o = await ok(nodePath(name), { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { a: 'b' } } }, 'admin');
      const res = await api.request('PUT', `${nodePath(name)}/status`, {
        body: { ...o, metadata: { ...o.metadata, managedFields: [{}] }, status: { capacity: { cpu: '2' } } },
        query: { fieldManager: 'kubelet' },
      });
      expect(res.status).toBe(200);
      expect(entryOf(res.json(), 'admin')).toEqual(entryOf(o, 'admin'));
      expect(fieldsOf(res.json(), 'kubelet', 'Update', 'status')).toEqual({ 'f:status': { 'f:capacity': { '.': {}, 'f:cpu': {} } } });
    });

    it('managedFields written by a client in an update are taken as the new ownership', async () => {
      const name = uniqueName('cm');
      await ok(cmPath(name), cm(name, { k: 'a' }), 'alice');
      const mine = [{ manager: 'claimed', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:k': {} } } }];
      const res = await merge(cmPath(name), { metadata: { managedFields: mine } }, 'x');
      expect(res.json().metadata.managedFields).toEqual(mine);
      const conflict = await apply(cmPath(name), cm(name, { k: 'b' }), 'bob');
      expect(conflict.json().message).toBe('Apply failed with 1 conflict: conflict with "claimed" using v1: .data.k');
    });
  });

  describe('preconditions of PATCH', () => {
    const lock = (name: string): string =>
      `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`;

    it('a stale metadata.resourceVersion in a merge patch is 409', async () => {
      const name = uniqueName('cm');
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      await merge(cmPath(name), { data: { a: '2' } }, 'x');
      const res = await merge(cmPath(name), { metadata: { resourceVersion: o.metadata.resourceVersion }, data: { a: '3' } }, 'x');
      expect([res.status, res.json().reason, res.json().message]).toEqual([409, 'Conflict', lock(name)]);
      expect((await get(cmPath(name))).data).toEqual({ a: '2' });
    });

    it('the current resourceVersion in a merge patch passes', async () => {
      const name = uniqueName('cm');
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const res = await merge(cmPath(name), { metadata: { resourceVersion: o.metadata.resourceVersion }, data: { a: '3' } }, 'x');
      expect(res.status).toBe(200);
    });

    it('a stale resourceVersion set by a JSON patch is 409', async () => {
      const name = uniqueName('cm');
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      await merge(cmPath(name), { data: { a: '2' } }, 'x');
      const res = await api.request('PATCH', cmPath(name), {
        body: [{ op: 'replace', path: '/metadata/resourceVersion', value: o.metadata.resourceVersion }, { op: 'replace', path: '/data/a', value: '9' }],
        headers: JSON_PATCH,
      });
      expect([res.status, res.json().message]).toEqual([409, lock(name)]);
    });

    it('a stale resourceVersion in an apply configuration is 409; the current one passes', async () => {
      const name = uniqueName('cm');
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const o2 = await ok(cmPath(name), cm(name, { a: '2' }), 'alice');
      const stale = await apply(cmPath(name), cm(name, { a: '3' }, { resourceVersion: o.metadata.resourceVersion }), 'alice');
      expect([stale.status, stale.json().message]).toEqual([409, lock(name)]);
      const fresh = await apply(cmPath(name), cm(name, { a: '3' }, { resourceVersion: o2.metadata.resourceVersion }), 'alice');
      expect(fresh.status).toBe(200);
      expect(fresh.json().data).toEqual({ a: '3' });
    });

    it('If-Match: a stale resourceVersion is 409, the current one passes (merge patch and apply)', async () => {
      const name = uniqueName('cm');
      const o = await ok(cmPath(name), cm(name, { a: '1' }), 'alice');
      const o2 = (await merge(cmPath(name), { data: { b: '1' } }, 'x')).json();
      const stale = await merge(cmPath(name), { data: { c: '1' } }, 'x', { 'If-Match': `"${o.metadata.resourceVersion}"` });
      expect([stale.status, stale.json().message]).toEqual([409, lock(name)]);
      const staleApply = await apply(cmPath(name), cm(name, { a: '5' }), 'alice', {}, { 'If-Match': o.metadata.resourceVersion });
      expect([staleApply.status, staleApply.json().message]).toEqual([409, lock(name)]);
      const fresh = await merge(cmPath(name), { data: { c: '1' } }, 'x', { 'If-Match': `"${o2.metadata.resourceVersion}"` });
      expect(fresh.status).toBe(200);
      const freshApply = await apply(cmPath(name), cm(name, { a: '5' }), 'alice', {}, { 'If-Match': fresh.json().metadata.resourceVersion });
      expect(freshApply.status).toBe(200);
    });

    it('If-Match on an apply that would create is 409', async () => {
      const name = uniqueName('cm');
      const res = await apply(cmPath(name), cm(name, { a: '1' }), 'alice', {}, { 'If-Match': '"1"' });
      expect([res.status, res.json().message]).toEqual([409, lock(name)]);
      expect((await api.request('GET', cmPath(name))).status).toBe(404);
    });
  });

  describe('from client-side apply to server-side apply (manager kubectl)', () => {
    const LAST = 'kubectl.kubernetes.io/last-applied-configuration';
    /** What `kubectl apply` (client-side) creates: the object with its configuration in the annotation. */
    const clientSideApply = async (name: string, data: Record<string, string>): Promise<void> => {
      const config = cm(name, data);
      const body = { ...config, metadata: { ...config.metadata, annotations: { [LAST]: `${JSON.stringify({ ...config, metadata: { ...config.metadata, namespace: ns } })}\n` } } };
      const res = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body, query: { fieldManager: 'kubectl-client-side-apply' } });
      expect(res.status).toBe(201);
    };

    it('kubectl takes over fields its last client-side apply still holds, without a conflict', async () => {
      const name = uniqueName('cm');
      await clientSideApply(name, { k: 'a', j: 'b' });
      const res = await apply(cmPath(name), cm(name, { k: 'changed', j: 'b' }), 'kubectl');
      expect(res.status).toBe(200);
      const o = res.json();
      expect(o.data).toEqual({ k: 'changed', j: 'b' });
      expect(fieldsOf(o, 'kubectl')).toEqual({ 'f:data': { '.': {}, 'f:j': {}, 'f:k': {} } });
      expect(JSON.parse(o.metadata.annotations[LAST])).toEqual(cm(name, { k: 'changed', j: 'b' }));
    });

    it('another manager name still conflicts', async () => {
      const name = uniqueName('cm');
      await clientSideApply(name, { k: 'a' });
      const res = await apply(cmPath(name), cm(name, { k: 'changed' }), 'other');
      expect(res.json().message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.k');
    });

    it('a field changed since the client-side apply still conflicts', async () => {
      const name = uniqueName('cm');
      await clientSideApply(name, { k: 'a' });
      expect((await merge(cmPath(name), { data: { k: 'edited' } }, 'kubectl-edit')).status).toBe(200);
      const res = await apply(cmPath(name), cm(name, { k: 'mine' }), 'kubectl');
      expect(res.json().message).toBe('Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.k');
    });
  });
});
