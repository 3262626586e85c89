/**
 * The ReplicationController controller (kube-controller-manager's `replicationcontroller-controller`: the
 * ReplicaSet controller over ReplicationControllers, pkg/controller/replicaset in Kubernetes v1.32).
 *
 * One sync of a controller `ns/name`:
 * 1. the active pods of its namespace (not Succeeded/Failed, not terminating) are claimed
 *    (controller-ref.ts: orphans its selector matches are adopted once the controller, read fresh, still
 *    exists; owned pods it no longer matches are released);
 * 2. unless earlier creates/deletes are still unobserved (expectations.ts) or the controller is being
 *    deleted: too few pods → create the missing ones (at most `burstReplicas` per sync) in slow-start
 *    batches of 1, 2, 4 ... stopping at the first batch with a failure; too many → delete the least
 *    valuable ones first (pod-ranking.ts), all at once, each with a uid precondition;
 * 3. the status (replication-status.ts) is written through `/status` when it changed, with the
 *    resourceVersion read (one retry with a fresh read after a conflict, as kube);
 * 4. with `minReadySeconds`, a sync is queued again after that delay while pods are ready but not yet
 *    available, and when a pod becomes ready (so `availableReplicas` catches up without other events).
 *
 * Events as kube's: `SuccessfulCreate` "Created pod: <name>", `SuccessfulDelete` "Deleted pod: <name>",
 * Warnings `FailedCreate` "Error creating: <error>" and `FailedDelete` "Error deleting: <error>".
 * A failed create or delete makes the sync fail (the key is retried with back-off) after the status with
 * the `ReplicaFailure` condition is written.
 */
