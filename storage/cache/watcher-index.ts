import { unavailable } from '../errors.js';
import { eventFor, type CacheEntry } from './cache-entry.js';
import type { CacheWatcherImpl } from './cache-watcher.js';

/**
 * The live watchers of one cache, indexed so that dispatching an event costs work only for the watchers
 * that can want it (kube's cacher indexes by namespace and by name the same way):
 * - watchers of one key (`filter.key`) by that key;
 * - watchers whose `keyPrefix` ends in "/" (the resource, or one namespace) by that prefix: an event's key
 *   is looked up once per "/" it contains past the cache prefix;
 * - any other prefix in a short list checked one by one.
 * Each candidate then filters the event once (`eventFor`: key, prefix, selector transitions).
 */
export class WatcherIndex<T> {
  private readonly byKey = new Map<string, Set<CacheWatcherImpl<T>>>();
  private readonly byPrefix = new Map<string, Set<CacheWatcherImpl<T>>>();
  private readonly others = new Set<CacheWatcherImpl<T>>();
  private count = 0;
  private batch = 0;

  /** `cachePrefix`: every key the cache holds starts with it. */
  constructor(private readonly cachePrefix: string) {}

  get size(): number {
    return this.count;
  }

  add(w: CacheWatcherImpl<T>): void {
    const { key, keyPrefix } = w.filter;
    if (key !== undefined) addTo(this.byKey, key, w);
    else if (keyPrefix.endsWith('/') && keyPrefix.startsWith(this.cachePrefix)) addTo(this.byPrefix, keyPrefix, w);
    else this.others.add(w);
    this.count++;
  }

  /** Removes `w`; true if it was there. */
  remove(w: CacheWatcherImpl<T>): boolean {
    const { key, keyPrefix } = w.filter;
    let removed: boolean;
    if (key !== undefined) removed = removeFrom(this.byKey, key, w);
    else if (keyPrefix.endsWith('/') && keyPrefix.startsWith(this.cachePrefix)) removed = removeFrom(this.byPrefix, keyPrefix, w);
    else removed = this.others.delete(w);
    if (removed) this.count--;
    return removed;
  }

  all(): CacheWatcherImpl<T>[] {
    const out = [...this.others];
    for (const set of this.byKey.values()) out.push(...set);
    for (const set of this.byPrefix.values()) out.push(...set);
    return out;
  }

  /** Queues the entries (one store batch, in revision order) to every watcher that wants them. */
  dispatch(entries: readonly CacheEntry<T>[]): void {
    if (this.count === 0) return;
    const batch = ++this.batch;
    const start = Math.max(0, this.cachePrefix.length - 1);
    for (const entry of entries) {
      const key = entry.key;
      if (this.byKey.size > 0) offerAll(this.byKey.get(key), entry, batch);
      if (this.byPrefix.size > 0) {
        for (let i = key.indexOf('/', start); i >= 0; i = key.indexOf('/', i + 1)) {
          offerAll(this.byPrefix.get(key.slice(0, i + 1)), entry, batch);
        }
      }
      for (const w of this.others) offer(w, entry, batch);
    }
  }
}

function offerAll<T>(set: Set<CacheWatcherImpl<T>> | undefined, entry: CacheEntry<T>, batch: number): void {
  if (set !== undefined) for (const w of set) offer(w, entry, batch);
}

function offer<T>(w: CacheWatcherImpl<T>, entry: CacheEntry<T>, batch: number): void {
  if (entry.revision <= w.minLiveRevision) return;
  let event;
  try {
    event = eventFor(entry, w.filter);
  } catch (err) {
    // A selector that throws ends its own watcher, never the dispatch to the others.
    w.fail(unavailable(`watch filter failed on ${entry.key}: ${String(err)}`, err), true);
    return;
  }
  if (event !== undefined) w.pushLive(event, batch);
}

function addTo<T>(map: Map<string, Set<T>>, k: string, v: T): void {
  let set = map.get(k);
  if (set === undefined) map.set(k, (set = new Set()));
  set.add(v);
}

function removeFrom<T>(map: Map<string, Set<T>>, k: string, v: T): boolean {
  const set = map.get(k);
  if (set === undefined || !set.delete(v)) return false;
  if (set.size === 0) map.delete(k);
  return true;
}
