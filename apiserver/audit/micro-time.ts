/**
 * Timestamps of audit events as kube writes its `metav1.MicroTime`: RFC 3339 in UTC with exactly six
 * fractional digits (`2026-11-24T05:31:02.123456Z`). Node's clock gives milliseconds; the microseconds come
 * from the monotonic clock's offset since the process' time origin, so successive stamps keep their order.
 */
import { performance } from 'node:perf_hooks';

/** Microseconds since the epoch, now. */
export function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

// The date and time up to the second change once a second: kept, so most stamps only format microseconds.
let cachedSecond = -1;
let cachedPrefix = '';

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ` of a microsecond timestamp. */
export function formatMicroTime(micros: number): string {
  const second = Math.floor(micros / 1_000_000);
  if (second !== cachedSecond) {
    const d = new Date(second * 1000);
    cachedPrefix = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}.`;
    cachedSecond = second;
  }
  return `${cachedPrefix}${pad(micros - second * 1_000_000, 6)}Z`;
}

/** RFC 3339 with nanoseconds, trailing zeros dropped (Go's RFC3339Nano), for the legacy line format. */
export function formatRfc3339Nano(micros: number): string {
  const s = formatMicroTime(micros);
  const trimmed = s.slice(0, -1).replace(/0+$/, '').replace(/\.$/, '');
  return `${trimmed}Z`;
}