import type { KubeObject } from '../../api/object.js';
import { isStatusError } from '../../errors/status-error.js';
import type { EventRecorder } from '../../events/event-recorder.js';
import { referenceOf } from '../../events/object-reference.js';
import type { Naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { claimObjects, controllerRefOf, controllerRefTo, type OwnerReference } from '../controller-ref.js';
import { CONTROLLER_FIELD_MANAGER } from '../field-manager.js';
import type { InformerFactory } from '../informer.js';
import { podFromTemplate } from '../pod-from-template.js';
import { keyOf, splitKey, startWorkQueue } from '../work-queue.js';
import { createExpectations } from './expectations.js';
import { podsToDelete } from './pod-ranking.js';
import { isPodActive, isPodReady, labelsMatch } from './pod-state.js';
import { calculateStatus, desiredReplicas, rcSpec, rcStatus, statusChanged } from './replication-status.js';

const RC_TYPE = { apiVersion: 'v1', kind: 'ReplicationController' } as const;

export interface ReplicationControllerOptions {
  readonly informers: InformerFactory;
  readonly replicationControllers: GenericRegistry;
  readonly pods: GenericRegistry;
  readonly naming: Naming;
  /** Events about the controllers (component `replication-controller`). Default: none. */
  readonly recorder?: EventRecorder;
  readonly onError?: (err: unknown, key: string) => void;
  /** Creates or deletes per sync. Default 500 (kube's BurstReplicas). */
  readonly burstReplicas?: number;
  /** Controllers synced at once. Default 5 (kube's --concurrent-rc-syncs). */
  readonly workers?: number;
  /** How long unobserved creates/deletes hold back a sync. Default 5 minutes (kube's). */
  readonly expectationsTimeoutMs?: number;
  /** First retry delay after a failed sync. Default 5 ms (client-go's). */
  readonly retryBaseDelayMs?: number;
  readonly now?: () => Date;
}

export interface ReplicationController {
  stop(): Promise<void>;
}

/** kube's slowStartBatch: `count` calls in batches of 1, 2, 4 ...; stops after the first batch with a failure. */
export async function slowStartBatch(count: number, initial: number, fn: () => Promise<void>): Promise<{ successes: number; error?: unknown }> {
  let remaining = count;
  let successes = 0;
  for (let batch = Math.min(remaining, initial); batch > 0; batch = Math.min(2 * batch, remaining)) {
    const results = await Promise.allSettled(Array.from({ length: batch }, () => fn()));
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    successes += batch - failures.length;
    if (failures.length > 0) return { successes, error: failures[0]!.reason };
    remaining -= batch;
  }
  return { successes };
}

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const isCode = (err: unknown, ...codes: number[]): boolean => isStatusError(err) && codes.includes(err.code);
const namespaceTerminating = (err: unknown): boolean =>
  isStatusError(err) && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');

export function startReplicationController(o: ReplicationControllerOptions): ReplicationController {
  const now = o.now ?? (() => new Date());
  const burst = o.burstReplicas ?? 500;
  const rcs = o.informers.informer(o.replicationControllers);
  const pods = o.informers.informer(o.pods);
  const expectations = createExpectations({ ...(o.expectationsTimeoutMs === undefined ? {} : { timeoutMs: o.expectationsTimeoutMs }), now: () => now().getTime() });
  const record = (rc: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void => {
    void o.recorder?.event(referenceOf(rc), type, reason, message);
  };

  const queue = startWorkQueue((key) => sync(key), {
    workers: o.workers ?? 5,
    ...(o.onError === undefined ? {} : { onError: o.onError }),
    ...(o.retryBaseDelayMs === undefined ? {} : { baseDelayMs: o.retryBaseDelayMs }),
  });

  /** The controller a controller reference names, if it is one of ours and still the same object. */
  const resolve = (namespace: string, ref: OwnerReference | undefined): KubeObject | undefined => {
    if (ref === undefined || ref.kind !== RC_TYPE.kind || ref.apiVersion !== RC_TYPE.apiVersion) return undefined;
    const rc = rcs.get(namespace, ref.name);
    return rc?.metadata.uid === ref.uid ? rc : undefined;
  };
  /** Controllers of the pod's namespace whose selector matches it (for an orphan). */
  const matching = (pod: KubeObject): KubeObject[] =>
    rcs.list(pod.metadata.namespace ?? '').filter((rc) => {
      const selector = rcSpec(rc).selector;
      return selector !== undefined && Object.keys(selector).length > 0 && labelsMatch(selector, pod.metadata.labels);
    });
  const podKey = (pod: KubeObject): string => `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;

  const podDeleted = (pod: KubeObject): void => {
    const rc = resolve(pod.metadata.namespace ?? '', controllerRefOf(pod));
    if (rc === undefined) return;
    const key = keyOf(rc);
    expectations.deletionObserved(key, podKey(pod));
    queue.add(key);
  };
  const podAdded = (pod: KubeObject): void => {
    if (pod.metadata.deletionTimestamp !== undefined) return podDeleted(pod);
    const ref = controllerRefOf(pod);
    if (ref !== undefined) {
      const rc = resolve(pod.metadata.namespace ?? '', ref);
      if (rc === undefined) return;
      const key = keyOf(rc);
      expectations.creationObserved(key);
      queue.add(key);
      return;
    }
    for (const rc of matching(pod)) queue.add(keyOf(rc));
  };
  const podUpdated = (old: KubeObject, cur: KubeObject): void => {
    if (old.metadata.resourceVersion === cur.metadata.resourceVersion) return;
    const labelsChanged = JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(cur.metadata.labels ?? {});
    if (cur.metadata.deletionTimestamp !== undefined) {
      // Marked for deletion: for the controller that is as good as gone (kube counts the deletion now).
      podDeleted(cur);
      if (labelsChanged) podDeleted(old);
      return;
    }
    const namespace = cur.metadata.namespace ?? '';
    const curRef = controllerRefOf(cur);
    const oldRef = controllerRefOf(old);
    const refChanged = JSON.stringify(curRef ?? null) !== JSON.stringify(oldRef ?? null);
    if (refChanged && oldRef !== undefined) {
      const rc = resolve(namespace, oldRef);
      if (rc !== undefined) queue.add(keyOf(rc));
    }
    if (curRef !== undefined) {
      const rc = resolve(namespace, curRef);
      if (rc === undefined) return;
      queue.add(keyOf(rc));
      const minReady = rcSpec(rc).minReadySeconds ?? 0;
      // Becoming ready starts the minReadySeconds clock: look again when the pod turns available.
      if (!isPodReady(old) && isPodReady(cur) && minReady > 0) queue.addAfter(keyOf(rc), minReady * 1000 + 1000);
      return;
    }
    if (labelsChanged || refChanged) for (const rc of matching(cur)) queue.add(keyOf(rc));
  };

  const unsubscribe = [
    rcs.on({
      added: (rc) => queue.add(keyOf(rc)),
      updated: (_old, rc) => queue.add(keyOf(rc)),
      deleted: (rc) => {
        expectations.delete(keyOf(rc));
        queue.add(keyOf(rc));
      },
    }),
    pods.on({ added: podAdded, updated: podUpdated, deleted: podDeleted }),
  ];

  /** Pods of the controllers that share this controller's own controller (kube's getIndirectlyRelatedPods). */
  const relatedPods = (rc: KubeObject): KubeObject[] => {
    const owner = controllerRefOf(rc);
    if (owner === undefined) return [];
    const namespace = rc.metadata.namespace ?? '';
    const seen = new Set<string>();
    const related: KubeObject[] = [];
    for (const other of rcs.list(namespace)) {
      if (controllerRefOf(other)?.uid !== owner.uid) continue;
      const selector = rcSpec(other).selector;
      for (const pod of pods.list(namespace)) {
        if (!labelsMatch(selector, pod.metadata.labels) || seen.has(pod.metadata.uid ?? '')) continue;
        seen.add(pod.metadata.uid ?? '');
        related.push(pod);
      }
    }
    return related;
  };

  const createOne = async (rc: KubeObject): Promise<void> => {
    const template = rcSpec(rc).template ?? {};
    const pod = podFromTemplate(template, rc, controllerRefTo(rc, RC_TYPE.apiVersion, RC_TYPE.kind));
    if (Object.keys(pod.metadata.labels ?? {}).length === 0) throw new Error('unable to create pods, no labels');
    try {
      const created = await o.pods.create(rc.metadata.namespace ?? '', pod, { fieldManager: CONTROLLER_FIELD_MANAGER });
      record(rc, 'Normal', 'SuccessfulCreate', `Created pod: ${created.object.metadata.name ?? ''}`);
    } catch (err) {
      record(rc, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
      // A namespace being removed refuses every create; nothing more to do for it.
      if (namespaceTerminating(err)) return;
      throw err;
    }
  };

  const deleteOne = async (rc: KubeObject, pod: KubeObject): Promise<void> => {
    const name = pod.metadata.name ?? '';
    try {
      await o.pods.delete(pod.metadata.namespace ?? '', name, { preconditions: { uid: pod.metadata.uid ?? '' } });
      record(rc, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    } catch (err) {
      // Gone already (404), or replaced by another pod of the same name (the uid precondition's 409): done.
      if (isCode(err, 404, 409)) throw Object.assign(new Error('gone'), { gone: true });
      record(rc, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(err)}`);
      throw new Error(`unable to delete pods: ${errorMessage(err)}`);
    }
  };

  const manageReplicas = async (rc: KubeObject, active: readonly KubeObject[], key: string): Promise<Error | undefined> => {
    const diff = active.length - desiredReplicas(rc);
    if (diff < 0) {
      const n = Math.min(-diff, burst);
      expectations.expectCreations(key, n);
      const { successes, error } = await slowStartBatch(n, 1, () => createOne(rc));
      // Creates never made (or failed) will never be observed: stop expecting them.
      for (let i = successes; i < n; i++) expectations.creationObserved(key);
      return error === undefined ? undefined : error instanceof Error ? error : new Error(String(error));
    }
    if (diff > 0) {
      const n = Math.min(diff, burst);
      const victims = podsToDelete(active, relatedPods(rc), n, now().getTime(), o.naming);
      expectations.expectDeletions(key, victims.map(podKey));
      const results = await Promise.allSettled(victims.map((p) => deleteOne(rc, p)));
      let first: Error | undefined;
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') return;
        // A failed delete will not be observed either.
        expectations.deletionObserved(key, podKey(victims[i]!));
        const gone = (r.reason as { gone?: boolean }).gone === true;
        if (!gone) first ??= r.reason instanceof Error ? r.reason : new Error(String(r.reason));
      });
      return first;
    }
    return undefined;
  };

  /** Writes `status` through /status; after a conflict, once more on the controller read fresh (kube's one retry). */
  const writeStatus = async (rc: KubeObject, status: ReturnType<typeof calculateStatus>): Promise<KubeObject> => {
    let current = rc;
    for (let attempt = 0; ; attempt++) {
      const next = { ...current, status: { ...status, observedGeneration: current.metadata.generation ?? 0 } };
      try {
        const result = await o.replicationControllers.update(current.metadata.namespace ?? '', current.metadata.name ?? '', next, {
          subresource: 'status',
          fieldManager: CONTROLLER_FIELD_MANAGER,
        });
        return result.object;
      } catch (err) {
        if (attempt >= 1 || !isCode(err, 409)) throw err;
        current = await o.replicationControllers.get(current.metadata.namespace ?? '', current.metadata.name ?? '');
        if (current.metadata.uid !== rc.metadata.uid) throw err;
      }
    }
  };

  // kube's WaitForCacheSync: a sync before the pods are loaded would create them all again.
  let stopNow!: () => void;
  const stopping = new Promise<false>((resolve) => (stopNow = () => resolve(false)));
  const synced = Promise.all([rcs.synced, pods.synced]);

  const sync = async (key: string): Promise<void> => {
    if ((await Promise.race([synced.then(() => true), stopping])) !== true) return;
    const { namespace, name } = splitKey(key);
    const rc = rcs.get(namespace, name);
    if (rc === undefined) {
      expectations.delete(key);
      return;
    }
    const needsSync = expectations.satisfied(key);
    const selector = rcSpec(rc).selector ?? {};
    const active = pods.list(namespace).filter(isPodActive);
    const owned = await claimObjects({
      registry: o.pods,
      owner: rc,
      ownerType: RC_TYPE,
      matches: (pod) => labelsMatch(selector, pod.metadata.labels),
      candidates: active,
      canAdopt: async () => {
        const fresh = await o.replicationControllers.get(namespace, name).catch((err: unknown) => {
          if (isCode(err, 404)) return undefined;
          throw err;
        });
        return fresh !== undefined && fresh.metadata.uid === rc.metadata.uid && fresh.metadata.deletionTimestamp === undefined;
      },
    });

    let manageError: Error | undefined;
    if (needsSync && rc.metadata.deletionTimestamp === undefined) manageError = await manageReplicas(rc, owned, key);

    const status = calculateStatus(rc, owned, manageError, now());
    const updated = statusChanged(rc, status) ? await writeStatus(rc, status) : rc;

    const minReady = rcSpec(updated).minReadySeconds ?? 0;
    const s = rcStatus(updated);
    if (manageError === undefined && minReady > 0 && (s.readyReplicas ?? 0) === desiredReplicas(updated) && (s.availableReplicas ?? 0) !== desiredReplicas(updated)) {
      queue.addAfter(key, minReady * 1000);
    }
    if (manageError !== undefined) throw manageError;
  };

  return {
    async stop() {
      stopNow();
      for (const off of unsubscribe) off();
      await queue.stop();
    },
  };
}
