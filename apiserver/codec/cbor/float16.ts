/**
 * IEEE 754 half precision (binary16), which CBOR has as a float width of its own (major type 7, additional
 * information 25). Kubernetes writes every float in the shortest width that keeps its value exactly, so a
 * half is read and written here.
 */

const MIN_SUBNORMAL = 2 ** -24;

/** The binary16 bits of `v` if `v` is exactly representable in half precision, else -1. NaN/±Inf: -1. */
export function toFloat16Bits(v: number): number {
  if (v === 0) return Object.is(v, -0) ? 0x8000 : 0;
  if (!Number.isFinite(v)) return -1;
  const sign = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  if (a > 65504 || a < MIN_SUBNORMAL) return -1;
  if (a < 2 ** -14) {
    // Subnormal: a = m × 2^-24 with m < 1024.
    const m = a / MIN_SUBNORMAL;
    return Number.isInteger(m) ? sign | m : -1;
  }
  let e = Math.floor(Math.log2(a));
  if (2 ** e > a) e--; // log2 may round up just below a power of two
  else if (2 ** (e + 1) <= a) e++;
  const mantissa = (a / 2 ** e - 1) * 1024;
  if (!Number.isInteger(mantissa) || e > 15) return -1;
  return sign | ((e + 15) << 10) | mantissa;
}

/** The number a binary16 encodes (NaN and ±Infinity included; callers refuse them). */
export function fromFloat16Bits(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const mant = bits & 0x3ff;
  if (exp === 0) return sign * mant * MIN_SUBNORMAL;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}
