/**
 * One sync of a StatefulSet, after kube 1.32's stateful_set_control.go (MaxUnavailableStatefulSet is alpha
 * and off, so rolling updates replace one pod at a time):
 *
 * 1. revisions: the update revision is the set's current template (an equal stored revision is reused; an
 *    equal older one is renumbered to the front: a rollback; else a new one is created, bumping the
 *    collision count on a name clash); the current revision is `status.currentRevision`'s, or the update one;
 * 2. pods are split into replicas (ordinals start .. start+replicas-1, missing ones made at the current or
 *    update revision per the partition) and condemned (other ordinals, highest first);
 * 3. unless the set is being deleted: each replica in ordinal order: Failed/Succeeded ones deleted (made again
 *    next sync), missing ones created (claims first; OrderedReady stops after each create), Pending ones get
 *    their missing claims; OrderedReady waits for a terminating, not Running+Ready, or not yet available
 *    (minReadySeconds) replica; identity and storage are restored; Parallel runs each step in slow-start
 *    batches (1, 2, 4, ...) and never waits;
 * 4. condemned pods' claims get the references of the retention policy, then condemned pods are deleted
 *    (OrderedReady: one at a time, highest ordinal first, only once the others are healthy, the first
 *    unhealthy pod excepted);
 * 5. RollingUpdate: from the highest ordinal down to the partition, the first pod not at the update revision
 *    is deleted (it comes back at the update revision), waiting for each to be healthy; OnDelete does nothing;
 * 6. the status (replicas, ready, available, current, updated, revisions, collision count, observed
 *    generation) is written whole through `status` when one of its counts, revisions or the generation
 *    changed; a finished rolling update makes the update revision current;
 * 7. history beyond `revisionHistoryLimit` is deleted, oldest first, never a revision a pod or the status uses.
 */
import type { KubeObject } from '../../api/object.js';
import { isObject, type JsonObject } from '../../api/json.js';
import { isStatusError } from '../../errors/status-error.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { CONTROLLER_FIELD_MANAGER } from '../field-manager.js';
import {
  applyRevision, equalRevision, newRevision, nextRevision, renamedFor, revisionNumber, sortRevisions,
} from './revisions.js';
import type { StatefulPodControl } from './stateful-pod-control.js';
import {
  endOrdinal, identityMatches, inOrdinalRange, isCreated, isFailed, isHealthy, isParallel, isPending, isRunningAndAvailable,
  isRunningAndReady, isSucceeded, isTerminating, minReadySecondsOf, newVersionedPod, ordinalOf, podRevision, replicasOf,
  startOrdinal, statusOf, storageMatches, specOf, updateStrategyOf, type StatefulSetLabels,
} from './stateful-pods.js';

export interface SetStatus {
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount: number;
}

export interface ControlOptions {
  readonly statefulSets: GenericRegistry;
  readonly revisions: GenericRegistry;
  readonly podControl: StatefulPodControl;
  readonly labels: StatefulSetLabels;
  readonly now: () => number;
  readonly signal?: AbortSignal;
}

const write = (o: ControlOptions) => ({ fieldManager: CONTROLLER_FIELD_MANAGER, ...(o.signal === undefined ? {} : { signal: o.signal }) });

/** UpdateStatefulSet: one pass over the set (see the file comment); resolves with the status it computed. */
export async function updateStatefulSet(o: ControlOptions, set: KubeObject, pods: readonly KubeObject[], revisions: KubeObject[]): Promise<SetStatus> {
  sortRevisions(revisions);
  let current: KubeObject | undefined;
  let update: KubeObject | undefined;
  try {
    const r = await statefulSetRevisions(o, set, revisions);
    current = r.current;
    update = r.update;
    const { status, err } = await syncPods(o, set, r.current, r.update, r.collisionCount, pods);
    let statusErr: unknown;
    try {
      await writeStatus(o, set, status);
    } catch (e) {
      statusErr = e;
    }
    if (err !== undefined) throw err;
    if (statusErr !== undefined) throw statusErr;
    return status;
  } finally {
    await truncateHistory(o, set, pods, revisions, current, update);
  }
}

