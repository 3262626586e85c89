/**
 * Keeps the dependency graph (graph.ts) from the monitors' events (resource-monitors.ts) and tells the
 * collector what to look at, after kube's GraphBuilder (graph_builder.go: processGraphChanges,
 * addDependentToOwners, processTransitions, the virtual delete events). The graph is the collector's only
 * copy of the objects: an upsert's previous state is what the node last observed.
 *
 * What it asks for (the `GraphSink`):
 * - `attemptToDelete(node)`: a virtual owner to check against the API; the dependents of an object that went
 *   away; dependents whose references look wrong (namespace or coordinates differ from the owner observed);
 *   an owner whose blocking reference was removed or unblocked; the dependents of an owner starting a
 *   foreground deletion, and the owner itself;
 * - `attemptToOrphan(node)`: an owner starting a deletion with the `orphan` finalizer;
 * - `invalidNamespace(dependent, ref)`: a reference to an owner observed in another namespace (kube's
 *   OwnerRefInvalidNamespace event), a cluster-scoped dependent of a namespaced owner included;
 * - `absent(identity)`: an owner whose absence was observed (delete event) or confirmed by a live read.
 *
 * The builder never deletes: every decision is the collector's, after live reads.
 */
import type { KubeObject, OwnerReference } from '../../api/object.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../../registry/generic/delete-propagation.js';
import { GraphNode, identityLess, identityOfReference, referenceMatches, sameIdentity, type Identity } from './graph.js';

export interface GraphSink {
  attemptToDelete(node: GraphNode, rateLimited?: boolean): void;
  attemptToOrphan(node: GraphNode): void;
  invalidNamespace(dependent: GraphNode, ref: OwnerReference): void;
  absent(identity: Identity): void;
}

const beingDeleted = (obj: KubeObject): boolean => obj.metadata.deletionTimestamp !== undefined;
const hasFinalizer = (obj: KubeObject, f: string): boolean => (obj.metadata.finalizers ?? []).includes(f);

/** What the builder reads of an object's previous state: kept on its node (GraphNode). */
interface DeletionState {
  readonly beingDeleted: boolean;
  readonly orphan: boolean;
  readonly foreground: boolean;
}

const deletionStateOf = (obj: KubeObject): DeletionState => ({
  beingDeleted: beingDeleted(obj),
  orphan: hasFinalizer(obj, FINALIZER_ORPHAN),
  foreground: hasFinalizer(obj, FINALIZER_FOREGROUND),
});

const deletionStateOfNode = (node: GraphNode): DeletionState => ({
  beingDeleted: node.beingDeleted,
  orphan: node.orphanFinalizer,
  foreground: node.foregroundFinalizer,
});

/** The deletion with finalizer `f` starts now (it did not show in the previous state, if any). */
function startsDeletionWith(old: DeletionState | undefined, now: DeletionState, f: 'orphan' | 'foreground'): boolean {
  if (!now.beingDeleted || !now[f]) return false;
  return old === undefined || !old.beingDeleted || !old[f];
}

function sameReference(a: OwnerReference, b: OwnerReference): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.uid === b.uid
    && a.controller === b.controller && a.blockOwnerDeletion === b.blockOwnerDeletion;
}

const NO_OWNERS: readonly OwnerReference[] = [];

export class GraphBuilder {
  readonly nodes = new Map<string, GraphNode>();

  constructor(private readonly sink: GraphSink) {}

  /**
   * An object added or updated, as a monitor shows it; `identity` carries the monitored apiVersion and kind.
   * Its previous state is the one its node last observed (none for a node new or virtual until now).
   */
  upsert(identity: Identity, obj: KubeObject): void {
    const owners = obj.metadata.ownerReferences ?? NO_OWNERS;
    const now = deletionStateOf(obj);
    let node = this.nodes.get(identity.uid);
    const old = node?.observed === true ? deletionStateOfNode(node) : undefined;
    if (node !== undefined && !node.observed) this.observeVirtual(node, identity);
    if (node === undefined) {
      node = new GraphNode(identity, owners);
      node.observed = true;
      node.deletingDependents = now.beingDeleted && now.foreground;
      this.record(node, now);
      this.nodes.set(identity.uid, node);
      this.addDependentToOwners(node, owners);
      this.processTransitions(old, now, node);
      return;
    }
    if (node.identity.apiVersion !== identity.apiVersion || node.identity.kind !== identity.kind) {
      node.identity = { ...node.identity, apiVersion: identity.apiVersion, kind: identity.kind };
    }
    const { added, removed, changed } = referenceDiffs(node.owners, owners);
    if (added.length + removed.length + changed.length > 0) {
      this.addUnblockedOwnersToDeleteQueue(removed, changed);
      node.owners = owners;
      this.addDependentToOwners(node, added);
      this.removeDependentFromOwners(node, removed);
    }
    this.record(node, now);
    this.processTransitions(old, now, node);
  }

