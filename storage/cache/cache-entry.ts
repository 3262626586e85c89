import type { KeyValue, WatchEvent } from '../interface.js';
import type { CacheFilter, CacheWatchEvent, CachedObject, Intern } from './types.js';

/**
 * One change as the cache keeps it (in the ring) and dispatches it: the new object, the previous one (for
 * selector transitions), and the plain event every watcher without a selector gets: the SAME event object,
 * so the API layer's per-encoding memo on `object` serves all of them.
 */
export interface CacheEntry<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly key: string;
  readonly revision: number;
  /** The new state; for DELETED the last state, carrying the delete's revision. */
  readonly object: CachedObject<T>;
  /** The state before this change (undefined for ADDED). */
  readonly prev: CachedObject<T> | undefined;
  readonly event: CacheWatchEvent<T>;
  /** When the cache applied it (ms since epoch), for the ring's time window. */
  readonly at: number;
}

export type Decode<T> = (kv: KeyValue) => T;

/**
 * A cached object decoded on first use. The cache keeps the store's bytes until something reads `object`
 * (a selector, a list or get, a watcher's encoding), so the objects of writes nobody reads never become
 * object graphs: no decode, and far fewer long-lived objects for the garbage collector to copy, which
 * dominated the cost of caching large objects. A value that cannot be decoded throws from `object`, at
 * the read that needs it.
 */
class LazyCachedObject<T> implements CachedObject<T> {
  readonly key: string;
  readonly revision: number;
  // Made on first use: an object nobody reads needs none, and an empty Map costs ~300 bytes per object.
  #memo: Map<string, unknown> | undefined;
  /** The stored bytes until decoded (then undefined). */
  #value: Uint8Array | undefined;
  readonly #createRevision: number;
  #decode: Decode<T> | undefined;
  #object: T | undefined;
  /** See `storedTag`. */
  tag = 0;

  constructor(kv: KeyValue, decode: Decode<T>, intern?: Intern) {
    this.key = kv.key;
    this.revision = kv.modRevision;
    this.#createRevision = kv.createRevision;
    let v = kv.value;
    if (intern !== undefined) ({ value: v, tag: this.tag } = intern(v, kv.modRevision));
    // A value that is a small part of a large buffer (an etcd range response holding many values) is
    // copied, so an object nobody reads does not keep the whole response alive. Smaller buffers are left
    // shared: the etcd store's watch values own theirs (storage/etcd/key-value.ts `ownValue`), and the
    // embedded store keeps its values anyway.
    this.#value = v.buffer.byteLength > 65_536 && v.byteLength < v.buffer.byteLength / 2 ? new Uint8Array(v) : v;
    this.#decode = decode;
  }

