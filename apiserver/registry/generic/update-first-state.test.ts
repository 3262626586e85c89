/**
 * Where an update's first round starts (guaranteed-update.ts, `cachedFirstState`), over the real embedded
 * store and a real watch cache whose feed the test can hold back: from the cache's copy when it is current,
 * from the value this process last wrote while the cache is behind that write (a hot object), and from a
 * read of the store only when neither holds. Every path ends in the same stored state.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/object.js';
import { naming } from '../../naming/naming.js';
import { storedValue } from '../../../storage/cache/cache-entry.js';
import { createWatchCache } from '../../../storage/cache/watch-cache.js';
import type { WatchCache } from '../../../storage/cache/types.js';
import type { Store } from '../../../storage/interface.js';
import { openMemoryStore, type MemoryStore } from '../../../storage/memory/memory-store.js';
import { heldWatchStore, type HeldWatchStore } from '../../../storage/testing/held-watch.js';
import { createGenericRegistry, type GenericRegistry } from './generic-registry.js';
import { decodeObject } from './object-codec.js';
import { widgetStrategy } from './testing/widget-strategy.js';

let dir: string;
let store: MemoryStore;
let cache: WatchCache<KubeObject>;
let widgets: GenericRegistry;
let reads: number;
let feed: HeldWatchStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'first-state-'));
  store = await openMemoryStore({ dataDir: dir });
  reads = 0;
  const counted = new Proxy(store, {
    get(target, p) {
      const v = Reflect.get(target, p) as unknown;
      if (p === 'get') return (...args: Parameters<Store['get']>) => (reads++, target.get(...args));
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Store;
  feed = heldWatchStore(store);
  const base = createGenericRegistry({ store, strategy: widgetStrategy, naming: naming('platform.io') }).context.keys.base;
  cache = createWatchCache<KubeObject>(feed.store, `${base}/`, { decode: decodeObject });
  await cache.ready();
  widgets = createGenericRegistry({ store: counted, strategy: widgetStrategy, naming: naming('platform.io'), cache });
});

afterEach(async () => {
  feed.release();
  cache.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const widget = (name: string, replicas: number): KubeObject => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name }, spec: { replicas } });
const replicasOf = (o: KubeObject | undefined): unknown => (o as { spec?: { replicas?: unknown } } | undefined)?.spec?.replicas;
const stored = async (name: string): Promise<KubeObject> => decodeObject((await store.get(widgets.context.keys.objectKey('ns', name))).kv!);

describe('the first round of an update', () => {
  test('the cache\'s current copy: no read of the store', async () => {
    const { object } = await widgets.create('ns', widget('a', 1));
    await cache.waitUntilFresh(Number(object.metadata.resourceVersion));
    const copy = cache.peek(widgets.context.keys.objectKey('ns', 'a'))!;
    reads = 0;
    const out = await widgets.update('ns', 'a', widget('a', 2));
    expect(reads).toBe(0);
    expect(replicasOf(out.object)).toBe(2);
    expect(replicasOf(await stored('a'))).toBe(2);
    // The copy's stored bytes were the first state: it was not decoded for the update.
    expect(storedValue(copy)).toBeDefined();
  });

  test('the cache\'s current copy, already decoded: encoded back, the same outcome', async () => {
    const { object } = await widgets.create('ns', widget('a', 1));
    await cache.waitUntilFresh(Number(object.metadata.resourceVersion));
    expect(replicasOf(cache.peek(widgets.context.keys.objectKey('ns', 'a'))!.object)).toBe(1);
    reads = 0;
    const out = await widgets.update('ns', 'a', widget('a', 2));
    expect(reads).toBe(0);
    expect(replicasOf(out.object)).toBe(2);
    expect(replicasOf(await stored('a'))).toBe(2);
  });

  test('a hot object: while the cache is behind this process\'s write, the next update starts from what was written', async () => {
    feed.hold();
    const created = await widgets.create('ns', widget('a', 1));
    reads = 0;
    const first = await widgets.update('ns', 'a', widget('a', 2));
    const second = await widgets.patch('ns', 'a', (cur) => ({ ...cur, spec: { replicas: (replicasOf(cur) as number) + 10 } }));
    expect(reads).toBe(0);
    expect(cache.revision).toBeLessThan(Number(created.object.metadata.resourceVersion));
    expect(replicasOf(first.object)).toBe(2);
    expect(replicasOf(second.object)).toBe(12);
    expect(Number(second.object.metadata.resourceVersion)).toBeGreaterThan(Number(first.object.metadata.resourceVersion));
    const now = await stored('a');
    expect(replicasOf(now)).toBe(12);
    expect(now.metadata.resourceVersion).toBe(second.object.metadata.resourceVersion);
    expect(now.metadata.generation).toBe(3);
    feed.release();
    await cache.waitUntilFresh(Number(second.object.metadata.resourceVersion));
    expect(replicasOf(cache.peek(widgets.context.keys.objectKey('ns', 'a'))?.object)).toBe(12);
  });

  test('another writer got in after this process\'s write: the write from it loses the compare and the next round has the winner', async () => {
    feed.hold();
    await widgets.create('ns', widget('a', 1));
    const key = widgets.context.keys.objectKey('ns', 'a');
    const mine = (await store.get(key)).kv!;
    // Another replica's write, which this process has not seen (its cache is held back).
    const theirs = { ...decodeObject(mine), spec: { replicas: 50 } };
    delete theirs.metadata.resourceVersion;
    await store.update(key, Buffer.from(JSON.stringify(theirs)), mine.modRevision);
    const out = await widgets.patch('ns', 'a', (cur) => ({ ...cur, spec: { replicas: (replicasOf(cur) as number) + 1 } }));
    expect(replicasOf(out.object)).toBe(51);
    expect(replicasOf(await stored('a'))).toBe(51);
  });

  test('after this process deleted the key, nothing is offered: the update reads the store and finds nothing', async () => {
    await widgets.create('ns', widget('a', 1));
    feed.hold();
    await widgets.delete('ns', 'a');
    reads = 0;
    await expect(widgets.update('ns', 'a', widget('a', 3))).rejects.toThrow('widgets "a" not found');
    expect(reads).toBe(1);
  });

  test('a dry run reads the store, and writes nothing', async () => {
    feed.hold();
    await widgets.create('ns', widget('a', 1));
    reads = 0;
    const out = await widgets.update('ns', 'a', widget('a', 7), { dryRun: true });
    expect(reads).toBe(1);
    expect(replicasOf(out.object)).toBe(7);
    expect(replicasOf(await stored('a'))).toBe(1);
  });
});
