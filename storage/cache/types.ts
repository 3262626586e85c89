/**
 * The watch cache's contract (DESIGN.md invariants 3–6, 10). One `WatchCache` per resource (one key prefix,
 * e.g. `/registry/secrets/`) keeps, fed by ONE store watch:
 * - the current state of every key under the prefix, decoded once (by the caller's `decode`), on first use;
 * - a ring of recent events (the history window the ring can serve; older starts fall back to the store);
 * - the revision it is complete up to (`revision`), advanced by events and by the store's progress batches.
 *
 * It is kind-agnostic: `T` is whatever `decode` makes of a stored value (the API layer passes
 * `KubeObject`). It never imports Koa or anything of `apiserver/`. Objects it hands out are shared by every
 * reader and watcher and are NEVER mutated (invariant 8); `CachedObject.memo` lets the API layer encode an
 * object once per media type however many watchers or lists send it (invariant 6).
 */
import type { KeyValue } from '../interface.js';

/** One object as the cache holds it: shared, immutable. */
/** A value this process wrote, at the revision the store gave it (`WatchCache.ownWrite`). */
export interface OwnWrite {
  readonly value: Uint8Array;
  readonly revision: number;
}

export interface CachedObject<T> {
  readonly key: string;
  /** The decoded object (its resourceVersion is `revision`). Never mutate. */
  readonly object: T;
  /** The object's modRevision; for the object of a DELETED event, the delete's revision. */
  readonly revision: number;
  /**
   * Per-encoding memo (e.g. `json` -> the object's JSON text), filled lazily by the API layer: the first
   * watcher or list that needs an encoding stores it, all later ones reuse it. The cache never reads it.
   */
  readonly memo: Map<string, unknown>;
}

/** What a watcher receives. `revision` of every event is the store revision it happened at. */
export type CacheWatchEvent<T> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly revision: number; readonly object: CachedObject<T> }
  /**
   * Every event up to `revision` has been delivered to this watcher. `initialEventsEnd` marks the bookmark
   * that ends the synthetic ADDED events of `sendInitialEvents` (annotation `k8s.io/initial-events-end`).
   */
  | { readonly type: 'BOOKMARK'; readonly revision: number; readonly initialEventsEnd?: boolean };

/**
 * Which objects a watcher or list wants. `keyPrefix` narrows to a namespace (`/registry/secrets/ns/`) or
 * one key; `matches` applies label/field selectors. A watcher with `matches` sees selector transitions:
 * an object that stops matching arrives as DELETED (carrying its new state), one that starts matching as
 * ADDED.
 */
export interface CacheFilter<T> {
  readonly keyPrefix: string;
  /** Exact key (a watch or list of one object by `metadata.name`): only this key. */
  readonly key?: string;
  readonly matches?: (object: T) => boolean;
}

export interface CacheWatchOptions<T> extends CacheFilter<T> {
  /**
   * Start: `{ kind: 'from', revision: R }` delivers every event with revision > R (a watch at
   * resourceVersion R, "Start at Exact"); `{ kind: 'state', revision }` first sends one synthetic ADDED per
   * matching object of the state at a revision >= `revision` (0: any; the caller makes it consistent by
   * passing the store's current revision), then every later event ("Get State").
   * A `from` revision below the store's compacted revision throws `Compacted` with kube's message
   * `too old resource version: R (compacted revision)` — checked at every start, also when the ring still
   * holds R (invariant 10). A `from` revision older than the ring but not compacted is served by a store
   * watch until the ring takes over (no gap, no repeat). A start newer than the cache waits like
   * `waitUntilFresh` (and fails like it).
   */
  readonly start: { readonly kind: 'from' | 'state'; readonly revision: number };
  /**
   * Send BOOKMARK events: every `bookmarkIntervalMs` (60 s) and ~2 s before `deadline`, at the cache's
   * revision, always after every event up to it (skipped while the watcher's queue is full).
   */
  readonly bookmarks?: boolean;
  /**
   * With `start.kind === 'state'`: end the initial events with a BOOKMARK marked `initialEventsEnd` (at the
   * revision of the state sent), whether or not `bookmarks` is set; the API layer asks only when allowed.
   */
  readonly initialEventsEndBookmark?: boolean;
  /** Epoch ms when the caller will end the watch; the last bookmark is sent ~2 s before it. */
  readonly deadline?: number;
  readonly signal?: AbortSignal;
}

