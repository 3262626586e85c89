/**
 * The verbs discovery publishes for a resource and its sub-resources, in Kubernetes' (alphabetical) order.
 */
import { ALL_VERBS, type Verb } from '../../api/object.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';

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

/** The sub-resources of a strategy with their verbs, sorted by name. */
export function subresourcesOf(k: KindStrategy): readonly { readonly name: string; readonly verbs: readonly Verb[] }[] {
  return (k.subresources ?? []).map((name) => ({ name, verbs: statusVerbs }));
}
