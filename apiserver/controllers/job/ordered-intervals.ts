/**
 * Sets of completion indexes as ordered, non-overlapping, non-adjacent intervals (kube's orderedIntervals):
 * what `status.completedIndexes` and `status.failedIndexes` hold. Text form: ascending, comma-separated,
 * runs of three or more written `first-last`, a run of two written `a,b` (kube's String()).
 *
 * Parsing is lenient like kube's controller: a malformed interval is skipped, an interval starting at or
 * beyond `completions` ends the list, an end beyond it is cut to `completions - 1`.
 */

export interface Interval {
  readonly first: number;
  readonly last: number;
}

export type Intervals = readonly Interval[];

/** Merges two interval lists (each ordered) into one ordered list, joining overlapping and adjacent ones. */
export function mergeIntervals(a: Intervals, b: Intervals): Interval[] {
  const out: { first: number; last: number }[] = [];
  const push = (iv: Interval): void => {
    const last = out[out.length - 1];
    if (last === undefined || iv.first > last.last + 1) out.push({ first: iv.first, last: iv.last });
    else if (last.last < iv.last) last.last = iv.last;
  };
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) push(a[i]!.first < b[j]!.first ? a[i++]! : b[j++]!);
  while (i < a.length) push(a[i++]!);
  while (j < b.length) push(b[j++]!);
  return out;
}

/** `intervals` with the indexes of `sorted` (ascending) added. */
export const withIndexes = (intervals: Intervals, sorted: readonly number[]): Interval[] =>
  mergeIntervals(intervals, sorted.map((ix) => ({ first: ix, last: ix })));

export const total = (intervals: Intervals): number => intervals.reduce((n, iv) => n + iv.last - iv.first + 1, 0);

export function has(intervals: Intervals, ix: number): boolean {
  let lo = 0;
  let hi = intervals.length;
  while (hi > lo) {
    const mid = lo + ((hi - lo) >> 1);
    if (intervals[mid]!.last >= ix) hi = mid;
    else lo = mid + 1;
  }
  return hi < intervals.length && intervals[hi]!.first <= ix;
}

export function formatIntervals(intervals: Intervals): string {
  const parts: string[] = [];
  for (const iv of intervals) {
    if (iv.last === iv.first) parts.push(String(iv.first));
    else if (iv.last === iv.first + 1) parts.push(`${iv.first},${iv.last}`);
    else parts.push(`${iv.first}-${iv.last}`);
  }
  return parts.join(',');
}

const toInt = (s: string | undefined): number | undefined => (s !== undefined && /^[+-]?\d+$/.test(s) ? Number(s) : undefined);

export function parseIntervals(text: string | undefined | null, completions: number): Interval[] {
  if (text === undefined || text === null || text === '') return [];
  const out: { first: number; last: number }[] = [];
  for (const part of text.split(',')) {
    const limits = part.split('-');
    const first = toInt(limits[0]);
    if (first === undefined) continue;
    if (first >= completions) break;
    let last = first;
    if (limits.length > 1) {
      const l = toInt(limits[1]);
      if (l === undefined) continue;
      last = Math.min(l, completions - 1);
    }
    const prev = out[out.length - 1];
    if (prev !== undefined && prev.last === first - 1) prev.last = last;
    else out.push({ first, last });
  }
  return out;
}

/**
 * The first `count` indexes below `completions` that no interval of `taken` holds (kube's
 * firstPendingIndexes once active, succeeded, failed and, when only failed pods are replaced, terminating
 * indexes are merged into `taken`).
 */
export function firstPending(taken: Intervals, count: number, completions: number): number[] {
  const result: number[] = [];
  if (count <= 0) return result;
  let candidate = 0;
  for (const iv of taken) {
    for (; candidate < completions && result.length < count && candidate < iv.first; candidate++) result.push(candidate);
    if (candidate < iv.last + 1) candidate = iv.last + 1;
  }
  for (; candidate < completions && result.length < count; candidate++) result.push(candidate);
  return result;
}