/**
 * A running watch. Iterate it to receive events in revision order. It ends (iterator finishes) when the
 * signal aborts, the cache stops, or it is closed; it THROWS `StorageError` `Lagging` when the consumer did
 * not keep up (bounded buffer plus a small time budget; the client re-watches from its last revision), and
 * `Compacted` for a start that is out of the window, or when the cache itself fell out of the store's window
 * and re-listed (the events in between are lost to compaction: the client must re-list).
 */
export interface CacheWatcher<T> extends AsyncIterable<CacheWatchEvent<T>> {
  /**
   * Settles once the start is decided: resolves when events can flow (the compaction check passed and the
   * cache reached the start revision), rejects with the error the iterator will throw (`Compacted`,
   * `FutureRevision`, `Unavailable`). The HTTP layer awaits it before sending headers, so a too-old start is
   * a 410 status rather than an ERROR event. Awaiting it is optional: the iterator throws the same error.
   * It resolves too when the watcher is closed or aborted before it started.
   */
  readonly started: Promise<void>;
  close(): void;
}

export interface CacheListOptions<T> extends CacheFilter<T> {
  /**
   * Serve at a revision not older than this one (0: any). The cache waits up to the freshness timeout for
   * itself to reach it, then throws `StorageError` `FutureRevision` (with `requestedRevision` and the cache's
   * revision as `currentRevision`), which the API layer answers 504 "Too large resource version"
   * (`Unavailable` while the cache has not loaded at all).
   */
  readonly minRevision: number;
}

export interface CacheListResult<T> {
  /** Matching objects in ascending key order. */
  readonly items: readonly CachedObject<T>[];
  /** The revision the listing reflects (the cache's revision when served). */
  readonly revision: number;
}

/** See `WatchCacheOptions.intern`. */
export type Intern = (value: Uint8Array, revision: number) => { readonly value: Uint8Array; readonly tag: number };

export interface WatchCacheOptions<T> {
  /** Decodes a stored value; `kv.modRevision` is the revision the object must carry. */
  readonly decode: (kv: KeyValue) => T;
  /**
   * The form in which the cache keeps each value of its state (listed, or put by an event), with the tag
   * `storedTag` then reports for it (see `retagStored`: bytes `decode` turns into the very object the stored
   * ones give). For a store whose values the cache holds alone (etcd): the API layer's served JSON, made as
   * the value enters (a copy of it), so that a list has nothing to replace later. Default: the stored bytes
   * as they are, tag 0.
   */
  readonly intern?: Intern;
  /**
   * Deep-freeze every decoded object (deep-freeze.ts), so a reader that mutates a shared object throws.
   * Default: the environment variable `PLATFORM_FREEZE_CACHE` (on in the test suite, off in production).
   */
  readonly freeze?: boolean;
  /** How long a read or watch waits for the cache to reach a revision before `FutureRevision`. Default 3000 ms. */
  readonly freshnessTimeoutMs?: number;
  /** The resource name used as the metrics label (e.g. `secrets`). Default: the key prefix. */
  readonly resource?: string;
  /** Metrics callbacks; the API layer binds them to prom-client. */
  readonly metrics?: WatchCacheMetrics;
  /** Where recoverable problems (an undecodable value, a re-watch, a re-list) are reported. Default: none. */
  readonly logger?: { warn(message: string): void };
  /**
   * The ring of recent events (the history window served from memory): it always keeps the newest
   * `historyMinEvents` (default 100), drops events older than `historyWindowMs` (default 75 s) beyond that,
   * and never holds more than `historyMaxEvents` (default 102,400). Older starts are served by the store.
   */
  readonly historyMinEvents?: number;
  readonly historyMaxEvents?: number;
  readonly historyWindowMs?: number;
  /**
   * Events a watcher may have queued before it counts as slow (default 1,000). A slow watcher gets a small
   * time budget (at most 100 ms, refilled 50 ms per second) to drain below it, then it is ended with
   * `Lagging`; it never holds more than twice this many.
   */
  readonly watcherQueueEvents?: number;
  /** Period of the bookmark / housekeeping ticker. Default 1,000 ms. */
  readonly tickMs?: number;
  /** A watcher with bookmarks gets one every this often (and ~2 s before its deadline). Default 60,000 ms. */
  readonly bookmarkIntervalMs?: number;
  /** With no batch from the store for this long, the cache asks the store for progress. Default 5,000 ms. */
  readonly idleProgressMs?: number;
  /** While a read or watch waits for freshness, progress is requested this often. Default 100 ms. */
  readonly freshnessProgressMs?: number;
  /** Keys per page of the (re)list that loads the cache. Default 10,000. */
  readonly listPageSize?: number;
}

