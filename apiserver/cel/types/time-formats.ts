/**
 * The string formats a schema turns into CEL timestamps and durations, parsed as Kubernetes' value
 * adaptation parses them (kube-openapi `strfmt`): `date` (RFC 3339 full-date, midnight UTC), `date-time`
 * (RFC 3339 with up to nanosecond fractions and a `Z` or numeric offset; a space or lower-case `t`
 * separator accepted, as the schema validator accepts them), `duration` (a Go duration such as `1h30m`,
 * `-1.5s`, `0`; otherwise strfmt's `<n> <unit>` sums with units ns, us, ms, s, m, h, d, w and their long
 * names). Results are our nanosecond `Timestamp` (seconds since the epoch, nanos in [0, 1e9)) and
 * `Duration` (total nanoseconds within int64, split with the sign on both parts). Invalid text throws
 * CelEvalError with Kubernetes' wording.
 */
import { CelEvalError } from '../errors.js';
import { Duration, INT64_MAX, INT64_MIN, Timestamp } from '../values/value.js';

const NANOS = 1_000_000_000n;

/** Days from 1970-01-01 to a civil date (proleptic Gregorian). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const daysInMonth = (y: number, m: number): number =>
  m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function validDate(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

/** `2024-02-29` -> midnight UTC of that day. */
export function parseDate(s: string): Timestamp {
  const m = DATE.exec(s);
  const y = Number(m?.[1]);
  const mo = Number(m?.[2]);
  const d = Number(m?.[3]);
  if (!m || !validDate(y, mo, d)) throw new CelEvalError(`Invalid date formatted string ${s}: parsing time "${s}" as "2006-01-02": cannot parse`);
  return new Timestamp(BigInt(daysFromCivil(y, mo, d)) * 86400n, 0);
}

/** An RFC 3339 date-time -> the instant, nanoseconds kept. */
export function parseDateTime(s: string): Timestamp {
  const m = DATE_TIME.exec(s);
  if (m) {
    const [y, mo, d, h, mi, sec] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
    if (validDate(y!, mo!, d!) && h! < 24 && mi! < 60 && sec! < 60) {
      const offH = m[10] !== undefined ? Number(m[10]) : 0;
      const offM = m[11] !== undefined ? Number(m[11]) : 0;
      if (offH < 24 && offM < 60) {
        const offset = (offH * 3600 + offM * 60) * (m[9] === '-' ? -1 : 1);
        const seconds = BigInt(daysFromCivil(y!, mo!, d!)) * 86400n + BigInt(h! * 3600 + mi! * 60 + sec! - offset);
        const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
        return new Timestamp(seconds, nanos);
      }
    }
  }
  throw new CelEvalError(`Invalid date-time formatted string ${s}: not a valid RFC 3339 date-time`);
}

const GO_UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1000n],
  ['µs', 1000n], // U+00B5 micro sign
  ['μs', 1000n], // U+03BC Greek mu
  ['ms', 1_000_000n],
  ['s', NANOS],
  ['m', 60n * NANOS],
  ['h', 3600n * NANOS],
]);
const GO_PART = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;

/** Go's `time.ParseDuration`, exact in nanoseconds; undefined when the text is not one. */
function parseGoDuration(s: string): bigint | undefined {
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
    const m = GO_PART.exec(rest);
    if (!m || (m[1] === '' && (m[2] === undefined || m[2] === ''))) return undefined;
    const unit = GO_UNITS.get(m[3]!)!;
    const whole = m[1] === '' ? 0n : BigInt(m[1]!);
    const frac = m[2] ?? '';
    total += whole * unit + (frac === '' ? 0n : (BigInt(frac) * unit) / 10n ** BigInt(frac.length));
    rest = rest.slice(m[0].length);
  }
  return neg ? -total : total;
}

const STRFMT_UNITS: ReadonlyMap<string, bigint> = new Map([
  ...(['ns', 'nano'].map((u) => [u, 1n]) as [string, bigint][]),
  ...(['us', 'µs', 'micro'].map((u) => [u, 1000n]) as [string, bigint][]),
  ...(['ms', 'milli'].map((u) => [u, 1_000_000n]) as [string, bigint][]),
  ...(['s', 'sec'].map((u) => [u, NANOS]) as [string, bigint][]),
  ...(['m', 'min'].map((u) => [u, 60n * NANOS]) as [string, bigint][]),
  ...(['h', 'hr', 'hour'].map((u) => [u, 3600n * NANOS]) as [string, bigint][]),
  ...(['d', 'day'].map((u) => [u, 86400n * NANOS]) as [string, bigint][]),
  ...(['w', 'wk', 'week'].map((u) => [u, 7n * 86400n * NANOS]) as [string, bigint][]),
]);
const STRFMT_PART = /(\d+)\s*([A-Za-zµ]+)/g;

/** A `duration` string -> Duration (Go syntax first, then strfmt's `<n> <unit>` sums). */
export function parseSchemaDuration(s: string): Duration {
  let total = parseGoDuration(s);
  if (total === undefined) {
    let ok = false;
    let sum = 0n;
    for (const m of s.matchAll(STRFMT_PART)) {
      const unit = STRFMT_UNITS.get(m[2]!.toLowerCase());
      if (unit === undefined) continue;
      sum += BigInt(m[1]!) * unit;
      ok = true;
    }
    if (ok) total = sum;
  }
  if (total === undefined) throw new CelEvalError(`Invalid duration ${s}: time: invalid duration "${s}"`);
  if (total < INT64_MIN || total > INT64_MAX) throw new CelEvalError(`Invalid duration ${s}: time: invalid duration "${s}"`);
  const seconds = total / NANOS;
  return new Duration(seconds, Number(total - seconds * NANOS));
}
