/**
 * Delete propagation at the registry, over the built-in kinds on an embedded store: the garbage collector's
 * finalizers a DELETE leaves as kube 1.32's generic store does (policy, orphanDependents, existing
 * finalizers, each kind's default), second deletes switching them, dry runs writing nothing,
 * deletecollection applying the policy per item, and the Job warning.
 */
import type { KubeObject } from '../../api/object.js';
import { naming } from '../../naming/naming.js';
import { openServedStore, type ServedStore } from '../../controllers/testing/served-store.js';
import type { GenericRegistry } from './generic-registry.js';
import { startNamespaceController } from '../../controllers/namespace/namespace-controller.js';
import { defaultGarbageCollectionPolicy, deleteWarnings, gcFinalizersAfterDelete, JOB_ORPHAN_WARNING } from './delete-propagation.js';

let store: ServedStore;
let configMaps: GenericRegistry;
const names = naming('k8s.io');

beforeEach(async () => {
  store = await openServedStore(names);
  configMaps = store.served.lookup('', 'v1', 'configmaps')!.registry;
});
let afterThis: (() => Promise<void>) | undefined;
afterEach(async () => {
  await afterThis?.();
  afterThis = undefined;
  await store.close();
});

const registry = (group: string, resource: string): GenericRegistry => store.served.lookup(group, 'v1', resource)!.registry;

async function configMap(name: string, finalizers?: string[]): Promise<KubeObject> {
  const obj: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', ...(finalizers ? { finalizers } : {}) }, data: { a: 'b' } };
  return (await configMaps.create('ns', obj)).object;
}

const stored = async (name: string): Promise<KubeObject | undefined> => configMaps.get('ns', name).catch(() => undefined);

describe('each kind\'s default policy (kube 1.32)', () => {
  test('Jobs and ReplicationControllers orphan, Events are unsupported, the rest delete dependents', () => {
    expect(defaultGarbageCollectionPolicy(registry('batch', 'jobs').context)).toBe('OrphanDependents');
    expect(defaultGarbageCollectionPolicy(registry('', 'replicationcontrollers').context)).toBe('OrphanDependents');
    expect(defaultGarbageCollectionPolicy(registry('', 'events').context)).toBe('Unsupported');
    expect(defaultGarbageCollectionPolicy(registry(names.group('events'), 'events').context)).toBe('Unsupported');
    expect(defaultGarbageCollectionPolicy(registry('apps', 'statefulsets').context)).toBe('DeleteDependents');
    expect(defaultGarbageCollectionPolicy(registry('', 'configmaps').context)).toBe('DeleteDependents');
  });

  test('the finalizers follow orphanDependents, then propagationPolicy, then the object\'s own, then the default', () => {
    const obj = (finalizers?: string[]): KubeObject => ({ metadata: { name: 'x', ...(finalizers ? { finalizers } : {}) } });
    expect(gcFinalizersAfterDelete('DeleteDependents', obj(), {})).toBeUndefined();
    expect(gcFinalizersAfterDelete('OrphanDependents', obj(), {})).toEqual(['orphan']);
    expect(gcFinalizersAfterDelete('OrphanDependents', obj(), { propagationPolicy: 'Background' })).toBeUndefined();
    expect(gcFinalizersAfterDelete('DeleteDependents', obj(), { propagationPolicy: 'Foreground' })).toEqual(['foregroundDeletion']);
    expect(gcFinalizersAfterDelete('DeleteDependents', obj(), { orphanDependents: true })).toEqual(['orphan']);
    expect(gcFinalizersAfterDelete('OrphanDependents', obj(), { orphanDependents: false })).toBeUndefined();
    // An existing GC finalizer wins over the default, the options over both.
    expect(gcFinalizersAfterDelete('OrphanDependents', obj(['foregroundDeletion']), {})).toBeUndefined();
    expect(gcFinalizersAfterDelete('DeleteDependents', obj(['a/b', 'foregroundDeletion']), { propagationPolicy: 'Orphan' })).toEqual(['a/b', 'orphan']);
    expect(gcFinalizersAfterDelete('DeleteDependents', obj(['orphan']), { propagationPolicy: 'Background' })).toEqual([]);
    expect(gcFinalizersAfterDelete('Unsupported', obj(), { propagationPolicy: 'Foreground' })).toBeUndefined();
    expect(gcFinalizersAfterDelete('Unsupported', obj(), { orphanDependents: true })).toBeUndefined();
  });

  test('a Job deleted without a policy warns as kube does; with one, or another kind, does not', () => {
    const jobs = registry('batch', 'jobs').context;
    expect(JOB_ORPHAN_WARNING).toBe(
      'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning',
    );
    expect(deleteWarnings(jobs, {})).toEqual([JOB_ORPHAN_WARNING]);
    expect(deleteWarnings(jobs, { propagationPolicy: 'Orphan' })).toEqual([]);
    expect(deleteWarnings(jobs, { orphanDependents: true })).toEqual([]);
    expect(deleteWarnings(registry('', 'replicationcontrollers').context, {})).toEqual([]);
  });
});

