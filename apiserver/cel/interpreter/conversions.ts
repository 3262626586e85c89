/**
 * Type conversions (`int()`, `uint()`, `double()`, `string()`, `bytes()`, `bool()`) with cel-go's error
 * cases: range errors for doubles outside int64/uint64 (both bounds exclusive for int, as cel-go),
 * strict integer syntax for strings, invalid UTF-8 refused by `string(bytes)`, Go's `%g` for doubles.
 */
import { CelEvalError } from '../errors.js';
import { CelUint, INT64_MAX, INT64_MIN, UINT64_MAX } from '../values/value.js';

const TWO_63 = 2 ** 63;
const TWO_64 = 2 ** 64;

export function intFromDouble(d: number): bigint {
  if (!(d > -TWO_63 && d < TWO_63)) throw new CelEvalError(`range error converting ${formatDouble(d)} to int`);
  return BigInt(Math.trunc(d));
}

export function uintFromDouble(d: number): CelUint {
  if (!(d > -1 && d < TWO_64)) throw new CelEvalError(`range error converting ${formatDouble(d)} to uint`);
  return new CelUint(BigInt(Math.trunc(d)));
}

export function intFromUint(u: CelUint): bigint {
  if (u.value > INT64_MAX) throw new CelEvalError('range error converting uint to int');
  return u.value;
}

export function uintFromInt(i: bigint): CelUint {
  if (i < 0n) throw new CelEvalError('range error converting int to uint');
  return new CelUint(i);
}

const INT_SYNTAX = /^[+-]?\d+$/;

export function intFromString(s: string): bigint {
  if (!INT_SYNTAX.test(s)) throw new CelEvalError(`cannot convert "${s}" to int: invalid syntax`);
  const v = BigInt(s);
  if (v < INT64_MIN || v > INT64_MAX) throw new CelEvalError(`cannot convert "${s}" to int: value out of range`);
  return v;
}

export function uintFromString(s: string): CelUint {
  if (!/^\+?\d+$/.test(s)) throw new CelEvalError(`cannot convert "${s}" to uint: invalid syntax`);
  const v = BigInt(s);
  if (v > UINT64_MAX) throw new CelEvalError(`cannot convert "${s}" to uint: value out of range`);
  return new CelUint(v);
}

const FLOAT_SYNTAX = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)$/;
const FLOAT_SPECIAL = /^[+-]?(?:inf|infinity|nan)$/i;

/** Go's strconv.ParseFloat(s, 64) for decimal syntax and inf/nan. */
export function doubleFromString(s: string): number {
  if (FLOAT_SYNTAX.test(s)) return Number(s);
  if (FLOAT_SPECIAL.test(s)) {
    const neg = s.startsWith('-');
    return /nan/i.test(s) ? Number.NaN : neg ? -Infinity : Infinity;
  }
  throw new CelEvalError(`cannot convert "${s}" to double: invalid syntax`);
}

/** Go's `%g` (strconv 'g', shortest precision): `1e+06`, `0.0001`, `1.5e-07`, `123456`, `+Inf`, `NaN`. */
export function formatDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return '+Inf';
  if (d === -Infinity) return '-Inf';
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  const [mant, expText] = d.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  // strconv's 'g' with the shortest precision: the exponent form when exp < -4 || exp >= 6.
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const e = Math.abs(exp);
    return `${mant}e${sign}${e < 10 ? `0${e}` : e}`;
  }
  return String(d);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export const bytesFromString = (s: string): Uint8Array => encoder.encode(s);

export function stringFromBytes(b: Uint8Array): string {
  try {
    return decoder.decode(b);
  } catch {
    throw new CelEvalError('invalid UTF-8 in bytes, cannot convert to string');
  }
}

export function boolFromString(s: string): boolean {
  switch (s) {
    case '1':
    case 't':
    case 'T':
    case 'true':
    case 'TRUE':
    case 'True':
      return true;
    case '0':
    case 'f':
    case 'F':
    case 'false':
    case 'FALSE':
    case 'False':
      return false;
    default:
      throw new CelEvalError(`type conversion error from 'string' to 'bool'`);
  }
}
