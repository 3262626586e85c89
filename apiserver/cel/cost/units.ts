/**
 * Size and cost ranges of the static estimator, with cel-go's unsigned 64-bit saturating arithmetic.
 * Values are bigints so that estimates above 2^53 stay exact and deterministic (the same number on every
 * replica); anything past 2^64 - 1 saturates at UINT64_MAX, as cel-go does.
 */

export const UINT64_MAX = (1n << 64n) - 1n;
const TWO_TO_64 = 2 ** 64;

/** A size range: characters of a string (code points), bytes, list items or map entries. */
export interface SizeEstimate {
  readonly min: bigint;
  readonly max: bigint;
}

/** A cost range in cost units. */
export interface CostEstimate {
  readonly min: bigint;
  readonly max: bigint;
}

export const fixed = (n: bigint | number): SizeEstimate => {
  const v = BigInt(n);
  return { min: v, max: v };
};
export const ZERO: CostEstimate = Object.freeze({ min: 0n, max: 0n });
export const ONE: CostEstimate = Object.freeze({ min: 1n, max: 1n });
/** An unknown size: 0 .. 2^64 - 1. */
export const UNKNOWN_SIZE: SizeEstimate = Object.freeze({ min: 0n, max: UINT64_MAX });

export function addU64(x: bigint, y: bigint): bigint {
  const s = x + y;
  return s > UINT64_MAX ? UINT64_MAX : s;
}

export function mulU64(x: bigint, y: bigint): bigint {
  const p = x * y;
  return p > UINT64_MAX ? UINT64_MAX : p;
}

/** `ceil(float64(x) * factor)`, saturating (cel-go's multiplyByCostFactor, float64 arithmetic included). */
export function mulFactorU64(x: bigint, factor: number): bigint {
  const xf = Number(x);
  if (xf > 0 && factor > 0 && xf > TWO_TO_64 / factor) return UINT64_MAX;
  const c = Math.ceil(xf * factor);
  if (c >= TWO_TO_64) return UINT64_MAX;
  return BigInt(c);
}

export const add = (a: CostEstimate, b: CostEstimate): CostEstimate => ({ min: addU64(a.min, b.min), max: addU64(a.max, b.max) });
export const multiply = (a: CostEstimate, b: CostEstimate): CostEstimate => ({ min: mulU64(a.min, b.min), max: mulU64(a.max, b.max) });
export const mulFactor = (a: SizeEstimate, factor: number): CostEstimate => ({ min: mulFactorU64(a.min, factor), max: mulFactorU64(a.max, factor) });
export const union = (a: CostEstimate, b: CostEstimate): CostEstimate => ({ min: a.min < b.min ? a.min : b.min, max: a.max > b.max ? a.max : b.max });
export const sum = (xs: readonly CostEstimate[]): CostEstimate => xs.reduce(add, ZERO);
