/**
 * The store check's rules for the workload controllers and the garbage collector (issue 19): writes no
 * client request made, explained by what the controller is allowed to do given the history itself.
 *
 * Each rule is checked against the object's owners as the history shows them at the event's revision
 * (every version of every key, from the start listing and the events), so a rule never explains a write the
 * controller should not have made:
 * - `controller: garbage collection`: a delete (or the foreground mark before one) of an object whose owners
 *   were all gone at that revision, or an owner of which was itself being deleted in the foreground;
 * - `controller: garbage collector orphaning`: a write that only drops ownerReferences, each to an owner
 *   that was gone, carried the `orphan` finalizer or waited in a foreground deletion; clearing only
 *   blockOwnerDeletion (`unblocking`); and removing the `orphan`/`foregroundDeletion` finalizers of an object
 *   being deleted (its delete, once the finalizers are gone);
 * - `controller: released by its <kind>`: the controller reference dropped by a live owner whose selector no
 *   longer matches the object's labels;
 * - `controller: owned by a <kind>`: a write of an object whose controller reference names a live object of
 *   a kind with a controller (pods of Jobs, ReplicationControllers and StatefulSets, ControllerRevisions,
 *   EndpointSlices of Services);
 * - `controller: claims of a StatefulSet`: a PersistentVolumeClaim `<template>-<set>-<ordinal>` of a set
 *   that had that claim template, created, or with only its ownerReferences changed (retention policy);
 * - `controller: job tracking finalizer removed`: a pod write that only drops `batch.<domain>/job-tracking`;
 * - `controller: ttl after finished`: the (foreground) delete of a finished Job with ttlSecondsAfterFinished.
 */

/** What a history event looks like to the rules. */
export interface RuleEvent {
  readonly type: 'put' | 'delete';
  readonly resource: string;
  readonly namespace?: string;
  readonly name: string;
  readonly revision: number;
  /** The decoded object written (put) or the one deleted (delete: the previous value). */
  readonly value: any;
  /** The previous version (put over an existing object). */
  readonly prev: any;
}

interface Version {
  readonly revision: number;
  readonly value: any;
}

/** Every version of every object by uid, to ask what an owner looked like at a revision. */
export class History {
  private readonly byUid = new Map<string, Version[]>();
  private readonly byResource = new Map<string, any[]>();

  /**
   * Records, in revision order, that the object with `uid` of `resource` was `value` from `revision` on (value
   * undefined: deleted then).
   */
  record(resource: string, uid: string, revision: number, value: any): void {
    let versions = this.byUid.get(uid);
    if (versions === undefined) this.byUid.set(uid, (versions = []));
    versions.push({ revision, value });
    if (value === undefined) return;
    let all = this.byResource.get(resource);
    if (all === undefined) this.byResource.set(resource, (all = []));
    all.push(value);
  }

  /** Every version ever seen of the objects of `resource`. */
  everyVersionOf(resource: string): readonly any[] {
    return this.byResource.get(resource) ?? [];
  }

  /** The object with `uid` as it was just before `revision` (undefined: absent then). */
  before(uid: string, revision: number): any {
    const versions = this.byUid.get(uid);
    if (versions === undefined) return undefined;
    let found: any;
    for (const v of versions) {
      if (v.revision >= revision) break;
      found = v.value;
    }
    return found;
  }
}

const OWNING_KINDS = new Set(['Job', 'ReplicationController', 'StatefulSet', 'Service']);
const GC_FINALIZERS = new Set(['orphan', 'foregroundDeletion']);

type Ref = { uid?: string; kind?: string; controller?: boolean };
const refsOf = (obj: any): Ref[] => (Array.isArray(obj?.metadata?.ownerReferences) ? obj.metadata.ownerReferences : []);
const finalizersOf = (obj: any): string[] => (Array.isArray(obj?.metadata?.finalizers) ? obj.metadata.finalizers : []);

/**
 * Whether `owner`'s selector matches `obj`'s labels: a ReplicationController's map; a LabelSelector's
 * matchLabels (expressions are taken to match: the rule then explains less, never more than a release).
 */
