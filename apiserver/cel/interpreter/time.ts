/**
 * Timestamps and durations with nanosecond precision, as cel-go (Go's `time` package):
 *
 * - timestamps are within 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z; `timestamp(string)`
 *   parses RFC 3339 with a `Z` or numeric offset and 1..9 fraction digits; `string(ts)` is RFC 3339 in UTC
 *   with the fraction's trailing zeros dropped;
 * - durations are int64 nanoseconds (about ±292 years); `duration(string)` parses Go duration strings
 *   (`1h2m3.5s`, `-1.5h`, `300ms`, `0`); `string(d)` is seconds with a trimmed fraction (`1.5s`);
 * - arithmetic out of either range is an error; accessors take an optional time zone: an IANA name
 *   (through Intl) or a fixed offset `[+-]HH:MM`.
 */
import { CelEvalError } from '../errors.js';
import { Duration, Timestamp } from '../values/value.js';

const NANOS = 1_000_000_000n;
export const TS_MIN_SECONDS = -62135596800n; // 0001-01-01T00:00:00Z
export const TS_MAX_SECONDS = 253402300799n; // 9999-12-31T23:59:59Z
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

// ---- civil calendar (proleptic Gregorian, days since 1970-01-01) -------------------------------------

export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(z: number): { y: number; m: number; d: number } {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// ---- construction and range -------------------------------------------------------------------------

/** A timestamp from seconds and nanos (normalized), or an error outside the range. */
export function makeTimestamp(seconds: bigint, nanos: number): Timestamp {
  if (nanos < 0 || nanos >= 1e9) {
    const carry = Math.floor(nanos / 1e9);
    seconds += BigInt(carry);
    nanos -= carry * 1e9;
  }
  if (seconds < TS_MIN_SECONDS || seconds > TS_MAX_SECONDS) throw new CelEvalError('timestamp out of range');
  return new Timestamp(seconds, nanos);
}

export const timestampNanos = (t: Timestamp): bigint => t.seconds * NANOS + BigInt(t.nanos);
export const durationNanos = (d: Duration): bigint => d.seconds * NANOS + BigInt(d.nanos);

/** A duration of `total` nanoseconds; an error outside int64 nanoseconds. Seconds and nanos share the sign. */
export function makeDuration(total: bigint): Duration {
  if (total < INT64_MIN || total > INT64_MAX) throw new CelEvalError('duration out of range');
  const seconds = total / NANOS; // truncates toward zero: seconds and nanos have the same sign
  return new Duration(seconds, Number(total - seconds * NANOS));
}

export function timestampFromNanos(total: bigint): Timestamp {
  let seconds = total / NANOS;
  let nanos = total - seconds * NANOS;
  if (nanos < 0n) {
    nanos += NANOS;
    seconds -= 1n;
  }
  return makeTimestamp(seconds, Number(nanos));
}

// ---- arithmetic ---------------------------------------------------------------------------------------

export const addTimestampDuration = (t: Timestamp, d: Duration): Timestamp => timestampFromNanos(timestampNanos(t) + durationNanos(d));
export const subTimestampDuration = (t: Timestamp, d: Duration): Timestamp => timestampFromNanos(timestampNanos(t) - durationNanos(d));
export const subTimestamps = (a: Timestamp, b: Timestamp): Duration => makeDuration(timestampNanos(a) - timestampNanos(b));
export const addDurations = (a: Duration, b: Duration): Duration => makeDuration(durationNanos(a) + durationNanos(b));
export const subDurations = (a: Duration, b: Duration): Duration => makeDuration(durationNanos(a) - durationNanos(b));
export const negateDuration = (a: Duration): Duration => makeDuration(-durationNanos(a));

// ---- parsing and formatting ---------------------------------------------------------------------------

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})([Tt ])(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** An RFC 3339 instant, or why the text is not one. */
export type Rfc3339Result = { readonly seconds: bigint; readonly nanos: number } | 'syntax' | 'field' | 'offset';

/**
 * RFC 3339 date-time text -> seconds since the epoch and nanos (no range check): `Z` or a numeric
 * offset, 1..9 fraction digits, a `T` or `t` separator (and a space with `allowSpace`, as the schema
 * `date-time` format accepts it). Shared by `timestamp(string)` and the schema value adaptation
 * (types/time-formats.ts), which word their errors differently.
 */
export function parseRfc3339(s: string, allowSpace = false): Rfc3339Result {
  const m = RFC3339.exec(s);
  if (m === null || (m[4] === ' ' && !allowSpace)) return 'syntax';
  const [y, mo, d, h, mi, sec] = [m[1], m[2], m[3], m[5], m[6], m[7]].map(Number) as [number, number, number, number, number, number];
  const dim = mo === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[mo - 1];
  if (mo < 1 || mo > 12 || d < 1 || dim === undefined || d > dim || h > 23 || mi > 59 || sec > 59) return 'field';
  let offset = 0;
  if (m[9] === undefined) {
    const oh = Number(m[11]);
    const om = Number(m[12]);
    if (oh > 23 || om > 59) return 'offset';
    offset = (m[10] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const nanos = m[8] === undefined ? 0 : Number(m[8].padEnd(9, '0'));
  return { seconds: BigInt(daysFromCivil(y, mo, d)) * 86400n + BigInt(h * 3600 + mi * 60 + sec - offset), nanos };
}

/** `timestamp(string)`: RFC 3339 (Go's time.RFC3339 layout, which also reads a fraction). */
export function parseTimestamp(s: string): Timestamp {
  const r = parseRfc3339(s);
  if (r === 'syntax') throw new CelEvalError(`timestamp validation error: cannot parse "${s}" as RFC 3339`);
  if (r === 'field') throw new CelEvalError(`timestamp validation error: cannot parse "${s}": field out of range`);
  if (r === 'offset') throw new CelEvalError(`timestamp validation error: cannot parse "${s}": time zone offset out of range`);
  if (r.seconds < TS_MIN_SECONDS || r.seconds > TS_MAX_SECONDS) throw new CelEvalError('timestamp out of range');
  return new Timestamp(r.seconds, r.nanos);
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `string(ts)`: RFC 3339 in UTC, fraction without trailing zeros (Go's RFC3339Nano). */
export function formatTimestamp(t: Timestamp): string {
  const days = Number(t.seconds / 86400n) - (t.seconds % 86400n < 0n ? 1 : 0);
  const secOfDay = Number(t.seconds - BigInt(days) * 86400n);
  const { y, m, d } = civilFromDays(days);
  const frac = t.nanos === 0 ? '' : `.${pad(t.nanos, 9).replace(/0+$/, '')}`;
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}T${pad(Math.floor(secOfDay / 3600))}:${pad(Math.floor(secOfDay / 60) % 60)}:${pad(secOfDay % 60)}${frac}Z`;
}

const UNIT_NANOS: Record<string, bigint> = { ns: 1n, us: 1000n, 'µs': 1000n, 'μs': 1000n, ms: 1_000_000n, s: NANOS, m: 60n * NANOS, h: 3600n * NANOS };
const DURATION_PART = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;

/**
 * Go's `time.ParseDuration` in exact nanoseconds (no range check), or undefined when the text is not a
 * Go duration (`1h2m3.5s`, `-1.5h`, `300ms`, `0`; `µs` with either micro sign). Shared with the schema
 * `duration` format (types/time-formats.ts).
 */
export function parseGoDurationNanos(s: string): bigint | undefined {
  let rest = s;
  let neg = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    neg = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') return undefined;
  let total = 0n;
  while (rest !== '') {
    const m = DURATION_PART.exec(rest);
    if (m === null || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const unit = UNIT_NANOS[m[3]!]!;
    total += BigInt(m[1] === '' ? 0 : m[1]!) * unit;
    const frac = m[2] ?? '';
    if (frac !== '') total += (BigInt(frac) * unit) / 10n ** BigInt(frac.length);
    rest = rest.slice(m[0].length);
  }
  return neg ? -total : total;
}

/** `duration(string)`: Go's time.ParseDuration, then the int64-nanoseconds range. */
export function parseDuration(s: string): Duration {
  const total = parseGoDurationNanos(s);
  if (total === undefined) throw new CelEvalError(`invalid duration: time: invalid duration "${s}"`);
  return makeDuration(total);
}

/** `string(d)`: seconds with a trimmed fraction (`1.5s`, `-0.000000001s`, `0s`), as cel-go. */
export function formatDuration(d: Duration): string {
  const total = durationNanos(d);
  const neg = total < 0n;
  const abs = neg ? -total : total;
  const secs = abs / NANOS;
  const nanos = Number(abs % NANOS);
  const frac = nanos === 0 ? '' : `.${pad(nanos, 9).replace(/0+$/, '')}`;
  return `${neg ? '-' : ''}${secs}${frac}s`;
}

// ---- accessors ----------------------------------------------------------------------------------------

export interface CivilTime {
  readonly year: number;
  readonly month: number; // 1..12
  readonly day: number; // 1..31
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
  readonly dayOfWeek: number; // 0 = Sunday
  readonly dayOfYear: number; // 0-based
}

const FIXED_OFFSET = /^([+-])?(\d{2}):(\d{2})$/;
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(zone: string): Intl.DateTimeFormat {
  let f = zoneFormats.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short' });
    } catch {
      throw new CelEvalError(`unknown time zone ${zone}`);
    }
    if (zoneFormats.size > 256) zoneFormats.clear();
    zoneFormats.set(zone, f);
  }
  return f;
}

/** The offset from UTC in seconds of `zone` at the instant `seconds` (UTC when zone is undefined). */
export function zoneOffsetSeconds(seconds: bigint, zone: string | undefined): number {
  if (zone === undefined || zone === 'UTC' || zone === 'Z') return 0;
  const fixed = FIXED_OFFSET.exec(zone);
  if (fixed !== null) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 3600 + Number(fixed[3]) * 60);
  const f = zoneFormat(zone);
  // Intl covers ±8.64e15 ms; timestamps are far inside it.
  const ms = Number(seconds) * 1000;
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(ms))) parts[p.type] = p.value;
  let year = Number(parts['year']);
  if (parts['era'] === 'BC' || parts['era'] === 'B') year = 1 - year;
  const local = daysFromCivil(year, Number(parts['month']), Number(parts['day'])) * 86400 + Number(parts['hour']) * 3600 + Number(parts['minute']) * 60 + Number(parts['second']);
  const utc = Math.floor(ms / 1000);
  return local - utc;
}

/** The civil fields of a timestamp in a zone. */
export function civilTime(t: Timestamp, zone?: string): CivilTime {
  const local = t.seconds + BigInt(zoneOffsetSeconds(t.seconds, zone));
  const days = Number(local / 86400n) - (local % 86400n < 0n ? 1 : 0);
  const secOfDay = Number(local - BigInt(days) * 86400n);
  const { y, m, d } = civilFromDays(days);
  return {
    year: y,
    month: m,
    day: d,
    hour: Math.floor(secOfDay / 3600),
    minute: Math.floor(secOfDay / 60) % 60,
    second: secOfDay % 60,
    dayOfWeek: (((days + 4) % 7) + 7) % 7, // 1970-01-01 was a Thursday
    dayOfYear: days - daysFromCivil(y, 1, 1),
  };
}
