/**
 * CEL ordering (`<`, `<=`, `>`, `>=`), as cel-go with cross-type numeric comparisons: int, uint and
 * double compare exactly by value across kinds; strings by code point (Go compares UTF-8 bytes, the same
 * order); bytes lexicographically; bool false < true; timestamps and durations by time. Any other pair
 * is `no such overload`.
 */
import { CelEvalError } from '../errors.js';
import { compareNumeric, numericOf } from './numeric.js';
import { typeNameOf } from './type-of.js';
import { Duration, Timestamp, type CelValue } from './value.js';

/** -1, 0 or 1; NaN when unordered (a NaN operand: every comparison is false). Throws for incomparable kinds. */
export function celCompare(a: CelValue, b: CelValue): number {
  const na = numericOf(a);
  if (na !== undefined) {
    const nb = numericOf(b);
    if (nb !== undefined) return compareNumeric(na, nb);
  } else if (typeof a === 'string') {
    if (typeof b === 'string') return compareStrings(a, b);
  } else if (typeof a === 'boolean') {
    if (typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  } else if (a instanceof Uint8Array) {
    if (b instanceof Uint8Array) return compareBytes(a, b);
  } else if (a instanceof Timestamp || a instanceof Duration) {
    if (b !== null && b.constructor === a.constructor) {
      const x = a as Timestamp;
      const y = b as Timestamp;
      return x.seconds < y.seconds ? -1 : x.seconds > y.seconds ? 1 : x.nanos < y.nanos ? -1 : x.nanos > y.nanos ? 1 : 0;
    }
  }
  throw new CelEvalError(`no such overload: ${typeNameOf(a)} < ${typeNameOf(b)}`);
}

/** Code point order (JS `<` compares UTF-16 units, which differs from it only around surrogate pairs). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if ((x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff)) {
      const cx = a.codePointAt(i)!;
      const cy = b.codePointAt(i)!;
      return cx < cy ? -1 : 1;
    }
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}
