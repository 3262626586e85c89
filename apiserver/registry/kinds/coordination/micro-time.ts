/**
 * metav1.MicroTime as JSON: RFC 3339 in UTC with exactly six fractional digits
 * (`2006-01-02T15:04:05.000000Z`), as Kubernetes serializes it whatever offset or precision was sent.
 */

/** `ms` since the epoch as a MicroTime (the milliseconds padded with three zeros). */
export const microTimeOf = (ms: number): string => new Date(ms).toISOString().replace(/Z$/, '000Z');

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * The canonical MicroTime of an RFC 3339 string: converted to UTC, the fraction cut or padded to six digits
 * (sub-microsecond digits are dropped, as Go's time formatting truncates). Anything else is returned as is
 * (the schema's date-time check has already refused it on writes).
 */
export function canonicalMicroTime(value: string): string {
  const m = RFC3339.exec(value);
  if (m === null) return value;
  const seconds = Date.parse(`${m[1]}${m[3]!.toUpperCase()}`);
  if (Number.isNaN(seconds)) return value;
  const fraction = (m[2] ?? '').slice(0, 6).padEnd(6, '0');
  return `${new Date(seconds).toISOString().slice(0, 19)}.${fraction}Z`;
}
