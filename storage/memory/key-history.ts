import type { KeyValue } from '../interface.js';

/**
 * The retained versions of one key, oldest first: parallel arrays of revisions, states and expiry times,
 * where an undefined state is a tombstone (the key was deleted at that revision). Versions are only
 * appended (at increasing revisions) and only dropped from the front by compaction; KeyValue objects are
 * shared with watch events and never mutated.
 *
 * `expiries[i]` is when version i's ttl runs out, in ms since the epoch (wall clock, so it means the same
 * after a restart); 0 for no ttl and for tombstones. Only the newest version's expiry is ever acted on; the
 * older ones are kept so a snapshot of any durable revision carries the right one.
 */
export class KeyHistory {
  readonly revs: number[] = [];
  readonly kvs: (KeyValue | undefined)[] = [];
  readonly expiries: number[] = [];

  /** The newest state, including versions not yet durable. */
  latest(): KeyValue | undefined {
    const n = this.kvs.length;
    return n === 0 ? undefined : this.kvs[n - 1];
  }

  /** The state at `rev`: the newest version at or below it; undefined if none or a tombstone. */
  at(rev: number): KeyValue | undefined {
    const revs = this.revs;
    let i = revs.length - 1;
    if (i < 0) return undefined;
    if (revs[i]! <= rev) return this.kvs[i];
    // Older read: binary search for the last version with revision <= rev.
    let lo = 0;
    let hi = i; // revs[hi] > rev
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (revs[mid]! <= rev) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : this.kvs[lo - 1];
  }

  /** The newest version's expiry (0: none, or no versions). */
  latestExpiry(): number {
    const n = this.expiries.length;
    return n === 0 ? 0 : this.expiries[n - 1]!;
  }

  append(rev: number, kv: KeyValue | undefined, expiresAt = 0): void {
    this.revs.push(rev);
    this.kvs.push(kv);
    this.expiries.push(kv === undefined ? 0 : expiresAt);
  }

  /**
   * Drops every version older than the newest one at or below `rev`, and that one too if it is a
   * tombstone; versions above `rev` stay. Reads at `rev` and later are unchanged.
   */
  compact(rev: number): void {
    const revs = this.revs;
    // Index of the newest version <= rev.
    let j = -1;
    for (let i = 0; i < revs.length && revs[i]! <= rev; i++) j = i;
    if (j < 0) return;
    const keepFrom = this.kvs[j] === undefined ? j + 1 : j;
    if (keepFrom > 0) {
      revs.splice(0, keepFrom);
      this.kvs.splice(0, keepFrom);
      this.expiries.splice(0, keepFrom);
    }
  }

  get empty(): boolean {
    return this.revs.length === 0;
  }

  /** True when a later compaction could still shrink this history. */
  get compactable(): boolean {
    return this.revs.length > 1 || (this.revs.length === 1 && this.kvs[0] === undefined);
  }
}
