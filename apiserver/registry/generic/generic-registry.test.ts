/** The generic registry against the real embedded store. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/object.js';
import { StatusError } from '../../errors/status-error.js';
import { naming } from '../../naming/naming.js';
import { parseFieldSelector } from '../../selectors/field-selector.js';
import { parseLabelSelector } from '../../selectors/label-selector.js';
import { openMemoryStore, type MemoryStore } from '../../../storage/memory/memory-store.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { createGenericRegistry, type GenericRegistry } from './generic-registry.js';
import { ExpiredListError } from './list.js';
import { gadgetStrategy, widgetStrategy } from './testing/widget-strategy.js';

let dir: string;
let store: MemoryStore;
let widgets: GenericRegistry;
let gadgets: GenericRegistry;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'registry-'));
  store = await openMemoryStore({ dataDir: dir });
  widgets = createGenericRegistry({ store, strategy: widgetStrategy, naming: naming('platform.io') });
  gadgets = createGenericRegistry({ store, strategy: gadgetStrategy, naming: naming('platform.io') });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const widget = (name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Widget',
  metadata: { name },
  spec: { replicas: 1 },
  ...extra,
});

async function statusError(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('expected a StatusError');
}

describe('create and get', () => {
  test('system fields, defaults, generation, stored without resourceVersion', async () => {
    const input = widget('a', { metadata: { name: 'a', uid: 'forged', resourceVersion: '99', deletionTimestamp: '2020-01-01T00:00:00Z', generation: 7 } });
    const { object } = await widgets.create('ns', input, { fieldManager: 'kubectl-create' });
    expect(object.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(object.metadata.uid).not.toBe('forged');
    expect(object.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(object.metadata.deletionTimestamp).toBeUndefined();
    expect(object.metadata.generation).toBe(1);
    expect(object.metadata.namespace).toBe('ns');
    expect(object.spec).toEqual({ replicas: 1, color: 'red' });
    const raw = await store.get('/registry/widgets/ns/a');
    expect(String(raw.kv!.modRevision)).toBe(object.metadata.resourceVersion);
    expect(JSON.parse(Buffer.from(raw.kv!.value).toString()).metadata.resourceVersion).toBeUndefined();
    const got = await widgets.get('ns', 'a');
    expect(got).toEqual(object);
    got.metadata.labels = { mutated: 'yes' };
    expect((await widgets.get('ns', 'a')).metadata.labels).toBeUndefined();
  });

  test('an owner reference without uid gets ObjectMeta validation\'s one error, not the schema\'s besides it', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner' };
    const err = await statusError(widgets.create('ns', widget('a', { metadata: { name: 'a', ownerReferences: [ref as never] } })));
    expect(err.code).toBe(422);
    expect(err.message).toBe('Widget "a" is invalid: metadata.ownerReferences.uid: Invalid value: "": uid must not be empty');
  });

  test('managedFields Update entry for the field manager', async () => {
    const { object } = await widgets.create('ns', widget('a', { metadata: { name: 'a', labels: { x: '1' } } }), { fieldManager: 'kubectl-create' });
    expect(object.metadata.managedFields).toEqual([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        time: object.metadata.creationTimestamp,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } }, 'f:spec': { '.': {}, 'f:color': {}, 'f:replicas': {} } },
      },
    ]);
    const { object: updated } = await widgets.update('ns', 'a', { ...object, spec: { replicas: 2, color: 'red' } }, { fieldManager: 'kubectl-edit' });
    const byManager = Object.fromEntries((updated.metadata.managedFields ?? []).map((e) => [e.manager, e.fieldsV1]));
    expect(byManager['kubectl-edit']).toEqual({ 'f:spec': { 'f:replicas': {} } });
    expect(byManager['kubectl-create']).toEqual({ 'f:metadata': { 'f:labels': { '.': {}, 'f:x': {} } }, 'f:spec': { '.': {}, 'f:color': {} } });
  });

  test('managedFields reset with one empty entry; garbage is ignored', async () => {
    const { object } = await widgets.create('ns', widget('a'), { fieldManager: 'm' });
    const reset = await widgets.patch('ns', 'a', (cur) => applyJsonPatch(cur, [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }]) as KubeObject);
    expect(reset.object.metadata.managedFields).toBeUndefined();
    const garbage = await widgets.update('ns', 'a', { ...object, metadata: { ...object.metadata, resourceVersion: '', managedFields: [{ operation: 'Bogus' } as never] } });
    expect(garbage.object.metadata.managedFields).toBeUndefined();
  });

  test('AlreadyExists, NotFound, namespace mismatch, invalid', async () => {
    await widgets.create('ns', widget('a'));
    const dup = await statusError(widgets.create('ns', widget('a')));
    expect([dup.code, dup.reason, dup.message]).toEqual([409, 'AlreadyExists', 'widgets "a" already exists']);
    const missing = await statusError(widgets.get('ns', 'zz'));
    expect([missing.code, missing.message]).toEqual([404, 'widgets "zz" not found']);
    const mismatch = await statusError(widgets.create('ns', widget('b', { metadata: { name: 'b', namespace: 'other' } })));
    expect([mismatch.code, mismatch.message]).toEqual([400, 'the namespace of the provided object does not match the namespace sent on the request']);
    const bad = await statusError(widgets.create('ns', widget('Bad_Name', { spec: { replicas: -1 } })));
    expect(bad.code).toBe(422);
    expect(bad.message).toMatch(/^Widget "Bad_Name" is invalid: \[metadata\.name: Invalid value: "Bad_Name": .*, spec\.replicas: Invalid value: -1: must be greater than or equal to 0\]$/);
    // A built-in kind is decoded into typed structs: a wrongly typed value is a 400 decoding error.
    const typed = await statusError(widgets.create('ns', widget('t', { spec: { replicas: 'many' } })));
    expect([typed.code, typed.reason]).toEqual([400, 'BadRequest']);
    expect(typed.message).toMatch(/^Widget in version "v1" cannot be handled as a Widget: json: cannot unmarshal string into Go struct field Widget\.spec\.replicas of type int(32|64)$/);
  });

  test('generateName: random suffix from the kube alphabet, retried on collision', async () => {
    const names = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const { object } = await widgets.create('ns', { metadata: { generateName: 'gen-' }, spec: {} });
      expect(object.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      names.add(object.metadata.name!);
    }
    expect(names.size).toBe(20);
  });

  test('dry run: generated values filled, nothing written, existing names still 409', async () => {
    const before = await store.currentRevision();
    const { object } = await widgets.create('ns', { metadata: { generateName: 'd-' }, spec: {} }, { dryRun: true });
    expect(object.metadata.name).toMatch(/^d-/);
    expect(object.metadata.uid).toBeDefined();
    expect(object.metadata.resourceVersion).toBeUndefined();
    expect(await store.currentRevision()).toBe(before);
    await widgets.create('ns', widget('a'));
    expect((await statusError(widgets.create('ns', widget('a'), { dryRun: true }))).code).toBe(409);
  });

  test('warnings come back', async () => {
    const { warnings } = await widgets.create('ns', widget('w', { spec: { replicas: 13 } }));
    expect(warnings).toEqual(['13 replicas are unlucky']);
  });

  test('get with a resourceVersion from the future is 504; bad ones 400', async () => {
    await widgets.create('ns', widget('a'));
    const future = await statusError(widgets.get('ns', 'a', { resourceVersion: '999999' }));
    expect([future.code, future.reason]).toEqual([504, 'Timeout']);
    expect(future.message).toMatch(/^Timeout: Too large resource version: 999999, current: \d+$/);
    expect((await statusError(widgets.get('ns', 'a', { resourceVersion: 'abc' }))).code).toBe(400);
    expect((await widgets.get('ns', 'a', { resourceVersion: '0' })).metadata.name).toBe('a');
  });
});

describe('update', () => {
  test('stale resourceVersion is 409 with the optimistic-lock message', async () => {
    const { object } = await widgets.create('ns', widget('a'));
    await widgets.update('ns', 'a', { ...object, spec: { replicas: 2 } });
    const err = await statusError(widgets.update('ns', 'a', { ...object, spec: { replicas: 3 } }));
    expect(err.code).toBe(409);
    expect(err.reason).toBe('Conflict');
    expect(err.message).toBe(
      'Operation cannot be fulfilled on widgets "a": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  test('concurrent unconditional updates all succeed', async () => {
    await widgets.create('ns', widget('a', { metadata: { name: 'a', labels: {} } }));
    const n = 20;
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        widgets.patch('ns', 'a', (cur) => applyMergePatch(cur, { metadata: { labels: { [`l${i}`]: 'x' } } }) as KubeObject),
      ),
    );
    const final = await widgets.get('ns', 'a');
    expect(Object.keys(final.metadata.labels ?? {})).toHaveLength(n);
  });

  test('unchanged writes are skipped; generation bumps only on spec changes', async () => {
    const { object } = await widgets.create('ns', widget('a'));
    const same = await widgets.update('ns', 'a', { ...object, metadata: { ...object.metadata, resourceVersion: undefined } });
    expect(same.object.metadata.resourceVersion).toBe(object.metadata.resourceVersion);
    const labelled = await widgets.update('ns', 'a', { ...object, metadata: { ...object.metadata, labels: { a: 'b' } } });
    expect(labelled.object.metadata.generation).toBe(1);
    const scaled = await widgets.update('ns', 'a', { ...labelled.object, spec: { replicas: 5 } });
    expect(scaled.object.metadata.generation).toBe(2);
    expect(scaled.object.metadata.uid).toBe(object.metadata.uid);
    expect(scaled.object.metadata.creationTimestamp).toBe(object.metadata.creationTimestamp);
  });

  test('uid mismatch is 409, name mismatch 400, missing 404 without create-on-update', async () => {
    const { object } = await widgets.create('ns', widget('a'));
    const uid = await statusError(widgets.update('ns', 'a', { ...object, metadata: { ...object.metadata, uid: 'other' } }));
    expect(uid.code).toBe(409);
    expect(uid.message).toContain('Precondition failed: UID in precondition: other');
    expect((await statusError(widgets.update('ns', 'a', widget('b')))).code).toBe(400);
    expect((await statusError(widgets.update('ns', 'zz', widget('zz')))).code).toBe(404);
  });

  test('create on update for kinds that allow it', async () => {
    const res = await gadgets.update('', 'g', { metadata: { name: 'g' }, data: { a: 'b' } });
    expect(res.created).toBe(true);
    expect(res.object.metadata.uid).toBeDefined();
    const again = await gadgets.update('', 'g', { metadata: { name: 'g' }, data: { a: 'c' } });
    expect(again.created).toBe(false);
    expect(again.object.data).toEqual({ a: 'c' });
  });

  test('status sub-resource: each side keeps the other half', async () => {
    const { object } = await widgets.create('ns', widget('a', { status: { phase: 'Ignored?' } }));
    const st = await widgets.update('ns', 'a', { ...object, spec: { replicas: 9 }, status: { phase: 'Running' } }, { subresource: 'status', fieldManager: 'ctrl' });
    expect(st.object.status).toEqual({ phase: 'Running' });
    expect(st.object.spec).toEqual(object.spec);
    expect(st.object.metadata.generation).toBe(1);
    const main = await widgets.update('ns', 'a', { ...st.object, spec: { replicas: 9 }, status: { phase: 'Hacked' } });
    expect(main.object.status).toEqual({ phase: 'Running' });
    expect((main.object.spec as Record<string, unknown>).replicas).toBe(9);
    const ctrl = main.object.metadata.managedFields?.find((e) => e.manager === 'ctrl');
    expect(ctrl).toMatchObject({ subresource: 'status', fieldsV1: { 'f:status': { 'f:phase': {} } } });
  });

  test('dry-run update writes nothing', async () => {
    const { object } = await widgets.create('ns', widget('a'));
    const before = await store.currentRevision();
    const res = await widgets.update('ns', 'a', { ...object, spec: { replicas: 7 } }, { dryRun: true });
    expect((res.object.spec as Record<string, unknown>).replicas).toBe(7);
    expect(await store.currentRevision()).toBe(before);
    expect((await widgets.get('ns', 'a')).spec).toEqual(object.spec);
  });
});

describe('patch', () => {
  test('a patch carrying a stale resourceVersion is a precondition: 409', async () => {
    const { object } = await widgets.create('ns', widget('a'));
    await widgets.patch('ns', 'a', (cur) => applyMergePatch(cur, { spec: { replicas: 2 } }) as KubeObject);
    const err = await statusError(
      widgets.patch('ns', 'a', (cur) => applyMergePatch(cur, { metadata: { resourceVersion: object.metadata.resourceVersion }, spec: { replicas: 3 } }) as KubeObject),
    );
    expect(err.code).toBe(409);
  });

  test('json patch test failure is 422 and changes nothing; missing object 404', async () => {
    await widgets.create('ns', widget('a'));
    const err = await statusError(widgets.patch('ns', 'a', (cur) => applyJsonPatch(cur, [{ op: 'test', path: '/spec/replicas', value: 5 }]) as KubeObject));
    expect(err.code).toBe(422);
    expect((await statusError(widgets.patch('ns', 'zz', (c) => c))).code).toBe(404);
  });
});

describe('delete and finalizers', () => {
  test('Status answer with kube details; deleteReturnsObject kinds answer the object', async () => {
    const { object } = await widgets.create('ns', widget('a'));
    const res = await widgets.delete('ns', 'a');
    expect(res).toEqual({
      deleted: true,
      code: 200,
      object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'a', kind: 'widgets', uid: object.metadata.uid } },
    });
    expect((await statusError(widgets.get('ns', 'a'))).code).toBe(404);
    expect((await statusError(widgets.delete('ns', 'a'))).code).toBe(404);
    await gadgets.create('', { metadata: { name: 'g' } });
    const g = await gadgets.delete('', 'g');
    expect((g.object as KubeObject).metadata.name).toBe('g');
  });

  test('preconditions', async () => {
    const { object } = await widgets.create('ns', widget('a'));
    const uid = await statusError(widgets.delete('ns', 'a', { preconditions: { uid: 'nope' } }));
    expect([uid.code, uid.message]).toEqual([409, `Operation cannot be fulfilled on widgets "a": Precondition failed: UID in precondition: nope, UID in object meta: ${object.metadata.uid}`]);
    const rv = await statusError(widgets.delete('ns', 'a', { preconditions: { resourceVersion: '999' } }));
    expect(rv.code).toBe(409);
    expect(rv.message).toContain('Precondition failed: ResourceVersion in precondition: 999');
    const ok = await widgets.delete('ns', 'a', { preconditions: { uid: object.metadata.uid, resourceVersion: object.metadata.resourceVersion } });
    expect(ok.deleted).toBe(true);
  });

  test('bad propagationPolicy is 422', async () => {
    await widgets.create('ns', widget('a'));
    const err = await statusError(widgets.delete('ns', 'a', { propagationPolicy: 'Sideways' }));
    expect(err.code).toBe(422);
    expect(err.message).toBe('DeleteOptions.meta.platform.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"');
  });

  test('finalizers hold the object until an update empties them', async () => {
    await widgets.create('ns', widget('a', { metadata: { name: 'a', finalizers: ['example.com/hold'] } }));
    const marked = await widgets.delete('ns', 'a');
    expect(marked.deleted).toBe(false);
    expect(marked.code).toBe(200);
    const obj = marked.object as KubeObject;
    expect(obj.metadata.deletionTimestamp).toBeDefined();
    expect(obj.metadata.deletionGracePeriodSeconds).toBe(0);
    expect(obj.metadata.generation).toBe(2);
    const again = await widgets.delete('ns', 'a', { orphanDependents: false });
    expect(again.code).toBe(202);
    expect((again.object as KubeObject).metadata.resourceVersion).toBe(obj.metadata.resourceVersion);
    const addFinalizer = await statusError(widgets.patch('ns', 'a', (c) => applyMergePatch(c, { metadata: { finalizers: ['example.com/hold', 'x/y'] } }) as KubeObject));
    expect(addFinalizer.code).toBe(422);
    await widgets.patch('ns', 'a', (c) => applyMergePatch(c, { metadata: { finalizers: null } }) as KubeObject);
    expect((await statusError(widgets.get('ns', 'a'))).code).toBe(404);
  });

  test('dry-run delete writes nothing', async () => {
    await widgets.create('ns', widget('a'));
    const before = await store.currentRevision();
    const res = await widgets.delete('ns', 'a', { dryRun: true });
    expect(res.deleted).toBe(true);
    expect(await store.currentRevision()).toBe(before);
    await widgets.get('ns', 'a');
  });

  test('deletecollection deletes what the selectors match', async () => {
    for (const [n, app] of [['a', 'x'], ['b', 'y'], ['c', 'x']] as const) await widgets.create('ns', widget(n, { metadata: { name: n, labels: { app } } }));
    await widgets.create('other', widget('d', { metadata: { name: 'd', labels: { app: 'x' } } }));
    const res = await widgets.deleteCollection('ns', { labelSelector: parseLabelSelector('app=x') });
    expect(res.items.map((o) => o.metadata.name)).toEqual(['a', 'c']);
    expect((await widgets.list('')).items.map((o) => o.metadata.name)).toEqual(['b', 'd']);
  });
});

describe('list', () => {
  async function seed(n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      const name = `w${String(i).padStart(3, '0')}`;
      await widgets.create('ns', widget(name, { metadata: { name, labels: { parity: i % 2 === 0 ? 'even' : 'odd' } }, spec: { color: i % 5 === 0 ? 'blue' : 'red' } }));
    }
  }

  test('kind, apiVersion, resourceVersion, all namespaces', async () => {
    await widgets.create('a', widget('x'));
    await widgets.create('b', widget('y'));
    const all = await widgets.list('');
    expect(all.kind).toBe('WidgetList');
    expect(all.apiVersion).toBe('v1');
    expect(all.metadata.resourceVersion).toBe(String(await store.currentRevision()));
    expect(all.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['a/x', 'b/y']);
    expect((await widgets.list('a')).items).toHaveLength(1);
  });

  test('pages without selectors carry remainingItemCount; every page is one snapshot', async () => {
    await seed(10);
    const first = await widgets.list('ns', { limit: 4 });
    expect(first.items).toHaveLength(4);
    expect(first.metadata.remainingItemCount).toBe(6);
    await widgets.create('ns', widget('w000a'));
    await widgets.delete('ns', 'w009');
    const names: string[] = first.items.map((o) => o.metadata.name!);
    let page = first;
    while (page.metadata.continue !== undefined) {
      page = await widgets.list('ns', { limit: 4, continue: page.metadata.continue });
      expect(page.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      names.push(...page.items.map((o) => o.metadata.name!));
    }
    expect(names).toEqual(Array.from({ length: 10 }, (_, i) => `w${String(i).padStart(3, '0')}`));
  });

  test('selectors fill pages by reading further, during concurrent writes', async () => {
    await seed(60);
    const label = parseLabelSelector('parity=even');
    const field = parseFieldSelector('spec.color=red');
    const first = await widgets.list('ns', { limit: 5, labelSelector: label, fieldSelector: field });
    expect(first.items).toHaveLength(5);
    expect(first.metadata.remainingItemCount).toBeUndefined();
    const writer = (async () => {
      for (let i = 0; i < 20; i++) await widgets.create('ns', widget(`w0${i}x`, { metadata: { name: `w0${i}x`, labels: { parity: 'even' } } }));
    })();
    const names = first.items.map((o) => o.metadata.name!);
    let page = first;
    while (page.metadata.continue !== undefined) {
      page = await widgets.list('ns', { limit: 5, continue: page.metadata.continue, labelSelector: label, fieldSelector: field });
      expect(page.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      names.push(...page.items.map((o) => o.metadata.name!));
    }
    await writer;
    const expected = Array.from({ length: 60 }, (_, i) => i)
      .filter((i) => i % 2 === 0 && i % 5 !== 0)
      .map((i) => `w${String(i).padStart(3, '0')}`);
    expect(names).toEqual(expected);
  });

  test('unsupported field label is 400; resourceVersionMatch misuse 422; rv with continue 400', async () => {
    const f = await statusError(widgets.list('ns', { fieldSelector: parseFieldSelector('spec.size=1') }));
    expect([f.code, f.message]).toEqual([400, 'field label not supported: spec.size']);
    const m = await statusError(widgets.list('ns', { resourceVersionMatch: 'Exact' }));
    expect(m.code).toBe(422);
    expect(m.message).toBe('ListOptions.meta.platform.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    await seed(3);
    const p = await widgets.list('ns', { limit: 1 });
    const c = await statusError(widgets.list('ns', { limit: 1, continue: p.metadata.continue!, resourceVersion: '5' }));
    expect([c.code, c.message]).toEqual([400, 'specifying resource version is not allowed when using continue']);
  });

  test('exact resourceVersion reads the past; compacted is 410', async () => {
    await seed(2);
    const rv = await store.currentRevision();
    await widgets.delete('ns', 'w000');
    const past = await widgets.list('ns', { resourceVersion: String(rv), resourceVersionMatch: 'Exact' });
    expect(past.items).toHaveLength(2);
    expect(past.metadata.resourceVersion).toBe(String(rv));
    await store.compact(await store.currentRevision());
    const gone = await statusError(widgets.list('ns', { resourceVersion: String(rv), resourceVersionMatch: 'Exact' }));
    expect([gone.code, gone.reason]).toEqual([410, 'Expired']);
  });

  test('a compacted continue token is 410 with a fresh token that continues at the latest revision', async () => {
    await seed(6);
    const first = await widgets.list('ns', { limit: 2 });
    await widgets.create('ns', widget('w004a'));
    await store.compact(await store.currentRevision());
    const err = await statusError(widgets.list('ns', { limit: 2, continue: first.metadata.continue! }));
    expect(err).toBeInstanceOf(ExpiredListError);
    expect(err.code).toBe(410);
    expect(err.message).toMatch(/^The provided continue parameter is too old/);
    const fresh = (err as ExpiredListError).continueToken;
    const rest = await widgets.list('ns', { continue: fresh });
    expect(rest.items.map((o) => o.metadata.name)).toEqual(['w002', 'w003', 'w004', 'w004a', 'w005']);
    expect(Number(rest.metadata.resourceVersion)).toBe(await store.currentRevision());
  });
});
