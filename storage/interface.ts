/**
 * The Store contract: an etcd-shaped, revision-based key-value store. It knows nothing of kinds; keys are
 * strings (`<prefix>/<group>/<resource>/<namespace>/<name>`), values are opaque bytes, and every write is
 * stamped with one store-wide revision.
 *
 * Revisions are positive integers that only grow; a revision is never reused, across restarts too. Revision
 * 0 means "none": a key that does not exist has modRevision 0. The current revision of an empty store is 0
 * (embedded) or 1 (etcd): callers must not assume either.
 *
 * Two backends implement it (`storage/memory`, `storage/etcd`) and both pass the one conformance suite in
 * `storage/testing`. Errors are always `StorageError` (see `errors.ts`); the registry translates them to HTTP
 * once (410 Expired, 409 Conflict, 504, 503 ...).
 */

/** One key at one revision. Objects handed out are never mutated afterwards (by the store or the caller). */
export interface KeyValue {
  readonly key: string;
  readonly value: Uint8Array;
  /** Revision at which the key was created (last created, if it was deleted and created again). */
  readonly createRevision: number;
  /** Revision of the last write to the key (the object's resourceVersion). */
  readonly modRevision: number;
}

export interface GetOptions {
  /**
   * Read the key as it was at this revision. Unset or 0: the current state (a linearizable read).
   * Compacted (older than the compacted revision): `Compacted`. Newer than the current revision:
   * `FutureRevision`.
   */
  readonly revision?: number;
}

export interface GetResult {
  /** The key at the read revision, or undefined when it did not exist then (not an error). */
  readonly kv: KeyValue | undefined;
  /** The revision the read was served at: the requested one, or the current one when none was requested. */
  readonly revision: number;
}

export interface ListOptions {
  /** As in `GetOptions.revision`: 0 or unset is the current state; compacted and future revisions throw. */
  readonly revision?: number;
  /**
   * Start at this key (inclusive) instead of at the prefix. It must lie under the prefix. Continuation of a
   * paged listing passes the last key returned plus "\x00".
   */
  readonly startKey?: string;
  /** At most this many items (0 or unset: no limit). `more` tells whether further keys exist. */
  readonly limit?: number;
  /** Return no items, only `count` (and the revision). */
  readonly countOnly?: boolean;
}

export interface ListResult {
  /** Items in ascending key order, at `revision`. */
  readonly items: readonly KeyValue[];
  /** The revision the listing was served at (the requested one, or the current one). */
  readonly revision: number;
  /** True when keys after the last returned item exist under the prefix at `revision`. */
  readonly more: boolean;
  /** The number of keys under the prefix from `startKey` on at `revision` (including those returned). */
  readonly count: number;
}

/** A compare in a transaction: the key's modRevision must equal `modRevision` (0: the key must not exist). */
export interface Compare {
  readonly key: string;
  readonly modRevision: number;
}

export type TxnOp =
  | { readonly type: 'put'; readonly key: string; readonly value: Uint8Array }
  | { readonly type: 'delete'; readonly key: string };

export interface TxnResult {
  /** True when every compare held and the ops were applied. */
  readonly succeeded: boolean;
  /**
   * On success, the revision of the write (all ops share it). When the ops changed nothing (deletes of
   * missing keys only), no revision is consumed and this is the current revision. On failure, the current
   * revision.
   */
  readonly revision: number;
  /**
   * The current state of every compared key, in the order of the compares, read in the same transaction;
   * undefined for a key that does not exist. Filled on failure (so a retry loop needs no extra round trip);
   * on success it is empty.
   */
  readonly current: readonly (KeyValue | undefined)[];
}

/**
 * Options of a single-key write (`create`, `update`).
 *
 * Time to live: with `ttlSeconds` > 0 the store itself deletes the key once that many seconds have passed
 * since THIS write, the way etcd expires a key attached to a lease (kube-apiserver stores Events so, with
 * `--event-ttl`). Each write decides for itself: an update with a ttl starts a new countdown from the
 * update; an update without one (and any `txn` put) makes the key permanent again, as an etcd put without
 * a lease does. Unset or 0: no expiry.
 *
 * The expiry is an ordinary delete at a new revision, decided against the version the ttl was given to
 * (a key written again meanwhile is left alone): watchers see a `delete` event with the previous value and
 * reads afterwards miss the key. It is not instantaneous: a key may still be read shortly after its time
 * (etcd checks leases about twice a second; the embedded store's timer fires on time unless the process is
 * busy or down, and catches up at start-up), and etcd may keep it somewhat longer (its minimum lease ttl,
 * and the etcd backend reuses one lease for writes that arrive close together, granted long enough that no
 * key lives shorter than asked). Must be a non-negative integer up to 9,000,000,000 (etcd's maximum lease
 * ttl), else `InvalidArgument`.
 */
export interface WriteOptions {
  readonly ttlSeconds?: number;
}

/** etcd's largest lease ttl; both backends accept ttls up to it. */
export const MAX_TTL_SECONDS = 9_000_000_000;

export interface WriteResult {
  /** The revision of the write: the new modRevision of the key. */
  readonly revision: number;
}

export interface DeleteResult {
  /** The revision of the delete. */
  readonly revision: number;
  /** The key as it was just before the delete. */
  readonly prev: KeyValue;
}

