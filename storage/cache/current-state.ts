import type { CacheFilter, CachedObject } from './types.js';

/**
 * The current state of every key under the cache's prefix: a map for single-key reads and an array kept in
 * ascending key order for lists. A write to an existing key replaces its slot; a create or delete splices
 * (a memmove of pointers, microseconds even at 100k keys), so a list never sorts and a namespace list is a
 * binary search plus a slice.
 *
 * Keys compare as JavaScript strings (UTF-16 code units), which equals the store's byte order for the ASCII
 * keys Kubernetes names allow.
 *
 * Objects are the shared `CachedObject`s handed to watchers: a list returns the same instances (invariant 6).
 */
export class CurrentState<T> {
  private readonly byKey = new Map<string, CachedObject<T>>();
  private sorted: CachedObject<T>[] = [];

  /** Builds the state from a listing already in ascending key order (as the store returns it). */
  static fromSorted<T>(items: CachedObject<T>[]): CurrentState<T> {
    const state = new CurrentState<T>();
    for (const item of items) state.byKey.set(item.key, item);
    state.sorted = items;
    return state;
  }

  get size(): number {
    return this.sorted.length;
  }

  get(key: string): CachedObject<T> | undefined {
    return this.byKey.get(key);
  }

  set(object: CachedObject<T>): void {
    const existed = this.byKey.has(object.key);
    this.byKey.set(object.key, object);
    const i = this.lowerBound(object.key);
    if (existed) this.sorted[i] = object;
    else this.sorted.splice(i, 0, object);
  }

  delete(key: string): void {
    if (!this.byKey.delete(key)) return;
    this.sorted.splice(this.lowerBound(key), 1);
  }

  /** The objects that pass `filter`, in ascending key order; a new array of the shared objects. */
  select(filter: CacheFilter<T>): CachedObject<T>[] {
    const { key, keyPrefix, matches } = filter;
    if (key !== undefined) {
      const one = key.startsWith(keyPrefix) ? this.byKey.get(key) : undefined;
      return one !== undefined && (matches === undefined || matches(one.object)) ? [one] : [];
    }
    // Keys with the prefix are contiguous in key order and end before the prefix's successor.
    const from = this.lowerBound(keyPrefix);
    const to = keyPrefix === '' ? this.sorted.length : this.lowerBound(successor(keyPrefix));
    const range = this.sorted.slice(from, to);
    return matches === undefined ? range : range.filter((o) => matches(o.object));
  }

  /** The first index whose key is >= `key`. */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.sorted[mid]!.key < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The smallest string greater than every string that starts with `prefix` (in UTF-16 code unit order). */
function successor(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