function selects(owner: any, obj: any): boolean {
  const labels: Record<string, string> = obj?.metadata?.labels ?? {};
  const sel = owner?.spec?.selector;
  if (sel === undefined || sel === null || typeof sel !== 'object') return false;
  const map: Record<string, string> = owner.kind === 'ReplicationController' ? sel : (sel.matchLabels ?? {});
  return Object.entries(map).every(([k, v]) => labels[k] === v);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The object without what the server changes on every write and what the rule allows to change. */
function rest(obj: any, drop: readonly string[]): string {
  const metadata = { ...(obj?.metadata ?? {}) };
  for (const k of ['resourceVersion', 'managedFields', 'generation', ...drop]) delete metadata[k];
  return JSON.stringify({ ...obj, metadata });
}

export function controllerRule(e: RuleEvent, history: History): string | undefined {
  const owners = refsOf(e.value);
  // The owner as the collector finds it: by uid, in the dependent's namespace (an owner of the same uid in
  // another namespace is absent to a namespaced dependent).
  const ownerAt = (ref: Ref): any => {
    const owner = ref.uid === undefined ? undefined : history.before(ref.uid, e.revision);
    if (owner === undefined) return undefined;
    const ns = owner.metadata?.namespace;
    return ns !== undefined && e.namespace !== undefined && ns !== e.namespace ? undefined : owner;
  };
  const waiting = (owner: any): boolean => owner?.metadata?.deletionTimestamp !== undefined && finalizersOf(owner).includes('foregroundDeletion');
  const goneOrForeground = (ref: Ref): boolean => {
    const owner = ownerAt(ref);
    return owner === undefined || waiting(owner);
  };

  // The garbage collector deleting (or marking for a foreground delete) a dependent whose owners are gone.
  if (owners.length > 0 && owners.every(goneOrForeground)) {
    if (e.type === 'delete') return 'controller: garbage collection';
    if (e.type === 'put' && e.value?.metadata?.deletionTimestamp !== undefined && e.prev?.metadata?.deletionTimestamp === undefined) {
      return 'controller: garbage collection (foreground)';
    }
  }

  if (e.type === 'put' && e.prev !== undefined) {
    // Orphaning: only ownerReferences dropped, each to an owner gone or orphaning its dependents.
    const before = refsOf(e.prev);
    const after = new Set(owners.map((r) => r.uid));
    const dropped = before.filter((r) => !after.has(r.uid));
    if (dropped.length > 0 && owners.every((r) => before.some((b) => b.uid === r.uid)) && rest(e.value, ['ownerReferences']) === rest(e.prev, ['ownerReferences'])) {
      if (dropped.every((r) => ownerAt(r) === undefined || waiting(ownerAt(r)) || finalizersOf(ownerAt(r)).includes('orphan'))) return 'controller: garbage collector orphaning';
      // A controller releasing an object its selector no longer matches.
      const released = dropped.length === 1 && dropped[0]!.controller === true && OWNING_KINDS.has(dropped[0]!.kind ?? '') ? ownerAt(dropped[0]!) : undefined;
      if (released !== undefined && !selects(released, e.value)) return `controller: released by its ${dropped[0]!.kind}`;
    }
    // The collector unblocking a dependent's references (a foreground deletion's cycle): only blockOwnerDeletion cleared.
    const unblocked = (refs: Ref[]): string => JSON.stringify(refs.map((r) => ({ ...r, blockOwnerDeletion: undefined })));
    if (unblocked(refsOf(e.prev)) === unblocked(owners) && JSON.stringify(refsOf(e.prev)) !== JSON.stringify(owners)
      && rest(e.value, ['ownerReferences']) === rest(e.prev, ['ownerReferences'])) {
      return 'controller: garbage collector unblocking';
    }
    // The Job controller removing its tracking finalizer from a pod (counted, or its job gone or replaced).
    const untracked = finalizersOf(e.prev).filter((f) => !finalizersOf(e.value).includes(f));
    if (e.resource === 'pods' && untracked.length > 0 && untracked.every((f) => /^batch\.[a-z0-9.]+\/job-tracking$/.test(f))
      && rest(e.value, ['finalizers']) === rest(e.prev, ['finalizers'])) {
      return 'controller: job tracking finalizer removed';
    }
    // Finalizers of the collector removed from an object being deleted.
    const removed = finalizersOf(e.prev).filter((f) => !finalizersOf(e.value).includes(f));
    if (removed.length > 0 && removed.every((f) => GC_FINALIZERS.has(f)) && e.prev.metadata?.deletionTimestamp !== undefined
      && rest(e.value, ['finalizers']) === rest(e.prev, ['finalizers'])) {
      return 'controller: garbage collector finalizer removed';
    }
  }
  if (e.type === 'delete' && e.value?.metadata?.deletionTimestamp !== undefined && finalizersOf(e.value).length === 0) {
    // The delete that follows the last finalizer's removal (by the collector or anyone acknowledged).
    const marked = e.value.metadata.uid === undefined ? undefined : history.before(e.value.metadata.uid, e.revision);
    if (marked !== undefined) return 'controller: deleted once its finalizers were removed';
  }

  // Objects a workload controller owns: the controller reference names a live object of such a kind.
  const controller = owners.find((r) => r.controller === true);
  if (controller !== undefined && OWNING_KINDS.has(controller.kind ?? '')) {
    const owner = ownerAt(controller);
    if (owner !== undefined && owner.kind === controller.kind) return `controller: owned by a ${controller.kind}`;
    // Cleaning up after an owner that is gone (pods of a deleted Job): the collector's rule above covers
    // deletes; a controller's last write before noticing (a status or finalizer change) is explained here.
    if (owner === undefined && e.type === 'put') return `controller: owned by a ${controller.kind} (gone)`;
  }

  // A StatefulSet's claims: created by it, and their ownerReferences set or dropped by its retention policy
  // (to the set, or to the pod of a scaled-down ordinal).
  if (e.resource === 'persistentvolumeclaims' && e.type === 'put'
    && (e.prev === undefined || rest(e.value, ['ownerReferences']) === rest(e.prev, ['ownerReferences']))) {
    const claimOf = (set: any): boolean => set.metadata?.namespace === e.namespace && (set.spec?.volumeClaimTemplates ?? []).some((t: any) =>
      new RegExp(`^${escape(t?.metadata?.name ?? '')}-${escape(set.metadata?.name ?? '')}-\\d+$`).test(e.name));
    if (history.everyVersionOf('statefulsets').some(claimOf)) return 'controller: claims of a StatefulSet';
  }

  if (e.resource === 'jobs' && typeof e.value?.spec?.ttlSecondsAfterFinished === 'number'
    && (e.type === 'delete' || (e.value.metadata?.deletionTimestamp !== undefined && e.prev?.metadata?.deletionTimestamp === undefined))) {
    const finished = (e.value.status?.conditions ?? []).some((c: any) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
    if (finished) return 'controller: ttl after finished';
  }
  return undefined;
}
