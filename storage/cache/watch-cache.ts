import type { KeyValue, Store, WatchBatch } from '../interface.js';
import { futureRevision, unavailable, type StorageError } from '../errors.js';
import { cachedObject, toEntry, type CacheEntry } from './cache-entry.js';
import { relisted } from './cache-errors.js';
import { CacheWatcherImpl, type WatcherHost } from './cache-watcher.js';
import { CompactionProbe } from './compaction-probe.js';
import { CurrentState } from './current-state.js';
import { deepFreeze, freezeFromEnvironment } from './deep-freeze.js';
import { EventRing } from './event-ring.js';
import { FreshnessWaiters } from './freshness.js';
import { StoreFeed, type FeedSink } from './store-feed.js';
import { startWatcher, type StartContext } from './watch-start.js';
import { WatcherIndex } from './watcher-index.js';
import { nextBookmarkTime, resolveSettings, type WatchCacheSettings } from './watch-cache-settings.js';
import type {
  CacheListOptions,
  CacheListResult,
  CacheWatchOptions,
  CacheWatcher,
  CachedObject,
  OwnWrite,
  WatchCache,
  WatchCacheMetrics,
  WatchCacheOptions,
} from './types.js';

export { WATCH_CACHE_DEFAULTS } from './watch-cache-settings.js';

/**
 * Creates the watch cache of the keys under `prefix` (ending in "/") and starts loading it: see `types.ts`
 * for the contract. Call `stop()` to end it.
 */
export function createWatchCache<T>(store: Store, prefix: string, options: WatchCacheOptions<T>): WatchCache<T> {
  const cache = new WatchCacheImpl(store, prefix, options);
  cache.start();
  return cache;
}

/**
 * One cache: the current state, the ring, the live watchers, fed by one `StoreFeed`. Everything runs on the
 * event loop thread; a store batch is applied to the state and the ring and dispatched to every watcher in
 * one synchronous step, so readers never see half a transaction and watchers never miss the hand-over
 * between history and live events.
 */
class WatchCacheImpl<T> implements WatchCache<T>, FeedSink, WatcherHost, StartContext<T> {
  state = new CurrentState<T>();
  readonly ring: EventRing<T>;
  revision = 0;
  loaded = false;
  /** Keys this process wrote at revisions the cache had not reached yet (`noteWrite`), forgotten once it has. */
  private readonly ownWrites = new Map<string, { readonly revision: number; readonly value: Uint8Array | undefined }>();
  readonly decode: (kv: KeyValue) => T;

  private readonly index: WatcherIndex<T>;
  private readonly watchers = new Set<CacheWatcherImpl<T>>();
  private readonly bookmarkers = new Set<CacheWatcherImpl<T>>();
  private readonly freshness: FreshnessWaiters;
  private readonly compaction: CompactionProbe;
  private readonly feed: StoreFeed;
  private readonly resource: string;
  private readonly metrics: WatchCacheMetrics | undefined;
  private readonly settings: WatchCacheSettings;
  private readonly loadedPromise: Promise<void>;
  private settleLoaded!: { resolve(): void; reject(err: unknown): void };
  private ticker: NodeJS.Timeout | undefined;
  /** The revision of the last event applied (or of the last list): events at or below it are repeats. */
  private lastEventRevision = 0;
  private lastBatchAt = Date.now();
  private lastProgressAskAt = 0;
  private stopped = false;
  /**
   * The highest compacted revision this cache has learned of (watch starts probe it; a re-list reports it).
   * Reads answer at a revision at or above it: a quiet prefix's revision can lag the store's (until progress),
   * and a list at `0` answered below the compacted revision hands the client a resourceVersion its next watch
   * is refused with 410, over and over for clients that re-list without backoff (client-node 1.4).
   */
  private knownCompacted = 0;

  constructor(
    readonly store: Store,
    readonly prefix: string,
    private readonly options: WatchCacheOptions<T>,
  ) {
    const decode = options.decode;
    // Frozen once, as the object enters the cache (decoded on first use): every later read shares it.
    this.decode = (options.freeze ?? freezeFromEnvironment()) ? (kv) => deepFreeze(decode(kv)) : decode;
    this.resource = options.resource ?? prefix;
    this.metrics = options.metrics;
    this.settings = resolveSettings(options);
    const s = this.settings;
    this.ring = new EventRing<T>({ minEvents: s.historyMinEvents, maxEvents: s.historyMaxEvents, windowMs: s.historyWindowMs }, 0);
    this.index = new WatcherIndex<T>(prefix);
    this.compaction = new CompactionProbe(store);
    this.freshness = new FreshnessWaiters({
      timeoutMs: s.freshnessTimeoutMs,
      progressEveryMs: s.freshnessProgressMs,
      requestProgress: () => this.askProgress(),
      observe: (seconds, outcome) => this.metrics?.freshnessWait(this.resource, seconds, outcome),
    });
    this.feed = new StoreFeed(store, prefix, this, { pageSize: s.listPageSize, logger: options.logger });
    this.loadedPromise = new Promise<void>((resolve, reject) => {
      this.settleLoaded = { resolve, reject };
    });
    this.loadedPromise.catch(() => undefined);
  }

