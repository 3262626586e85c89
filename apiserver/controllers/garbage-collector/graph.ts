/**
 * The garbage collector's dependency graph, after kube's (pkg/controller/garbagecollector/graph.go): one node
 * per uid, holding the object's identity (apiVersion, kind, namespace, name, uid), its ownerReferences as
 * last seen, and the nodes that name it as an owner (its dependents).
 *
 * A node is *virtual* until an informer has shown its object: owners are referenced before (or without) being
 * seen, and such a node only records what a dependent claims about it (the dependent's namespace, the
 * reference's apiVersion, kind and name). The collector checks a virtual node against the API with a live
 * read before anything is done on its account.
 */
import type { OwnerReference } from '../../api/object.js';

export interface Identity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  /** '' for a cluster-scoped object (or a virtual owner referenced from a cluster-scoped dependent). */
  readonly namespace: string;
}

const NO_DEPENDENTS: ReadonlySet<GraphNode> = new Set();

export class GraphNode {
  // Made with the first dependent: most nodes never have one, and an empty Set costs ~120 bytes per object.
  #dependents: Set<GraphNode> | undefined;
  /** Seen through a monitor (false: virtual). */
  observed = false;
  beingDeleted = false;
  /** Being deleted with the `foregroundDeletion` finalizer: waiting for its blocking dependents. */
  deletingDependents = false;
  /**
   * The `orphan` and `foregroundDeletion` finalizers as last observed: with `beingDeleted`, all the builder
   * reads of an object's previous state, so the monitors keep no copy of the objects.
   */
  orphanFinalizer = false;
  foregroundFinalizer = false;

  /**
   * `identity` changes in place when the object observed differs from what a dependent claimed (JavaScript
   * runs the builder and the workers on one thread: kube's copy-on-write is not needed).
   */
  constructor(
    public identity: Identity,
    public owners: readonly OwnerReference[],
  ) {}

  /** Dependents: nodes with an ownerReference to this node's uid. */
  get dependents(): ReadonlySet<GraphNode> {
    return this.#dependents ?? NO_DEPENDENTS;
  }

  addDependent(node: GraphNode): void {
    (this.#dependents ??= new Set()).add(node);
  }

  removeDependent(node: GraphNode): void {
    this.#dependents?.delete(node);
  }

  /** The dependents whose reference to this node has `blockOwnerDeletion: true`. */
  blockingDependents(): GraphNode[] {
    const out: GraphNode[] = [];
    for (const dep of this.dependents) {
      if (dep.owners.some((o) => o.uid === this.identity.uid && o.blockOwnerDeletion === true)) out.push(dep);
    }
    return out;
  }
}

/** kube's objectReference String(): the form its event messages and logs print. */
export function identityString(i: Identity): string {
  return `[${i.apiVersion}/${i.kind}, namespace: ${i.namespace}, name: ${i.name}, uid: ${i.uid}]`;
}

export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.uid === b.uid && a.name === b.name && a.namespace === b.namespace && a.apiVersion === b.apiVersion && a.kind === b.kind;
}

/** Whether an ownerReference names the identity's coordinates (uid, name, kind, apiVersion). */
export function referenceMatches(ref: OwnerReference, i: Identity): boolean {
  return ref.uid === i.uid && ref.name === i.name && ref.kind === i.kind && ref.apiVersion === i.apiVersion;
}

/** The identity an owner reference describes, from a dependent in `namespace`. */
export function identityOfReference(ref: OwnerReference, namespace: string): Identity {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid, namespace };
}

/** kube's referenceLessThan: kind, apiVersion, namespace, name, uid. */
export function identityLess(a: Identity, b: Identity): boolean {
  for (const k of ['kind', 'apiVersion', 'namespace', 'name', 'uid'] as const) {
    if (a[k] !== b[k]) return a[k] < b[k];
  }
  return false;
}

export function identityKey(i: Identity): string {
  return [i.apiVersion, i.kind, i.namespace, i.name, i.uid].join('\u0000');
}
