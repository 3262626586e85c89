/**
 * cel-go's sets extension (`cel.lib.ext.sets`), enabled by Kubernetes from 1.29: `sets.contains(a, b)`
 * (every element of b is in a), `sets.equivalent(a, b)` (each contains the other), `sets.intersects(a, b)`
 * (some element in both). Membership is CEL equality, numbers across types (`sets.contains([1], [1.0])`
 * through dyn is true); duplicates and order do not matter.
 *
 * Cost (cel-go's sets tracker): `1 + size(a) * size(b)`, twice the product for `equivalent`.
 */
import type { CelValue } from '../values/value.js';
import type { CelLibrary, Overload } from './library.js';
import { actualSize, celEquals, list } from './support.js';
import { withKubernetesEstimates } from '../cost/kubernetes-estimates.js';

const has = (items: readonly CelValue[], v: CelValue): boolean => items.some((x) => celEquals(x, v));

export const setsContains = (a: readonly CelValue[], b: readonly CelValue[]): boolean => b.every((v) => has(a, v));
export const setsEquivalent = (a: readonly CelValue[], b: readonly CelValue[]): boolean => setsContains(a, b) && setsContains(b, a);
export const setsIntersects = (a: readonly CelValue[], b: readonly CelValue[]): boolean => a.some((v) => has(b, v));

const cost = (factor: number) => (args: readonly CelValue[]): number => 1 + Math.floor(actualSize(args[0]!) * actualSize(args[1]!) * factor);

const overloads: Overload[] = [
  { signature: 'sets.contains(list<T>, list<T>): bool', impl: (a, b) => setsContains(list(a), list(b)), cost: cost(1) },
  { signature: 'sets.equivalent(list<T>, list<T>): bool', impl: (a, b) => setsEquivalent(list(a), list(b)), cost: cost(2) },
  { signature: 'sets.intersects(list<T>, list<T>): bool', impl: (a, b) => setsIntersects(list(a), list(b)), cost: cost(1) },
];

export const setsLibrary: CelLibrary = {
  name: 'cel.lib.ext.sets',
  since: 29,
  overloads: withKubernetesEstimates(overloads, ['sets']),
  namespaces: ['sets'],
};
