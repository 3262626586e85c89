/**
 * Protobuf from the watch cache of a kind served as stored (served-protobuf.ts), over the real embedded store
 * and a real watch cache, its values kept as stored or as served (the etcd server's `internServed`): a list
 * and a watch event in protobuf are the bytes the decoded objects give, and the cache's objects stay
 * undecoded; their messages are kept in their memos for the next list or event.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/object.js';
import { watchFrame } from '../../codec/protobuf/envelope.js';
import { listProtobuf, objectProtobuf, PROTOBUF_MEMO_KEY } from '../../codec/protobuf/protobuf-codec.js';
import { listJson } from '../../codec/shared-json.js';
import { eventEncoder } from '../../endpoints/watch/event-encoder.js';
import { naming } from '../../naming/naming.js';
import { configMaps } from '../kinds/core/configmap.js';
import { storedValue } from '../../../storage/cache/cache-entry.js';
import { createWatchCache } from '../../../storage/cache/watch-cache.js';
import type { Intern, WatchCache } from '../../../storage/cache/types.js';
import { openMemoryStore, type MemoryStore } from '../../../storage/memory/memory-store.js';
import { createGenericRegistry, type GenericRegistry } from './generic-registry.js';
import { decodeObject } from './object-codec.js';
import { internServed } from './served-bytes.js';

let dir: string;
let store: MemoryStore;
let cache: WatchCache<KubeObject>;
let registry: GenericRegistry;

afterEach(async () => {
  cache.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const configMap = (name: string, value: string): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'x' } }, data: { value, other: 'ü 字' } });

describe.each([
  ['kept as stored', undefined],
  ['kept as served from the start (etcd)', internServed],
])('protobuf from the cache of a kind served as stored, values %s', (_mode, intern: Intern | undefined) => {
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'served-pb-'));
    store = await openMemoryStore({ dataDir: dir });
    const base = createGenericRegistry({ store, strategy: configMaps, naming: naming('platform.io') }).context.keys.base;
    cache = createWatchCache<KubeObject>(store, `${base}/`, { decode: decodeObject, ...(intern === undefined ? {} : { intern }) });
    await cache.ready();
    registry = createGenericRegistry({ store, strategy: configMaps, naming: naming('platform.io'), cache });
  });

  const key = (name: string): string => registry.context.keys.objectKey('ns', name);
  /** The object as the store holds it, decoded afresh (not the cache's). */
  const decoded = async (name: string): Promise<KubeObject> =>
    decodeObject({ key: key(name), value: (await store.get(key(name))).kv!.value, createRevision: 0, modRevision: cache.peek(key(name))!.revision });

  test('a list: the bytes of the decoded objects\' list, in pieces too; undecoded objects stay so, their messages kept', async () => {
    let rv = 0;
    for (const n of ['a', 'b', 'c']) rv = Number((await registry.create('ns', configMap(n, n.repeat(3000)))).object.metadata.resourceVersion);
    await cache.waitUntilFresh(rv);
    // b decoded before the list, by a reader of its object.
    expect(cache.peek(key('b'))!.object.metadata.name).toBe('b');

    const list = await registry.list('ns', { resourceVersion: '0' });
    const encoded = listProtobuf(configMaps.schema, list);
    // (Not `...list`: reading the lazy list's `items` would decode the cache's objects.)
    const want = listProtobuf(configMaps.schema, { apiVersion: list.apiVersion, kind: list.kind, metadata: list.metadata, items: await Promise.all(['a', 'b', 'c'].map(decoded)) }).buffer();
    expect(encoded.buffer().equals(want)).toBe(true);
    expect(Buffer.concat([...encoded.chunks()]).equals(want)).toBe(true);
    for (const n of ['a', 'c']) {
      const c = cache.peek(key(n))!;
      expect(storedValue(c)).toBeDefined();
      expect(c.memo.get(PROTOBUF_MEMO_KEY)).toBeDefined();
    }
    // The next list sends the kept messages (the same Buffers), and a JSON list still needs no decoding.
    const kept = (cache.peek(key('a'))!.memo.get(PROTOBUF_MEMO_KEY) as { raw: Buffer }).raw;
    const again = await registry.list('ns', { resourceVersion: '0' });
    expect(listProtobuf(configMaps.schema, again).buffer().equals(want)).toBe(true);
    expect((cache.peek(key('a'))!.memo.get(PROTOBUF_MEMO_KEY) as { raw: Buffer }).raw).toBe(kept);
    const json = JSON.parse(listJson(again).buffer().toString()) as { items: KubeObject[] };
    expect(json.items.map((o) => (o['data'] as { value: string }).value.length)).toEqual([3000, 3000, 3000]);
    expect(storedValue(cache.peek(key('a'))!)).toBeDefined();
  });

  test('a watch event: the frame of the decoded object, and the object stays undecoded', async () => {
    const watcher = cache.watch({ keyPrefix: `${registry.context.keys.base}/`, start: { kind: 'from', revision: cache.revision } });
    try {
      const created = await registry.create('ns', configMap('w', 'v'));
      const it = watcher[Symbol.asyncIterator]();
      const event = (await it.next()).value!;
      expect(event.type).toBe('ADDED');
      const encode = eventEncoder({ strategy: configMaps, apiVersion: 'v1', format: 'protobuf', servedAsStored: true });
      const frame = encode(event) as Buffer;
      expect(frame.equals(watchFrame('ADDED', objectProtobuf(configMaps.schema, await decoded('w'), undefined).bytes))).toBe(true);
      expect(storedValue(cache.peek(key('w'))!)).toBeDefined();
      expect(created.object.metadata.resourceVersion).toBe(String(cache.peek(key('w'))!.revision));
      // Every other protobuf watcher of the event reuses the message.
      expect(encode(event)).toEqual(frame);
      expect(event.object.memo.get(PROTOBUF_MEMO_KEY)).toBeDefined();
    } finally {
      watcher.close();
    }
  });
});
