/**
 * Lists from the watch cache of a kind served as stored (list.ts `cachedItemJson`), over the real embedded
 * store and a real watch cache: an undecoded object is sent as its stored JSON with the resourceVersion
 * spliced in, kept in place of the stored bytes, and is never decoded for it; the list's JSON is byte for
 * byte what `JSON.stringify` of the decoded list gives, whatever mix of decoded and undecoded objects it holds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/object.js';
import { listJson } from '../../codec/shared-json.js';
import { naming } from '../../naming/naming.js';
import { storedTag, storedValue } from '../../../storage/cache/cache-entry.js';
import { createWatchCache } from '../../../storage/cache/watch-cache.js';
import type { Intern, WatchCache } from '../../../storage/cache/types.js';
import { openMemoryStore, type MemoryStore } from '../../../storage/memory/memory-store.js';
import { createGenericRegistry, type GenericRegistry } from './generic-registry.js';
import { decodeObject } from './object-codec.js';
import { internServed } from './served-bytes.js';
import { widgetStrategy } from './testing/widget-strategy.js';

let dir: string;
let store: MemoryStore;
let cache: WatchCache<KubeObject>;
let caches: WatchCache<KubeObject>[];
let widgets: GenericRegistry;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'list-stored-'));
  store = await openMemoryStore({ dataDir: dir });
  caches = [];
});

/** The registry over a new watch cache, which keeps values as stored or (`intern`) as served from the start. */
async function openCache(intern?: Intern): Promise<void> {
  for (const c of caches) c.stop();
  const base = createGenericRegistry({ store, strategy: widgetStrategy, naming: naming('platform.io') }).context.keys.base;
  cache = createWatchCache<KubeObject>(store, `${base}/`, { decode: decodeObject, ...(intern === undefined ? {} : { intern }) });
  caches.push(cache);
  await cache.ready();
  widgets = createGenericRegistry({ store, strategy: widgetStrategy, naming: naming('platform.io'), cache });
}

