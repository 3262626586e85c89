/**
 * The string formats a schema turns into CEL timestamps and durations, parsed as Kubernetes' value
 * adaptation parses them (kube-openapi `strfmt`): `date` (RFC 3339 full-date, midnight UTC), `date-time`
 * (RFC 3339 with up to nanosecond fractions and a `Z` or numeric offset; a space or lower-case `t`
 * separator accepted, as the schema validator accepts them), `duration` (a Go duration such as `1h30m`,
 * `-1.5s`, `0`; otherwise strfmt's `<n> <unit>` sums with units ns, us, ms, s, m, h, d, w and their long
 * names). Results are our nanosecond `Timestamp` (seconds since the epoch, nanos in [0, 1e9)) and
 * `Duration` (total nanoseconds within int64, split with the sign on both parts). Invalid text throws
 * CelEvalError with Kubernetes' wording. The RFC 3339 and Go duration grammars themselves are the
 * interpreter's (interpreter/time.ts), shared with `timestamp(string)` and `duration(string)`.
 */
import { CelEvalError } from '../errors.js';
import { parseGoDurationNanos, parseRfc3339 } from '../interpreter/time.js';
import { Duration, INT64_MAX, INT64_MIN, Timestamp } from '../values/value.js';

const NANOS = 1_000_000_000n;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** `2024-02-29` -> midnight UTC of that day. */
export function parseDate(s: string): Timestamp {
  const r = DATE.test(s) ? parseRfc3339(`${s}T00:00:00Z`) : 'syntax';
  if (typeof r === 'string') throw new CelEvalError(`Invalid date formatted string ${s}: parsing time "${s}" as "2006-01-02": cannot parse`);
  return new Timestamp(r.seconds, 0);
}

/** An RFC 3339 date-time -> the instant, nanoseconds kept (the parser `timestamp(string)` uses, with a space separator allowed). */
export function parseDateTime(s: string): Timestamp {
  const r = parseRfc3339(s, true);
  if (typeof r === 'string') throw new CelEvalError(`Invalid date-time formatted string ${s}: not a valid RFC 3339 date-time`);
  return new Timestamp(r.seconds, r.nanos);
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
  let total = parseGoDurationNanos(s);
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
