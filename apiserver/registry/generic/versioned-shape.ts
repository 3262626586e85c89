/**
 * The storage boundary of a versioned kind (`KindStrategy.versionedStorage`: the served versions of a
 * custom resource). Stored objects are read through `read` (prune, default, convert), written through
 * `write` (convert to the storage version); both may wait for a conversion webhook, and only then is a
 * promise returned.
 *
 * Watch cache objects hold the stored bytes' JSON, in whatever version they were written; their served
 * form is computed per served version on first use and memoized per cached object in this shape (one shape
 * per registry, i.e. per served version of one build of the kind), together with its own shared-encodings
 * memo: lists, gets and every watcher of the version share one conversion and one serialization per media
 * type. A conversion in flight is memoized too, so N watchers of one event cause one webhook call; a
 * failed one is forgotten, so the next reader tries again. A cache listing converts what is not memoized
 * yet in one `read` (one ConversionReview).
 *
 * Failures: `read`/`write` throw StatusErrors for the request at hand. A watch whose event cannot be
 * converted ends with an InternalError Status (the ERROR event), as Kubernetes' watch does when an object
 * fails to decode; other watchers, other versions and the cache itself carry on.
 */
import type { KubeObject } from '../../api/object.js';
import { shareEncodings } from '../../codec/shared-json.js';
import { internalError } from '../../errors/constructors.js';
import { isStatusError } from '../../errors/status-error.js';
import { deepFreeze } from '../../../storage/cache/deep-freeze.js';
import type { CachedObject, CacheWatcher, CacheWatchEvent } from '../../../storage/cache/types.js';
import type { KeyValue } from '../../../storage/interface.js';
import { jsonClone } from '../patch/json-value.js';
import { isPromise, thenMaybe, type MaybePromise, type VersionedStorage } from '../versioned-storage.js';
import { decodeObject, encodeObject } from './object-codec.js';
import type { StoredShape } from './stored-shape.js';

type Cached = CachedObject<KubeObject>;

const decoder = new TextDecoder();

export function versionedShape(storage: VersionedStorage): StoredShape {
  /** The served form of each cache object (the cache's instances), or its conversion in flight. */
  const served = new WeakMap<Cached, Cached | Promise<Cached>>();
  /** What selectors see per stored object: a served form computed without a webhook, else the object itself. */
  const selectables = new WeakMap<KubeObject, KubeObject>();

  const keep = (c: Cached, object: KubeObject): Cached => {
    // Shared like the cache's own objects, so frozen like them when the cache freezes (deep-freeze.ts).
    if (Object.isFrozen(c.object)) deepFreeze(object);
    const out: Cached = { key: c.key, object, revision: c.revision, memo: new Map() };
    if (Object.isFrozen(object)) Object.freeze(out); // its memo Map stays writable, as the cache's own
    shareEncodings(out.object, out.memo);
    served.set(c, out);
    return out;
  };
  const pending = (c: Cached, p: Promise<Cached>): Promise<Cached> => {
    served.set(c, p);
    p.catch(() => {
      if (served.get(c) === p) served.delete(c);
    });
    return p;
  };

  const cached = (c: Cached): MaybePromise<Cached> => {
    const hit = served.get(c);
    if (hit !== undefined) return hit;
    // The selectors may have computed it already (sync conversions): the same object, converted once.
    const seen = selectables.get(c.object);
    if (seen !== undefined && seen !== c.object) return keep(c, seen);
    const out = storage.read([jsonClone(c.object)]);
    return isPromise(out) ? pending(c, out.then(([o]) => keep(c, o!))) : keep(c, out[0]!);
  };

  const cachedList = (cs: readonly Cached[]): MaybePromise<KubeObject[]> => {
    const out: (Cached | Promise<Cached>)[] = new Array<Cached | Promise<Cached>>(cs.length);
    const missing: number[] = [];
    cs.forEach((c, i) => {
      const hit = served.get(c);
      if (hit !== undefined) out[i] = hit;
      else missing.push(i);
    });
    if (missing.length > 0) {
      const read = storage.read(missing.map((i) => jsonClone(cs[i]!.object)));
      missing.forEach((i, j) => {
        const c = cs[i]!;
        out[i] = isPromise(read) ? pending(c, read.then((objs) => keep(c, objs[j]!))) : keep(c, read[j]!);
      });
    }
    if (!out.some(isPromise)) return (out as Cached[]).map((c) => c.object);
    return Promise.all(out).then((all) => all.map((c) => c.object));
  };

  const selectable = (stored: KubeObject): KubeObject => {
    let view = selectables.get(stored);
    if (view === undefined) {
      try {
        view = storage.readNow(jsonClone(stored)) ?? stored;
      } catch {
        // A predicate must not throw inside the cache; the read that serves the object reports the failure.
        view = stored;
      }
      selectables.set(stored, view);
    }
    return view;
  };

  const one = (objs: KubeObject[]): KubeObject => objs[0]!;
  return Object.freeze({
    converts: true,
    fromStored: (stored: KubeObject[]) => storage.read(stored),
    decode: (kv: KeyValue) => thenMaybe(storage.read([decodeObject(kv)]), one),
    encode: (obj: KubeObject) => thenMaybe(storage.write(obj), encodeObject),
    written: (_obj: KubeObject, bytes: Uint8Array) => thenMaybe(storage.read([JSON.parse(decoder.decode(bytes)) as KubeObject]), one),
    cached,
    cachedList,
    watcher: (w: CacheWatcher<KubeObject>) => convertingWatcher(w, cached),
    selectable,
  });
}

/**
 * `w` with each event's object in its served form, in order (an event waits for its conversion); a
 * conversion failure ends the watch with an InternalError. Closing or breaking off ends `w`.
 */
function convertingWatcher(w: CacheWatcher<KubeObject>, convert: (c: Cached) => MaybePromise<Cached>): CacheWatcher<KubeObject> {
  return {
    started: w.started,
    close: () => w.close(),
    async *[Symbol.asyncIterator](): AsyncGenerator<CacheWatchEvent<KubeObject>> {
      for await (const event of w) {
        if (event.type === 'BOOKMARK') {
          yield event;
          continue;
        }
        let object: Cached;
        try {
          const converted = convert(event.object);
          object = isPromise(converted) ? await converted : converted;
        } catch (err) {
          throw isStatusError(err) ? internalError(err.message) : err;
        }
        yield { type: event.type, revision: event.revision, object };
      }
    },
  };
}