describe('DELETE', () => {
  test('Foreground keeps the object marked with foregroundDeletion; Orphan with orphan; Background removes it', async () => {
    await configMap('fg');
    await configMap('or');
    await configMap('bg');
    const fg = await configMaps.delete('ns', 'fg', { propagationPolicy: 'Foreground' });
    expect(fg.deleted).toBe(false);
    expect(fg.code).toBe(200);
    const fgStored = await stored('fg');
    expect(fgStored?.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(fgStored?.metadata.deletionTimestamp).toBeDefined();
    expect(fgStored?.metadata.deletionGracePeriodSeconds).toBe(0);
    const or = await configMaps.delete('ns', 'or', { propagationPolicy: 'Orphan' });
    expect(or.deleted).toBe(false);
    expect((await stored('or'))?.metadata.finalizers).toEqual(['orphan']);
    expect((await configMaps.delete('ns', 'bg', { propagationPolicy: 'Background' })).deleted).toBe(true);
    expect(await stored('bg')).toBeUndefined();
  });

  test('orphanDependents=false deletes at once (no foreground), =true orphans', async () => {
    await configMap('a');
    await configMap('b');
    expect((await configMaps.delete('ns', 'a', { orphanDependents: false })).deleted).toBe(true);
    const b = await configMaps.delete('ns', 'b', { orphanDependents: true });
    expect(b.deleted).toBe(false);
    expect((await stored('b'))?.metadata.finalizers).toEqual(['orphan']);
  });

  test('a second DELETE switches the GC finalizers as its policy says; without a policy it writes nothing; one leaving none removes it', async () => {
    await configMap('x', ['example.com/hold']);
    await configMaps.delete('ns', 'x', { propagationPolicy: 'Foreground' });
    const first = (await stored('x'))!;
    expect(first.metadata.finalizers).toEqual(['example.com/hold', 'foregroundDeletion']);
    const generation = first.metadata.generation;

    await configMaps.delete('ns', 'x', {});
    expect((await stored('x'))!.metadata.resourceVersion).toBe(first.metadata.resourceVersion);

    await configMaps.delete('ns', 'x', { propagationPolicy: 'Orphan' });
    const second = (await stored('x'))!;
    expect(second.metadata.finalizers).toEqual(['example.com/hold', 'orphan']);
    expect(second.metadata.deletionTimestamp).toBe(first.metadata.deletionTimestamp);
    expect(second.metadata.generation).toBe(generation);

    await configMap('y');
    await configMaps.delete('ns', 'y', { propagationPolicy: 'Orphan' });
    const bg = await configMaps.delete('ns', 'y', { propagationPolicy: 'Background' });
    expect(bg.deleted).toBe(true);
    expect(await stored('y')).toBeUndefined();
  });

  test('a dry run answers the marked object and writes nothing', async () => {
    const created = await configMap('d');
    const res = await configMaps.delete('ns', 'd', { propagationPolicy: 'Foreground', dryRun: true });
    expect((res.object as KubeObject).metadata.finalizers).toEqual(['foregroundDeletion']);
    const after = (await stored('d'))!;
    expect(after.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(after.metadata.finalizers).toBeUndefined();
    expect(after.metadata.deletionTimestamp).toBeUndefined();
  });

  test('Events never get GC finalizers: a Foreground delete removes one at once', async () => {
    const events = registry('', 'events');
    await events.create('ns', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'ns' },
      involvedObject: { kind: 'ConfigMap', namespace: 'ns', name: 'x' }, reason: 'R', message: 'm', type: 'Normal',
    });
    expect((await events.delete('ns', 'e', { propagationPolicy: 'Foreground' })).deleted).toBe(true);
  });

  test('a batch/v1 Job deleted without a policy is kept with the orphan finalizer', async () => {
    const jobs = registry('batch', 'jobs');
    await jobs.create('ns', {
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'ns' },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } },
    });
    expect((await jobs.delete('ns', 'j', {})).deleted).toBe(false);
    expect((await jobs.get('ns', 'j')).metadata.finalizers).toEqual(['orphan']);
  });
});

test('deletecollection applies the policy to each item', async () => {
  await configMap('c1');
  await configMap('c2');
  await configMaps.deleteCollection('ns', {}, { propagationPolicy: 'Orphan' });
  expect((await stored('c1'))?.metadata.finalizers).toEqual(['orphan']);
  expect((await stored('c2'))?.metadata.finalizers).toEqual(['orphan']);
  await configMaps.deleteCollection('ns', {}, { propagationPolicy: 'Background' });
  expect(await stored('c1')).toBeUndefined();
  expect(await stored('c2')).toBeUndefined();
});

test('the namespace controller empties a namespace holding a Job (an orphaning default) with no collector running', async () => {
  const jobs = registry('batch', 'jobs');
  const namespaces = registry('', 'namespaces');
  await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
  await jobs.create('doomed', {
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', namespace: 'doomed' },
    spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } },
  });
  const removed = new Promise<void>((resolve) => {
    const controller = startNamespaceController({ resources: store.served, intervalMs: 20, onRemoved: (ns) => ns === 'doomed' && resolve() });
    afterThis = () => controller.stop();
  });
  await namespaces.delete('', 'doomed');
  await removed;
  expect((await jobs.list('doomed')).items).toEqual([]);
});
