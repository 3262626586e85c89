import type { RangeCall } from './range.js';

export interface PrefixCheck {
  /** Nothing under the prefix changed from `from - 1` to `to`. */
  readonly unchanged: boolean;
  /** The number of keys under the prefix at `from - 1`. */
  readonly countBefore: number;
}

/**
 * Whether the keys in `[key, rangeEnd)` at revision `to` are exactly those at `from - 1`, read from etcd's
 * own MVCC state (so it holds whatever the watch stream has or has not delivered yet): no key at `to` was
 * written at or after `from` (one keys-only range with `min_mod_revision`, at most one key back), and the key
 * count at `to` equals the count at `from - 1` (with no write left standing, keys can only have gone).
 * `countBefore` is that count when the caller knows it; otherwise a count-only range at `from - 1` reads it,
 * which throws etcd's error when that revision is compacted.
 *
 * A key created and deleted again between the two revisions leaves no trace in either read: the state is
 * still the same, but its two events may exist. Cost: etcd reads every value under the prefix for the
 * filtered range (it filters by revision after reading), so this is for answers someone waits for.
 */
export async function prefixUnchanged(
  range: RangeCall,
  key: Buffer,
  rangeEnd: Buffer,
  from: number,
  to: number,
  countBefore: number | undefined,
): Promise<PrefixCheck> {
  const [written, before] = await Promise.all([
    range({ key, range_end: rangeEnd, revision: to, keys_only: true, min_mod_revision: from, limit: 1 }),
    // Revision 0 would mean "now" to etcd: before revision 1 nothing existed.
    countBefore !== undefined || from <= 1 ? undefined : range({ key, range_end: rangeEnd, revision: from - 1, count_only: true }),
  ]);
  // etcd counts every key in the range at `to`: its revision filters apply to the keys returned only.
  const counted = countBefore ?? (before === undefined ? 0 : before.count);
  return { unchanged: written.kvs.length === 0 && written.count === counted, countBefore: counted };
}
