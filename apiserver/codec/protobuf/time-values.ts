/**
 * The protobuf forms of meta/v1 time values, which JSON writes as text:
 * - `Time`: {seconds = 1, nanos = 2}, second precision (Go writes nanos 0 and ignores it when reading);
 *   JSON `2024-05-01T10:00:00Z`.
 * - `MicroTime`: the same message with nanos truncated to microseconds; JSON `2024-05-01T10:00:00.123456Z`.
 * - `Duration`: {duration = 1} in int64 nanoseconds; JSON a Go duration string (`1h2m3.5s`).
 * A zero time is an empty message, and reads back as absent.
 */
import { parseDuration } from '../../config/duration.js';
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

const digit = (text: string, i: number): number => text.charCodeAt(i) - 48;
const two = (text: string, i: number): number => digit(text, i) * 10 + digit(text, i + 1);

/** `2024-05-01T10:00:00Z`: digits where digits belong, the separators in place. */
function isPlainUtc(text: string): boolean {
  if (text.length !== 20 || text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':' || text[19] !== 'Z') {
    return false;
  }
  for (const i of DIGIT_AT) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}
const DIGIT_AT = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];

// Objects repeat their timestamps (creationTimestamp and the managedFields times are often the same
// second): the last one parsed is kept.
let lastText = '';
let lastSeconds = 0;

/** Seconds since the epoch and nanoseconds of an RFC 3339 text; undefined when it is not one. */
export function parseTimestamp(text: string): { seconds: number; nanos: number } | undefined {
  if (text === lastText) return { seconds: lastSeconds, nanos: 0 };
  // The form the server writes by hand: the regex and Date.parse cost more than the rest of encoding a
  // small object.
  if (isPlainUtc(text)) {
    const d = new Date(0);
    d.setUTCFullYear(two(text, 0) * 100 + two(text, 2), two(text, 5) - 1, two(text, 8));
    d.setUTCHours(two(text, 11), two(text, 14), two(text, 17), 0);
    const ms = d.getTime();
    // Out-of-range parts (month 13, second 61) roll over in Date: refuse them, as Go's time.Parse does.
    if (
      Number.isNaN(ms) ||
      d.getUTCMonth() !== two(text, 5) - 1 ||
      d.getUTCDate() !== two(text, 8) ||
      d.getUTCHours() !== two(text, 11) ||
      d.getUTCMinutes() !== two(text, 14) ||
      d.getUTCSeconds() !== two(text, 17)
    ) {
      return undefined;
    }
    lastText = text;
    lastSeconds = ms / 1000;
    return { seconds: lastSeconds, nanos: 0 };
  }
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[8]!.toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  const frac = m[7] === undefined ? '' : m[7].slice(1, 10);
  const nanos = frac === '' ? 0 : Number(frac.padEnd(9, '0'));
  return { seconds: Math.floor(ms / 1000), nanos };
}

/** Go's time.Time RFC 3339 text in UTC: `2024-05-01T10:00:00Z`, with `.ffffff` when `micro`. */
export function formatTimestamp(seconds: number, nanos: number, micro: boolean): string {
  const iso = new Date(seconds * 1000).toISOString(); // 2024-05-01T10:00:00.000Z
  if (!micro) return `${iso.slice(0, 19)}Z`;
  const us = Math.floor(nanos / 1000);
  return `${iso.slice(0, 19)}.${String(us).padStart(6, '0')}Z`;
}

/** Nanoseconds of a Go duration string (`1h2m3.5s`, `-1.5h`, `0`); undefined when it is not one. */
export function parseGoDuration(text: string): number | undefined {
  const ms = parseDuration(text);
  return ms === undefined ? undefined : Math.round(ms * 1e6);
}

/** Go's `time.Duration.String()` of `ns` nanoseconds: `1h2m3.5s`, `1.5ms`, `0s`. */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let u = Math.abs(ns);
  if (u < 1e9) {
    const [unit, size] = u < 1e3 ? ['ns', 1] : u < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${sign}${trimFraction(u / (size as number))}${unit}`;
  }
  const h = Math.floor(u / 3600e9);
  u -= h * 3600e9;
  const m = Math.floor(u / 60e9);
  u -= m * 60e9;
  const sec = `${trimFraction(u / 1e9)}s`;
  return `${sign}${h > 0 ? `${h}h${m}m` : m > 0 ? `${m}m` : ''}${sec}`;
}

function trimFraction(v: number): string {
  return String(Number(v.toFixed(9)));
}