afterEach(async () => {
  for (const c of caches) c.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const widget = (name: string, extra: Partial<KubeObject> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Widget', metadata: { name, labels: { app: 'x' }, annotations: { tricky: 'a{b}"c\\ "resourceVersion":"1"' } }, spec: { replicas: 1, note: '}{ "metadata":{} ü 字' }, ...extra });
const key = (name: string): string => widgets.context.keys.objectKey('ns', name);
/** The list as a client would read it back, item objects included (decoding the list if it was lazy). */
const decodedListText = (list: { items: readonly unknown[] }): string => JSON.stringify({ ...list, items: [...list.items] });

async function createAll(names: readonly string[]): Promise<void> {
  let rv = 0;
  for (const n of names) rv = Number((await widgets.create('ns', widget(n))).object.metadata.resourceVersion);
  await cache.waitUntilFresh(rv);
}

describe.each([
  ['kept as stored until a list', undefined],
  ['kept as served from the start (etcd)', internServed],
])('a list from the cache of a kind served as stored, %s', (_mode, intern) => {
  beforeEach(() => openCache(intern));

  test('undecoded objects are sent as their stored JSON with the resourceVersion in, and stay undecoded', async () => {
    await createAll(['a', 'b', 'c']);
    const list = await widgets.list('ns', { resourceVersion: '0' });
    const bytes = listJson(list).buffer();
    for (const n of ['a', 'b', 'c']) {
      const c = cache.peek(key(n))!;
      // Undecoded, and the served JSON kept in place of the stored bytes: it decodes to the same object.
      expect(storedValue(c)).toBeDefined();
      expect(storedTag(c)).toBe(1);
      expect(Buffer.from(storedValue(c)!).toString()).toBe(JSON.stringify(decodeObject({ key: key(n), value: (await store.get(key(n))).kv!.value, createRevision: 0, modRevision: c.revision })));
      expect(c.object.metadata.resourceVersion).toBe(String(c.revision));
    }
    // What JSON.stringify of the decoded list gives, byte for byte (and again on the next list).
    expect(bytes.toString()).toBe(decodedListText(list));
    const again = await widgets.list('ns', { resourceVersion: '0' });
    expect(listJson(again).buffer().equals(bytes)).toBe(true);
    // The store still holds its bytes without the resourceVersion.
    expect(JSON.parse(Buffer.from((await store.get(key('a'))).kv!.value).toString()).metadata).not.toHaveProperty('resourceVersion');
  });

  test('decoded and undecoded objects in one list; its pieces; reading `items` decodes them', async () => {
    await createAll(['a', 'b', 'c', 'd']);
    // b decoded by a read of its object before any list, d after the first list.
    expect(cache.peek(key('b'))!.object.metadata.name).toBe('b');
    await widgets.list('ns', { resourceVersion: '0' });
    expect(cache.peek(key('d'))!.object.metadata.name).toBe('d');
    const list = await widgets.list('ns', { resourceVersion: '0' });
    const json = listJson(list);
    const whole = json.buffer();
    expect(Buffer.concat([...json.chunks()]).equals(whole)).toBe(true);
    expect(whole.length).toBe(json.bytes);
    expect(storedValue(cache.peek(key('a'))!)).toBeDefined();
    const parsed = JSON.parse(whole.toString()) as { items: KubeObject[] };
    expect(parsed.items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)).toEqual(
      ['a', 'b', 'c', 'd'].map((n) => `${n}@${cache.peek(key(n))!.revision}`),
    );
    // A reader of the items (a Table, protobuf, an audit) gets the decoded objects, and the JSON follows them.
    expect(list.items.map((o) => o.metadata.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(storedValue(cache.peek(key('a'))!)).toBeUndefined();
    expect(listJson(list).buffer().equals(whole)).toBe(true);
  });

  test('after a list, an update starts from the kept JSON and stores no resourceVersion; the next list has the new state', async () => {
    await createAll(['a']);
    await widgets.list('ns', { resourceVersion: '0' });
    const out = await widgets.update('ns', 'a', { ...widget('a'), spec: { replicas: 7 } });
    const stored = Buffer.from((await store.get(key('a'))).kv!.value).toString();
    expect(JSON.parse(stored).metadata).not.toHaveProperty('resourceVersion');
    expect(JSON.parse(stored).spec.replicas).toBe(7);
    await cache.waitUntilFresh(Number(out.object.metadata.resourceVersion));
    const list = await widgets.list('ns', { resourceVersion: '0' });
    const items = (JSON.parse(listJson(list).buffer().toString()) as { items: KubeObject[] }).items;
    expect(items.map((o) => [o.metadata.resourceVersion, (o.spec as { replicas: number }).replicas])).toEqual([[out.object.metadata.resourceVersion, 7]]);
  });

  test('stored bytes that are not compact JSON (another writer\'s spacing) are decoded and sent as the decoded object', async () => {
    await createAll(['a']);
    const raw = `{ "apiVersion": "v1", "kind": "Widget", "metadata": { "name": "spaced", "namespace": "ns" }, "spec": { "replicas": 3 } }`;
    const rv = (await store.create(key('spaced'), Buffer.from(raw))).revision;
    await cache.waitUntilFresh(rv);
    const list = await widgets.list('ns', { resourceVersion: '0' });
    const text = listJson(list).buffer().toString();
    expect(storedTag(cache.peek(key('spaced'))!)).toBe(2);
    expect(text).toBe(decodedListText(list));
    expect(text).toContain(`{"apiVersion":"v1","kind":"Widget","metadata":{"name":"spaced","namespace":"ns","resourceVersion":"${rv}"},"spec":{"replicas":3}}`);
  });
});

describe('values kept as served from the start (`internServed`, the etcd server\'s caches)', () => {
  test('each object is its served JSON as it enters, from the cache\'s first list and from events; nothing is decoded', async () => {
    await openCache();
    await createAll(['a']);
    await openCache(internServed);
    await createAll(['b']);
    for (const n of ['a', 'b']) {
      const c = cache.peek(key(n))!;
      expect(storedTag(c)).toBe(1);
      expect(Buffer.from(storedValue(c)!).toString()).toBe(JSON.stringify(decodeObject({ key: key(n), value: (await store.get(key(n))).kv!.value, createRevision: 0, modRevision: c.revision })));
    }
    const list = await widgets.list('ns', { resourceVersion: '0' });
    expect(listJson(list).buffer().toString()).toBe(decodedListText(list));
  });

  test('a value not in `encodeObject`\'s form is kept as stored, tagged to be decoded', async () => {
    await openCache(internServed);
    const raw = `{ "apiVersion": "v1", "kind": "Widget", "metadata": { "name": "spaced", "namespace": "ns" } }`;
    await cache.waitUntilFresh((await store.create(key('spaced'), Buffer.from(raw))).revision);
    const c = cache.peek(key('spaced'))!;
    expect(storedTag(c)).toBe(2);
    expect(Buffer.from(storedValue(c)!).toString()).toBe(raw);
  });
});
