import type { CacheEntry } from './cache-entry.js';

export interface RingLimits {
  /** Always keep at least this many newest events (time does not evict below it). */
  readonly minEvents: number;
  /** Never keep more. */
  readonly maxEvents: number;
  /** Events older than this (ms) are dropped while more than `minEvents` are kept. */
  readonly windowMs: number;
}

/**
 * The ring of recent events: the history window the cache serves from memory (kube's watchCache ring,
 * 75 s / 100..102,400 events). `startRevision` is the oldest revision a watch can resume from: every event
 * with a revision above it is in the ring. A circular array that grows by doubling up to `maxEvents`, so
 * an idle resource costs a few slots, not 100k.
 *
 * Events of one transaction share a revision; eviction may drop part of one, and then moves
 * `startRevision` to that revision, so a resume from just below it goes to the store instead.
 */
export class EventRing<T> {
  private buf: (CacheEntry<T> | undefined)[];
  private head = 0;
  private count = 0;
  private start: number;

  constructor(
    private readonly limits: RingLimits,
    startRevision: number,
  ) {
    this.buf = new Array(Math.min(64, limits.maxEvents));
    this.start = startRevision;
  }

  /** Every event with a revision > `startRevision` is in the ring. */
  get startRevision(): number {
    return this.start;
  }

  get size(): number {
    return this.count;
  }

  /** Empties the ring: the history now starts at `startRevision` (after a re-list). */
  reset(startRevision: number): void {
    this.buf = new Array(Math.min(64, this.limits.maxEvents));
    this.head = 0;
    this.count = 0;
    this.start = startRevision;
  }

  /** Appends events (in revision order), then evicts what the limits say. */
  push(entries: readonly CacheEntry<T>[], now: number): void {
    for (const e of entries) {
      if (this.count === this.limits.maxEvents) this.evictOne();
      if (this.count === this.buf.length) this.grow();
      this.buf[(this.head + this.count) % this.buf.length] = e;
      this.count++;
    }
    this.evictOld(now);
  }

  /** Drops events past the time window (also called by the ticker on quiet resources). */
  evictOld(now: number): void {
    const cutoff = now - this.limits.windowMs;
    while (this.count > this.limits.minEvents && this.buf[this.head]!.at < cutoff) this.evictOne();
  }

  /** The events with revision > `revision`, oldest first. Requires `revision >= startRevision`. */
  since(revision: number): CacheEntry<T>[] {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    const out: CacheEntry<T>[] = new Array(this.count - lo);
    for (let i = lo; i < this.count; i++) out[i - lo] = this.at(i);
    return out;
  }

  private at(i: number): CacheEntry<T> {
    return this.buf[(this.head + i) % this.buf.length]!;
  }

  private evictOne(): void {
    const e = this.buf[this.head]!;
    this.buf[this.head] = undefined;
    this.head = (this.head + 1) % this.buf.length;
    this.count--;
    if (e.revision > this.start) this.start = e.revision;
  }

  private grow(): void {
    const size = Math.min(this.buf.length * 2, this.limits.maxEvents);
    const next: (CacheEntry<T> | undefined)[] = new Array(size);
    for (let i = 0; i < this.count; i++) next[i] = this.at(i);
    this.buf = next;
    this.head = 0;
  }
}
