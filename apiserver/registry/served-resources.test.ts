/**
 * Served resources over the real embedded store with real watch caches: the two Event kinds are one
 * stored resource (one key per event, one watch cache), converted per view once per cached object, and
 * events expire with their ttl.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../api/object.js';
import { objectJson } from '../codec/shared-json.js';
import { StatusError } from '../errors/status-error.js';
import { naming } from '../naming/naming.js';
import { parseFieldSelector } from '../selectors/field-selector.js';
import { decodeObject } from './generic/object-codec.js';
import { builtinKinds } from './kinds/index.js';
import { createWatchCache } from '../../storage/cache/watch-cache.js';
import type { CachedObject, CacheWatchEvent, WatchCache } from '../../storage/cache/types.js';
import { openMemoryStore, type MemoryStore } from '../../storage/memory/memory-store.js';
import { customResourceKinds } from './kinds/apiextensions/custom-resource-kinds.js';
import { serveResources, type ServedResources } from './served-resources.js';

let dir: string;
let store: MemoryStore;
let caches: Map<string, WatchCache<KubeObject>>;
let served: ServedResources;

const names = naming('k8s.io');

function serve(ttlSeconds?: Readonly<Record<string, number>>): ServedResources {
  return serveResources({
    store,
    naming: names,
    kinds: builtinKinds(),
    prefix: '/registry',
    watchCache: (keyPrefix) => {
      if (caches.has(keyPrefix)) throw new Error(`a second cache for ${keyPrefix}`);
      const cache = createWatchCache<KubeObject>(store, keyPrefix, { decode: decodeObject });
      caches.set(keyPrefix, cache);
      return cache;
    },
    ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'served-'));
  store = await openMemoryStore({ dataDir: dir });
  caches = new Map();
  served = serve();
});

afterEach(async () => {
  for (const c of caches.values()) c.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const core = () => served.lookup('', 'v1', 'events')!.registry;
const view = () => served.lookup('events.k8s.io', 'v1', 'events')!.registry;

const newStyle = (name: string, regarding = 'c1'): KubeObject => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-01-01T00:00:00.000001Z',
  reportingController: 'example.com/ctl',
  reportingInstance: 'ctl-1',
  action: 'Sync',
  reason: 'Synced',
  regarding: { kind: 'ConfigMap', namespace: 'default', name: regarding },
  note: 'synced',
  type: 'Normal',
});

const oldStyle = (name: string, regarding = 'c1'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'ConfigMap', namespace: 'default', name: regarding },
  reason: 'Synced',
  message: 'synced',
  source: { component: 'demo' },
  firstTimestamp: '2024-01-01T00:00:00Z',
  lastTimestamp: '2024-01-01T00:00:00Z',
  count: 1,
  type: 'Normal',
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

test('both Event kinds are served, over one watch cache for /registry/events/', () => {
  expect(served.lookup('', 'v1', 'events')).toBeDefined();
  expect(served.lookup('events.k8s.io', 'v1', 'events')).toBeDefined();
  expect([...caches.keys()].filter((k) => k.includes('events'))).toEqual(['/registry/events/']);
  expect(view().context.keys.objectKey('ns', 'x')).toBe('/registry/events/ns/x');
});

test('a write through events.k8s.io is stored once, in the core shape, and reads back through both', async () => {
  const { object } = await view().create('default', newStyle('e1'), { fieldManager: 'recorder' });
  expect(object).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', note: 'synced', regarding: { name: 'c1' } });
  expect(object.metadata.managedFields?.[0]).toMatchObject({ manager: 'recorder', apiVersion: 'events.k8s.io/v1' });

  const kv = (await store.get('/registry/events/default/e1')).kv!;
  const stored = JSON.parse(Buffer.from(kv.value).toString('utf8')) as Record<string, unknown>;
  expect(stored).toMatchObject({ apiVersion: 'v1', kind: 'Event', message: 'synced', involvedObject: { name: 'c1' }, reportingComponent: 'example.com/ctl' });
  expect(stored).not.toHaveProperty('note');

  const asCore = await core().get('default', 'e1');
  expect(asCore).toMatchObject({ apiVersion: 'v1', message: 'synced', involvedObject: { name: 'c1' }, source: {} });
  expect(asCore.metadata.resourceVersion).toBe(object.metadata.resourceVersion);
  const asView = await view().get('default', 'e1');
  expect(asView).toEqual(object);
});

test('an old-style core event reads through events.k8s.io with the deprecated fields', async () => {
  await core().create('default', oldStyle('e2'));
  const got = await view().get('default', 'e2');
  expect(got).toMatchObject({
    apiVersion: 'events.k8s.io/v1',
    regarding: { name: 'c1' },
    note: 'synced',
    deprecatedSource: { component: 'demo' },
    deprecatedCount: 1,
    deprecatedFirstTimestamp: '2024-01-01T00:00:00Z',
  });
  expect(got).not.toHaveProperty('reportingController');
});

test('errors name the core resource; the new API validates strictly, core v1 does not', async () => {
  expect((await statusError(view().get('default', 'missing'))).message).toBe('events "missing" not found');
  const bad = { ...newStyle('bad'), type: 'Odd' };
  const err = await statusError(view().create('default', bad));
  expect(err.code).toBe(422);
  expect(err.message).toBe('Event "bad" is invalid: type: Invalid value: "": has invalid value: Odd');
  await expect(core().create('default', { ...oldStyle('odd'), type: 'Odd' })).resolves.toBeDefined();
});

test('an update through events.k8s.io may change the series only', async () => {
  await view().create('default', newStyle('e3'));
  const series = { count: 2, lastObservedTime: '2024-01-01T00:01:00.000000Z' };
  const res = await view().patch('default', 'e3', (cur) => ({ ...cur, series }));
  expect(res.object.series).toEqual(series);
  expect((await core().get('default', 'e3')).series).toEqual(series);
  const err = await statusError(view().patch('default', 'e3', (cur) => ({ ...cur, note: 'changed' })));
  expect(err.message).toBe('Event "e3" is invalid: message: Invalid value: "changed": field is immutable');
});

test('cache reads convert each cached object once per view and share its encodings', async () => {
  await view().create('default', newStyle('e4'));
  await core().create('default', oldStyle('e5'));
  const a = await view().list('default', {});
  const b = await view().list('default', {});
  expect(a.items.map((e) => e.metadata.name)).toEqual(['e4', 'e5']);
  expect(a.items[0]).toBe(b.items[0]); // the memoized conversion, not a new one per list
  expect(a.items[1]).toMatchObject({ note: 'synced', regarding: { name: 'c1' } });
  const coreItems = (await core().list('default', {})).items;
  expect(coreItems[0]).not.toBe(a.items[0]);
  expect(coreItems[0]).toMatchObject({ message: 'synced' });
  expect(await view().get('default', 'e4', { resourceVersion: '0' })).toBe(a.items[0]);

  // The view's JSON lives in the view object's own memo, kept inside the cached object's memo.
  const text = objectJson(a.items[0]!);
  const cached = (await caches.get('/registry/events/')!.list({ keyPrefix: '/registry/events/default/', minRevision: 0 })).items[0]!;
  const inner = cached.memo.get('view:events.k8s.io/v1') as CachedObject<KubeObject>;
  expect(inner.object).toBe(a.items[0]);
  expect(inner.memo.get('json')).toBe(text);
  expect(cached.memo.get('json')).not.toBe(text);
});

test('field selectors of the view use the new names, from the cache and from the store', async () => {
  await view().create('default', newStyle('e6', 'c1'));
  await view().create('default', newStyle('e7', 'c2'));
  const sel = parseFieldSelector('regarding.name=c2');
  expect((await view().list('default', { fieldSelector: sel })).items.map((e) => e.metadata.name)).toEqual(['e7']);
  expect((await view().list('default', { fieldSelector: sel, limit: 10 })).items.map((e) => e.metadata.name)).toEqual(['e7']);
  const coreSel = parseFieldSelector('involvedObject.name=c1,involvedObject.kind=ConfigMap,type=Normal');
  expect((await core().list('default', { fieldSelector: coreSel })).items.map((e) => e.metadata.name)).toEqual(['e6']);
});

test('watchers of the view get each event converted once, shared between them', async () => {
  const start = async () =>
    view().watch('default', { resourceVersion: String(await store.currentRevision()), allowWatchBookmarks: false, deadline: Date.now() + 30_000 });
  const w1 = await start();
  const w2 = await start();
  const first = async (w: AsyncIterable<CacheWatchEvent<KubeObject>>): Promise<CacheWatchEvent<KubeObject>> => {
    for await (const e of w) if (e.type !== 'BOOKMARK') return e;
    throw new Error('watch ended');
  };
  const events = Promise.all([first(w1), first(w2)]);
  await core().create('default', oldStyle('e8'));
  const [e1, e2] = await events;
  w1.close();
  w2.close();
  if (e1.type === 'BOOKMARK' || e2.type === 'BOOKMARK') throw new Error('unexpected bookmark');
  expect(e1.type).toBe('ADDED');
  expect(e1.object).toBe(e2.object);
  expect(e1.object.object).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'synced', metadata: { name: 'e8' } });
});

test('events expire with the ttl of their stored resource, whichever view wrote them', async () => {
  for (const c of caches.values()) c.stop();
  caches = new Map();
  served = serve({ events: 1 });
  const rev = await store.currentRevision();
  const gone = (async () => {
    for await (const batch of store.watch('/registry/events/', { fromRevision: rev + 1 })) {
      for (const e of batch.events) if (e.type === 'delete' && e.kv.key === '/registry/events/default/e9') return e;
    }
    throw new Error('watch ended');
  })();
  await view().create('default', newStyle('e9'));
  await gone;
  expect((await statusError(core().get('default', 'e9'))).code).toBe(404);
}, 15_000);

describe('sets served at runtime (custom resources)', () => {
  const crd = (versions: string[], plural = 'widgets'): KubeObject => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      names: { plural, kind: 'Widget', singular: 'widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
    },
  });
  const options = { resourcePrefix: 'example.com/widgets', validationStyle: 'crd' as const };
  const cachePrefix = '/registry/example.com/widgets/';

  test('a set adds its versions over one watch cache; kinds() changes identity only when the set does', () => {
    const before = served.kinds();
    expect(served.kinds()).toBe(before);
    served.serveSet('widgets.example.com', customResourceKinds(crd(['v1', 'v2']), names), options);
    expect(served.kinds()).not.toBe(before);
    expect(served.kinds().length).toBe(before.length + 2);
    expect(served.lookup('example.com', 'v2', 'widgets')?.set).toBe('widgets.example.com');
    expect([...caches.keys()].filter((k) => k.startsWith('/registry/example.com/'))).toEqual([cachePrefix]);
    expect(served.lookup('example.com', 'v1', 'widgets')!.registry.context.keys.objectKey('ns', 'a')).toBe('/registry/example.com/widgets/ns/a');
  });

  test('replacing a set keeps the cache and its watchers; removing it stops the cache and ends them', async () => {
    served.serveSet('widgets.example.com', customResourceKinds(crd(['v1']), names), options);
    const v1 = served.lookup('example.com', 'v1', 'widgets')!.registry;
    await v1.create('default', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a' } });
    const cache = caches.get(cachePrefix)!;
    const watcher = cache.watch({ keyPrefix: cachePrefix, start: { kind: 'state', revision: 0 } });
    const it = watcher[Symbol.asyncIterator]();
    expect((await it.next()).value).toMatchObject({ type: 'ADDED' });

    served.serveSet('widgets.example.com', customResourceKinds(crd(['v1', 'v2']), names), options);
    expect(caches.get(cachePrefix)).toBe(cache);
    await served.lookup('example.com', 'v2', 'widgets')!.registry.create('default', { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'b' } });
    expect((await it.next()).value).toMatchObject({ type: 'ADDED', object: { object: { metadata: { name: 'b' } } } });

    served.removeSet('widgets.example.com');
    expect(served.lookup('example.com', 'v1', 'widgets')).toBeUndefined();
    expect((await it.next()).done).toBe(true);
    // The objects stay in the store; serving the set again makes a fresh cache that lists them.
    caches.delete(cachePrefix);
    served.serveSet('widgets.example.com', customResourceKinds(crd(['v1']), names), options);
    expect(caches.get(cachePrefix)).not.toBe(cache);
    const list = await served.lookup('example.com', 'v1', 'widgets')!.registry.list('default');
    expect(list.items.map((i) => i.metadata.name)).toEqual(['a', 'b']);
  });

  test('a set never takes over what the built-in kinds or another set serve', () => {
    const clash = { ...customResourceKinds(crd(['v1']), names)[0]!, group: '', resource: 'configmaps' };
    expect(() => served.serveSet('configmaps.x', [clash], options)).toThrow('configmaps./v1 is already served by a built-in kind');
    served.serveSet('widgets.example.com', customResourceKinds(crd(['v1']), names), options);
    expect(() => served.serveSet('other', customResourceKinds(crd(['v1']), names), options)).toThrow('already served by widgets.example.com');
    expect(served.lookup('', 'v1', 'configmaps')?.set).toBe('');
  });
});
