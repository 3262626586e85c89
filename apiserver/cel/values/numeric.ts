/**
 * Comparison of CEL numbers across int, uint and double (cel-go's cross-type numeric comparison): int
 * against uint exactly; an integer against a double through the integer's double value, as cel-go.
 */
import { CelUint } from './value.js';

/** An int or uint as a bigint, a double as itself; undefined for a non-number. */
export function numericOf(v: unknown): bigint | number | undefined {
  switch (typeof v) {
    case 'bigint':
    case 'number':
      return v;
    default:
      return v instanceof CelUint ? v.value : undefined;
  }
}

/**
 * Compares an int or uint (a bigint) with a double as cel-go does: the integer converted to double (so
 * `dyn(9223372036854775807) < 9223372036854775808.0` is false: both are 2^63 as doubles). -1, 0, 1, or NaN
 * when the double is NaN.
 */
export function compareBigDouble(a: bigint, b: number): number {
  const x = Number(a);
  return x < b ? -1 : x > b ? 1 : x === b ? 0 : Number.NaN;
}

/** Compares two numbers of any CEL numeric kind: -1, 0, 1, NaN (unordered, a NaN operand). */
export function compareNumeric(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint') {
    if (typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
    return compareBigDouble(a, b);
  }
  if (typeof b === 'number') return a < b ? -1 : a > b ? 1 : a === b ? 0 : Number.NaN;
  const r = compareBigDouble(b, a);
  return -r;
}
