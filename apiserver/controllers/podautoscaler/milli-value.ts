/**
 * Go's `resource.Quantity.MilliValue()`: the value in thousandths, rounded up (towards +infinity) when
 * finer than a milli-unit (`1n` -> 1, `0.5m` -> 1, `-0.5m` -> 0). `undefined` for a malformed quantity.
 */
import { parseQuantity } from '../../registry/kinds/shared/quantity.js';

export function milliValue(input: unknown): number | undefined {
  const q = parseQuantity(input);
  if (q === undefined) return undefined;
  const shift = q.scale + 3;
  if (shift >= 0) return Number(q.mantissa * 10n ** BigInt(shift));
  const d = 10n ** BigInt(-shift);
  const quotient = q.mantissa / d;
  // BigInt division truncates towards zero: a positive remainder rounds up.
  return Number(q.mantissa % d > 0n ? quotient + 1n : quotient);
}