export type WatchEvent =
  | {
      readonly type: 'put';
      /** The new state; `kv.modRevision` is the event's revision. */
      readonly kv: KeyValue;
      /** The state before this write; undefined for a create. */
      readonly prev: KeyValue | undefined;
    }
  | {
      readonly type: 'delete';
      /** The key, with `modRevision` set to the delete's revision and an empty value. */
      readonly kv: KeyValue;
      /** The state just before the delete (always present: deletes of missing keys emit nothing). */
      readonly prev: KeyValue;
    };

/**
 * A batch of events. Events are in revision order, within a batch and across batches; all events of one
 * transaction are in the same batch. A batch with no events is a progress notification: the state under the
 * watched prefix at `revision` is the state the delivered events made (every event up to `revision` was
 * delivered, except that on etcd releases whose progress is checked, before 3.4.31 / 3.5.13, the two events
 * of a key created and deleted again before `revision` may still follow; the state is the same either way).
 */
export interface WatchBatch {
  readonly events: readonly WatchEvent[];
  /**
   * Events batch: the revision of the last event. Progress batch: the revision the watch is known to be
   * complete up to.
   */
  readonly revision: number;
}

export interface WatchOptions {
  /**
   * First revision to deliver (inclusive): every event with revision >= fromRevision, in order. 0 or unset:
   * only events after the current revision. Older than the compacted revision: the iterator throws
   * `Compacted` (with `compactedRevision`). A revision beyond the current one is allowed: events start
   * there.
   */
  readonly fromRevision?: number;
  /** Ends the watch: the iterator finishes without an error. */
  readonly signal?: AbortSignal;
  /**
   * Whether the consumer wants progress batches now (someone waits for the watch to reach a revision).
   * Where a backend's progress beyond the watch's last event must be verified at a cost (etcd before 3.4.31
   * / 3.5.13 may announce revisions ahead of events it still holds: see storage/etcd/watcher.ts), it delivers such
   * progress only while this returns true; progress it knows for free may come at any time. Unset: never.
   */
  readonly progressWanted?: () => boolean;
}

export interface Store {
  /** Reads one key. A missing key is `kv: undefined`, not an error. */
  get(key: string, options?: GetOptions): Promise<GetResult>;

  /**
   * Reads the keys under `prefix` (a plain string prefix: callers end it with "/" so `/a` does not match
   * `/ab`) in ascending key order at one revision. Paging: pass `startKey` = last key + "\x00" and the
   * same `revision`.
   */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;

  /**
   * Creates `key`. Throws `AlreadyExists` (with `current`) when it exists. Returns the write's revision.
   * `options.ttlSeconds` makes the store delete the key later (see `WriteOptions`).
   */
  create(key: string, value: Uint8Array, options?: WriteOptions): Promise<WriteResult>;

  /**
   * Replaces `key` if its modRevision equals `expectedModRevision`. Throws `Conflict` (with `current`, the
   * fresh state) when it differs, `NotFound` when the key does not exist. The key's expiry is replaced
   * too: `options.ttlSeconds` restarts it from this write, no ttl makes the key permanent (see
   * `WriteOptions`).
   */
  update(key: string, value: Uint8Array, expectedModRevision: number, options?: WriteOptions): Promise<WriteResult>;

  /**
   * Deletes `key`, if `expectedModRevision` is given only when its modRevision equals it. Throws `NotFound`
   * when it does not exist, `Conflict` (with `current`) on a mismatch.
   */
  delete(key: string, expectedModRevision?: number): Promise<DeleteResult>;

  /**
   * A multi-key transaction: if every compare holds, apply all ops at one new revision. Ops on the same key
   * apply in order. Never throws for a failed compare: see `TxnResult`. Puts carry no ttl: a put key is
   * permanent afterwards.
   */
  txn(compares: readonly Compare[], ops: readonly TxnOp[]): Promise<TxnResult>;

  /**
   * Streams every change under `prefix` from `fromRevision` on, as batches, with previous values.
   * The iterator throws `StorageError`: `Compacted` when the start revision is compacted (at start or
   * while catching up), `Lagging` when the consumer did not keep up with the bounded buffer (the caller
   * re-watches from its last revision + 1), `Unavailable` when the backend is gone for good. Transient
   * backend errors are retried inside the backend, resuming after the last delivered revision, so a watch
   * never skips nor repeats a revision. Breaking out of the loop or aborting the signal ends the watch.
   */
  watch(prefix: string, options?: WatchOptions): AsyncIterable<WatchBatch>;

  /** The store's current revision (a linearizable read). */
  currentRevision(): Promise<number>;

  /**
   * The compacted revision: reads at revisions below it throw `Compacted`; 0 when never compacted.
   */
  compactedRevision(): Promise<number>;

  /**
   * Discards history before `revision`: afterwards reads at revisions < `revision` and watches from
   * revisions < `revision` throw `Compacted`; `revision` itself stays readable. Compacting to a revision
   * at or below the compacted one is a no-op; beyond the current revision throws `FutureRevision`.
   */
  compact(revision: number): Promise<void>;

  /**
   * Asks every open watch to deliver a progress batch (events-free) soon. Best effort: a backend without
   * the capability sends progress on its own schedule, and one that must verify progress beyond a watch's
   * last event does so only for watches whose `progressWanted` says so.
   */
  requestProgress(): Promise<void>;

  /** Throws (`Unavailable` / `Timeout`) unless the backend can serve a linearizable read now. */
  check(): Promise<void>;

  /**
   * Flushes what was acknowledged, ends every open watch (its iterator throws `Unavailable`), and releases
   * files and connections. Every later call throws `Unavailable`. Idempotent.
   */
  close(): Promise<void>;
}
