/**
 * Go's text forms of values that CEL functions print: `strconv.FormatFloat(f, 'g', -1, 64)` (CEL
 * `string(double)` and `%s` of a double), `%.Nf` with Go's exact round-half-even, `strconv.Quote` (`%q`),
 * and cel-go's string forms of timestamps (RFC 3339, nanoseconds trimmed) and durations (`1.5s`).
 */
import type { Duration, Timestamp } from '../values/value.js';

/** The exact decimal value of a finite double: `digits * 10^-scale` (digits >= 0, sign separate). */
function exactDecimal(f: number): { neg: boolean; digits: bigint; scale: number } {
  const neg = f < 0 || Object.is(f, -0);
  const a = Math.abs(f);
  if (a === 0) return { neg, digits: 0n, scale: 0 };
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, a);
  const hi = buf.getUint32(0);
  const lo = buf.getUint32(4);
  const expBits = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e2: number;
  if (expBits === 0) e2 = -1074;
  else {
    mant |= 1n << 52n;
    e2 = expBits - 1075;
  }
  if (e2 >= 0) return { neg, digits: mant << BigInt(e2), scale: 0 };
  // mant / 2^-e2 == mant * 5^-e2 / 10^-e2
  return { neg, digits: mant * 5n ** BigInt(-e2), scale: -e2 };
}

/** `%.{prec}f` as Go prints it (exact value, ties to even), without grouping; Inf/NaN as Go: `+Inf`, `-Inf`, `NaN`. */
export function goFixed(f: number, prec: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  const { neg, digits, scale } = exactDecimal(f);
  let scaled: bigint;
  if (scale <= prec) scaled = digits * 10n ** BigInt(prec - scale);
  else {
    const div = 10n ** BigInt(scale - prec);
    scaled = digits / div;
    const rem = digits % div;
    const twice = rem * 2n;
    if (twice > div || (twice === div && scaled % 2n === 1n)) scaled += 1n;
  }
  let s = scaled.toString();
  if (prec > 0) {
    s = s.padStart(prec + 1, '0');
    s = `${s.slice(0, s.length - prec)}.${s.slice(s.length - prec)}`;
  }
  return (neg ? '-' : '') + s;
}

/**
 * Go's `%.{prec}e` parts of a finite double: the mantissa `d.ddd` (exact value rounded half to even at
 * prec+1 significant digits) and the decimal exponent.
 */
export function goScientificParts(f: number, prec: number): { mantissa: string; exp: number } {
  const { neg, digits, scale } = exactDecimal(f);
  if (digits === 0n) return { mantissa: (neg ? '-' : '') + (prec > 0 ? `0.${'0'.repeat(prec)}` : '0'), exp: 0 };
  const all = digits.toString();
  let exp = all.length - 1 - scale;
  const n = prec + 1;
  let keep: bigint;
  if (all.length <= n) keep = BigInt(all) * 10n ** BigInt(n - all.length);
  else {
    keep = BigInt(all.slice(0, n));
    const rest = all.slice(n);
    const first = Number(rest[0]);
    const tail = /[1-9]/.test(rest.slice(1));
    if (first > 5 || (first === 5 && (tail || keep % 2n === 1n))) keep += 1n;
  }
  let k = keep.toString();
  if (k.length > n) {
    // Rounded up to a power of ten (9.9999995 -> 10.00000): one more exponent.
    k = k.slice(0, n);
    exp += 1;
  }
  return { mantissa: (neg ? '-' : '') + (n > 1 ? `${k[0]}.${k.slice(1)}` : k), exp };
}

/** Go's `strconv.FormatFloat(f, 'g', -1, 64)`: shortest round-trip digits; exponent form when the decimal exponent is < -4 or >= 6 (`1e+06`, `2e-09`, `123456`). */
export function goFormatFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // JavaScript's toExponential() gives the shortest round-trip digits, as Go's shortest formatting.
  const [mant, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  // Go (strconv, shortest): %e when exp < -4 || exp >= 6.
  let out: string;
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    out = `${m}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' : ''}${e}`;
  } else if (exp < 0) {
    out = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else if (digits.length <= exp + 1) {
    out = digits + '0'.repeat(exp + 1 - digits.length);
  } else {
    out = `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return (neg ? '-' : '') + out;
}

const isPrintable = (cp: string): boolean => cp === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(cp);

/** Go's `strconv.Quote`: `"..."` with Go escapes; printable Unicode kept as is. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
      case '\\': out += '\\\\'; continue;
      case '"': out += '\\"'; continue;
    }
    if (isPrintable(ch)) {
      out += ch;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

const pad = (n: number | bigint, w: number): string => String(n).padStart(w, '0');

/** Days since 1970-01-01 to a civil date (proleptic Gregorian), exact for years 1..9999. */
function civilFromDays(z: bigint): [bigint, number, number] {
  const zz = z + 719468n;
  const era = (zz >= 0n ? zz : zz - 146096n) / 146097n;
  const doe = zz - era * 146097n;
  const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n;
  const y = yoe + era * 400n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const d = Number(doy - (153n * mp + 2n) / 5n + 1n);
  const m = Number(mp < 10n ? mp + 3n : mp - 9n);
  return [m <= 2 ? y + 1n : y, m, d];
}

/** cel-go's `string(timestamp)`: RFC 3339 in UTC with the fraction's trailing zeros trimmed. */
export function timestampString(t: Timestamp): string {
  const days = t.seconds >= 0n ? t.seconds / 86400n : -((-t.seconds + 86399n) / 86400n);
  const rem = Number(t.seconds - days * 86400n);
  const [y, m, d] = civilFromDays(days);
  const frac = t.nanos === 0 ? '' : `.${pad(t.nanos, 9).replace(/0+$/, '')}`;
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}T${pad(Math.floor(rem / 3600), 2)}:${pad(Math.floor(rem / 60) % 60, 2)}:${pad(rem % 60, 2)}${frac}Z`;
}

/** cel-go's `string(duration)`: seconds with the shortest fraction, `s` suffix (`6347s`, `0.000000002s`, `-1.5s`). */
export function durationString(d: Duration): string {
  const neg = d.seconds < 0n || d.nanos < 0;
  const secs = d.seconds < 0n ? -d.seconds : d.seconds;
  const nanos = Math.abs(d.nanos);
  const frac = nanos === 0 ? '' : `.${pad(nanos, 9).replace(/0+$/, '')}`;
  return `${neg ? '-' : ''}${secs}${frac}s`;
}
