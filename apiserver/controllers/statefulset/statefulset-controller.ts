/**
 * The StatefulSet controller (kube-controller-manager's `statefulset-controller`, kube 1.32's
 * pkg/controller/statefulset/stateful_set.go): follows StatefulSets, Pods, ControllerRevisions and
 * PersistentVolumeClaims through the leader's informers and syncs each set by key on a work queue.
 *
 * Syncs start once the four informers are loaded. A sync (statefulset-control.ts does the work):
 * - a set gone from the informer is done (its pods and revisions go by the garbage collector);
 * - a selector that cannot be read is reported to `onError` and not retried;
 * - orphan revisions matching the selector are adopted, then pods are claimed (adopted when orphans whose
 *   name is `<set>-<ordinal>` and whose labels match, released when owned but no longer matching) — adoption
 *   only after a fresh read shows the same set, not being deleted;
 * - after the pass, a set with `minReadySeconds` whose pods are not all available is synced again after
 *   `minReadySeconds` (kube's requeue for the availability clock).
 *
 * Triggers: set added/updated/deleted; a pod's add/update/delete reaches its controller set (or, for an
 * orphan, every set of its namespace whose selector matches it); a pod turning Ready under a set with
 * `minReadySeconds` requeues after that time plus 1 s; a claim deleted resyncs its namespace's sets (a pod
 * waiting for a stale claim to go). A failed sync is retried with the queue's back-off; a conflict (409) is
 * retried after 10 ms without a report.
 */
