/**
 * The reflector over a real watch cache on the embedded store: the first state whole, then each change in
 * order; when the cache can no longer continue the watch (its feed fell behind a compaction and re-listed),
 * the reflector watches again and hands over the whole state, in which what changed meanwhile shows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../api/object.js';
import { naming } from '../naming/naming.js';
import { createGenericRegistry, type GenericRegistry } from '../registry/generic/generic-registry.js';
import { decodeObject } from '../registry/generic/object-codec.js';
import { widgetStrategy } from '../registry/generic/testing/widget-strategy.js';
import { isStorageError, unavailable } from '../../storage/errors.js';
import type { WatchCache } from '../../storage/cache/types.js';
import { createWatchCache } from '../../storage/cache/watch-cache.js';
import { openMemoryStore, type MemoryStore } from '../../storage/memory/memory-store.js';
import { heldWatchStore, type HeldWatchStore } from '../../storage/testing/held-watch.js';
import { until } from '../../test/harness/until.js';
import { reflect } from './reflector.js';

let dir: string;
let store: MemoryStore;
let cache: WatchCache<KubeObject>;
let widgets: GenericRegistry;
let feed: HeldWatchStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'reflector-'));
  store = await openMemoryStore({ dataDir: dir });
  feed = heldWatchStore(store);
  const base = createGenericRegistry({ store, strategy: widgetStrategy, naming: naming('platform.io') }).context.keys.base;
  cache = createWatchCache<KubeObject>(feed.store, `${base}/`, { decode: decodeObject });
  await cache.ready();
  widgets = createGenericRegistry({ store, strategy: widgetStrategy, naming: naming('platform.io'), cache });
});

afterEach(async () => {
  feed.release();
  cache.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const widget = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Widget', metadata: { name }, spec: { replicas: 1 } });
const names = (objs: readonly KubeObject[]): string => objs.map((o) => o.metadata.name).join(',');

test('the first state whole, then each change; after the cache re-listed, the whole state again', async () => {
  await widgets.create('ns', widget('a'));
  await widgets.create('ns', widget('b'));
  const calls: string[] = [];
  const errors: unknown[] = [];
  const abort = new AbortController();
  const done = reflect(widgets, (c) => c.object, {
    replace: (state) => calls.push(`replace ${names(state)}`),
    upsert: (obj) => calls.push(`upsert ${obj.metadata.name}`),
    remove: (obj) => calls.push(`remove ${obj.metadata.name}`),
  }, abort.signal, { rewatchDelayMs: 10, onError: (err) => errors.push(err) });
  try {
    await until('the first state', () => calls.length === 1);
    await widgets.create('ns', widget('c'));
    await widgets.update('ns', 'b', { ...widget('b'), spec: { replicas: 2 } });
    await widgets.delete('ns', 'c', {});
    await until('three changes', () => calls.length === 4);
    expect(calls).toEqual(['replace a,b', 'upsert c', 'upsert b', 'remove c']);

    // The cache falls behind; a and c go, d comes, and the history it would resume from is compacted away.
    feed.hold();
    await widgets.delete('ns', 'a', {});
    await widgets.create('ns', widget('c'));
    const d = await widgets.create('ns', widget('d'));
    await store.compact(Number(d.object.metadata.resourceVersion));
    feed.release(unavailable('the test broke the feed\'s watch'));
    await until('the state again', () => calls.length === 5);
    expect(calls[4]).toBe('replace b,c,d');
    // The watch the re-list ended was reported (the cache's `relisted`), and nothing else.
    expect(errors).toHaveLength(1);
    expect(isStorageError(errors[0])).toBe(true);

    // And it follows changes again.
    await widgets.delete('ns', 'b', {});
    await until('a change after the re-watch', () => calls.length === 6);
    expect(calls[5]).toBe('remove b');
  } finally {
    abort.abort();
    await done;
  }
});

test('ends when its signal is aborted', async () => {
  const abort = new AbortController();
  let replaced = 0;
  const done = reflect(widgets, (c) => c.object, { replace: () => void replaced++, upsert: () => undefined, remove: () => undefined }, abort.signal);
  await until('the first state', () => replaced === 1);
  abort.abort();
  await done;
  expect(replaced).toBe(1);
});
