/**
 * Sizes from a schema's DeclType tree for the static estimator (Kubernetes' CRD `sizeEstimator`): a field
 * path `[variable, field | '@items' | '@values' | '@keys', ...]` resolves to `{min: 0, max: MaxElements}`
 * of the node it reaches. The first element (the variable, `self` or `oldSelf`) is skipped, as Kubernetes
 * does: both variables have the rule's schema node as their type. Map keys (`@keys`) are Kubernetes'
 * plain string type, whose MaxElements is 0 — so a key's size estimates as 0 (a Kubernetes quirk kept
 * on purpose: estimates must equal Kubernetes'). A path that leaves the tree gives undefined.
 */
import type { DeclType } from '../types/decl-type.js';
import type { SizeEstimate } from './units.js';

/** A size lookup by field path; undefined when the path has no schema node. */
export type SizeEstimator = (path: readonly string[]) => SizeEstimate | undefined;

const KEY_SIZE: SizeEstimate = Object.freeze({ min: 0n, max: 0n });

export function declTypeSizeEstimator(root: DeclType): SizeEstimator {
  return (path) => {
    if (path.length === 0) return undefined;
    let node: DeclType = root;
    for (let i = 1; i < path.length; i++) {
      const step = path[i]!;
      if (step === '@items' || step === '@values') {
        if (node.kind !== 'list' && node.kind !== 'map') return undefined;
        node = node.elem;
      } else if (step === '@keys') {
        if (node.kind !== 'map' || i !== path.length - 1) return undefined;
        return KEY_SIZE;
      } else {
        if (node.kind !== 'object') return undefined;
        const f = node.fields.get(step);
        if (f === undefined) return undefined;
        node = f.type;
      }
    }
    return { min: 0n, max: BigInt(node.maxElements) };
  };
}