/** getStatefulSetRevisions. */
async function statefulSetRevisions(o: ControlOptions, set: KubeObject, revisions: KubeObject[]): Promise<{ current: KubeObject; update: KubeObject; collisionCount: number }> {
  let collisionCount = typeof statusOf(set).collisionCount === 'number' ? (statusOf(set).collisionCount as number) : 0;
  let update = newRevision(set, nextRevision(revisions), collisionCount, o.labels.revisionHash);
  const equal = revisions.filter((r) => equalRevision(r, update));
  const last = revisions[revisions.length - 1];
  if (equal.length > 0 && last !== undefined && equalRevision(last, equal[equal.length - 1]!)) {
    update = last;
  } else if (equal.length > 0) {
    // A rollback: the equal older revision becomes the newest.
    const older = equal[equal.length - 1]!;
    const moved = { ...structuredClone(older), revision: revisionNumber(update) };
    update = (await o.revisions.update(older.metadata.namespace ?? '', older.metadata.name ?? '', moved, write(o))).object;
  } else {
    const created = await createRevision(o, set, update, collisionCount);
    update = created.revision;
    collisionCount = created.collisionCount;
  }
  const wanted = statusOf(set).currentRevision;
  const current = revisions.find((r) => r.metadata.name === wanted) ?? update;
  return { current, update, collisionCount };
}

/** CreateControllerRevision: a name clash with other data bumps the collision count and retries. */
async function createRevision(o: ControlOptions, set: KubeObject, rev: KubeObject, collisionCount: number): Promise<{ revision: KubeObject; collisionCount: number }> {
  let count = collisionCount;
  let candidate = rev;
  for (;;) {
    try {
      const created = await o.revisions.create(candidate.metadata.namespace ?? '', structuredClone(candidate), write(o));
      return { revision: created.object, collisionCount: count };
    } catch (err) {
      if (!(isStatusError(err) && err.code === 409)) throw err;
      const existing = await o.revisions.get(candidate.metadata.namespace ?? '', candidate.metadata.name ?? '');
      if (equalRevision(existing, candidate)) return { revision: existing, collisionCount: count };
      count++;
      candidate = renamedFor(rev, set.metadata.name ?? '', count, o.labels.revisionHash);
    }
  }
}

/** computeReplicaStatus over lists of pods, added up (updateStatus). */
function countPods(status: SetStatus, minReadySeconds: number, now: number, ...lists: readonly (KubeObject | undefined)[][]): void {
  status.replicas = status.readyReplicas = status.availableReplicas = status.currentReplicas = status.updatedReplicas = 0;
  for (const list of lists) {
    for (const pod of list) {
      if (pod === undefined) continue;
      if (isCreated(pod)) status.replicas++;
      if (isRunningAndReady(pod)) {
        status.readyReplicas++;
        if (isRunningAndAvailable(pod, minReadySeconds, now)) status.availableReplicas++;
      }
      if (isCreated(pod) && !isTerminating(pod)) {
        const revision = podRevision(pod);
        if (revision === status.currentRevision) status.currentReplicas++;
        if (revision === status.updateRevision) status.updatedReplicas++;
      }
    }
  }
}

/** runForAll: in order with early exit (OrderedReady), or slow-start batches ignoring exits (Parallel). */
async function runForAll(pods: readonly KubeObject[], fn: (i: number) => Promise<boolean>, monotonic: boolean): Promise<boolean> {
  if (monotonic) {
    for (let i = 0; i < pods.length; i++) if (await fn(i)) return true;
    return false;
  }
  let next = 0;
  for (let batch = 1; next < pods.length; batch *= 2) {
    const size = Math.min(batch, pods.length - next);
    const results = await Promise.allSettled(Array.from({ length: size }, (_, k) => fn(next + k)));
    next += size;
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }
  return false;
}