  start(): void {
    this.feed.start();
    this.ticker = setInterval(() => this.tick(), this.settings.tickMs);
    this.ticker.unref();
  }

  // ---- reads -------------------------------------------------------------------------------------

  ready(): Promise<void> {
    return this.loadedPromise;
  }

  waitUntilFresh(rev: number, signal?: AbortSignal): Promise<void> {
    if (this.stopped) return Promise.reject(unavailable('the watch cache is stopped'));
    return this.freshness.wait(rev, this.isFresh, this.notFresh, signal);
  }

  async get(key: string, minRevision: number): Promise<{ readonly object: CachedObject<T> | undefined; readonly revision: number }> {
    await this.waitUntilFresh(Math.max(minRevision, this.knownCompacted));
    return { object: this.state.get(key), revision: this.revision };
  }

  peek(key: string): CachedObject<T> | undefined {
    if (!this.loaded || this.stopped) return undefined;
    const written = this.ownWrites.get(key);
    if (written !== undefined) {
      if (this.revision < written.revision) return undefined;
      this.ownWrites.delete(key);
    }
    return this.state.get(key);
  }

  noteWrite(key: string, revision: number, value?: Uint8Array): void {
    if (revision <= this.revision) return;
    const held = this.ownWrites.get(key);
    if (held !== undefined && held.revision >= revision) return;
    // Bounded: past 10,000 keys in flight the notes go, and copies may be stale again (a stale copy costs a
    // failed compare and a second round, never a wrong write).
    if (this.ownWrites.size >= 10_000) this.ownWrites.clear();
    this.ownWrites.set(key, { revision, value });
  }

  ownWrite(key: string): OwnWrite | undefined {
    if (this.stopped) return undefined;
    const written = this.ownWrites.get(key);
    if (written?.value === undefined || this.revision >= written.revision) return undefined;
    return written as OwnWrite; // its value checked just above
  }

  async list(options: CacheListOptions<T>): Promise<CacheListResult<T>> {
    await this.waitUntilFresh(Math.max(options.minRevision, this.knownCompacted));
    return { items: this.state.select(options), revision: this.revision };
  }

  watch(options: CacheWatchOptions<T>): CacheWatcher<T> {
    const deadline = options.deadline;
    const w = new CacheWatcherImpl<T>(
      options,
      options.bookmarks === true,
      deadline,
      { queueEvents: this.settings.watcherQueueEvents },
      this,
      options.signal,
    );
    this.watchers.add(w);
    this.metrics?.watcherAdded(this.resource);
    if (this.stopped || options.signal?.aborted) w.end();
    else void startWatcher(this, w, options);
    return w;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.feed.stop();
    clearInterval(this.ticker);
    for (const w of [...this.watchers]) w.end();
    const err = unavailable('the watch cache is stopped');
    this.freshness.failAll(err);
    this.settleLoaded.reject(err);
  }

  // ---- StartContext / WatcherHost ------------------------------------------------------------------

  async compactedRevision(): Promise<number> {
    const compacted = await this.compaction.compactedRevision();
    this.knownCompacted = Math.max(this.knownCompacted, compacted);
    return compacted;
  }

  goLive(w: CacheWatcherImpl<T>, revision: number): void {
    if (!w.active) return;
    w.goLive(revision);
    this.index.add(w);
    if (w.bookmarks) {
      w.nextBookmarkAt = nextBookmarkTime(Date.now(), this.settings.bookmarkIntervalMs, w.deadline);
      this.bookmarkers.add(w);
    }
  }

  release(w: CacheWatcherImpl<unknown>): void {
    const mine = w as CacheWatcherImpl<T>;
    if (!this.watchers.delete(mine)) return;
    this.index.remove(mine);
    this.bookmarkers.delete(mine);
    this.metrics?.watcherRemoved(this.resource);
  }

  slow(): void {
    this.metrics?.slowWatcherTerminated(this.resource);
  }

