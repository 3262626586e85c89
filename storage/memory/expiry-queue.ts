/** One key version's time to live running out: delete `key` at `at` if `modRevision` is still its newest. */
export interface Expiry {
  /** Epoch milliseconds (wall clock: expiries are persisted and must mean the same after a restart). */
  readonly at: number;
  readonly key: string;
  readonly modRevision: number;
}

/**
 * The pending expiries, soonest first (a binary min-heap on `at`).
 *
 * Rewriting a key does not remove its old entry: searching the heap for it would cost O(n) per write.
 * Stale entries are dropped when they come due, by the caller's check against the key's newest version,
 * so the heap holds one entry per ttl write within the last ttl period, which for Events (written a few
 * times each within `--event-ttl`) stays close to the number of expiring keys.
 */
export class ExpiryQueue {
  private readonly heap: Expiry[] = [];

  get size(): number {
    return this.heap.length;
  }

  /** The soonest entry, or undefined when empty. */
  peek(): Expiry | undefined {
    return this.heap[0];
  }

  push(e: Expiry): void {
    const heap = this.heap;
    heap.push(e);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.at <= e.at) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = e;
  }

  /** Removes and returns the entries due at `now` (`at <= now`), soonest first, at most `max` of them. */
  popDue(now: number, max: number): Expiry[] {
    const out: Expiry[] = [];
    while (out.length < max && this.heap.length > 0 && this.heap[0]!.at <= now) out.push(this.pop());
    return out;
  }

  private pop(): Expiry {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    const n = heap.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && heap[r]!.at < heap[l]!.at ? r : l;
      if (heap[c]!.at >= last.at) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = last;
    return top;
  }
}