/** updateStatefulSet (the pods part): returns the status and the first error, if any. */
async function syncPods(
  o: ControlOptions, set: KubeObject, currentRevision: KubeObject, updateRevision: KubeObject, collisionCount: number, pods: readonly KubeObject[],
): Promise<{ status: SetStatus; err?: unknown }> {
  const now = o.now();
  const currentSet = applyRevision(set, currentRevision);
  const updateSet = applyRevision(set, updateRevision);
  const minReady = minReadySecondsOf(set);
  const status: SetStatus = {
    observedGeneration: set.metadata.generation ?? 0,
    replicas: 0, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, availableReplicas: 0,
    currentRevision: currentRevision.metadata.name ?? '',
    updateRevision: updateRevision.metadata.name ?? '',
    collisionCount,
  };
  countPods(status, minReady, now, [...pods]);

  const start = startOrdinal(set);
  const replicas: KubeObject[] = new Array<KubeObject>(replicasOf(set));
  const condemned: KubeObject[] = [];
  for (const pod of pods) {
    if (inOrdinalRange(pod, set)) replicas[ordinalOf(pod) - start] = pod;
    else if (ordinalOf(pod) >= 0) condemned.push(pod);
  }
  for (let ord = start; ord <= endOrdinal(set); ord++) {
    if (replicas[ord - start] === undefined) {
      replicas[ord - start] = newVersionedPod(currentSet, updateSet, status.currentRevision, status.updateRevision, ord, o.labels);
    }
  }
  condemned.sort((a, b) => ordinalOf(b) - ordinalOf(a));
  let firstUnhealthy: KubeObject | undefined;
  for (const pod of replicas) if (!isHealthy(pod)) firstUnhealthy ??= pod;
  for (let i = condemned.length - 1; i >= 0; i--) if (!isHealthy(condemned[i]!)) firstUnhealthy ??= condemned[i];

  if (set.metadata.deletionTimestamp !== undefined) return { status };
  const monotonic = !isParallel(set);
  const finish = (err?: unknown): { status: SetStatus; err?: unknown } => {
    countPods(status, minReady, now, replicas, condemned);
    return err === undefined ? { status } : { status, err };
  };

  try {
    // Replicas in ordinal order.
    if (await runForAll(replicas, (i) => processReplica(o, set, updateSet, monotonic, replicas, i, now), monotonic)) return finish();
    // Condemned pods' claims per the retention policy.
    const fixClaims = async (i: number): Promise<boolean> => {
      if (!o.podControl.claimsMatchPolicy(updateSet, condemned[i]!)) await o.podControl.updateClaimsForPolicy(updateSet, condemned[i]!);
      return false;
    };
    if (await runForAll(condemned, fixClaims, monotonic)) return finish();
    // Scale down, highest ordinal first.
    const processCondemned = async (i: number): Promise<boolean> => {
      const pod = condemned[i]!;
      if (isTerminating(pod)) return monotonic;
      if (monotonic && pod !== firstUnhealthy && (!isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReady, now))) return true;
      await o.podControl.deletePod(set, pod);
      return monotonic;
    };
    if (await runForAll(condemned, processCondemned, monotonic)) return finish();
  } catch (err) {
    return finish(err);
  }
  countPods(status, minReady, now, replicas, condemned);

  const strategy = updateStrategyOf(set);
  if (strategy.type === 'OnDelete') return { status };
  const rolling = isObject(strategy.rollingUpdate) ? strategy.rollingUpdate : undefined;
  const updateMin = rolling !== undefined && typeof rolling.partition === 'number' ? rolling.partition : 0;
  for (let target = replicas.length - 1; target >= updateMin; target--) {
    const pod = replicas[target]!;
    if (podRevision(pod) !== status.updateRevision && !isTerminating(pod)) {
      try {
        await o.podControl.deletePod(set, pod);
      } catch (err) {
        if (!(isStatusError(err) && err.code === 404)) return { status, err };
      }
      // Only a pod counted as current leaves the count (an adopted pod of no revision was never in it).
      if (isCreated(pod) && podRevision(pod) === status.currentRevision) status.currentReplicas--;
      return { status };
    }
    if (!isHealthy(pod)) return { status };
  }
  return { status };
}

