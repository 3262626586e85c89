/**
 * The garbage collector (kube-controller-manager's `garbage-collector-controller`, 1.32): deletes objects
 * whose owners are gone, finishes Foreground and Orphan deletions.
 *
 * The graph (graph-builder.ts) is built from watches of every served resource (resource-monitors.ts).
 * Two keyed queues (by uid) do the work:
 * - attemptToDelete (kube's attemptToDeleteItem): the object is read LIVE (a get from the store, never the
 *   cache); gone or another uid → its node leaves the graph (a "virtual delete"). Being deleted with
 *   `foregroundDeletion` → its blocking dependents are deleted, and once none is left the finalizer is
 *   removed. Otherwise each ownerReference is classified by a live read of the owner (or the absent-owner
 *   cache, filled only by confirmed absences): solid, dangling (404 or another uid), or waiting (being
 *   deleted with `foregroundDeletion`). Some solid → dangling and waiting references are patched out; none
 *   solid, some waiting and dependents of its own → deleted Foreground; none solid → deleted with the policy
 *   its own GC finalizer says (Orphan, Foreground), else Background. Deletes carry uid and resourceVersion
 *   preconditions: a 409 with ownerReferences unchanged retries with the uid only, any other change leaves
 *   the object for the next look. So nothing is deleted on the graph's word alone, and a collector that
 *   starts mid-way (restart, leader change) only ever repeats steps that are still true.
 * - attemptToOrphan: once every monitor has loaded its first state (or `syncTimeoutMs` passed), the owner's
 *   reference is patched out of each dependent in the graph, then the `orphan` finalizer is removed. The
 *   foreground step waits likewise before deciding that no blocking dependent is left.
 * A virtual node whose object exists (the owner is real but not observed yet) is looked at again with
 * back-off until it is observed. A cluster-scoped dependent naming a namespaced owner kind is never
 * collected (kube's marker error: dropped, no retry); the graph builder reports it as an
 * OwnerRefInvalidNamespace Warning event once the owner is observed. An apiVersion/kind the server does not
 * serve is logged and retried with back-off (owner-resolver.ts); nothing is deleted meanwhile.
 *
 * What it writes: deletes of dependents whose owners are all absent (uid + resourceVersion preconditions);
 * patches removing ownerReferences (dangling or waiting ones of an object with a live owner; an orphaned
 * owner's from its dependents) or unblocking them (a foreground cycle); patches removing the `orphan` and
 * `foregroundDeletion` finalizers; Warning events OwnerRefInvalidNamespace.
 */
import type { KubeObject, OwnerReference } from '../../api/object.js';
import { isStatusError } from '../../errors/status-error.js';
import type { EventRecorder } from '../../events/event-recorder.js';
import { Lru } from '../../events/lru.js';
import type { Naming } from '../../naming/naming.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../../registry/generic/delete-propagation.js';
import type { ServedResources } from '../../registry/served-resources.js';
import { CONTROLLER_FIELD_MANAGER } from '../field-manager.js';
import { startWorkQueue, type WorkQueue } from '../work-queue.js';
import { identityKey, identityOfReference, identityString, type GraphNode, type Identity } from './graph.js';
import { GraphBuilder } from './graph-builder.js';
import { ownerResolver } from './owner-resolver.js';
import { startResourceMonitors, type ResourceMonitors } from './resource-monitors.js';

export interface GarbageCollectorOptions {
  readonly resources: ServedResources;
  /** Wait before watching a resource again after its watch ended or failed. Default 1 s. */
  readonly rewatchDelayMs?: number;
  readonly naming: Naming;
  /** Records OwnerRefInvalidNamespace (component `garbage-collector-controller`). */
  readonly recorder?: EventRecorder;
  /** A failed sync of `key` (a uid; retried with back-off), or a failed watch of the resource `key` (watched again). */
  readonly onError?: (err: unknown, key: string) => void;
  /** Workers per queue. Default 20 (kube's --concurrent-gc-syncs). */
  readonly workers?: number;
  /** How often the served resources are compared with the monitored ones. Default 1 s (kube: discovery every 30 s). */
  readonly resyncPeriodMs?: number;
  /**
   * How long foreground and orphan steps wait for every monitor's first state before going ahead anyway (a
   * resource whose list keeps failing must not stall every deletion). Default 30 s.
   */
  readonly syncTimeoutMs?: number;
  /** The queues' retry back-off. Defaults: client-go's 5 ms to 1,000 s. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
}

export interface GarbageCollector {
  stop(): Promise<void>;
  /** The graph (tests). */
  readonly graph: GraphBuilder;
  /** Resolves once every monitored resource has loaded its first state. */
  synced(): Promise<void>;
}

