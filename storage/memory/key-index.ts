import type { KeyValue } from '../interface.js';
import { KeyHistory } from './key-history.js';
import { compareCodePoints, compareNative, hasHighUnits, lowerBound, type KeyCompare } from './key-order.js';

export interface IndexListResult {
  readonly items: KeyValue[];
  readonly more: boolean;
  readonly count: number;
}

/**
 * Every key with retained history: a Map for point lookups and a sorted key array for ranges.
 *
 * Keys created in ascending order (the common case: names with counters, timestamps) are appended; others
 * wait in `unsorted` and are merged in one O(n + k log k) pass before the next range read, so a burst of
 * random creates does not pay an O(n) array insert each.
 *
 * The index holds pending (not yet durable) versions too; callers pick what they see through the revision
 * they read at. Keys leave the index only when compaction empties their history.
 */
export class KeyIndex {
  private readonly histories = new Map<string, KeyHistory>();
  private sorted: string[] = [];
  private unsorted: string[] = [];
  private cmp: KeyCompare = compareNative;
  /** Keys written since the last compaction that may still have history to drop. */
  private compactWorklist = new Set<string>();

  get size(): number {
    return this.histories.size;
  }

  history(key: string): KeyHistory | undefined {
    return this.histories.get(key);
  }

  /** Newest state of `key`, pending versions included. */
  latest(key: string): KeyValue | undefined {
    return this.histories.get(key)?.latest();
  }

  at(key: string, rev: number): KeyValue | undefined {
    return this.histories.get(key)?.at(rev);
  }

  /**
   * Appends a version (undefined: a tombstone) at `rev`, which must exceed every revision in the index;
   * `expiresAt` is its ttl's end in epoch ms (0: none).
   */
  append(key: string, rev: number, kv: KeyValue | undefined, expiresAt = 0): void {
    let h = this.histories.get(key);
    if (h === undefined) {
      h = new KeyHistory();
      this.histories.set(key, h);
      this.insertKey(key);
    }
    h.append(rev, kv, expiresAt);
    if (h.compactable) this.compactWorklist.add(key);
  }

  private insertKey(key: string): void {
    if (this.cmp === compareNative && hasHighUnits(key)) this.cmp = compareCodePoints;
    const last = this.sorted[this.sorted.length - 1];
    if (this.unsorted.length === 0 && (last === undefined || this.cmp(last, key) < 0)) this.sorted.push(key);
    else this.unsorted.push(key);
  }

  /** The sorted key array with pending inserts merged in. */
  private keys(): string[] {
    if (this.unsorted.length === 0) return this.sorted;
    const cmp = this.cmp;
    const add = this.unsorted.sort(cmp);
    const old = this.sorted;
    const out = new Array<string>(old.length + add.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length && j < add.length) out[k++] = cmp(old[i]!, add[j]!) <= 0 ? old[i++]! : add[j++]!;
    while (i < old.length) out[k++] = old[i++]!;
    while (j < add.length) out[k++] = add[j++]!;
    this.sorted = out;
    this.unsorted = [];
    return out;
  }

  /**
   * Keys under `prefix` from `startKey` (inclusive) on, as they were at `rev`. `limit` 0 means no limit.
   * `count` covers every existing key in the range, so the whole range is walked even with a limit.
   */
  list(prefix: string, startKey: string, limit: number, countOnly: boolean, rev: number): IndexListResult {
    const keys = this.keys();
    const cmp = hasHighUnits(startKey) ? compareCodePoints : this.cmp;
    const items: KeyValue[] = [];
    let count = 0;
    let more = false;
    for (let i = lowerBound(keys, startKey, cmp); i < keys.length; i++) {
      const key = keys[i]!;
      if (!key.startsWith(prefix)) break;
      const kv = this.histories.get(key)!.at(rev);
      if (kv === undefined) continue;
      count++;
      if (countOnly) continue;
      if (limit === 0 || items.length < limit) items.push(kv);
      else more = true;
    }
    return { items, more, count };
  }

  /** Applies compaction at `rev` to every key that may have history to drop; forgets emptied keys. */
  compact(rev: number): void {
    const removed = new Set<string>();
    const next = new Set<string>();
    for (const key of this.compactWorklist) {
      const h = this.histories.get(key);
      if (h === undefined) continue;
      h.compact(rev);
      if (h.empty) {
        this.histories.delete(key);
        removed.add(key);
      } else if (h.compactable) {
        next.add(key);
      }
    }
    this.compactWorklist = next;
    if (removed.size > 0) {
      this.sorted = this.keys().filter((k) => !removed.has(k));
    }
  }

  /** Every key with its history, in no particular order (for snapshots). */
  entries(): IterableIterator<[string, KeyHistory]> {
    return this.histories.entries();
  }
}