import type { KubeObject } from '../../api/object.js';
import { isObject } from '../../api/json.js';
import { isStatusError } from '../../errors/status-error.js';
import type { EventRecorder } from '../../events/event-recorder.js';
import type { Naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../selectors/label-selector-object.js';
import type { LabelSelector } from '../../selectors/selector.js';
import { claimObjects, controllerRefOf, controllerUidIndex } from '../controller-ref.js';
import type { InformerFactory } from '../informer.js';
import { keyOf, splitKey, startWorkQueue } from '../work-queue.js';
import { StatefulPodControl } from './stateful-pod-control.js';
import { isMemberOf, minReadySecondsOf, parentAndOrdinal, replicasOf, specOf, STATEFUL_SET_API_VERSION, STATEFUL_SET_KIND, statefulSetLabels } from './stateful-pods.js';
import { updateStatefulSet } from './statefulset-control.js';

/** Pod informer indexes: `<namespace>/<parent>` of a `<parent>-<ordinal>` name; the controller reference's uid. */
const MEMBER_INDEX = 'statefulset-controller/member';
const CONTROLLER_UID_INDEX = 'statefulset-controller/controller-uid';

/** The wait before a set whose sync met a conflict is synced again. */
const CONFLICT_RETRY_MS = 10;

export interface StatefulSetControllerOptions {
  readonly statefulSets: GenericRegistry;
  readonly pods: GenericRegistry;
  readonly controllerRevisions: GenericRegistry;
  readonly persistentVolumeClaims: GenericRegistry;
  /** The leader's informer factory (shared with the other controllers). */
  readonly informers: InformerFactory;
  readonly naming: Naming;
  /** Events about sets (component `statefulset-controller`). Default: none recorded. */
  readonly recorder?: EventRecorder;
  readonly onError?: (err: unknown, key?: string) => void;
  /** Sets synced at once (kube's --concurrent-statefulset-syncs). Default 5. */
  readonly workers?: number;
  /** The queue's first retry delay. Default 5 ms (client-go's). */
  readonly baseRetryDelayMs?: number;
  /** The queue's longest retry delay. Default 1,000 s (client-go's). */
  readonly maxRetryDelayMs?: number;
  readonly now?: () => number;
}

export interface StatefulSetController {
  stop(): Promise<void>;
}

const selectorOf = (set: KubeObject): LabelSelector => labelSelectorFromObject((specOf(set).selector ?? null) as LabelSelectorObject | null);

function isPodReady(pod: KubeObject): boolean {
  const conditions = isObject(pod.status) ? pod.status.conditions : undefined;
  return Array.isArray(conditions) && conditions.some((c) => isObject(c) && c.type === 'Ready' && c.status === 'True');
}

export function startStatefulSetController(o: StatefulSetControllerOptions): StatefulSetController {
  const abort = new AbortController();
  const now = o.now ?? Date.now;
  const labels = statefulSetLabels(o.naming);
  const sets = o.informers.informer(o.statefulSets);
  const pods = o.informers.informer(o.pods);
  const revisions = o.informers.informer(o.controllerRevisions);
  const claims = o.informers.informer(o.persistentVolumeClaims);
  // The pods a set may claim: those named as its members, and those it controls (released if they stop matching).
  pods.addIndex(MEMBER_INDEX, (pod) => {
    const { parent, ordinal } = parentAndOrdinal(pod.metadata.name ?? '');
    return ordinal < 0 ? [] : [`${pod.metadata.namespace ?? ''}/${parent}`];
  });
  pods.addIndex(CONTROLLER_UID_INDEX, controllerUidIndex);
  const podControl = new StatefulPodControl({
    pods: o.pods,
    claims: o.persistentVolumeClaims,
    claim: (ns, name) => claims.get(ns, name),
    labels,
    signal: abort.signal,
    ...(o.recorder === undefined ? {} : { recorder: o.recorder }),
  });

  // As kube's controller waits for its caches before starting workers: a sync before the pods' informer is
  // loaded would try to create pods that exist.
  const synced = Promise.all([sets.synced, pods.synced, revisions.synced, claims.synced]);

  const sync = async (key: string): Promise<void> => {
    await synced;
    if (abort.signal.aborted) return;
    const { namespace, name } = splitKey(key);
    const cached = sets.get(namespace, name);
    if (cached === undefined) return;
    const set = structuredClone(cached);
    let selector: LabelSelector;
    try {
      selector = selectorOf(set);
    } catch (err) {
      o.onError?.(new Error(`error converting StatefulSet ${key} selector: ${err instanceof Error ? err.message : String(err)}`), key);
      return;
    }
    // canAdoptFunc: the set read fresh from the store is still this one and not being deleted.
    const canAdopt = async (): Promise<boolean> => {
      const fresh = await o.statefulSets.get(namespace, name);
      return fresh.metadata.uid === set.metadata.uid && fresh.metadata.deletionTimestamp === undefined;
    };
    const ownerType = { apiVersion: STATEFUL_SET_API_VERSION, kind: STATEFUL_SET_KIND };
    // ListRevisions + AdoptOrphanRevisions: revisions the selector matches, orphans adopted (none is released).
    const ownedRevisions = await claimObjects({
      registry: o.controllerRevisions,
      owner: set,
      ownerType,
      matches: () => true,
      candidates: revisions.list(namespace).filter((r) => {
        const ref = controllerRefOf(r);
        return selector.matches(r.metadata.labels) && (ref === undefined || ref.uid === set.metadata.uid);
      }),
      canAdopt,
      signal: abort.signal,
    });
    const owned = await claimObjects({
      registry: o.pods,
      owner: set,
      ownerType,
      matches: (pod) => selector.matches(pod.metadata.labels) && isMemberOf(set, pod),
      candidates: [...new Set([...pods.byIndex(MEMBER_INDEX, `${namespace}/${name}`), ...pods.byIndex(CONTROLLER_UID_INDEX, set.metadata.uid ?? '')])],
      canAdopt,
      signal: abort.signal,
    });
    const status = await updateStatefulSet(
      { statefulSets: o.statefulSets, revisions: o.controllerRevisions, podControl, labels, now, signal: abort.signal },
      set,
      owned,
      [...ownedRevisions],
    );
    const minReady = minReadySecondsOf(set);
    if (minReady > 0 && status.availableReplicas !== replicasOf(set)) queue.addAfter(key, minReady * 1000);
  };

  /**
   * A conflict (the set, a pod or a claim changed since the informer saw it, or an object the informer has not
   * caught up with already exists) is not a failure: the key is synced again shortly, from newer informer
   * state, without a report. Other errors go to `onError` and the queue's back-off.
   */
  const syncOrRequeue = async (key: string): Promise<void> => {
    try {
      await sync(key);
    } catch (err) {
      if (!(isStatusError(err) && err.code === 409)) throw err;
      queue.addAfter(key, CONFLICT_RETRY_MS);
    }
  };

  const queue = startWorkQueue(syncOrRequeue, {
    workers: o.workers ?? 5,
    ...(o.baseRetryDelayMs === undefined ? {} : { baseDelayMs: o.baseRetryDelayMs }),
    ...(o.maxRetryDelayMs === undefined ? {} : { maxDelayMs: o.maxRetryDelayMs }),
    onError: (err, key) => o.onError?.(err, key),
  });

  /** The set a controller reference names, if it is still that set. */
  const resolve = (namespace: string, pod: KubeObject): KubeObject | undefined => {
    const ref = controllerRefOf(pod);
    if (ref === undefined || ref.kind !== STATEFUL_SET_KIND) return undefined;
    const set = sets.get(namespace, ref.name);
    return set !== undefined && set.metadata.uid === ref.uid ? set : undefined;
  };
  const matchingSets = (pod: KubeObject): KubeObject[] =>
    sets.list(pod.metadata.namespace ?? '').filter((set) => {
      try {
        const selector = selectorOf(set);
        return !selector.empty && selector.matches(pod.metadata.labels);
      } catch {
        return false;
      }
    });
  const enqueue = (set: KubeObject | undefined): void => {
    if (set !== undefined) queue.add(keyOf(set));
  };

  const unsubscribe = [
    sets.on({ added: enqueue, updated: (_old, set) => enqueue(set), deleted: enqueue }),
    pods.on({
      added: (pod) => {
        const ns = pod.metadata.namespace ?? '';
        if (controllerRefOf(pod) !== undefined) return enqueue(resolve(ns, pod));
        for (const set of matchingSets(pod)) enqueue(set);
      },
      updated: (old, pod) => {
        if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
        const ns = pod.metadata.namespace ?? '';
        const oldRef = controllerRefOf(old);
        const ref = controllerRefOf(pod);
        const refChanged = oldRef?.uid !== ref?.uid;
        if (refChanged && oldRef !== undefined) enqueue(resolve(ns, old));
        if (ref !== undefined) {
          const set = resolve(ns, pod);
          enqueue(set);
          if (set !== undefined && !isPodReady(old) && isPodReady(pod) && minReadySecondsOf(set) > 0) {
            queue.addAfter(keyOf(set), minReadySecondsOf(set) * 1000 + 1000);
          }
          return;
        }
        const labelsChanged = JSON.stringify(old.metadata.labels ?? {}) !== JSON.stringify(pod.metadata.labels ?? {});
        if (labelsChanged || refChanged) for (const set of matchingSets(pod)) enqueue(set);
      },
      deleted: (pod) => enqueue(resolve(pod.metadata.namespace ?? '', pod)),
    }),
    claims.on({ deleted: (claim) => { for (const set of sets.list(claim.metadata.namespace ?? '')) enqueue(set); } }),
  ];

  return {
    async stop() {
      for (const off of unsubscribe) off();
      abort.abort();
      await queue.stop();
    },
  };
}
