/**
 * Informers over the real registries on the embedded store: the first state, events in order, indexes kept
 * up to date, a late handler told the current state, one informer per registry, failing handlers isolated.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../api/object.js';
import { naming } from '../naming/naming.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import { openServedStore, type ServedStore } from './testing/served-store.js';
import { createInformerFactory, type InformerFactory } from './informer.js';
import { transientObject } from '../../storage/cache/cache-entry.js';

let store: ServedStore;
let configMaps: GenericRegistry;
let factory: InformerFactory;

const cm = (namespace: string, name: string, app = 'a'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, labels: { app } },
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await sleep(10);
  expect(check()).toBe(true);
}

beforeEach(async () => {
  store = await openServedStore(naming('k8s.io'));
  configMaps = store.served.lookup('', 'v1', 'configmaps')!.registry;
  factory = createInformerFactory({ rewatchDelayMs: 10 });
});

afterEach(async () => {
  await factory.stop();
  await store.close();
});

test('loads the current state, then follows changes in order, with indexes', async () => {
  await configMaps.create('default', cm('default', 'one'));
  await configMaps.create('kube-system', cm('kube-system', 'two', 'b'));
  const informer = factory.informer(configMaps);
  expect(factory.informer(configMaps)).toBe(informer);
  const seen: string[] = [];
  informer.on({
    added: (o) => seen.push(`added ${o.metadata.name}`),
    updated: (old, o) => seen.push(`updated ${o.metadata.name} ${old.metadata.labels?.app}->${o.metadata.labels?.app}`),
    deleted: (o) => seen.push(`deleted ${o.metadata.name}`),
  });
  informer.addIndex('app', (o) => (o.metadata.labels?.app === undefined ? [] : [o.metadata.labels.app]));
  await informer.synced;
  expect(informer.hasSynced).toBe(true);
  expect(seen.sort()).toEqual(['added one', 'added two']);
  expect(informer.list().length).toBe(2);
  expect(informer.list('default').map((o) => o.metadata.name)).toEqual(['one']);
  expect(informer.byIndex('app', 'b').map((o) => o.metadata.name)).toEqual(['two']);

  seen.length = 0;
  await configMaps.patch('default', 'one', (c) => ({ ...c, metadata: { ...c.metadata, labels: { app: 'b' } } }));
  await configMaps.delete('kube-system', 'two');
  await until(() => seen.length === 2);
  expect(seen).toEqual(['updated one a->b', 'deleted two']);
  expect(informer.byIndex('app', 'b').map((o) => o.metadata.name)).toEqual(['one']);
  expect(informer.byIndex('app', 'a')).toEqual([]);
  expect(informer.get('default', 'one')?.metadata.labels).toEqual({ app: 'b' });
  expect(informer.get('kube-system', 'two')).toBeUndefined();
  expect(informer.list('kube-system')).toEqual([]);
  expect(informer.list().map((o) => o.metadata.name)).toEqual(['one']);
  expect(() => informer.byIndex('nope', 'x')).toThrow(/no index nope/);
});

test('a handler registered after the sync is told every current object; unsubscribing stops events', async () => {
  await configMaps.create('default', cm('default', 'one'));
  const informer = factory.informer(configMaps);
  await informer.synced;
  const seen: string[] = [];
  const off = informer.on({ added: (o) => seen.push(o.metadata.name!) });
  expect(seen).toEqual(['one']);
  off();
  await configMaps.create('default', cm('default', 'two'));
  await until(() => informer.get('default', 'two') !== undefined);
  expect(seen).toEqual(['one']);
});

test('a handler that throws is reported and does not stop the others', async () => {
  const errors: unknown[] = [];
  const f = createInformerFactory({ onError: (err) => errors.push(err) });
  try {
    const informer = f.informer(configMaps);
    const seen: string[] = [];
    informer.on({ added: () => { throw new Error('boom'); } });
    informer.on({ added: (o) => seen.push(o.metadata.name!) });
    await informer.synced;
    await configMaps.create('default', cm('default', 'one'));
    await until(() => seen.length === 1);
    expect(errors.map(String)).toEqual(['Error: boom']);
  } finally {
    await f.stop();
  }
});

test('release stops an informer; asking again starts a new one', async () => {
  const informer = factory.informer(configMaps);
  await informer.synced;
  await factory.release(configMaps);
  await configMaps.create('default', cm('default', 'later'));
  expect(informer.get('default', 'later')).toBeUndefined();
  const again = factory.informer(configMaps);
  expect(again).not.toBe(informer);
  await again.synced;
  expect(again.get('default', 'later')).toBeDefined();
});

test('a metadata informer keeps identity, owners, finalizers and deletion only, and leaves the watch cache\'s copies undecoded', async () => {
  const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '0c3a1f7e-5a55-4b8e-9d1c-000000000001' };
  const full = cm('default', 'one');
  full.metadata.annotations = { note: 'x'.repeat(1_000) };
  full.metadata.ownerReferences = [owner];
  full.metadata.finalizers = ['example.com/hold'];
  (full as KubeObject & { data: object }).data = { big: 'y'.repeat(1_000) };
  await configMaps.create('default', full, { fieldManager: 'test' });
  const informer = factory.informer(configMaps, 'metadata');
  expect(factory.informer(configMaps, 'metadata')).toBe(informer);
  await informer.synced;
  const seen = informer.get('default', 'one')!;
  expect(seen).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'default', ownerReferences: [owner], finalizers: ['example.com/hold'] } });
  expect(seen.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
  expect(seen.metadata.resourceVersion).toMatch(/^\d+$/);
  expect(seen.metadata.annotations).toBeUndefined();
  expect(seen.metadata.labels).toBeUndefined();
  expect(seen.metadata.managedFields).toBeUndefined();
  expect((seen as { data?: unknown }).data).toBeUndefined();
  // An object only the metadata informer read is still bytes in the cache: each transient read decodes anew.
  const cache = configMaps.context.cache!;
  const key = configMaps.context.keys.objectKey('default', 'one');
  await configMaps.create('default', cm('default', 'two'));
  await until(() => informer.get('default', 'two') !== undefined);
  const cached = cache.peek(configMaps.context.keys.objectKey('default', 'two'))!;
  expect(transientObject(cached)).not.toBe(transientObject(cached));
  // A full informer decodes and keeps; a transient read then returns that same object.
  const fullInformer = factory.informer(configMaps);
  expect(fullInformer).not.toBe(informer);
  await fullInformer.synced;
  const kept = cache.peek(key)!;
  expect(fullInformer.get('default', 'one')).toBe(kept.object);
  expect(transientObject(kept)).toBe(kept.object);
  expect((fullInformer.get('default', 'one') as { data?: unknown }).data).toEqual({ big: 'y'.repeat(1_000) });
  // release stops both views of the registry (it resolves once their watch loops have ended).
  await factory.release(configMaps);
  await configMaps.create('default', cm('default', 'later'));
  expect(informer.get('default', 'later')).toBeUndefined();
  expect(fullInformer.get('default', 'later')).toBeUndefined();
});