/** processReplica: true stops an OrderedReady pass. */
async function processReplica(o: ControlOptions, set: KubeObject, updateSet: KubeObject, monotonic: boolean, replicas: KubeObject[], i: number, now: number): Promise<boolean> {
  const pod = replicas[i]!;
  if (isFailed(pod) || isSucceeded(pod)) {
    if (!isTerminating(pod)) await o.podControl.deletePod(set, pod);
    return true;
  }
  if (!isCreated(pod)) {
    if (o.podControl.claimIsStale(set, pod)) return true;
    await o.podControl.createPod(set, pod);
    return monotonic;
  }
  if (isPending(pod)) await o.podControl.createClaims(set, pod);
  if (isTerminating(pod) && monotonic) return true;
  if (!isRunningAndReady(pod) && monotonic) return true;
  if (!isRunningAndAvailable(pod, minReadySecondsOf(set), now) && monotonic) return true;
  const retentionMatch = o.podControl.claimsMatchPolicy(updateSet, pod);
  if (identityMatches(set, pod, o.labels) && storageMatches(set, pod) && retentionMatch) return false;
  await o.podControl.updatePod(updateSet, pod);
  return false;
}

/**
 * The status as Go writes StatefulSetStatus (omitempty members left out when zero; collisionCount a pointer).
 * Conditions are not carried over: kube's controller builds the status anew and writes it whole.
 */
function statusObject(status: SetStatus): JsonObject {
  const out: JsonObject = {};
  if (status.observedGeneration !== 0) out.observedGeneration = status.observedGeneration;
  out.replicas = status.replicas;
  if (status.readyReplicas !== 0) out.readyReplicas = status.readyReplicas;
  if (status.currentReplicas !== 0) out.currentReplicas = status.currentReplicas;
  if (status.updatedReplicas !== 0) out.updatedReplicas = status.updatedReplicas;
  if (status.currentRevision !== '') out.currentRevision = status.currentRevision;
  if (status.updateRevision !== '') out.updateRevision = status.updateRevision;
  out.collisionCount = status.collisionCount;
  out.availableReplicas = status.availableReplicas;
  return out;
}

/** updateStatefulSetStatus: complete a finished rolling update, write only when something changed. */
async function writeStatus(o: ControlOptions, set: KubeObject, status: SetStatus): Promise<void> {
  if (updateStrategyOf(set).type === 'RollingUpdate' && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
  const old = statusOf(set);
  const n = (k: string): number => (typeof old[k] === 'number' ? (old[k] as number) : 0);
  const s = (k: string): string => (typeof old[k] === 'string' ? (old[k] as string) : '');
  const inconsistent = status.observedGeneration > n('observedGeneration') || status.replicas !== n('replicas') ||
    status.currentReplicas !== n('currentReplicas') || status.readyReplicas !== n('readyReplicas') ||
    status.updatedReplicas !== n('updatedReplicas') || status.currentRevision !== s('currentRevision') ||
    status.availableReplicas !== n('availableReplicas') || status.updateRevision !== s('updateRevision');
  if (!inconsistent) return;
  const updated: KubeObject = { ...set, status: statusObject(status) };
  await o.statefulSets.update(set.metadata.namespace ?? '', set.metadata.name ?? '', updated, { ...write(o), subresource: 'status' });
}

/** truncateHistory: non-live revisions beyond the limit, oldest first. */
async function truncateHistory(
  o: ControlOptions, set: KubeObject, pods: readonly KubeObject[], revisions: readonly KubeObject[], current?: KubeObject, update?: KubeObject,
): Promise<void> {
  const live = new Set<string>();
  if (current !== undefined) live.add(current.metadata.name ?? '');
  if (update !== undefined) live.add(update.metadata.name ?? '');
  for (const pod of pods) live.add(podRevision(pod));
  const history = revisions.filter((r) => !live.has(r.metadata.name ?? ''));
  const limit = typeof specOf(set).revisionHistoryLimit === 'number' ? (specOf(set).revisionHistoryLimit as number) : 10;
  if (history.length <= limit) return;
  for (const rev of history.slice(0, history.length - limit)) {
    try {
      await o.revisions.delete(rev.metadata.namespace ?? '', rev.metadata.name ?? '', {
        preconditions: { uid: rev.metadata.uid ?? '' },
        ...(o.signal === undefined ? {} : { signal: o.signal }),
      });
    } catch (err) {
      if (!(isStatusError(err) && err.code === 404)) throw err;
    }
  }
}