  /**
   * A monitor's whole state of the resource `apiVersion`/`kind` (its first, or after a re-watch): nodes it
   * observed that are not in it are deleted, then each object is upserted (one unchanged changes nothing).
   * Finding them scans the whole graph: once per resource at the start and after each re-watch, which keeps
   * no per-resource index beside every node.
   */
  replace(apiVersion: string, kind: string, state: readonly { readonly identity: Identity; readonly obj: KubeObject }[]): void {
    const present = new Set(state.map((s) => s.identity.uid));
    const gone: Identity[] = [];
    for (const node of this.nodes.values()) {
      const i = node.identity;
      if (node.observed && i.kind === kind && i.apiVersion === apiVersion && !present.has(i.uid)) gone.push(i);
    }
    for (const identity of gone) this.deleted(identity);
    for (const { identity, obj } of state) this.upsert(identity, obj);
  }

  /** Keeps what the next upsert reads of this state. */
  private record(node: GraphNode, now: DeletionState): void {
    // A deletion, once observed, stays (deletionTimestamp is never unset).
    if (now.beingDeleted) node.beingDeleted = true;
    node.orphanFinalizer = now.orphan;
    node.foregroundFinalizer = now.foreground;
  }

  /** An object deleted, as a monitor shows it. */
  deleted(identity: Identity): void {
    const node = this.nodes.get(identity.uid);
    if (node === undefined) return;
    this.removeNode(node, identity);
  }

  /**
   * The collector's live read found no object (404, or another uid) at `identity`: drop the node unless
   * dependents know it by other coordinates, in which case only the ones that used these are looked at again.
   */
  virtualDeleted(identity: Identity): void {
    const node = this.nodes.get(identity.uid);
    if (node === undefined) return;
    let remove = true;
    const { matching, nonmatching } = partitionDependents([...node.dependents], identity);
    if (!node.observed) {
      if (nonmatching.length > 0) {
        remove = false;
        if (matching.length > 0) {
          this.sink.absent(identity);
          for (const dep of matching) this.sink.attemptToDelete(dep);
        }
        if (sameIdentity(node.identity, identity)) {
          const alternate = alternateIdentity(nonmatching, identity);
          if (alternate !== undefined) {
            node.identity = alternate;
            this.sink.attemptToDelete(node, true);
          }
        }
      }
    } else if (!sameIdentity(node.identity, identity)) {
      // The object observed is alive under other coordinates: only dependents that used these lose it.
      remove = false;
      if (matching.length > 0) {
        this.sink.absent(identity);
        for (const dep of matching) this.sink.attemptToDelete(dep);
      }
    }
    if (remove) this.removeNode(node, identity);
  }

  private removeNode(node: GraphNode, identity: Identity): void {
    this.nodes.delete(node.identity.uid);
    this.removeDependentFromOwners(node, node.owners);
    if (node.dependents.size > 0) this.sink.absent(identity);
    for (const dep of node.dependents) this.sink.attemptToDelete(dep);
    for (const ref of node.owners) {
      const owner = this.nodes.get(ref.uid);
      // An owner waiting for its dependents may be done now.
      if (owner?.deletingDependents === true) this.sink.attemptToDelete(owner);
    }
  }

