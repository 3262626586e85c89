/**
 * Server-side apply through HTTP, on both backends: list maps, sets and atomic values from the schemas, the
 * status sub-resource, the managedFields reset, the preconditions of PATCH (a resourceVersion in the body,
 * If-Match) and the hand-over from client-side to server-side apply. Shared helpers: apply-harness.ts.
 */
import { describeApply, JSON_PATCH, TIME, entries, entryOf, fieldsOf, status409, type Obj } from './apply-harness.js';
import { uniqueName, type TestApi } from './helpers.js';

describeApply((h) => {
  const { cmPath, ptPath, nodePath, cm, apply, merge, get, ok } = h;
  let api: TestApi;
  let ns: string;
  beforeAll(() => {
    api = h.api;
    ns = h.ns;
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
