/**
 * etcd has no API that returns the compacted revision. This tracker keeps the highest one seen (from our own
 * compactions, a watch's `compact_revision`, a failed compaction) and discovers the exact value when asked,
 * by reads at chosen revisions: a read at `rev` succeeds iff `rev >= compacted revision`, so a binary search
 * between what is known to fail and the current revision (always readable) finds it. The usual case costs
 * one read: the known value is still the compacted revision.
 *
 * Compaction by another client (another replica's compactor) is found the same way. A store compacted at
 * revision 1 (which discards nothing) reports 0.
 */
export class CompactionTracker {
  private known = 0;

  /** The highest compacted revision observed so far (a lower bound of the true one). */
  get lowerBound(): number {
    return this.known;
  }

  /** Records a revision the store is known to be compacted at (or above). */
  observe(revision: number): void {
    if (revision > this.known) this.known = revision;
  }

  /**
   * The compacted revision. `readable(rev)` tells whether a read at `rev` succeeds (false when compacted);
   * `current` is a current revision; `failedAt`, when given, a revision whose read failed as compacted.
   */
  async discover(readable: (rev: number) => Promise<boolean>, current: number, failedAt = 0): Promise<number> {
    // Revisions 0 and 1 both mean "no history lost" (etcd's first revision is 1): report what we knew.
    const settle = (found: number): number => {
      const result = found <= 1 ? this.known : found;
      this.observe(result);
      return result;
    };
    // The answer is at least `lo` (known, or just above a failed read) and at most `current` (always
    // readable).
    let lo = Math.min(Math.max(this.known, failedAt + 1, 1), Math.max(current, this.known));
    if (lo >= current || (await readable(lo))) return settle(lo);
    lo += 1;
    let hi = current;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (await readable(mid)) hi = mid;
      else lo = mid + 1;
    }
    return settle(lo);
  }
}
