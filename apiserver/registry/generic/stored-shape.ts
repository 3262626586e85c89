/**
 * The storage boundary of the generic registry: stored bytes and watch cache objects to the shape the
 * resource serves, and back. Three kinds of boundary:
 *
 * - most kinds serve what they store: this is the object codec plus marking cache objects as shared;
 * - a view (`KindStrategy.storedAs`) converts synchronously: every read with `fromStorage` (apiVersion and
 *   kind set to the view's), every write with `toStorage` (apiVersion and kind set to the stored kind's);
 * - a versioned kind (`KindStrategy.versionedStorage`, custom resources) may need a webhook: see
 *   versioned-shape.ts.
 *
 * Methods answer `T | Promise<T>`: a promise only where a conversion has to wait, so the registry awaits
 * nothing new on the other paths (`MaybePromise` in registry/versioned-storage.ts).
 *
 * Encode once, per view: a watch cache object is converted on first use and the converted object is kept
 * in the cached object's `memo` (under `view:<apiVersion>`), as a CachedObject of its own whose memo lives
 * there too; the converted object is marked with `shareEncodings`, so lists, gets and every watcher of the
 * view reuse one conversion and one serialization per media type, however many ask.
 */
import type { KubeObject } from '../../api/object.js';
import { apiVersionOf } from '../../api/object.js';
import { shareEncodings } from '../../codec/shared-json.js';
import type { Naming } from '../../naming/naming.js';
import { deepFreeze } from '../../../storage/cache/deep-freeze.js';
import type { CachedObject, CacheWatcher, CacheWatchEvent } from '../../../storage/cache/types.js';
import type { KeyValue } from '../../../storage/interface.js';
import { groupOf, type KindStrategy } from '../kind-strategy.js';
import type { MaybePromise } from '../versioned-storage.js';
import { decodeObject, encodeObject } from './object-codec.js';
import { versionedShape } from './versioned-shape.js';

export interface StoredShape {
  /** False when the resource serves what it stores (nothing is converted). */
  readonly converts: boolean;
  /** Served-shape objects from stored ones the caller owns (they may be changed and shared with the result). */
  fromStored(stored: KubeObject[]): MaybePromise<KubeObject[]>;
  /** A fresh served-shape object from stored bytes. */
  decode(kv: KeyValue): MaybePromise<KubeObject>;
  /** The stored bytes of a served-shape object (`obj` is not changed). */
  encode(obj: KubeObject): MaybePromise<Uint8Array>;
  /**
   * What a write answers after storing `bytes` made from `obj` (the caller's, may be returned): `obj`, or
   * for a versioned kind the stored bytes read back, as Kubernetes decodes what it wrote.
   */
  written(obj: KubeObject, bytes: Uint8Array): MaybePromise<KubeObject>;
  /**
   * The served form of a watch cache object: converted once and memoized, marked as shared for the
   * response encoders. Never mutate the result.
   */
  cached(c: CachedObject<KubeObject>): MaybePromise<CachedObject<KubeObject>>;
  /** The served objects of a cache listing, in order (`cached(...).object` of each; one conversion for all). */
  cachedList(cs: readonly CachedObject<KubeObject>[]): MaybePromise<KubeObject[]>;
  /** A watcher whose events carry `cached(...)` objects (the watcher itself when nothing converts). */
  watcher(w: CacheWatcher<KubeObject>): CacheWatcher<KubeObject>;
  /**
   * The object label and field selectors see for a stored (possibly shared) object: the stored object
   * itself, or a versioned kind's served form when it is at hand without a webhook call.
   */
  selectable(stored: KubeObject): KubeObject;
}

/** Sets apiVersion and kind, first in key order as Kubernetes prints them, on a fresh shallow copy. */
function typed(obj: KubeObject, apiVersion: string, kind: string): KubeObject {
  const out = { apiVersion, kind, ...obj } as KubeObject;
  out.apiVersion = apiVersion;
  out.kind = kind;
  return out;
}

const same = (obj: KubeObject): KubeObject => obj;

function sharedCache(c: CachedObject<KubeObject>): CachedObject<KubeObject> {
  shareEncodings(c.object, c.memo); // responses reuse the object's memoized encodings
  return c;
}

const identity: StoredShape = Object.freeze({
  converts: false,
  fromStored: (stored: KubeObject[]) => stored,
  decode: decodeObject,
  encode: encodeObject,
  written: same,
  cached: sharedCache,
  cachedList: (cs: readonly CachedObject<KubeObject>[]) => cs.map((c) => sharedCache(c).object),
  watcher: (w: CacheWatcher<KubeObject>) => w,
  selectable: same,
});

/** The storage boundary of `strategy` under `naming`. */
export function storedShape(strategy: KindStrategy, naming: Naming): StoredShape {
  if (strategy.versionedStorage !== undefined) return versionedShape(strategy.versionedStorage);
  const view = strategy.storedAs;
  if (view === undefined) return identity;
  const apiVersion = apiVersionOf(groupOf(strategy, naming), strategy.version);
  const storedApiVersion = apiVersionOf(groupOf(view.kind, naming), view.kind.version);
  const memoKey = `view:${apiVersion}`;

  const fromStored = (stored: KubeObject): KubeObject => typed(view.fromStorage(stored), apiVersion, strategy.kind);
  const cached = (c: CachedObject<KubeObject>): CachedObject<KubeObject> => {
    let converted = c.memo.get(memoKey) as CachedObject<KubeObject> | undefined;
    if (converted === undefined) {
      converted = { key: c.key, object: fromStored(c.object), revision: c.revision, memo: new Map() };
      // Shared like the cache's own objects, so frozen like them when the cache freezes (deep-freeze.ts); the
      // memo Map inside stays writable, as the cache's own.
      if (Object.isFrozen(c.object)) {
        deepFreeze(converted.object);
        Object.freeze(converted);
      }
      shareEncodings(converted.object, converted.memo);
      c.memo.set(memoKey, converted);
    }
    return converted;
  };

  return Object.freeze({
    converts: true,
    fromStored: (stored: KubeObject[]) => stored.map(fromStored),
    decode: (kv: KeyValue) => fromStored(decodeObject(kv)),
    encode: (obj: KubeObject) => encodeObject(typed(view.toStorage(obj), storedApiVersion, view.kind.kind)),
    written: same,
    cached,
    cachedList: (cs: readonly CachedObject<KubeObject>[]) => cs.map((c) => cached(c).object),
    watcher: (w: CacheWatcher<KubeObject>) => convertedWatcher(w, cached),
    // A view's selectable fields read the stored shape (KindStrategy.storedAs).
    selectable: same,
  });
}

/** `w` with each event's object replaced by its served form; closing or breaking off ends `w`. */
function convertedWatcher(
  w: CacheWatcher<KubeObject>,
  convert: (c: CachedObject<KubeObject>) => CachedObject<KubeObject>,
): CacheWatcher<KubeObject> {
  return {
    started: w.started,
    close: () => w.close(),
    async *[Symbol.asyncIterator](): AsyncGenerator<CacheWatchEvent<KubeObject>> {
      for await (const event of w) yield event.type === 'BOOKMARK' ? event : { type: event.type, revision: event.revision, object: convert(event.object) };
    },
  };
}
