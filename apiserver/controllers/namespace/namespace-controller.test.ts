/**
 * The namespace controller records deletion problems as events about the namespace, through the real
 * registry of core events over the embedded store.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../api/object.js';
import { serveResources, type ServedResources } from '../../registry/served-resources.js';
import { createEventRecorder, type EventRecorder } from '../../events/event-recorder.js';
import { naming } from '../../naming/naming.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import { builtinKinds } from '../../registry/kinds/index.js';
import { widgetStrategy } from '../../registry/generic/testing/widget-strategy.js';
import { parseFieldSelector } from '../../selectors/field-selector.js';
import { openMemoryStore, type MemoryStore } from '../../../storage/memory/memory-store.js';
import { contentFailureMessage, finalizersMessage, startNamespaceController, type NamespaceController } from './namespace-controller.js';

let dir: string;
let store: MemoryStore;
let served: ServedResources;
let controller: NamespaceController | undefined;

/** A namespaced test kind whose objects refuse to be deleted (a real strategy, its hook throws). */
const stubborn = {
  ...widgetStrategy,
  kind: 'Stubborn',
  resource: 'stubborns',
  singular: 'stubborn',
  markForDeletion(): boolean {
    throw new Error('deletion refused');
  },
} satisfies KindStrategy;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ns-controller-'));
  store = await openMemoryStore({ dataDir: dir });
  served = serveResources({ store, naming: naming('platform.io'), kinds: [...builtinKinds(), stubborn], prefix: '/registry' });
  controller = undefined;
});

afterEach(async () => {
  await controller?.stop();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const registry = (resource: string) => served.all.find((r) => r.strategy.resource === resource && r.group === '')!.registry;

/** A recorder that also tells the test when an event with `reason` was recorded. */
function watchingRecorder(): { recorder: EventRecorder; recorded(reason: string): Promise<void> } {
  const inner = createEventRecorder({ events: registry('events'), component: 'namespace-controller' });
  const waiters: { reason: string; resolve: () => void }[] = [];
  return {
    recorder: {
      async event(about, type, reason, message) {
        await inner.event(about, type, reason, message);
        for (const w of waiters.filter((x) => x.reason === reason)) w.resolve();
      },
    },
    recorded: (reason) => new Promise((resolve) => waiters.push({ reason, resolve })),
  };
}

async function terminatingNamespace(name: string): Promise<KubeObject> {
  const { object } = await registry('namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await registry('namespaces').delete('', name);
  return object;
}

async function eventsAbout(ns: KubeObject): Promise<KubeObject[]> {
  const fieldSelector = parseFieldSelector(
    `involvedObject.kind=Namespace,involvedObject.name=${ns.metadata.name},involvedObject.uid=${ns.metadata.uid},involvedObject.namespace=`,
  );
  return (await registry('events').list('', { fieldSelector })).items;
}

test('objects held by finalizers: SomeFinalizerRemain, with kube\'s condition message', async () => {
  const ns = await terminatingNamespace('held');
  await registry('configmaps').create('held', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', finalizers: ['example.com/hold'] } });
  const { recorder, recorded } = watchingRecorder();
  const seen = recorded('SomeFinalizerRemain');
  controller = startNamespaceController({ resources: served, recorder, intervalMs: 10 });
  await seen;
  const events = await eventsAbout(ns);
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({
    metadata: { namespace: 'default' },
    type: 'Normal',
    reason: 'SomeFinalizerRemain',
    message: 'Some finalizers are remaining: example.com/hold in 1 resource instances',
    source: { component: 'namespace-controller' },
    count: 1,
  });
});

test('a resource that fails to delete: ContentDeletionFailed, recorded once per change or repeat period', async () => {
  const ns = await terminatingNamespace('stuck');
  await registry('stubborns').create('stuck', { apiVersion: 'v1', kind: 'Stubborn', metadata: { name: 's1' }, spec: {} });
  const { recorder, recorded } = watchingRecorder();
  const first = recorded('ContentDeletionFailed');
  controller = startNamespaceController({ resources: served, recorder, intervalMs: 5, repeatMs: 200 });
  await first;
  const again = recorded('ContentDeletionFailed');
  await again;
  const events = await eventsAbout(ns);
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({
    type: 'Warning',
    reason: 'ContentDeletionFailed',
    message: 'Failed to delete all resource types, 1 remaining: stubborns: deletion refused',
    count: 2,
  });
  // The namespace stays while its content cannot be deleted.
  expect((await registry('namespaces').get('', 'stuck')).metadata.deletionTimestamp).toBeDefined();
});

test('messages as kube words its namespace conditions, sorted', () => {
  expect(contentFailureMessage(['b: x', 'a: y'])).toBe('Failed to delete all resource types, 2 remaining: a: y, b: x');
  expect(finalizersMessage(new Map([['z.io/f', 2], ['a.io/f', 1]]))).toBe('Some finalizers are remaining: a.io/f in 1 resource instances, z.io/f in 2 resource instances');
});