  get memo(): Map<string, unknown> {
    return (this.#memo ??= new Map());
  }

  get object(): T {
    if (this.#value !== undefined) {
      this.#object = this.#decode!(this.#kv(this.#value));
      this.#value = undefined;
      this.#decode = undefined;
    }
    return this.#object as T;
  }

  /** See `storedValue`. */
  stored(): Uint8Array | undefined {
    return this.#value;
  }

  /** See `retagStored`. */
  retag(tag: number, value: Uint8Array | undefined): void {
    this.tag = tag;
    if (value !== undefined && this.#value !== undefined) this.#value = value;
  }

  /** See `transientObject`. */
  transient(): T {
    return this.#value === undefined ? (this.#object as T) : this.#decode!(this.#kv(this.#value));
  }

  // The KeyValue is made for the decode only: one object less per cached object.
  #kv(value: Uint8Array): KeyValue {
    return { key: this.key, value, createRevision: this.#createRevision, modRevision: this.revision };
  }
}

/**
 * The decoded object of `c` without keeping it: one not decoded yet is decoded for this call only and stays
 * bytes in the cache (one decoded already is returned as is). For a reader that copies a few fields and
 * lets go (the garbage collector's monitors), so objects nobody else reads are never held as
 * object graphs. Never mutate what it returns.
 */
export function transientObject<T>(c: CachedObject<T>): T {
  return c instanceof LazyCachedObject ? (c.transient() as T) : c.object;
}

/**
 * The store's bytes of `c` while nothing has decoded it (undefined once decoded, and for cached objects made
 * otherwise): a reader that needs the stored form (an update's first state) takes them as they are instead
 * of decoding the object and encoding it again. Never mutate them.
 */
export function storedValue<T>(c: CachedObject<T>): Uint8Array | undefined {
  return c instanceof LazyCachedObject ? c.stored() : undefined;
}

/**
 * What a reader of `storedValue(c)` learned about those bytes, so that it reads them once however often it
 * answers from them (the API layer: whether they are the served JSON). 0 until set, and for cached objects
 * made otherwise.
 */
export function storedTag<T>(c: CachedObject<T>): number {
  return c instanceof LazyCachedObject ? c.tag : 0;
}

/**
 * Sets `storedTag(c)`, and with `value` puts those bytes in place of the stored ones while `c` is undecoded:
 * bytes the cache's decode turns into the very object the stored bytes give (the API layer's served JSON,
 * the stored JSON with its resourceVersion in), so that a form derived once is kept instead of the bytes
 * it came from. No-op for cached objects made otherwise.
 */
export function retagStored<T>(c: CachedObject<T>, tag: number, value?: Uint8Array): void {
  if (c instanceof LazyCachedObject) c.retag(tag, value);
}

/** `intern`: see `WatchCacheOptions.intern` (for the objects the cache keeps; none for passing ones). */
export function cachedObject<T>(kv: KeyValue, decode: Decode<T>, intern?: Intern): CachedObject<T> {
  return new LazyCachedObject(kv, decode, intern);
}

/**
 * Turns one store event into an entry. `knownPrev` is the previous object when the caller holds it (the
 * cache's state: reusing it keeps instances shared); otherwise the event's prev value is decoded.
 */
export function toEntry<T>(
  ev: WatchEvent,
  decode: Decode<T>,
  knownPrev: CachedObject<T> | undefined,
  at: number,
  intern?: Intern,
): CacheEntry<T> {
  const revision = ev.kv.modRevision;
  const prev = knownPrev ?? (ev.prev === undefined ? undefined : cachedObject(ev.prev, decode));
  let type: CacheEntry<T>['type'];
  let object: CachedObject<T>;
  if (ev.type === 'put') {
    type = ev.prev === undefined ? 'ADDED' : 'MODIFIED';
    object = cachedObject(ev.kv, decode, intern);
  } else {
    type = 'DELETED';
    // The deleted object is its last state, stamped with the delete's revision (as kube's DELETED event).
    object = cachedObject({ ...ev.prev, modRevision: revision }, decode);
  }
  return { type, key: ev.kv.key, revision, object, prev, event: { type, revision, object }, at };
}

/**
 * What a watcher with `filter` receives for `entry`, or undefined. Selector transitions: an object that
 * stops matching is DELETED (carrying its new state), one that starts matching is ADDED.
 */
export function eventFor<T>(entry: CacheEntry<T>, filter: CacheFilter<T>): CacheWatchEvent<T> | undefined {
  if (filter.key !== undefined && entry.key !== filter.key) return undefined;
  if (!entry.key.startsWith(filter.keyPrefix)) return undefined;
  const matches = filter.matches;
  if (matches === undefined) return entry.event;
  if (entry.type !== 'MODIFIED') return matches(entry.object.object) ? entry.event : undefined;
  const now = matches(entry.object.object);
  const before = entry.prev !== undefined && matches(entry.prev.object);
  if (now && before) return entry.event;
  if (now) return { type: 'ADDED', revision: entry.revision, object: entry.object };
  if (before) return { type: 'DELETED', revision: entry.revision, object: entry.object };
  return undefined;
}