  /** A virtual node's object is seen: dependents that described it otherwise are looked at again. */
  private observeVirtual(node: GraphNode, observed: Identity): void {
    if (!sameIdentity(node.identity, observed)) {
      const { nonmatching } = partitionDependents([...node.dependents], observed);
      for (const dep of nonmatching) {
        if (observed.namespace !== '' && dep.identity.namespace !== observed.namespace) {
          const ref = dep.owners.find((o) => o.uid === observed.uid);
          if (ref !== undefined) this.sink.invalidNamespace(dep, ref);
        }
        this.sink.attemptToDelete(dep);
      }
      node.identity = observed;
    }
    node.observed = true;
  }

  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    let suspicious = false;
    for (const ref of owners) {
      let owner = this.nodes.get(ref.uid);
      if (owner === undefined) {
        // Never seen: a virtual node, checked against the API by the collector.
        owner = new GraphNode(identityOfReference(ref, node.identity.namespace), []);
        this.nodes.set(ref.uid, owner);
        owner.addDependent(node);
        this.sink.attemptToDelete(owner);
        continue;
      }
      owner.addDependent(node);
      if (suspicious) continue;
      const ownerNamespaced = owner.identity.namespace !== '';
      if (ownerNamespaced && owner.identity.namespace !== node.identity.namespace) {
        // A namespaced owner is looked for in the dependent's namespace only.
        if (owner.observed) this.sink.invalidNamespace(node, ref);
        suspicious = true;
      } else if (!referenceMatches(ref, owner.identity)) {
        suspicious = true;
      } else if (!ownerNamespaced && owner.identity.namespace !== node.identity.namespace && !owner.observed) {
        suspicious = true;
      }
    }
    if (suspicious) this.sink.attemptToDelete(node);
  }

  private removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) this.nodes.get(ref.uid)?.removeDependent(node);
  }

  /** A blocking reference removed or unblocked may let a foreground deletion finish. */
  private addUnblockedOwnersToDeleteQueue(removed: readonly OwnerReference[], changed: readonly { old: OwnerReference; new: OwnerReference }[]): void {
    for (const ref of removed) {
      if (ref.blockOwnerDeletion !== true) continue;
      const owner = this.nodes.get(ref.uid);
      if (owner !== undefined) this.sink.attemptToDelete(owner);
    }
    for (const c of changed) {
      if (c.old.blockOwnerDeletion !== true || c.new.blockOwnerDeletion === true) continue;
      const owner = this.nodes.get(c.new.uid);
      if (owner !== undefined) this.sink.attemptToDelete(owner);
    }
  }

  private processTransitions(old: DeletionState | undefined, now: DeletionState, node: GraphNode): void {
    if (startsDeletionWith(old, now, 'orphan')) {
      this.sink.attemptToOrphan(node);
      return;
    }
    if (startsDeletionWith(old, now, 'foreground')) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.sink.attemptToDelete(dep);
      this.sink.attemptToDelete(node);
    }
  }
}

export function referenceDiffs(old: readonly OwnerReference[], next: readonly OwnerReference[]): {
  added: OwnerReference[];
  removed: OwnerReference[];
  changed: { old: OwnerReference; new: OwnerReference }[];
} {
  const byUid = new Map(old.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: { old: OwnerReference; new: OwnerReference }[] = [];
  for (const r of next) {
    const before = byUid.get(r.uid);
    if (before === undefined) {
      added.push(r);
      continue;
    }
    if (!sameReference(before, r)) changed.push({ old: before, new: r });
    byUid.delete(r.uid);
  }
  return { added, removed: [...byUid.values()], changed };
}

/**
 * Splits dependents into those whose reference to `owner.uid` matches its coordinates and those that do not
 * (a dependent with two references to the uid can be in both). A namespaced owner matches no dependent of
 * another namespace.
 */
export function partitionDependents(deps: readonly GraphNode[], owner: Identity): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  for (const dep of deps) {
    let match = false;
    let mismatch = false;
    if (owner.namespace !== '' && owner.namespace !== dep.identity.namespace) mismatch = true;
    else {
      for (const ref of dep.owners) {
        if (ref.uid !== owner.uid) continue;
        if (referenceMatches(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

/**
 * Another identity dependents give the uid of `absent` (kube's getAlternateOwnerIdentity): the first one
 * after `absent` in kube's order, else the first one; undefined when there is none.
 */
function alternateIdentity(deps: readonly GraphNode[], absent: Identity): Identity | undefined {
  let first: Identity | undefined;
  let firstAfter: Identity | undefined;
  const seen = new Set<string>();
  for (const dep of deps) {
    for (const ref of dep.owners) {
      if (ref.uid !== absent.uid) continue;
      if (referenceMatches(ref, absent) && (absent.namespace === '' || absent.namespace === dep.identity.namespace)) continue;
      let id = identityOfReference(ref, dep.identity.namespace);
      // The absent identity's apiVersion and kind are known to be cluster-scoped.
      if (absent.namespace === '' && id.apiVersion === absent.apiVersion && id.kind === absent.kind) id = { ...id, namespace: '' };
      const key = [id.apiVersion, id.kind, id.namespace, id.name].join('\u0000');
      if (sameIdentity(id, absent) || seen.has(key)) continue;
      seen.add(key);
      if (first === undefined || identityLess(id, first)) first = id;
      if (identityLess(absent, id) && (firstAfter === undefined || identityLess(id, firstAfter))) firstAfter = id;
    }
  }
  return firstAfter ?? first;
}
