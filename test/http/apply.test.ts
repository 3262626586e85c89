/**
 * Server-side apply and managedFields through HTTP, on the embedded store and on a real etcd, modelled on
 * Kubernetes' behaviour (test/integration/apiserver/apply): create on apply and the apply request, two
 * appliers (conflicts, force, shared ownership), removal of what an applier stops applying, and Update
 * managers with their bucketing. The schema-driven cases are in apply-schema.test.ts.
 */
import { describeApply, TIME, entries, entryOf, fieldsOf, status409 } from './apply-harness.js';
import { uniqueName, type TestApi } from './helpers.js';

describeApply((h) => {
  const { cmPath, nodePath, cm, apply, merge, get, ok } = h;
  let api: TestApi;
  let ns: string;
  beforeAll(() => {
    api = h.api;
    ns = h.ns;
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
});
