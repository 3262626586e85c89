/**
 * The storage boundary of the generic registry: stored bytes and watch cache objects to the shape the
 * resource serves, and back. For most kinds the two shapes are the same and this is the object codec plus
 * marking cache objects as shared. For a view (`KindStrategy.storedAs`) every read converts the stored
 * object with `fromStorage` (apiVersion and kind set to the view's) and every write converts with
 * `toStorage` (apiVersion and kind set to the stored kind's).
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
import type { CachedObject, CacheWatcher, CacheWatchEvent } from '../../../storage/cache/types.js';
import type { KeyValue } from '../../../storage/interface.js';
import { groupOf, type KindStrategy } from '../kind-strategy.js';
import { decodeObject, encodeObject } from './object-codec.js';

export interface StoredShape {
  /** False when the resource serves what it stores (nothing is converted). */
  readonly converts: boolean;
  /** A served-shape object from a stored one the caller owns (it may be shared with the result). */
  fromStored(stored: KubeObject): KubeObject;
  /** A fresh served-shape object from stored bytes. */
  decode(kv: KeyValue): KubeObject;
  /** The stored bytes of a served-shape object (`obj` is not changed). */
  encode(obj: KubeObject): Uint8Array;
  /**
   * The served form of a watch cache object: converted once and memoized (views), marked as shared for
   * the response encoders. Never mutate the result.
   */
  cached(c: CachedObject<KubeObject>): CachedObject<KubeObject>;
  /** A watcher whose events carry `cached(...)` objects (the watcher itself when nothing converts). */
  watcher(w: CacheWatcher<KubeObject>): CacheWatcher<KubeObject>;
}

/** Sets apiVersion and kind, first in key order as Kubernetes prints them, on a fresh shallow copy. */
function typed(obj: KubeObject, apiVersion: string, kind: string): KubeObject {
  const out = { apiVersion, kind, ...obj } as KubeObject;
  out.apiVersion = apiVersion;
  out.kind = kind;
  return out;
}

const identity: StoredShape = Object.freeze({
  converts: false,
  fromStored: (stored: KubeObject) => stored,
  decode: decodeObject,
  encode: encodeObject,
  cached(c: CachedObject<KubeObject>) {
    shareEncodings(c.object, c.memo); // responses reuse the object's memoized encodings
    return c;
  },
  watcher: (w: CacheWatcher<KubeObject>) => w,
});

/** The storage boundary of `strategy` under `naming`. */
export function storedShape(strategy: KindStrategy, naming: Naming): StoredShape {
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
      shareEncodings(converted.object, converted.memo);
      c.memo.set(memoKey, converted);
    }
    return converted;
  };

  return Object.freeze({
    converts: true,
    fromStored,
    decode: (kv: KeyValue) => fromStored(decodeObject(kv)),
    encode: (obj: KubeObject) => encodeObject(typed(view.toStorage(obj), storedApiVersion, view.kind.kind)),
    cached,
    watcher: (w: CacheWatcher<KubeObject>) => convertedWatcher(w, cached),
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