/** A virtual node looked at again later: not an error (kept out of onError). */
class Requeue extends Error {}
/** kube's namespacedOwnerOfClusterScopedObjectErr: will not resolve on retry. */
class NamespacedOwnerOfClusterScoped extends Error {}
/** The object read is not the one the node stands for (deleted and created again). */
class Replaced extends Error {}

const ABSENT_OWNER_CACHE_SIZE = 500;

export function startGarbageCollector(o: GarbageCollectorOptions): GarbageCollector {
  const resolver = ownerResolver(o.resources);
  const absentOwners = new Lru<true>(ABSENT_OWNER_CACHE_SIZE);
  let deleteQueue!: WorkQueue;
  let orphanQueue!: WorkQueue;
  let monitors: ResourceMonitors | undefined;
  /** Every monitor has loaded its first state (events, and so any step, come after `monitors` is set). */
  const allSynced = (): Promise<void> => monitors!.synced();
  let stopping = false;
  let markStopping!: () => void;
  const stopped = new Promise<void>((resolve) => (markStopping = resolve));
  /** allSynced, bounded by `syncTimeoutMs` and by stop() (then throws: the step is left to the next leader). */
  const syncedOrTimedOut = async (): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, o.syncTimeoutMs ?? 30_000);
      timer.unref();
    });
    try {
      await Promise.race([allSynced(), timeout, stopped]);
    } finally {
      clearTimeout(timer);
    }
    if (stopping) throw new Requeue();
  };
  const graph = new GraphBuilder({
    attemptToDelete: (node, rateLimited) => (rateLimited === true ? deleteQueue.addRateLimited(node.identity.uid) : deleteQueue.add(node.identity.uid)),
    attemptToOrphan: (node) => orphanQueue.add(node.identity.uid),
    absent: (identity) => absentOwners.set(identityKey(identity), true),
    invalidNamespace: (dep, ref) => {
      const ns = dep.identity.namespace;
      const message = `ownerRef ${identityString(identityOfReference(ref, ns))} does not exist in namespace ${JSON.stringify(ns)}`;
      const { apiVersion, kind, name, uid } = dep.identity;
      void o.recorder?.event({ kind, apiVersion, ...(ns === '' ? {} : { namespace: ns }), name, uid }, 'Warning', 'OwnerRefInvalidNamespace', message);
    },
  });

  const registryOf = (identity: { apiVersion: string; kind: string }) => resolver.resolve(identity.apiVersion, identity.kind);
  const nsOf = (namespaced: boolean, namespace: string): string => (namespaced ? namespace : '');
  const is404 = (err: unknown): boolean => isStatusError(err) && err.code === 404;
  const is409 = (err: unknown): boolean => isStatusError(err) && err.code === 409;

  /**
   * The live object at `identity` (store read), or undefined when absent. A namespaced object asked for
   * without a namespace (a virtual owner named by a cluster-scoped dependent), or a name no object can have
   * (the registry's 400), is absent: kube's GET of such a path is a 404.
   */
  const getLive = async (identity: Identity): Promise<KubeObject | undefined> => {
    const r = registryOf(identity);
    if (r.strategy.namespaced && identity.namespace === '') return undefined;
    try {
      return await r.registry.get(nsOf(r.strategy.namespaced, identity.namespace), identity.name);
    } catch (err) {
      if (is404(err) || (isStatusError(err) && err.code === 400)) return undefined;
      throw err;
    }
  };

  /** Changes the live object of `identity` with `change`, on the object of that uid only (else Replaced). */
  const patch = async (identity: Identity, change: (obj: KubeObject) => void): Promise<void> => {
    const r = registryOf(identity);
    await r.registry.patch(nsOf(r.strategy.namespaced, identity.namespace), identity.name, (current) => {
      if (current.metadata.uid !== identity.uid) throw new Replaced();
      change(current);
      return current;
    }, { fieldManager: CONTROLLER_FIELD_MANAGER });
  };

  const removeOwnerReferences = (identity: Identity, uids: ReadonlySet<string>) => patch(identity, (obj) => {
    const kept = (obj.metadata.ownerReferences ?? []).filter((r) => !uids.has(r.uid));
    if (kept.length > 0) obj.metadata.ownerReferences = kept;
    else delete obj.metadata.ownerReferences;
  });

  const removeFinalizer = async (node: GraphNode, finalizer: string): Promise<void> => {
    const live = await getLive(node.identity);
    if (live === undefined || live.metadata.uid !== node.identity.uid || !(live.metadata.finalizers ?? []).includes(finalizer)) return;
    try {
      await patch(node.identity, (obj) => {
        const kept = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
        if (kept.length > 0) obj.metadata.finalizers = kept;
        else delete obj.metadata.finalizers;
      });
    } catch (err) {
      if (is404(err) || err instanceof Replaced) return;
      throw err;
    }
  };

  /**
   * Deletes `identity` as seen at `resourceVersion` with `owners`; a conflict whose live object still has the
   * same ownerReferences retries with the uid precondition only. False when the object is gone.
   */
  const deleteObject = async (identity: Identity, resourceVersion: string | undefined, owners: readonly OwnerReference[], policy: string): Promise<boolean> => {
    const r = registryOf(identity);
    const ns = nsOf(r.strategy.namespaced, identity.namespace);
    try {
      await r.registry.delete(ns, identity.name, {
        preconditions: { uid: identity.uid, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
        propagationPolicy: policy,
      });
      return true;
    } catch (err) {
      if (is404(err)) return false;
      if (is409(err) && resourceVersion !== undefined) {
        const live = await getLive(identity);
        if (live === undefined) return true;
        if (live.metadata.uid === identity.uid && live.metadata.resourceVersion !== resourceVersion
          && JSON.stringify(live.metadata.ownerReferences ?? []) === JSON.stringify(owners)) {
          return deleteObject(identity, undefined, [], policy);
        }
      }
      throw err;
    }
  };

  /** Whether `ref` of `item` names an absent owner; the live owner when it exists. */
  const isDangling = async (ref: OwnerReference, item: GraphNode): Promise<{ dangling: boolean; owner?: KubeObject }> => {
    const clusterKey = identityKey(identityOfReference(ref, ''));
    const namespacedKey = identityKey(identityOfReference(ref, item.identity.namespace));
    if (absentOwners.get(clusterKey) !== undefined || absentOwners.get(namespacedKey) !== undefined) return { dangling: true };
    const r = registryOf(ref);
    const namespaced = r.strategy.namespaced;
    if (item.identity.namespace === '' && namespaced) throw new NamespacedOwnerOfClusterScoped();
    const ownerIdentity = identityOfReference(ref, nsOf(namespaced, item.identity.namespace));
    const owner = await getLive(ownerIdentity);
    if (owner === undefined || owner.metadata.uid !== ref.uid) {
      absentOwners.set(namespaced ? namespacedKey : clusterKey, true);
      return { dangling: true };
    }
    return { dangling: false, owner };
  };

  const processDeletingDependents = async (node: GraphNode): Promise<void> => {
    // Dependents of resources not loaded yet would not block: the owner would go before them.
    await syncedOrTimedOut();
    const blocking = node.blockingDependents();
    if (blocking.length === 0) return removeFinalizer(node, FINALIZER_FOREGROUND);
    for (const dep of blocking) if (!dep.deletingDependents) deleteQueue.add(dep.identity.uid);
  };

  const attemptToDeleteItem = async (node: GraphNode): Promise<void> => {
    // Being deleted is a one-way trip: its dependents are handled once it is gone.
    if (node.beingDeleted && !node.deletingDependents) return;
    const identity = node.identity;
    const latest = await getLive(identity);
    if (latest === undefined || latest.metadata.uid !== identity.uid) {
      graph.virtualDeleted(identity);
      return;
    }
    if (node.deletingDependents) return processDeletingDependents(node);
    const refs = latest.metadata.ownerReferences ?? [];
    if (refs.length === 0) return;

    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const c = await isDangling(ref, node);
      if (c.dangling) dangling.push(ref);
      else if (c.owner!.metadata.deletionTimestamp !== undefined && (c.owner!.metadata.finalizers ?? []).includes(FINALIZER_FOREGROUND)) waiting.push(ref);
      else solid.push(ref);
    }

    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // Waiting references go too, else their owners would wait for this object forever.
      try {
        await removeOwnerReferences(identity, new Set([...dangling, ...waiting].map((r) => r.uid)));
      } catch (err) {
        if (!(err instanceof Replaced)) throw err;
      }
      return;
    }
    let policy: string;
    if (waiting.length > 0 && node.dependents.size > 0) {
      // Its owner waits for it and it has dependents of its own: deleted in the foreground too. A dependent
      // already deleting its dependents could be a cycle: this object's references stop blocking first.
      if ([...node.dependents].some((d) => d.deletingDependents)) {
        await patch(identity, (obj) => {
          obj.metadata.ownerReferences = (obj.metadata.ownerReferences ?? []).map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r));
        });
      }
      policy = 'Foreground';
    } else {
      const finalizers = latest.metadata.finalizers ?? [];
      policy = finalizers.includes(FINALIZER_ORPHAN) ? 'Orphan' : finalizers.includes(FINALIZER_FOREGROUND) ? 'Foreground' : 'Background';
    }
    if (!(await deleteObject(identity, latest.metadata.resourceVersion, refs, policy))) graph.virtualDeleted(identity);
  };

  const syncDelete = async (uid: string): Promise<void> => {
    const node = graph.nodes.get(uid);
    if (node === undefined) return;
    try {
      await attemptToDeleteItem(node);
    } catch (err) {
      if (err instanceof NamespacedOwnerOfClusterScoped) return;
      throw err;
    }
    // A virtual node whose object exists is looked at again until a monitor shows it.
    if (!node.observed && graph.nodes.get(uid) === node) throw new Requeue();
  };

  const syncOrphan = async (uid: string): Promise<void> => {
    // Dependents of resources not loaded yet would keep their reference and be collected as dangling later.
    await syncedOrTimedOut();
    const owner = graph.nodes.get(uid);
    if (owner === undefined) return;
    const failures: unknown[] = [];
    await Promise.all([...owner.dependents].map(async (dep) => {
      try {
        await removeOwnerReferences(dep.identity, new Set([uid]));
      } catch (err) {
        if (!is404(err) && !(err instanceof Replaced)) failures.push(err);
      }
    }));
    if (failures.length > 0) throw new AggregateError(failures, `failed to orphan dependents of owner ${identityString(owner.identity)}`);
    await removeFinalizer(owner, FINALIZER_ORPHAN);
  };

  const queueOptions = {
    workers: o.workers ?? 20,
    onError: (err: unknown, key: string) => {
      if (!(err instanceof Requeue)) o.onError?.(err, key);
    },
    ...(o.baseDelayMs === undefined ? {} : { baseDelayMs: o.baseDelayMs }),
    ...(o.maxDelayMs === undefined ? {} : { maxDelayMs: o.maxDelayMs }),
  };
  deleteQueue = startWorkQueue(syncDelete, queueOptions);
  orphanQueue = startWorkQueue(syncOrphan, queueOptions);

  monitors = startResourceMonitors({
    resources: o.resources,
    eventsGroup: o.naming.group('events'),
    periodMs: o.resyncPeriodMs ?? 1000,
    rewatchDelayMs: o.rewatchDelayMs,
    onError: o.onError,
    events: {
      replace: (apiVersion, kind, state) => graph.replace(apiVersion, kind, state),
      upsert: (identity, obj) => graph.upsert(identity, obj),
      deleted: (identity) => graph.deleted(identity),
    },
  });

  return {
    graph,
    synced: allSynced,
    async stop() {
      stopping = true;
      markStopping();
      await Promise.all([monitors!.stop(), deleteQueue.stop(), orphanQueue.stop()]);
    },
  };
}
