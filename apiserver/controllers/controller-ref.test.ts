/**
 * claimObjects over the real pod registry: adopts matching orphans (once the owner is confirmed), releases
 * owned objects that no longer match, leaves other controllers' and terminating objects alone, and adopts
 * nothing when the owner is being deleted or the confirmation fails.
 */
import type { KubeObject } from '../api/object.js';
import { naming } from '../naming/naming.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import { openServedStore, type ServedStore } from './testing/served-store.js';
import { claimObjects, controllerRefOf, controllerRefTo, controllerUidIndex } from './controller-ref.js';
import { podFromTemplate } from './pod-from-template.js';

let store: ServedStore;
let pods: GenericRegistry;

const owner: KubeObject = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { namespace: 'default', name: 'web', uid: 'owner-uid' } };
const ownerType = { apiVersion: 'v1', kind: 'ReplicationController' };
const template = { metadata: { labels: { app: 'web' }, annotations: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

async function pod(name: string, labels: Record<string, string>, ownerReferences?: KubeObject['metadata']['ownerReferences']): Promise<KubeObject> {
  const p = podFromTemplate({ ...template, metadata: { labels } }, owner, controllerRefTo(owner, 'v1', 'ReplicationController'), { name });
  if (ownerReferences === undefined) delete p.metadata.ownerReferences;
  else p.metadata.ownerReferences = ownerReferences;
  return (await pods.create('default', p)).object;
}

beforeEach(async () => {
  store = await openServedStore(naming('k8s.io'));
  pods = store.served.lookup('', 'v1', 'pods')!.registry;
});
afterEach(async () => store.close());

test('podFromTemplate copies the template and names the owner', () => {
  const p = podFromTemplate(template, owner, controllerRefTo(owner, 'v1', 'ReplicationController'));
  expect(p.metadata).toEqual({
    namespace: 'default',
    generateName: 'web-',
    labels: { app: 'web' },
    annotations: { a: 'b' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: 'owner-uid', controller: true, blockOwnerDeletion: true }],
  });
  expect(p.spec).toEqual(template.spec);
  expect(p.spec).not.toBe(template.spec);
});

test('adopts matching orphans, releases what no longer matches, leaves others alone', async () => {
  const orphan = await pod('orphan', { app: 'web' });
  const stray = await pod('stray', { app: 'other' });
  const mineMatching = await pod('mine', { app: 'web' }, [controllerRefTo(owner, 'v1', 'ReplicationController')]);
  const mineNotMatching = await pod('mine-old', { app: 'old' }, [controllerRefTo(owner, 'v1', 'ReplicationController')]);
  const others = await pod('others', { app: 'web' }, [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'x', uid: 'other-uid', controller: true }]);
  let asked = 0;
  const claimed = await claimObjects({
    registry: pods,
    owner,
    ownerType,
    matches: (o) => o.metadata.labels?.app === 'web',
    candidates: [orphan, stray, mineMatching, mineNotMatching, others],
    canAdopt: async () => (asked++, true),
  });
  expect(claimed.map((o) => o.metadata.name).sort()).toEqual(['mine', 'orphan']);
  expect(asked).toBe(1);
  expect(controllerRefOf(await pods.get('default', 'orphan'))?.uid).toBe('owner-uid');
  expect((await pods.get('default', 'mine-old')).metadata.ownerReferences).toBeUndefined();
  expect(controllerRefOf(await pods.get('default', 'others'))?.uid).toBe('other-uid');
  expect((await pods.get('default', 'stray')).metadata.ownerReferences).toBeUndefined();
  expect(controllerUidIndex(await pods.get('default', 'orphan'))).toEqual(['owner-uid']);
  expect(controllerUidIndex(stray)).toEqual([]);
});

test('nothing is adopted when the owner cannot be confirmed or is being deleted', async () => {
  const orphan = await pod('orphan', { app: 'web' });
  const claimed = await claimObjects({ registry: pods, owner, ownerType, matches: () => true, candidates: [orphan], canAdopt: async () => false });
  expect(claimed).toEqual([]);
  const deleting = { ...owner, metadata: { ...owner.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
  let asked = false;
  const none = await claimObjects({ registry: pods, owner: deleting, ownerType, matches: () => true, candidates: [orphan], canAdopt: async () => (asked = true) });
  expect(none).toEqual([]);
  expect(asked).toBe(false);
  expect((await pods.get('default', 'orphan')).metadata.ownerReferences).toBeUndefined();
});

test('an object that changed meanwhile (another uid under the same name) is not adopted', async () => {
  const orphan = await pod('orphan', { app: 'web' });
  await pods.delete('default', 'orphan', { gracePeriodSeconds: 0 });
  await pod('orphan', { app: 'web' });
  const claimed = await claimObjects({ registry: pods, owner, ownerType, matches: () => true, candidates: [orphan], canAdopt: async () => true });
  expect(claimed).toEqual([]);
  expect((await pods.get('default', 'orphan')).metadata.ownerReferences).toBeUndefined();
});
