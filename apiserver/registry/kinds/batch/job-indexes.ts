/**
 * The index-set text of Indexed jobs (`status.completedIndexes`, `status.failedIndexes`,
 * `successPolicy.rules[].succeededIndexes`): comma-separated intervals, each a decimal index or `x-y` with
 * x < y, in increasing order, every index below `completions` (`1,3-5,7`). The checks and their messages
 * are Kubernetes v1.32's; the empty text is the empty set.
 */

export interface Interval {
  readonly first: number;
  readonly last: number;
}

/** Go's strconv.Atoi: an optional sign and decimal digits within int64 (a 64-bit `int`). */
function atoi(text: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const n = BigInt(text);
  if (n > 9223372036854775807n || n < -9223372036854775808n) return undefined;
  return Number(n);
}

/** One interval, or the reason it is not valid. */
export function parseInterval(text: string, completions: number): Interval | string {
  const limits = text.split('-');
  if (limits.length > 2) return `the fragment ${JSON.stringify(text)} violates the requirement that an index interval can have at most two parts separated by '-'`;
  const first = atoi(limits[0]!);
  if (first === undefined) return `cannot convert string to integer for index: ${JSON.stringify(limits[0])}`;
  if (first >= completions) return `too large index: ${JSON.stringify(limits[0])}`;
  if (limits.length === 1) return { first, last: first };
  const last = atoi(limits[1]!);
  if (last === undefined) return `cannot convert string to integer for index: ${JSON.stringify(limits[1])}`;
  if (last >= completions) return `too large index: ${JSON.stringify(limits[1])}`;
  if (first >= last) return `non-increasing order, previous: ${first}, current: ${last}`;
  return { first, last };
}

/** The number of indexes in `text`, or the first reason it is malformed. */
export function countIndexes(text: string, completions: number): { total: number } | { error: string } {
  if (text === '') return { total: 0 };
  let previous: number | undefined;
  let total = 0;
  for (const part of text.split(',')) {
    const interval = parseInterval(part, completions);
    if (typeof interval === 'string') return { error: interval };
    if (previous !== undefined && previous >= interval.first) return { error: `non-increasing order, previous: ${previous}, current: ${interval.first}` };
    total += interval.last - interval.first + 1;
    previous = interval.last;
  }
  return { total };
}

/**
 * The first index both sets hold, walking both lists of intervals in order; malformed intervals are
 * skipped (the format checks report them). Undefined when the sets are disjoint.
 */
export function firstOverlap(completed: string, failed: string, completions: number): number | undefined {
  if (completed === '' || failed === '') return undefined;
  const c = completed.split(',');
  const f = failed.split(',');
  let ci = 0;
  let fi = 0;
  let cv = parseInterval(c[0]!, completions);
  let fv = parseInterval(f[0]!, completions);
  while (ci < c.length && fi < f.length) {
    if (typeof cv === 'string') {
      if (++ci < c.length) cv = parseInterval(c[ci]!, completions);
    } else if (typeof fv === 'string') {
      if (++fi < f.length) fv = parseInterval(f[fi]!, completions);
    } else {
      if (cv.first <= fv.last && fv.first <= cv.last) return Math.max(cv.first, fv.first);
      if (cv.first <= fv.first) {
        if (++ci < c.length) cv = parseInterval(c[ci]!, completions);
      } else if (++fi < f.length) {
        fv = parseInterval(f[fi]!, completions);
      }
    }
  }
  return undefined;
}
