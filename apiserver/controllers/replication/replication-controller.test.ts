/**
 * The ReplicationController controller over the real registries on the embedded store, the test playing
 * the node agent (pod status through `/status`, terminating pods removed with grace period 0): scale up
 * and down with kube's ranking, adoption and release by selector, every status rule (replicas without
 * terminal or terminating pods, fullyLabeledReplicas against the template labels, readyReplicas,
 * availableReplicas with minReadySeconds, observedGeneration, the ReplicaFailure condition set and
 * cleared), events, and no double creates across passes.
 */
import type { KubeObject } from '../../api/object.js';
import { isStatusError } from '../../errors/status-error.js';
import { createEventRecorder } from '../../events/event-recorder.js';
import { naming } from '../../naming/naming.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { createInformerFactory, type InformerFactory } from '../informer.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { slowStartBatch, startReplicationController, type ReplicationController } from './replication-controller.js';
import type { RcStatus } from './replication-status.js';
import { until } from '../../../test/harness/until.js';

const names = naming('k8s.io');
let store: ServedStore;
let rcs: GenericRegistry;
let pods: GenericRegistry;
let events: GenericRegistry;
let informers: InformerFactory;
let controller: ReplicationController | undefined;
let errors: unknown[];

beforeEach(async () => {
  store = await openServedStore(names);
  rcs = store.served.lookup('', 'v1', 'replicationcontrollers')!.registry;
  pods = store.served.lookup('', 'v1', 'pods')!.registry;
  events = store.served.lookup('', 'v1', 'events')!.registry;
  await store.served.lookup('', 'v1', 'namespaces')!.registry.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  errors = [];
  informers = createInformerFactory({ onError: (err) => errors.push(err), rewatchDelayMs: 50 });
});

afterEach(async () => {
  await controller?.stop();
  controller = undefined;
  await informers.stop();
  await store.close();
});

function start(o: { burstReplicas?: number } = {}): void {
  controller = startReplicationController({
    informers,
    replicationControllers: rcs,
    pods,
    naming: names,
    recorder: createEventRecorder({ events, component: 'replication-controller' }),
    retryBaseDelayMs: 20,
    onError: (err) => errors.push(err),
    ...o,
  });
}


const template = (labels: Record<string, string> = { app: 'web' }, image = 'nginx:1.27'): Record<string, unknown> => ({
  metadata: { labels },
  spec: { containers: [{ name: 'nginx', image }] },
});

async function createRc(name: string, replicas: number, edit: (spec: Record<string, unknown>) => void = () => {}): Promise<KubeObject> {
  const spec: Record<string, unknown> = { replicas, selector: { app: 'web' }, template: template() };
  edit(spec);
  return (await rcs.create('default', { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name }, spec })).object;
}

const podsOf = async (uid: string): Promise<KubeObject[]> =>
  (await pods.list('default')).items.filter((p) => p.metadata.ownerReferences?.some((r) => r.uid === uid && r.controller === true));
const activePodsOf = async (uid: string): Promise<KubeObject[]> =>
  (await podsOf(uid)).filter((p) => p.metadata.deletionTimestamp === undefined && !['Succeeded', 'Failed'].includes((p.status as { phase?: string } | undefined)?.phase ?? ''));
const statusOf = async (name: string): Promise<RcStatus & { conditions?: { type: string; status: string; reason?: string; message?: string }[] }> =>
  ((await rcs.get('default', name)).status ?? {}) as RcStatus;

/** Plays the node agent: the pod's status (phase, Ready with its transition time, IPs). */
async function setPodStatus(name: string, o: { phase?: string; ready?: boolean; readySince?: Date; restarts?: number }): Promise<void> {
  const pod = await pods.get('default', name);
  const conditions = o.ready === undefined ? [] : [{ type: 'Ready', status: o.ready ? 'True' : 'False', lastTransitionTime: rfc3339(o.readySince ?? new Date()) }];
  const status: Record<string, unknown> = { phase: o.phase ?? 'Running', conditions, podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.9' }] };
  if (o.restarts !== undefined) status.containerStatuses = [{ name: 'nginx', image: 'nginx:1.27', imageID: '', ready: o.ready ?? false, restartCount: o.restarts, state: { running: {} } }];
  await pods.update('default', name, { ...pod, status }, { subresource: 'status' });
}

async function createPod(name: string, labels: Record<string, string>, spec: Record<string, unknown> = {}): Promise<KubeObject> {
  return (await pods.create('default', { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }], ...spec } })).object;
}

const eventsFor = async (reason: string): Promise<string[]> =>
  (await events.list('default')).items.filter((e) => e.reason === reason).map((e) => String(e.message));

