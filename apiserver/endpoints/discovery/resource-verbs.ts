/**
 * The verbs discovery publishes for a resource and its sub-resources, in Kubernetes' (alphabetical) order.
 */
import { ALL_VERBS, type Verb } from '../../api/object.js';
import type { Naming } from '../../naming/naming.js';
import { groupOf, type KindStrategy } from '../../registry/kind-strategy.js';
import { scaleKind } from '../../registry/kinds/autoscaling/scale.js';

const sorted = new WeakMap<readonly Verb[], readonly Verb[]>();

/** The resource's verbs, sorted; all eight when the strategy lists none. */
export function resourceVerbs(k: KindStrategy): readonly Verb[] {
  const verbs = k.verbs ?? ALL_VERBS;
  let s = sorted.get(verbs);
  if (s === undefined) sorted.set(verbs, (s = Object.freeze([...new Set(verbs)].sort())));
  return s;
}

/** The `status` sub-resource: read, replace and patch, as kube-apiserver serves it. */
export const statusVerbs: readonly Verb[] = Object.freeze(['get', 'patch', 'update'] as Verb[]);

export interface SubresourceEntry {
  readonly name: string;
  readonly verbs: readonly Verb[];
  /** Set when the sub-resource takes and returns another kind than its parent (`serviceaccounts/token`: TokenRequest). */
  readonly kind?: { readonly group: string; readonly version: string; readonly kind: string };
}

/**
 * The sub-resources of a strategy with their verbs, sorted by name: `status`, `scale` (an autoscaling/v1
 * Scale, verbs as status) and the connect sub-resources.
 */
export function subresourcesOf(k: KindStrategy, naming: Naming): readonly SubresourceEntry[] {
  const out: SubresourceEntry[] = (k.subresources ?? []).map((name) => ({ name, verbs: statusVerbs }));
  if (k.scale !== undefined) {
    out.push({ name: 'scale', verbs: statusVerbs, kind: { group: groupOf(scaleKind, naming), version: scaleKind.version, kind: scaleKind.kind } });
  }
  for (const c of k.connectSubresources ?? []) {
    out.push({ name: c.name, verbs: c.verbs, kind: { group: groupOf(c.kind, naming), version: c.kind.version, kind: c.kind.kind } });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
