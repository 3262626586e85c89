/**
 * The StatefulSet controller over the real registries on the embedded store, the test playing the node
 * agent (pod status Running/Ready through `/status`; pods without a node are removed at once on delete):
 * OrderedReady creation and its halt on an unready pod, reverse-order scale down, Parallel, ordinals.start,
 * claims made before pods and kept (or given owner references by the retention policy), rolling updates
 * with a partition, revisions and a rollback, OnDelete, revision history truncation, failed pods replaced,
 * adoption, minReadySeconds, and every status member.
 */
import type { KubeObject } from '../../api/object.js';
import { createEventRecorder } from '../../events/event-recorder.js';
import { naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import { createInformerFactory, type InformerFactory } from '../informer.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { newRevision } from './revisions.js';
import { statefulSetLabels } from './stateful-pods.js';
import { startStatefulSetController, type StatefulSetController } from './statefulset-controller.js';
import { until } from '../../../test/harness/until.js';

const names = naming('k8s.io');
let store: ServedStore;
let sets: GenericRegistry;
let pods: GenericRegistry;
let revisions: GenericRegistry;
let claims: GenericRegistry;
let events: GenericRegistry;
let informers: InformerFactory;
let controller: StatefulSetController | undefined;
let errors: unknown[];

beforeEach(async () => {
  store = await openServedStore(names);
  const r = (group: string, resource: string): GenericRegistry => store.served.lookup(group, 'v1', resource)!.registry;
  sets = r('apps', 'statefulsets');
  pods = r('', 'pods');
  revisions = r('apps', 'controllerrevisions');
  claims = r('', 'persistentvolumeclaims');
  events = r('', 'events');
  await r('', 'namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  errors = [];
  informers = createInformerFactory({ onError: (err) => errors.push(err), rewatchDelayMs: 50 });
  controller = startStatefulSetController({
    informers, statefulSets: sets, pods, controllerRevisions: revisions, persistentVolumeClaims: claims, naming: names,
    recorder: createEventRecorder({ events, component: 'statefulset-controller' }),
    baseRetryDelayMs: 20,
    onError: (err) => errors.push(err),
  });
});

afterEach(async () => {
  await controller?.stop();
  controller = undefined;
  await informers.stop();
  await store.close();
});


type Spec = Record<string, any>;

async function createSet(name: string, replicas: number, edit: (spec: Spec) => void = () => {}): Promise<KubeObject> {
  const spec: Spec = {
    replicas,
    serviceName: 'nginx',
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', volumeMounts: [{ name: 'data', mountPath: '/d' }] }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  };
  edit(spec);
  return (await sets.create('default', { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name }, spec })).object;
}

async function editSet(name: string, edit: (spec: Spec) => void): Promise<void> {
  await sets.patch('default', name, (cur) => {
    const copy = structuredClone(cur);
    edit(copy.spec as Spec);
    return copy;
  });
}

const podNames = async (prefix: string): Promise<string[]> =>
  (await pods.list('default')).items.map((p) => p.metadata.name!).filter((n) => n.startsWith(`${prefix}-`)).sort();
const statusOf = async (name: string): Promise<Record<string, any>> => ((await sets.get('default', name)).status ?? {}) as Record<string, any>;

/** Plays the node agent: Running and Ready (or not), with the Ready condition's transition time. */
async function setReady(name: string, ready = true, phase = 'Running'): Promise<void> {
  const pod = await pods.get('default', name);
  const status = { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: rfc3339(new Date()) }] };
  await pods.update('default', name, { ...pod, status }, { subresource: 'status' });
}

/** Waits for the pod `name` to exist (a new one when `notUid` is given), then makes it ready. */
async function readyWhenCreated(name: string, notUid?: string): Promise<KubeObject> {
  const pod = await until(`pod ${name}`, async () => {
    const p = (await pods.list('default')).items.find((x) => x.metadata.name === name);
    return p !== undefined && p.metadata.uid !== notUid ? p : undefined;
  });
  await setReady(name);
  return pod;
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 150));
const eventMessages = async (reason: string): Promise<string[]> =>
  (await events.list('default')).items.filter((e) => e.reason === reason).map((e) => String(e.message));

