/**
 * The served JSON of a watch cache object of a kind served as stored, taken from its stored bytes while
 * nothing has decoded it: the bytes with the resourceVersion spliced in (object-codec.ts `servedJson`, byte
 * for byte what decoding with `decodeObject`, the API's watch caches' decode, and stringifying give): on etcd
 * made as the value enters the cache (`internServed`), elsewhere on first use and then kept in place of the
 * stored bytes (they decode to the same object: `retagStored`), so lists and watch events send them as they
 * are and the object is never decoded for them.
 */
import type { KubeObject } from '../../api/object.js';
import { retagStored, storedTag, storedValue } from '../../../storage/cache/cache-entry.js';
import type { CachedObject } from '../../../storage/cache/types.js';
import { servedJson } from './object-codec.js';

/** `storedTag` of cached objects: their stored bytes are the served JSON (resourceVersion in), or cannot be. */
const SERVED_JSON = 1;
const NOT_SERVED_JSON = 2;

/**
 * The watch cache's `intern` for a store whose values the cache holds alone (etcd): each value kept as its
 * served JSON from the start, tagged, so `servedBytes` takes it as it is (a value not in `encodeObject`'s
 * form stays as stored, tagged to be decoded).
 */
export function internServed(value: Uint8Array, revision: number): { value: Uint8Array; tag: number } {
  const served = servedJson(value, revision);
  return served === undefined ? { value, tag: NOT_SERVED_JSON } : { value: served, tag: SERVED_JSON };
}

/**
 * `c`'s served JSON as bytes, or undefined when it is decoded already (its memoized JSON serves) or its
 * bytes are not what `encodeObject` writes (another program's spacing, a stored resourceVersion: decode).
 * Only for cached objects of a kind that serves what it stores (`StoredShape.converts` false); never mutate
 * what it returns.
 */
export function servedBytes(c: CachedObject<KubeObject>): Uint8Array | undefined {
  const value = storedValue(c);
  if (value === undefined) return undefined;
  const tag = storedTag(c);
  if (tag === SERVED_JSON) return value;
  if (tag !== 0) return undefined;
  // Not interned as it entered the cache (the embedded store's, which it shares): derived now, kept from now on.
  const interned = internServed(value, c.revision);
  retagStored(c, interned.tag, interned.value);
  return interned.tag === SERVED_JSON ? interned.value : undefined;
}