/**
 * Callbacks the cache calls for the metrics of issue 4 ("watchers per resource, events dispatched, cache size,
 * cache read wait, watchers terminated for being slow"). `resource` is `WatchCacheOptions.resource`.
 */
export interface WatchCacheMetrics {
  watcherAdded(resource: string): void;
  watcherRemoved(resource: string): void;
  /** `count` events from the store were applied and dispatched (once per event, not per watcher). */
  eventsDispatched(resource: string, count: number): void;
  /** A watcher was ended with `Lagging` because it did not keep up. */
  slowWatcherTerminated(resource: string): void;
  /** The number of objects in the cache, after every change. */
  cacheSize(resource: string, objects: number): void;
  /**
   * A read or watch at a revision > 0 waited `seconds` for the cache to reach it (`fresh`; 0 when it already
   * had) or gave up (`timeout`).
   */
  freshnessWait(resource: string, seconds: number, outcome: 'fresh' | 'timeout'): void;
}

/** The per-resource watch cache. */
export interface WatchCache<T> {
  /** The revision the cache is complete up to. */
  readonly revision: number;
  /** Resolves when the initial list is loaded and the watch is running. */
  ready(): Promise<void>;
  /**
   * Waits until `revision >= rev` (at most the freshness timeout); then throws `FutureRevision`, or
   * `Unavailable` when the cache has not finished its first load (kube: "storage is (re)initializing").
   * Before the first load even `rev` 0 waits. `stop()` rejects pending waits with `Unavailable`.
   */
  waitUntilFresh(rev: number, signal?: AbortSignal): Promise<void>;
  /** One key from the cache, at a revision >= `minRevision` (waiting as `waitUntilFresh`). */
  get(key: string, minRevision: number): Promise<{ readonly object: CachedObject<T> | undefined; readonly revision: number }>;
  /**
   * The key's object as the cache holds it now, without waiting: possibly behind the store (a hint, as
   * kube's cached existing object for GuaranteedUpdate). Undefined when absent, not loaded yet, stopped, or
   * behind this process's last write of the key (`noteWrite`): a hot object's copy is most likely stale.
   */
  peek(key: string): CachedObject<T> | undefined;
  /**
   * This process wrote `key` at `revision`: until the cache has that write, `peek(key)` answers nothing and
   * `ownWrite(key)` answers `value`, the key's whole stored value as written (none for a delete). An older
   * note of the key than one already held is ignored (replies to concurrent writes may come in any order).
   */
  noteWrite(key: string, revision: number, value?: Uint8Array): void;
  /**
   * The value this process last wrote to `key`, while the cache has not reached that write (a hot object):
   * as good a hint as `peek`'s copy, and newer. Undefined when there is none, it was a delete, or the cache
   * has caught up (then `peek` answers).
   */
  ownWrite(key: string): OwnWrite | undefined;
  list(options: CacheListOptions<T>): Promise<CacheListResult<T>>;
  watch(options: CacheWatchOptions<T>): CacheWatcher<T>;
  /** Stops the store watch and ends every watcher. Idempotent. */
  stop(): void;
}