describe('StatefulSet controller', () => {
  it('OrderedReady: creates claims then pods one at a time, each after its predecessor is Running and Ready', async () => {
    const set = await createSet('web', 3);
    const web0 = await until('web-0', async () => (await podNames('web')).length > 0 ? pods.get('default', 'web-0') : undefined);
    await settle();
    // Halted on the unready web-0.
    expect(await podNames('web')).toEqual(['web-0']);
    const status0 = await statusOf('web');
    expect(web0.metadata.labels).toEqual({
      app: 'web', 'statefulset.kubernetes.io/pod-name': 'web-0', 'apps.kubernetes.io/pod-index': '0', 'controller-revision-hash': status0.updateRevision,
    });
    expect(web0.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(web0.spec).toMatchObject({ hostname: 'web-0', subdomain: 'nginx', volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } }] });
    const claim = await claims.get('default', 'data-web-0');
    expect(claim.metadata.labels).toEqual({ app: 'web' });
    expect(claim.metadata.ownerReferences).toBeUndefined();
    expect(claim.spec).toMatchObject({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
    expect(new Date(claim.metadata.creationTimestamp!).getTime()).toBeLessThanOrEqual(new Date(web0.metadata.creationTimestamp!).getTime());

    await setReady('web-0');
    await readyWhenCreated('web-1');
    await readyWhenCreated('web-2');
    const status = await until('all ready', async () => {
      const s = await statusOf('web');
      return s.readyReplicas === 3 && s.availableReplicas === 3 ? s : undefined;
    });
    const revs = (await revisions.list('default')).items;
    expect(revs).toHaveLength(1);
    expect(status).toEqual({
      observedGeneration: 1, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3,
      currentRevision: revs[0]!.metadata.name, updateRevision: revs[0]!.metadata.name, collisionCount: 0,
    });
    expect(revs[0]).toMatchObject({ revision: 1, metadata: { labels: { app: 'web', 'controller.kubernetes.io/hash': revs[0]!.metadata.name!.slice(4) } } });
    expect((await eventMessages('SuccessfulCreate')).sort()).toEqual([
      'create Claim data-web-0 Pod web-0 in StatefulSet web success',
      'create Claim data-web-1 Pod web-1 in StatefulSet web success',
      'create Claim data-web-2 Pod web-2 in StatefulSet web success',
      'create Pod web-0 in StatefulSet web successful',
      'create Pod web-1 in StatefulSet web successful',
      'create Pod web-2 in StatefulSet web successful',
    ]);
    expect(errors).toEqual([]);
  });

  it('OrderedReady scale down removes the highest ordinal first and keeps the claims', async () => {
    await createSet('db', 3);
    for (const n of ['db-0', 'db-1', 'db-2']) await readyWhenCreated(n);
    await until('3 ready', async () => ((await statusOf('db')).readyReplicas === 3 ? true : undefined));
    const deleted: string[] = [];
    informers.informer(pods).on({ deleted: (p) => void deleted.push(p.metadata.name!) });
    await editSet('db', (s) => (s.replicas = 1));
    await until('1 pod', async () => ((await podNames('db')).length === 1 ? true : undefined));
    expect(deleted).toEqual(['db-2', 'db-1']);
    expect(await podNames('db')).toEqual(['db-0']);
    expect((await claims.list('default')).items.map((c) => c.metadata.name).sort()).toEqual(['data-db-0', 'data-db-1', 'data-db-2']);
    const status = await until('status', async () => {
      const s = await statusOf('db');
      return s.replicas === 1 ? s : undefined;
    });
    expect(status).toMatchObject({ replicas: 1, readyReplicas: 1, currentReplicas: 1, updatedReplicas: 1, availableReplicas: 1, observedGeneration: 2 });
    expect((await eventMessages('SuccessfulDelete')).sort()).toEqual(['delete Pod db-1 in StatefulSet db successful', 'delete Pod db-2 in StatefulSet db successful']);
  });

  it('Parallel creates every pod at once without waiting; ordinals.start numbers them', async () => {
    await createSet('par', 3, (s) => {
      s.podManagementPolicy = 'Parallel';
      s.ordinals = { start: 5 };
    });
    await until('3 pods', async () => ((await podNames('par')).length === 3 ? true : undefined));
    expect(await podNames('par')).toEqual(['par-5', 'par-6', 'par-7']);
    expect((await pods.get('default', 'par-7')).metadata.labels).toMatchObject({ 'apps.kubernetes.io/pod-index': '7' });
    const status = await until('status', async () => {
      const s = await statusOf('par');
      return s.replicas === 3 ? s : undefined;
    });
    expect(status.readyReplicas ?? 0).toBe(0);
    // Parallel scale down removes every condemned pod at once, unready ones too.
    await editSet('par', (s) => (s.replicas = 1));
    await until('1 pod', async () => ((await podNames('par')).length === 1 ? true : undefined));
    expect(await podNames('par')).toEqual(['par-5']);
  });

  it('retention policy Delete/Delete: claims reference the set, a scaled-down pod\'s claim references the pod', async () => {
    const set = await createSet('ret', 2, (s) => (s.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Delete', whenScaled: 'Delete' }));
    await readyWhenCreated('ret-0');
    const ret1 = await readyWhenCreated('ret-1');
    const refs = async (name: string): Promise<unknown> => (await claims.get('default', name)).metadata.ownerReferences;
    const setRef = [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'ret', uid: set.metadata.uid, controller: true, blockOwnerDeletion: true }];
    await until('set refs', async () => (JSON.stringify(await refs('data-ret-1')) === JSON.stringify(setRef) ? true : undefined));
    expect(await refs('data-ret-0')).toEqual(setRef);
    await editSet('ret', (s) => (s.replicas = 1));
    await until('ret-1 gone', async () => ((await podNames('ret')).length === 1 ? true : undefined));
    expect(await refs('data-ret-1')).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'ret-1', uid: ret1.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(await refs('data-ret-0')).toEqual(setRef);
  });

  it('RollingUpdate with a partition, then without; a rollback reuses the old revision', async () => {
    await createSet('ru', 3);
    for (const n of ['ru-0', 'ru-1', 'ru-2']) await readyWhenCreated(n);
    const first = await until('ready', async () => {
      const s = await statusOf('ru');
      return s.readyReplicas === 3 && s.currentRevision !== undefined ? s : undefined;
    });
    const uids = new Map((await pods.list('default')).items.map((p) => [p.metadata.name!, p.metadata.uid!]));
    await editSet('ru', (s) => {
      s.template.spec.containers[0].image = 'nginx:1.28';
      s.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 1 } };
    });
    // ru-2 then ru-1 are replaced at the new revision; ru-0 stays.
    await readyWhenCreated('ru-2', uids.get('ru-2'));
    await readyWhenCreated('ru-1', uids.get('ru-1'));
    const partial = await until('partition reached', async () => {
      const s = await statusOf('ru');
      return s.updatedReplicas === 2 && s.readyReplicas === 3 ? s : undefined;
    });
    expect(partial).toMatchObject({ replicas: 3, currentReplicas: 1, updatedReplicas: 2, currentRevision: first.currentRevision, observedGeneration: 2 });
    expect(partial.updateRevision).not.toBe(first.currentRevision);
    expect((await pods.get('default', 'ru-0')).metadata.uid).toBe(uids.get('ru-0'));
    expect((await pods.get('default', 'ru-1') as any).spec.containers[0].image).toBe('nginx:1.28');
    expect((await pods.get('default', 'ru-0') as any).spec.containers[0].image).toBe('nginx:1.27');

    await editSet('ru', (s) => (s.updateStrategy.rollingUpdate.partition = 0));
    await readyWhenCreated('ru-0', uids.get('ru-0'));
    const done = await until('update done', async () => {
      const s = await statusOf('ru');
      return s.currentRevision === partial.updateRevision && s.readyReplicas === 3 ? s : undefined;
    });
    expect(done).toMatchObject({ currentReplicas: 3, updatedReplicas: 3, updateRevision: partial.updateRevision });

    // Rollback: the first template again. Its revision is renumbered (3) instead of a new one being made.
    const before = new Map((await pods.list('default')).items.map((p) => [p.metadata.name!, p.metadata.uid!]));
    await editSet('ru', (s) => (s.template.spec.containers[0].image = 'nginx:1.27'));
    for (const n of ['ru-2', 'ru-1', 'ru-0']) await readyWhenCreated(n, before.get(n));
    const back = await until('rolled back', async () => {
      const s = await statusOf('ru');
      return s.currentRevision === first.currentRevision && s.readyReplicas === 3 ? s : undefined;
    });
    expect(back.updateRevision).toBe(first.currentRevision);
    const revs = Object.fromEntries((await revisions.list('default')).items.map((r) => [r.metadata.name, r.revision]));
    expect(revs).toEqual({ [first.currentRevision]: 3, [partial.updateRevision]: 2 });
  });

  it('OnDelete: a template change replaces only pods the user deletes', async () => {
    await createSet('od', 2, (s) => (s.updateStrategy = { type: 'OnDelete' }));
    await readyWhenCreated('od-0');
    await readyWhenCreated('od-1');
    const first = await until('ready', async () => ((await statusOf('od')).readyReplicas === 2 ? statusOf('od') : undefined));
    await editSet('od', (s) => (s.template.spec.containers[0].image = 'nginx:1.28'));
    const updating = await until('new revision', async () => {
      const s = await statusOf('od');
      return s.updateRevision !== first.updateRevision ? s : undefined;
    });
    expect(updating).toMatchObject({ currentRevision: first.currentRevision, currentReplicas: 2 });
    expect(updating.updatedReplicas ?? 0).toBe(0);
    const old1 = await pods.get('default', 'od-1');
    await pods.delete('default', 'od-1', { gracePeriodSeconds: 0 });
    const new1 = await readyWhenCreated('od-1', old1.metadata.uid);
    expect(new1.metadata.labels!['controller-revision-hash']).toBe(updating.updateRevision);
    expect((await pods.get('default', 'od-0')).metadata.labels!['controller-revision-hash']).toBe(first.currentRevision);
  });

  it('keeps revisionHistoryLimit old revisions, never one in use', async () => {
    await createSet('hist', 0, (s) => (s.revisionHistoryLimit = 1));
    for (const image of ['a:1', 'a:2', 'a:3', 'a:4']) {
      await editSet('hist', (s) => (s.template.spec.containers[0].image = image));
      await until(`revision for ${image}`, async () => {
        const s = await statusOf('hist');
        const revs = (await revisions.list('default')).items;
        const update = revs.find((r) => r.metadata.name === s.updateRevision);
        return update !== undefined && (update.data as any).spec.template.spec.containers[0].image === image ? true : undefined;
      });
    }
    await until('truncated', async () => ((await revisions.list('default')).items.length <= 3 ? true : undefined));
    const status = await statusOf('hist');
    const left = (await revisions.list('default')).items.map((r) => r.metadata.name);
    // The live revisions (current: the first one, kept while no rolling update completes without pods... and update) plus one.
    expect(left).toContain(status.updateRevision);
    expect(left).toContain(status.currentRevision);
    expect(left.length).toBeLessThanOrEqual(3);
  });

  it('adopts an orphan pod of its name and selector, restoring its identity (OnDelete keeps it; a pod of another name is left alone)', async () => {
    const orphan = (await pods.create('default', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'ad-0', labels: { app: 'ad' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    })).object;
    const stranger = (await pods.create('default', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other-0', labels: { app: 'ad' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    })).object;
    await createSet('ad', 1, (s) => {
      s.updateStrategy = { type: 'OnDelete' };
      // Parallel: OrderedReady would restore the identity only once the pod is Running and Ready.
      s.podManagementPolicy = 'Parallel';
      delete s.volumeClaimTemplates;
      s.template.spec.containers[0].volumeMounts = [];
    });
    const adopted = await until('adopted with identity', async () => {
      const p = await pods.get('default', 'ad-0');
      return p.metadata.labels?.['statefulset.kubernetes.io/pod-name'] === 'ad-0' ? p : undefined;
    });
    expect(adopted.metadata.uid).toBe(orphan.metadata.uid);
    expect(adopted.metadata.ownerReferences).toMatchObject([{ kind: 'StatefulSet', name: 'ad', controller: true }]);
    expect(adopted.metadata.labels).toMatchObject({ app: 'ad', 'apps.kubernetes.io/pod-index': '0' });
    // A pod whose name is not <set>-<ordinal> is not adopted even when the selector matches.
    expect((await pods.get('default', 'other-0')).metadata.ownerReferences).toBeUndefined();
    expect(stranger.metadata.uid).toBeDefined();
    expect(await podNames('ad')).toEqual(['ad-0']);
  });

  it('counts availability after minReadySeconds and replaces a failed pod', async () => {
    await createSet('mr', 1, (s) => {
      // 2 s: the Ready condition's time has whole seconds, so the pod is available at least 1 s after it is ready.
      s.minReadySeconds = 2;
      delete s.volumeClaimTemplates;
      s.template.spec.containers[0].volumeMounts = [];
    });
    const first = await readyWhenCreated('mr-0');
    const ready = await until('ready', async () => ((await statusOf('mr')).readyReplicas === 1 ? statusOf('mr') : undefined));
    expect(ready.availableReplicas).toBe(0);
    await until('available after 2 s', async () => ((await statusOf('mr')).availableReplicas === 1 ? true : undefined), 6000);

    await setReady('mr-0', false, 'Failed');
    const replaced = await until('replaced', async () => {
      const p = (await pods.list('default')).items.find((x) => x.metadata.name === 'mr-0');
      return p !== undefined && p.metadata.uid !== first.metadata.uid ? p : undefined;
    });
    expect(replaced.metadata.labels).toMatchObject({ 'statefulset.kubernetes.io/pod-name': 'mr-0' });
    expect(await eventMessages('SuccessfulDelete')).toEqual(['delete Pod mr-0 in StatefulSet mr successful']);
    expect(errors).toEqual([]);
  });

  it('a name clash with another revision bumps collisionCount and names the revision anew', async () => {
    const manifest = (): KubeObject => ({
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'col' },
      spec: {
        replicas: 0, serviceName: 'nginx', selector: { matchLabels: { app: 'col' } },
        template: { metadata: { labels: { app: 'col' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
      },
    });
    // The name the set's first revision would have, taken by a revision of other data (labels the set does not select).
    const preview = (await sets.create('default', manifest(), { dryRun: true })).object;
    const taken = newRevision(preview, 1, 0, statefulSetLabels(names).revisionHash);
    await revisions.create('default', { ...taken, metadata: { name: taken.metadata.name }, data: { other: true } });
    await sets.create('default', manifest());
    const status = await until('status', async () => {
      const s = await statusOf('col');
      return s.updateRevision !== undefined ? s : undefined;
    });
    expect(status.collisionCount).toBe(1);
    expect(status.updateRevision).not.toBe(taken.metadata.name);
    expect(status.updateRevision).toBe(newRevision(preview, 1, 1, statefulSetLabels(names).revisionHash).metadata.name);
    expect((await revisions.get('default', taken.metadata.name!)).data).toEqual({ other: true });
  });

  it('a set being deleted only has its status kept: no pod is created', async () => {
    await createSet('del', 2);
    await until('del-0', async () => ((await podNames('del')).length === 1 ? true : undefined));
    await sets.patch('default', 'del', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: ['example.com/hold'] } }));
    await sets.delete('default', 'del');
    await setReady('del-0');
    await until('ready counted', async () => ((await statusOf('del')).readyReplicas === 1 ? true : undefined));
    await settle();
    expect(await podNames('del')).toEqual(['del-0']);
    await sets.patch('default', 'del', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }));
  });

  it('whenScaled Delete: a pod waits for the stale claim of its predecessor to go (the collector\'s part played by the test)', async () => {
    await createSet('st', 2, (s) => (s.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Retain', whenScaled: 'Delete' }));
    await readyWhenCreated('st-0');
    const old1 = await readyWhenCreated('st-1');
    await editSet('st', (s) => (s.replicas = 1));
    await until('st-1 gone', async () => ((await podNames('st')).length === 1 ? true : undefined));
    const claim = await claims.get('default', 'data-st-1');
    expect(claim.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'st-1', uid: old1.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    // Scaled up again before the collector removed the claim: st-1 is not made over a stale claim.
    await editSet('st', (s) => (s.replicas = 2));
    await settle();
    expect(await podNames('st')).toEqual(['st-0']);
    await claims.delete('default', 'data-st-1');
    const new1 = await until('st-1 again', async () => ((await podNames('st')).length === 2 ? pods.get('default', 'st-1') : undefined));
    expect(new1.metadata.uid).not.toBe(old1.metadata.uid);
    const fresh = await until('new claim', async () => {
      const c = (await claims.list('default')).items.find((x) => x.metadata.name === 'data-st-1');
      return c !== undefined && c.metadata.uid !== claim.metadata.uid ? c : undefined;
    });
    expect(fresh.metadata.ownerReferences).toBeUndefined();
  });

  it('OrderedReady waits for a terminating pod (graceful deletion on a node) before the next removal', async () => {
    await createSet('gr', 3, (s) => (s.template.spec.nodeName = 'node-1'));
    for (const n of ['gr-0', 'gr-1', 'gr-2']) await readyWhenCreated(n);
    await until('3 ready', async () => ((await statusOf('gr')).readyReplicas === 3 ? true : undefined));
    await editSet('gr', (s) => (s.replicas = 1));
    const terminating = async (): Promise<string[]> =>
      (await pods.list('default')).items.filter((p) => p.metadata.name!.startsWith('gr-') && p.metadata.deletionTimestamp !== undefined).map((p) => p.metadata.name!);
    await until('gr-2 terminating', async () => ((await terminating()).length > 0 ? true : undefined));
    await settle();
    expect(await terminating()).toEqual(['gr-2']);
    // The node agent finishes gr-2; only then is gr-1 deleted.
    await pods.delete('default', 'gr-2', { gracePeriodSeconds: 0 });
    await until('gr-1 terminating', async () => ((await terminating()).includes('gr-1') ? true : undefined));
    expect(await podNames('gr')).toEqual(['gr-0', 'gr-1']);
    await pods.delete('default', 'gr-1', { gracePeriodSeconds: 0 });
    await until('1 pod', async () => ((await podNames('gr')).length === 1 ? true : undefined));
    const status = await until('status', async () => {
      const st = await statusOf('gr');
      return st.replicas === 1 ? st : undefined;
    });
    expect(status).toMatchObject({ replicas: 1, readyReplicas: 1, currentReplicas: 1, updatedReplicas: 1 });
  });
});
