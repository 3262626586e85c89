/**
 * `resource.Quantity`: parsing, exact comparison and Kubernetes' canonical string form.
 *
 * A quantity is `<sign><digits>[.<digits>]<suffix>` where the suffix is binary (`Ki Mi Gi Ti Pi Ei`,
 * powers of 1024), decimal SI (`n u m "" k M G T P E`) or an exponent (`e3`, `E-2`). Values are kept
 * exactly as `mantissa * 10^scale` with bigint mantissas, so `1Gi` vs `1073741824` or `0.1` vs `100m`
 * compare exactly (no floating point). JSON numbers are accepted too (a YAML `cpu: 0.5`).
 *
 * Canonical form (what Kubernetes stores and prints): the suffix family is kept; binary values that are not
 * whole multiples of 1024 print as decimal; decimal mantissas drop trailing zeros in groups of three
 * (`1000m` -> `1`, `0.5` -> `500m`, `2000` -> `2k`); precision below `1n` rounds up, as upstream.
 */

export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

export interface Quantity {
  /** The value is `mantissa * 10^scale`. */
  readonly mantissa: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
}

/** The message Kubernetes answers for a malformed quantity. */
export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const QUANTITY_RE = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:([KMGTPE]i)|([numkMGTPE])|[eE]([+-]?\d+))?$/;

const BINARY: Readonly<Record<string, number>> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_SUFFIX: Readonly<Record<number, string>> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const BINARY_SUFFIX = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;

/** Parses a quantity from a string or a JSON number; `undefined` when malformed. */
export function parseQuantity(input: unknown): Quantity | undefined {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return undefined;
    // Plain decimal digits: exponent notation from String() is handled by the regex too.
    text = String(input);
  } else if (typeof input === 'string') {
    text = input;
  } else {
    return undefined;
  }
  const m = QUANTITY_RE.exec(text);
  if (m === null) return undefined;
  const [, sign, intPart, fracPart, bareFrac, bin, dec, exp] = m;
  const whole = intPart ?? '';
  const frac = fracPart ?? bareFrac ?? '';
  let mantissa = BigInt((whole + frac) || '0');
  if (sign === '-') mantissa = -mantissa;
  let scale = -frac.length;
  let format: QuantityFormat = 'DecimalSI';
  if (bin !== undefined) {
    format = 'BinarySI';
    mantissa *= 1024n ** BigInt(BINARY[bin]!);
  } else if (dec !== undefined) {
    scale += DECIMAL[dec]!;
  } else if (exp !== undefined) {
    format = 'DecimalExponent';
    const e = Number(exp);
    if (!Number.isSafeInteger(e) || Math.abs(e) > 1000) return undefined;
    scale += e;
  }
  return { mantissa, scale, format };
}

/** `a` and `b` as mantissas at a common scale. */
function aligned(a: Quantity, b: Quantity): [bigint, bigint] {
  if (a.scale === b.scale) return [a.mantissa, b.mantissa];
  return a.scale > b.scale
    ? [a.mantissa * 10n ** BigInt(a.scale - b.scale), b.mantissa]
    : [a.mantissa, b.mantissa * 10n ** BigInt(b.scale - a.scale)];
}

/** -1, 0 or 1, exactly. */
export function compareQuantity(a: Quantity, b: Quantity): number {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export const isNegative = (q: Quantity): boolean => q.mantissa < 0n;

/** True when the value is a whole number of milli-units times 1000 (Kubernetes' "must be an integer"). */
export function isWhole(q: Quantity): boolean {
  if (q.scale >= 0) return true;
  return q.mantissa % 10n ** BigInt(-q.scale) === 0n;
}

/** Ceiling division for bigints (towards +infinity). */
function divCeil(n: bigint, d: bigint): bigint {
  const q = n / d;
  return n % d !== 0n && n > 0n ? q + 1n : q;
}

/** The value rounded up to `10^minScale` (Kubernetes rounds resource lists up to milli precision). */
export function roundUp(q: Quantity, minScale: number): Quantity {
  if (q.scale >= minScale) return q;
  return { mantissa: divCeil(q.mantissa, 10n ** BigInt(minScale - q.scale)), scale: minScale, format: q.format };
}

/** Kubernetes' canonical string of a quantity (`Quantity.String()`). */
export function formatQuantity(input: Quantity): string {
  let q = roundUp(input, -9);
  // Normalize: fold trailing zeros of the mantissa into the scale.
  let { mantissa, scale } = q;
  if (mantissa === 0n) return '0';
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale += 1;
  }
  q = { mantissa, scale, format: q.format };

  if (q.format === 'BinarySI' && q.scale >= 0) {
    let value = q.mantissa * 10n ** BigInt(q.scale);
    const abs = value < 0n ? -value : value;
    if (abs >= 1024n) {
      let power = 0;
      while (power < 6 && value % 1024n === 0n) {
        value /= 1024n;
        power += 1;
      }
      if (power > 0) return `${value}${BINARY_SUFFIX[power]}`;
    }
  }
  // Decimal: the largest exponent that is a multiple of 3 and keeps the mantissa whole.
  let exp = Math.floor(q.scale / 3) * 3;
  const digits = q.mantissa * 10n ** BigInt(q.scale - exp);
  if (q.format === 'DecimalExponent') return exp === 0 ? `${digits}` : `${digits}e${exp}`;
  if (exp > 18) {
    return `${digits * 10n ** BigInt(exp - 18)}E`;
  }
  exp = Math.max(exp, -9);
  return `${digits}${DECIMAL_SUFFIX[exp]}`;
}

/** Parses and canonicalizes; `undefined` when malformed. */
export function canonicalQuantity(input: unknown): string | undefined {
  const q = parseQuantity(input);
  return q === undefined ? undefined : formatQuantity(q);
}
