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