  warn(message: string): void {
    this.options.logger?.warn(`watch cache ${this.prefix}: ${message}`);
  }

  // ---- FeedSink ------------------------------------------------------------------------------------

  /** Someone waits for a revision, or progress was asked for after the last batch (a quiet prefix's tick). */
  readonly progressWanted = (): boolean => this.freshness.waiting > 0 || this.lastBatchAt < this.lastProgressAskAt;

  replace(items: readonly KeyValue[], revision: number, compactedRevision = 0): void {
    const previous = this.revision;
    this.knownCompacted = Math.max(this.knownCompacted, compactedRevision);
    const objects: CachedObject<T>[] = [];
    for (const kv of items) {
      try {
        objects.push(cachedObject(kv, this.decode, this.options.intern));
      } catch (err) {
        this.warn(`cannot decode ${kv.key} at revision ${kv.modRevision}: ${String(err)}`);
      }
    }
    this.state = CurrentState.fromSorted(objects);
    this.ring.reset(revision);
    this.revision = Math.max(this.revision, revision);
    this.lastEventRevision = revision;
    this.lastBatchAt = Date.now();
    if (this.loaded) {
      // The events between the old state and this one are lost to compaction: no live watcher can go on.
      const err = relisted(previous, compactedRevision, revision);
      for (const w of this.index.all()) w.fail(err);
    }
    this.loaded = true;
    this.settleLoaded.resolve();
    this.metrics?.cacheSize(this.resource, this.state.size);
    this.freshness.advance(this.isFresh);
  }

  apply(batch: WatchBatch): void {
    const now = Date.now();
    this.lastBatchAt = now;
    if (batch.events.length > 0) {
      const entries: CacheEntry<T>[] = [];
      const applied = this.lastEventRevision;
      for (const ev of batch.events) {
        const key = ev.kv.key;
        // Only a repeat of an applied event is dropped. Not compared with `revision`: etcd < 3.4.25 may send
        // a progress notification ahead of an event (etcd#15220); the store then still delivers the event.
        if (ev.kv.modRevision <= applied) continue;
        this.lastEventRevision = ev.kv.modRevision;
        let entry: CacheEntry<T>;
        try {
          entry = toEntry(ev, this.decode, this.state.get(key), now, this.options.intern);
        } catch (err) {
          this.warn(`cannot decode ${key} at revision ${ev.kv.modRevision}: ${String(err)}`);
          if (ev.type === 'delete') this.state.delete(key);
          continue;
        }
        if (entry.type === 'DELETED') this.state.delete(key);
        else this.state.set(entry.object);
        entries.push(entry);
        if (this.ownWrites.size > 0) {
          const written = this.ownWrites.get(key);
          if (written !== undefined && written.revision <= ev.kv.modRevision) this.ownWrites.delete(key);
        }
      }
      if (batch.revision > this.revision) this.revision = batch.revision;
      this.ring.push(entries, now);
      this.index.dispatch(entries);
      this.metrics?.eventsDispatched(this.resource, entries.length);
      this.metrics?.cacheSize(this.resource, this.state.size);
    } else if (batch.revision > this.revision) {
      this.revision = batch.revision;
    }
    if (this.freshness.waiting > 0) this.freshness.advance(this.isFresh);
  }

  // ---- internals -----------------------------------------------------------------------------------

  private readonly isFresh = (rev: number): boolean => this.loaded && this.revision >= rev;

  /** A wait timed out: behind the revision (504 Too large resource version), or never loaded (503). */
  private readonly notFresh = (rev: number): StorageError =>
    this.loaded ? futureRevision(rev, this.revision) : unavailable(`the watch cache of ${this.prefix} is not loaded yet`);

  private async askProgress(): Promise<void> {
    this.lastProgressAskAt = Date.now();
    await this.store.requestProgress();
  }

  /** Housekeeping: periodic bookmarks, the ring's time window, progress on a quiet prefix. */
  private tick(): void {
    const now = Date.now();
    this.ring.evictOld(now);
    for (const w of this.bookmarkers) {
      if (now < w.nextBookmarkAt) continue;
      // In order: every event up to the cache's revision is already queued to a live watcher.
      if (w.pushBookmark(Math.max(this.revision, w.minLiveRevision))) {
        w.nextBookmarkAt = nextBookmarkTime(now, this.settings.bookmarkIntervalMs, w.deadline);
      }
    }
    const idle = this.settings.idleProgressMs;
    if (this.loaded && now - this.lastBatchAt >= idle && now - this.lastProgressAskAt >= idle) {
      this.askProgress().catch(() => undefined);
    }
  }
}
