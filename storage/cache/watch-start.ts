import type { Store, WatchBatch } from '../interface.js';
import { StorageError, isStorageError, unavailable } from '../errors.js';
import { eventFor, toEntry, type CacheEntry, type Decode } from './cache-entry.js';
import { tooOldResourceVersion } from './cache-errors.js';
import type { CacheWatcherImpl } from './cache-watcher.js';
import type { CurrentState } from './current-state.js';
import type { EventRing } from './event-ring.js';
import type { CacheWatchEvent, CacheWatchOptions } from './types.js';

/** What starting a watcher needs from its cache. */
export interface StartContext<T> {
  readonly store: Store;
  readonly prefix: string;
  readonly decode: Decode<T>;
  readonly state: CurrentState<T>;
  readonly ring: EventRing<T>;
  /** The revision the cache is complete up to. */
  readonly revision: number;
  readonly loaded: boolean;
  /** The store's compacted revision, read after the call (coalesced across concurrent starts). */
  compactedRevision(): Promise<number>;
  waitUntilFresh(rev: number, signal?: AbortSignal): Promise<void>;
  /** Registers `w` for live events after `revision` (everything up to it was handed over). */
  goLive(w: CacheWatcherImpl<T>, revision: number): void;
  warn(message: string): void;
}

/**
 * Decides where a new watcher's events come from, then hands it over to live dispatch without gap or
 * repeat:
 * - `state`: once the cache reached `start.revision`, one synthetic ADDED per matching object of the current
 *   state (and the initial-events-end BOOKMARK when asked), then live events after the cache's revision;
 * - `from` R: 410 (`Compacted`) when R is below the store's compacted revision — checked for every start,
 *   because the ring may still hold events the store has compacted (invariant 10); otherwise, once the cache
 *   reached R, the ring's events after R when the ring reaches back to R, else a catch-up on a store watch
 *   from R + 1 until the ring covers where it got to.
 * Everything between reading the ring or state and registering for live events is synchronous, so no event
 * dispatched in between is lost or repeated.
 */
export async function startWatcher<T>(ctx: StartContext<T>, w: CacheWatcherImpl<T>, options: CacheWatchOptions<T>): Promise<void> {
  try {
    const { kind, revision } = options.start;
    if (kind === 'from') {
      const compactedRevision = await ctx.compactedRevision();
      if (revision < compactedRevision) throw tooOldResourceVersion(revision, compactedRevision, ctx.revision);
      await ctx.waitUntilFresh(revision, options.signal);
      if (!w.active) return;
      if (revision >= ctx.ring.startRevision) {
        w.pushInitial(filterEntries(ctx.ring.since(revision), w));
        ctx.goLive(w, ctx.revision);
      } else {
        beginCatchUp(ctx, w, revision);
      }
    } else {
      await ctx.waitUntilFresh(revision, options.signal);
      if (!w.active) return;
      const at = ctx.revision;
      const initial: CacheWatchEvent<T>[] = ctx.state
        .select(options)
        .map((object) => ({ type: 'ADDED', revision: object.revision, object }));
      if (options.initialEventsEndBookmark) initial.push({ type: 'BOOKMARK', revision: at, initialEventsEnd: true });
      w.pushInitial(initial);
      ctx.goLive(w, at);
    }
    w.markStarted();
  } catch (err) {
    w.fail(err instanceof StorageError ? err : unavailable(`watch start failed: ${String(err)}`, err));
  }
}

function filterEntries<T>(entries: readonly CacheEntry<T>[], w: CacheWatcherImpl<T>): CacheWatchEvent<T>[] {
  const out: CacheWatchEvent<T>[] = [];
  for (const e of entries) {
    const ev = eventFor(e, w.filter);
    if (ev !== undefined) out.push(ev);
  }
  return out;
}

/**
 * Serves a start older than the ring from a store watch of the watcher's own, pulled at the consumer's
 * pace (a slow consumer holds no memory here). Objects are decoded for this watcher only: it is the rare
 * path. When the watch has delivered an event the ring covers, it closes and the ring takes over.
 */
function beginCatchUp<T>(ctx: StartContext<T>, w: CacheWatcherImpl<T>, from: number): void {
  let last = from;
  let abort = new AbortController();
  const open = (): AsyncIterator<WatchBatch> =>
    ctx.store.watch(ctx.prefix, { fromRevision: last + 1, signal: abort.signal })[Symbol.asyncIterator]();
  let source = open();
  const step = async (): Promise<void> => {
    let r: IteratorResult<WatchBatch>;
    try {
      r = await source.next();
    } catch (err) {
      if (!w.active) return;
      if (isStorageError(err, 'Lagging')) {
        abort = new AbortController();
        source = open();
        return;
      }
      if (isStorageError(err, 'Compacted')) return w.fail(tooOldResourceVersion(from, err.compactedRevision ?? 0, ctx.revision));
      return w.fail(err instanceof StorageError ? err : unavailable(`watch catch-up failed: ${String(err)}`, err));
    }
    if (!w.active) return;
    if (r.done) return w.end();
    const batch = r.value;
    const events: CacheWatchEvent<T>[] = [];
    const now = Date.now();
    for (const ev of batch.events) {
      if (ev.kv.modRevision <= last) continue;
      let entry: CacheEntry<T>;
      try {
        entry = toEntry(ev, ctx.decode, undefined, now);
      } catch (err) {
        ctx.warn(`cannot decode ${ev.kv.key} at revision ${ev.kv.modRevision}: ${String(err)}`);
        continue;
      }
      const out = eventFor(entry, w.filter);
      if (out !== undefined) events.push(out);
    }
    // Only events move the catch-up: a progress batch vouches for the prefix's state, not for every event
    // (on etcd < 3.4.25 a key created and deleted again before it may still send its two events: see
    // storage/etcd/watcher.ts), and a watcher must miss none. On a prefix whose history ends before the ring
    // starts, the watcher so stays on its own store watch: slower to join the ring, never missing an event.
    if (batch.events.length > 0 && batch.revision > last) last = batch.revision;
    w.pushInitial(events);
    if (ctx.loaded && last >= ctx.ring.startRevision) {
      abort.abort();
      if (last <= ctx.revision) w.pushInitial(filterEntries(ctx.ring.since(last), w));
      ctx.goLive(w, Math.max(last, ctx.revision));
    }
  };
  w.beginCatchUp(step, () => abort.abort());
}
