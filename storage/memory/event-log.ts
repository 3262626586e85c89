import type { WatchBatch } from '../interface.js';

/**
 * The committed change history since the compacted revision: one batch per transaction, in revision order,
 * holding the same KeyValue objects (and value buffers) as the key histories. Watchers catch up from it.
 * Only durable transactions are appended. Trimmed by compaction to batches at or above the compacted
 * revision, so a watch from exactly the compacted revision still gets that revision's events.
 */
export class EventLog {
  private batches: WatchBatch[] = [];
  /** Batches before `head` are trimmed; the array is spliced lazily to keep trimming O(1) amortized. */
  private head = 0;

  append(batch: WatchBatch): void {
    this.batches.push(batch);
  }

  /** Drops batches with revision < `rev`. */
  trim(rev: number): void {
    const b = this.batches;
    let h = this.head;
    while (h < b.length && b[h]!.revision < rev) h++;
    if (h > 1024 && h * 2 > b.length) {
      this.batches = b.slice(h);
      h = 0;
    }
    this.head = h;
  }

  /** Position of the first batch with revision >= `rev` (== `end` when none). */
  seek(rev: number): number {
    const b = this.batches;
    let lo = this.head;
    let hi = b.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (b[mid]!.revision < rev) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  get end(): number {
    return this.batches.length;
  }

  /** The batch at a position from `seek`; valid until the next `trim`. */
  get(pos: number): WatchBatch {
    return this.batches[pos]!;
  }

  /** Batches with exactly revision `rev` (at most one). */
  batchAt(rev: number): WatchBatch | undefined {
    const pos = this.seek(rev);
    const b = this.batches[pos];
    return b !== undefined && b.revision === rev ? b : undefined;
  }
}
