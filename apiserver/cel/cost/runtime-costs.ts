/**
 * cel-go's runtime cost of the built-in operators (interpreter/runtimecost.go `costCall`), from the
 * actual operands. `actualSize` is cel-go's: code points of a string, bytes, list items, map entries,
 * set fields of an object; 1 for anything else (numbers, bools, timestamps...).
 */
import { actualSize } from '../library/support.js';
import type { CelObject, CelValue } from '../values/value.js';
import { STRING_TRAVERSAL_COST_FACTOR } from './limits.js';

/** Strings this long or shorter cost 1 to compare: ceil(factor x code points) with code points <= length. */
const SHORT_STRING = Math.floor(1 / STRING_TRAVERSAL_COST_FACTOR);

function sizeOf(v: CelValue): number {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && (v as { kind?: unknown }).kind === 'object') {
    let n = 0;
    for (const _ of (v as CelObject).fieldNames()) n++;
    return n;
  }
  return actualSize(v);
}

/** `==`, `!=`, and `<`... on strings/bytes: `ceil(0.1 x min(size a, size b))` (1 for two scalars). */
export function minSizeCost(a: CelValue, b: CelValue): number {
  const ta = typeof a;
  if ((ta === 'bigint' || ta === 'number' || ta === 'boolean') && typeof b !== 'string' && !(b instanceof Uint8Array) && typeof b !== 'object') return 1;
  if (typeof a === 'string' && typeof b === 'string') {
    // The hot case (a field compared with a short literal): a string has at most `length` code points, so
    // when the shorter one is at most 1/factor long the cost is 1 (0 for an empty one) without counting.
    const shorter = a.length < b.length ? a.length : b.length;
    if (shorter <= SHORT_STRING) return shorter === 0 ? 0 : 1;
  }
  const sa = sizeOf(a);
  const sb = sizeOf(b);
  return Math.ceil((sa < sb ? sa : sb) * STRING_TRAVERSAL_COST_FACTOR);
}

/** `<`, `<=`, `>`, `>=`: the min-size rule for strings and bytes, 1 otherwise. */
export function orderingCost(a: CelValue, b: CelValue): number {
  return typeof a === 'string' || a instanceof Uint8Array ? minSizeCost(a, b) : 1;
}

/** `+`: strings and bytes `ceil(0.1 x (size a + size b))`; lists and numbers 1. */
export function addCost(a: CelValue, b: CelValue): number {
  if (typeof a === 'string' || a instanceof Uint8Array) return Math.ceil((actualSize(a) + actualSize(b)) * STRING_TRAVERSAL_COST_FACTOR);
  return 1;
}

/** `x in list`: the size of the list; `in` on a map: 1. */
export const inCost = (container: CelValue): number => (Array.isArray(container) ? container.length : 1);
