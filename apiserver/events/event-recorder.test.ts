/** The event recorder against the real embedded store and the registry of core events. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../api/object.js';
import { naming } from '../naming/naming.js';
import { createGenericRegistry, type GenericRegistry } from '../registry/generic/generic-registry.js';
import { events } from '../registry/kinds/core/event.js';
import { openMemoryStore, type MemoryStore } from '../../storage/memory/memory-store.js';
import { createEventRecorder } from './event-recorder.js';
import { Lru } from './lru.js';
import { referenceOf } from './object-reference.js';
import { SpamFilter } from './spam-filter.js';

let dir: string;
let store: MemoryStore;
let registry: GenericRegistry;
let clock: Date;
let errors: unknown[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recorder-'));
  store = await openMemoryStore({ dataDir: dir });
  registry = createGenericRegistry({ store, strategy: events, naming: naming('platform.io') });
  clock = new Date('2024-05-01T10:00:00.123Z');
  errors = [];
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const recorder = (spamFilter?: SpamFilter) =>
  createEventRecorder({ events: registry, component: 'namespace-controller', now: () => clock, onError: (e) => errors.push(e), ...(spamFilter ? { spamFilter } : {}) });

const configMap: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c1', namespace: 'demo', uid: 'u-1', resourceVersion: '7' },
};
const namespace: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo', uid: 'u-ns' } };

test('an event about a namespaced object: kube naming, the object reference, source and reporting component', async () => {
  await recorder().event(referenceOf(configMap), 'Warning', 'Failed', 'it broke');
  const list = await registry.list('demo', {});
  expect(list.items).toHaveLength(1);
  const ev = list.items[0]!;
  // `<name>.<Unix nanoseconds in hex>`, as client-go names events.
  expect(ev.metadata.name).toBe(`c1.${(BigInt(clock.getTime()) * 1_000_000n).toString(16)}`);
  expect(ev).toMatchObject({
    involvedObject: { kind: 'ConfigMap', namespace: 'demo', name: 'c1', uid: 'u-1', apiVersion: 'v1', resourceVersion: '7' },
    reason: 'Failed',
    message: 'it broke',
    type: 'Warning',
    count: 1,
    source: { component: 'namespace-controller' },
    reportingComponent: 'namespace-controller',
    firstTimestamp: '2024-05-01T10:00:00Z',
    lastTimestamp: '2024-05-01T10:00:00Z',
  });
  expect(ev.metadata.managedFields?.[0]?.manager).toBe('namespace-controller');
  expect(errors).toEqual([]);
});

test('events about cluster-scoped objects go to default', async () => {
  await recorder().event(referenceOf(namespace), 'Normal', 'Stuck', 'waiting');
  expect((await registry.list('default', {})).items.map((e) => e.involvedObject)).toEqual([{ kind: 'Namespace', name: 'demo', uid: 'u-ns', apiVersion: 'v1' }]);
});

test('a repeat bumps count and lastTimestamp of the first event; a different message is a new event', async () => {
  const r = recorder();
  await r.event(referenceOf(configMap), 'Warning', 'Failed', 'it broke');
  clock = new Date('2024-05-01T10:01:00Z');
  await Promise.all([r.event(referenceOf(configMap), 'Warning', 'Failed', 'it broke'), r.event(referenceOf(configMap), 'Warning', 'Failed', 'it broke')]);
  let items = (await registry.list('demo', {})).items;
  expect(items).toHaveLength(1);
  expect(items[0]).toMatchObject({ count: 3, firstTimestamp: '2024-05-01T10:00:00Z', lastTimestamp: '2024-05-01T10:01:00Z' });
  await r.event(referenceOf(configMap), 'Warning', 'Failed', 'it broke again');
  items = (await registry.list('demo', {})).items;
  expect(items.map((e) => [e.message, e.count])).toEqual(
    expect.arrayContaining([
      ['it broke', 3],
      ['it broke again', 1],
    ]),
  );
  expect(errors).toEqual([]);
});

test('a repeat of an expired event writes it again under its name with the running count', async () => {
  const r = recorder();
  await r.event(referenceOf(configMap), 'Normal', 'Synced', 'ok');
  const name = (await registry.list('demo', {})).items[0]!.metadata.name!;
  await registry.delete('demo', name);
  await r.event(referenceOf(configMap), 'Normal', 'Synced', 'ok');
  expect(await registry.get('demo', name)).toMatchObject({ count: 2 });
});

test('failures go to onError and never reject', async () => {
  await recorder().event({ kind: 'ConfigMap', name: 'c1', namespace: 'Not A Namespace' }, 'Normal', 'X', 'y');
  expect(errors).toHaveLength(1);
});

test('the spam filter caps one source and object at its burst, then one per refill period', async () => {
  const filter = new SpamFilter({ burst: 2, refillMs: 60_000 });
  const r = recorder(filter);
  for (const msg of ['a', 'b', 'c']) await r.event(referenceOf(configMap), 'Normal', 'R', msg);
  expect((await registry.list('demo', {})).items.map((e) => e.message).sort()).toEqual(['a', 'b']);
  clock = new Date(clock.getTime() + 60_000);
  await r.event(referenceOf(configMap), 'Normal', 'R', 'd');
  await r.event(referenceOf(configMap), 'Normal', 'R', 'e');
  expect((await registry.list('demo', {})).items.map((e) => e.message).sort()).toEqual(['a', 'b', 'd']);
});

test('the LRU forgets the least recently used entry', () => {
  const lru = new Lru<number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  expect(lru.get('a')).toBe(1);
  lru.set('c', 3);
  expect(lru.get('b')).toBeUndefined();
  expect(lru.get('a')).toBe(1);
  expect(lru.size).toBe(2);
});