describe('slowStartBatch', () => {
  it('runs batches of 1, 2, 4 ... and stops after the first batch with a failure', async () => {
    let calls = 0;
    let running = 0;
    const batches: number[] = [];
    const res = await slowStartBatch(20, 1, async () => {
      const n = ++calls;
      // Calls of one batch all start before any of them ends: the largest concurrency seen is the batch size.
      if (running === 0) batches.push(0);
      running++;
      batches[batches.length - 1] = Math.max(batches[batches.length - 1]!, running);
      await Promise.resolve();
      running--;
      if (n === 5) throw new Error('quota');
    });
    expect(batches).toEqual([1, 2, 4]);
    // Batches 1, 2, then 4 (calls 4-7, the 5th fails): 1 + 2 + 3 successes, 7 calls, no 8th batch.
    expect(calls).toBe(7);
    expect(res.successes).toBe(6);
    expect((res.error as Error).message).toBe('quota');
    expect(await slowStartBatch(5, 1, async () => undefined)).toEqual({ successes: 5 });
  });
});

describe('ReplicationController controller', () => {
  it('creates the missing pods from the template, owned by the controller, with events and status', async () => {
    start();
    const rc = await createRc('web', 3);
    const owned = await until('3 pods', async () => {
      const p = await podsOf(rc.metadata.uid!);
      return p.length === 3 ? p : undefined;
    });
    for (const p of owned) {
      expect(p.metadata.generateName).toBe('web-');
      expect(p.metadata.labels).toEqual({ app: 'web' });
      expect(p.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: rc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    const status = await until('status', async () => {
      const s = await statusOf('web');
      return s.replicas === 3 && s.observedGeneration === 1 ? s : undefined;
    });
    expect(status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 1 });
    const created = await until('events', async () => {
      const e = await eventsFor('SuccessfulCreate');
      return e.length === 3 ? e : undefined;
    });
    expect(created.sort()).toEqual(owned.map((p) => `Created pod: ${p.metadata.name}`).sort());
    const ev = (await events.list('default')).items[0]!;
    expect(ev.source).toEqual({ component: 'replication-controller' });
    expect((ev.involvedObject as { kind: string }).kind).toBe('ReplicationController');
    // Stable: later passes create nothing more.
    await rcs.patch('default', 'web', (cur) => ({ ...cur, metadata: { ...cur.metadata, annotations: { touch: '1' } } }));
    await new Promise((r) => setTimeout(r, 200));
    expect(await podsOf(rc.metadata.uid!)).toHaveLength(3);
    expect(errors).toEqual([]);
  });

  it('creates a large number with kube burst limit per pass and never double-creates', async () => {
    start({ burstReplicas: 7 });
    const rc = await createRc('big', 20);
    await until('20 pods', async () => ((await podsOf(rc.metadata.uid!)).length >= 20 ? true : undefined));
    await new Promise((r) => setTimeout(r, 200));
    expect(await podsOf(rc.metadata.uid!)).toHaveLength(20);
    await until('status 20', async () => ((await statusOf('big')).replicas === 20 ? true : undefined));
  });

  it('scales down deleting the least valuable pods first, with SuccessfulDelete events', async () => {
    await createPod('running-ready', { app: 'web' }, {});
    await createPod('running-unready', { app: 'web' }, {});
    await createPod('pending', { app: 'web' }, {});
    await createPod('costly-unready', { app: 'web' }, {});
    await pods.patch('default', 'costly-unready', (cur) => ({ ...cur, metadata: { ...cur.metadata, annotations: { 'controller.kubernetes.io/pod-deletion-cost': '100' } } }));
    await setPodStatus('running-ready', { ready: true, readySince: new Date(Date.now() - 60_000) });
    await setPodStatus('running-unready', { ready: false });
    await setPodStatus('costly-unready', { ready: false });
    await setPodStatus('pending', { phase: 'Pending' });
    start();
    const rc = await createRc('web', 4);
    await until('4 adopted', async () => ((await podsOf(rc.metadata.uid!)).length === 4 ? true : undefined));
    // 4 -> 3: the Pending pod goes first (Pending < Running).
    await rcs.patch('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), replicas: 3 } }));
    await until('pending deleted', async () => ((await podsOf(rc.metadata.uid!)).some((p) => p.metadata.name === 'pending') ? undefined : true));
    // 3 -> 2: of the unready Running pods, the lower deletion cost goes first.
    await rcs.patch('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), replicas: 2 } }));
    await until('unready deleted', async () => ((await podsOf(rc.metadata.uid!)).some((p) => p.metadata.name === 'running-unready') ? undefined : true));
    // 2 -> 1: not ready before ready, whatever the cost.
    await rcs.patch('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), replicas: 1 } }));
    const left = await until('one left', async () => {
      const p = await podsOf(rc.metadata.uid!);
      return p.length === 1 ? p : undefined;
    });
    expect(left[0]!.metadata.name).toBe('running-ready');
    const deleted = await until('delete events', async () => {
      const e = await eventsFor('SuccessfulDelete');
      return e.length === 3 ? e : undefined;
    });
    expect(deleted.sort()).toEqual(['Deleted pod: costly-unready', 'Deleted pod: pending', 'Deleted pod: running-unready']);
    const s = await until('status', async () => {
      const st = await statusOf('web');
      return st.replicas === 1 && st.observedGeneration === 4 ? st : undefined;
    });
    expect(s).toEqual({ replicas: 1, fullyLabeledReplicas: 1, readyReplicas: 1, availableReplicas: 1, observedGeneration: 4 });
  });

  it('scheduled pods are marked for deletion and no longer counted; the node agent removes them', async () => {
    await createPod('a', { app: 'web' }, { nodeName: 'node-1' });
    await createPod('b', { app: 'web' }, { nodeName: 'node-1' });
    await setPodStatus('a', { ready: true, readySince: new Date(Date.now() - 3_600_000) });
    await setPodStatus('b', { ready: true, readySince: new Date(Date.now() - 1000) });
    start();
    const rc = await createRc('web', 1);
    // b has been ready for a shorter time (a smaller log2 bucket): deleted first.
    const marked = await until('b marked', async () => {
      const b = await pods.get('default', 'b');
      return b.metadata.deletionTimestamp !== undefined ? b : undefined;
    });
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(30);
    await until('status 1', async () => {
      const s = await statusOf('web');
      return s.replicas === 1 && s.readyReplicas === 1 ? true : undefined;
    });
    // A terminating pod is not replaced twice and not counted.
    await pods.delete('default', 'b', { gracePeriodSeconds: 0 });
    await new Promise((r) => setTimeout(r, 200));
    expect((await activePodsOf(rc.metadata.uid!)).map((p) => p.metadata.name)).toEqual(['a']);
  });

  it('replaces failed and terminating pods, which are not counted', async () => {
    start();
    const rc = await createRc('web', 2);
    const first = await until('2 pods', async () => {
      const p = await podsOf(rc.metadata.uid!);
      return p.length === 2 ? p : undefined;
    });
    await setPodStatus(first[0]!.metadata.name!, { phase: 'Failed' });
    const replaced = await until('replacement', async () => {
      const p = await activePodsOf(rc.metadata.uid!);
      return p.length === 2 && !p.some((x) => x.metadata.name === first[0]!.metadata.name) ? p : undefined;
    });
    expect(replaced).toHaveLength(2);
    await until('status 2', async () => ((await statusOf('web')).replicas === 2 ? true : undefined));
    expect(await podsOf(rc.metadata.uid!)).toHaveLength(3);
  });

  it('adopts matching orphans and releases owned pods whose labels no longer match', async () => {
    await createPod('orphan', { app: 'web' });
    await createPod('other', { app: 'db' });
    start();
    const rc = await createRc('web', 2);
    const owned = await until('2 owned', async () => {
      const p = await podsOf(rc.metadata.uid!);
      return p.length === 2 ? p : undefined;
    });
    expect(owned.map((p) => p.metadata.name)).toContain('orphan');
    expect((await pods.get('default', 'other')).metadata.ownerReferences).toBeUndefined();
    // Relabelled out of the selector: released (no owner reference left) and replaced.
    await pods.patch('default', 'orphan', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { app: 'elsewhere' } } }));
    await until('released', async () => ((await pods.get('default', 'orphan')).metadata.ownerReferences === undefined ? true : undefined));
    await until('replaced', async () => ((await podsOf(rc.metadata.uid!)).length === 2 ? true : undefined));
    // A pod owned by another controller is never adopted.
    await pods.create('default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'foreign', labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'x', uid: 'other-uid', controller: true }] },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    });
    await rcs.patch('default', 'web', (cur) => ({ ...cur, metadata: { ...cur.metadata, annotations: { touch: '1' } } }));
    await new Promise((r) => setTimeout(r, 200));
    expect((await pods.get('default', 'foreign')).metadata.ownerReferences?.[0]?.uid).toBe('other-uid');
    expect(await podsOf(rc.metadata.uid!)).toHaveLength(2);
  });

  it('a controller being deleted neither adopts nor creates; its pods are left to the garbage collector', async () => {
    start();
    const rc = await createRc('web', 1, (s) => s);
    await until('1 pod', async () => ((await podsOf(rc.metadata.uid!)).length === 1 ? true : undefined));
    await rcs.patch('default', 'web', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: ['example.com/hold'] } }));
    await rcs.delete('default', 'web');
    const [pod] = await podsOf(rc.metadata.uid!);
    await pods.delete('default', pod!.metadata.name!);
    await createPod('orphan', { app: 'web' });
    await new Promise((r) => setTimeout(r, 300));
    expect(await podsOf(rc.metadata.uid!)).toEqual([]);
    expect((await pods.get('default', 'orphan')).metadata.ownerReferences).toBeUndefined();
    await rcs.patch('default', 'web', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }));
  });

  it('counts fullyLabeledReplicas against the template labels, not the selector', async () => {
    await createPod('partial', { app: 'web' });
    start();
    const rc = await createRc('web', 2, (s) => {
      s.template = template({ app: 'web', tier: 'fe' });
    });
    await until('2 owned', async () => ((await podsOf(rc.metadata.uid!)).length === 2 ? true : undefined));
    const s = await until('status', async () => {
      const st = await statusOf('web');
      return st.replicas === 2 ? st : undefined;
    });
    expect(s.fullyLabeledReplicas).toBe(1);
  });

  it('readyReplicas and availableReplicas follow the pods, availability after minReadySeconds without other events', async () => {
    start();
    const rc = await createRc('web', 2, (s) => {
      s.minReadySeconds = 1;
    });
    const owned = await until('2 pods', async () => {
      const p = await podsOf(rc.metadata.uid!);
      return p.length === 2 ? p : undefined;
    });
    await setPodStatus(owned[0]!.metadata.name!, { ready: true });
    const s1 = await until('ready 1', async () => {
      const st = await statusOf('web');
      return st.readyReplicas === 1 ? st : undefined;
    });
    expect(s1.availableReplicas).toBeUndefined();
    await setPodStatus(owned[1]!.metadata.name!, { ready: true });
    await until('ready 2', async () => ((await statusOf('web')).readyReplicas === 2 ? true : undefined));
    // No further writes by the test: the controller's own requeue makes them available.
    const s2 = await until('available 2', async () => {
      const st = await statusOf('web');
      return st.availableReplicas === 2 ? st : undefined;
    }, 6000);
    expect(s2).toEqual({ replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1 });
    // Not ready again: neither ready nor available.
    await setPodStatus(owned[0]!.metadata.name!, { ready: false });
    await until('ready 1 again', async () => {
      const st = await statusOf('web');
      return st.readyReplicas === 1 && st.availableReplicas === 1 ? true : undefined;
    });
  });

  it('sets ReplicaFailure when creates are refused, and removes it once they succeed', async () => {
    start();
    // The template passes the controller's validation but a pod with that image does not (blanks around it).
    const rc = await createRc('web', 2, (s) => {
      s.template = template({ app: 'web' }, ' nginx ');
    });
    const failed = await until('condition', async () => {
      const st = await statusOf('web');
      return st.conditions?.find((c) => c.type === 'ReplicaFailure');
    });
    expect(failed).toMatchObject({ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate' });
    expect(failed.message).toContain('must not have leading or trailing whitespace');
    expect((failed as { lastTransitionTime?: string }).lastTransitionTime).toMatch(/Z$/);
    const warned = await until('FailedCreate event', async () => {
      const e = await eventsFor('FailedCreate');
      return e.length > 0 ? e : undefined;
    });
    expect(warned[0]).toMatch(/^Error creating: /);
    expect(errors.some((e) => isStatusError(e) && e.code === 422)).toBe(true);
    // Fixed: the creates succeed and the condition goes.
    await rcs.patch('default', 'web', (cur) => {
      const spec = cur.spec as Record<string, unknown>;
      return { ...cur, spec: { ...spec, template: template() } };
    });
    await until('2 pods', async () => ((await podsOf(rc.metadata.uid!)).length === 2 ? true : undefined));
    const s = await until('condition removed', async () => {
      const st = await statusOf('web');
      return st.replicas === 2 && st.conditions === undefined ? st : undefined;
    });
    expect(s.observedGeneration).toBe(2);
  });

  it('forgets a deleted controller', async () => {
    start();
    const rc = await createRc('web', 1);
    await until('1 pod', async () => ((await podsOf(rc.metadata.uid!)).length === 1 ? true : undefined));
    await rcs.delete('default', 'web');
    await new Promise((r) => setTimeout(r, 200));
    // The pods are the garbage collector's (background deletion): the controller makes no new ones.
    expect(await podsOf(rc.metadata.uid!)).toHaveLength(1);
    expect(errors).toEqual([]);
  });
});
