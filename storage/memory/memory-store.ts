import { promises as fsp } from 'node:fs';
import type {
  Compare,
  DeleteResult,
  GetOptions,
  GetResult,
  ListOptions,
  ListResult,
  Store,
  TxnOp,
  TxnResult,
  WatchBatch,
  WatchOptions,
  WriteOptions,
  WriteResult,
} from '../interface.js';
import {
  alreadyExists,
  compacted,
  conflict,
  futureRevision,
  invalidArgument,
  notFound,
  StorageError,
  unavailable,
} from '../errors.js';
import { DataDirLock } from './data-dir-lock.js';
import type { Expiry } from './expiry-queue.js';
import { ExpiryTimer } from './expiry-timer.js';
import { DEFAULTS, type MemoryStoreOptions } from './memory-store-options.js';
import { GroupCommit } from './group-commit.js';
import type { MvccState } from './mvcc-state.js';
import { encodeCompact, encodeTxn, type RecordOp } from './record-codec.js';
import { recover, type Recovered } from './recovery.js';
import { SnapshotScheduler } from './snapshot-scheduler.js';
import { stderrStoreLogger, type StoreLogger } from './store-logger.js';
import { planOps } from './txn-plan.js';
import { checkKey, checkPrefix, checkRevision, checkTtl, checkValue } from './validate.js';
import { WatchHub } from './watch-hub.js';

export type { MemoryStoreOptions } from './memory-store-options.js';

/** A log record on its way to disk, with what to do once it is durable. */
interface Pending {
  readonly frame: Buffer;
  /** Txn: its revision; compact: the head revision when it was queued. */
  readonly revision: number;
  readonly batch: WatchBatch | undefined;
  readonly compactTo: number;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Opens (creating if needed) the embedded store in `options.dataDir`: takes the directory lock, loads the
 * newest snapshot, replays the log after it, and is ready for writes. Throws `Unavailable` when another
 * process holds the directory or the data is damaged beyond a torn tail.
 */
export async function openMemoryStore(options: MemoryStoreOptions): Promise<MemoryStore> {
  const dir = options.dataDir;
  await fsp.mkdir(dir, { recursive: true });
  const logger = options.logger ?? stderrStoreLogger;
  const lock = await DataDirLock.acquire(dir, logger);
  try {
    const recovered = await recover(dir, logger);
    return new MemoryStore(options, lock, recovered.state, recovered, logger);
  } catch (err) {
    await lock.release();
    if (err instanceof StorageError) throw err;
    throw unavailable(`cannot open the store in ${dir}: ${(err as Error).message}`, err);
  }
}

/**
 * The embedded MVCC store: every version of every key since the compacted revision in memory, an
 * append-only log on disk for durability, and periodic snapshots to bound restart time.
 *
 * Concurrency model (single event-loop thread, so no locks): a write is EVALUATED synchronously against
 * the newest state, pending writes included; it is assigned the next revision and installed in the index
 * at once, so the next write sees it. It is acknowledged only after group commit made it durable; only
 * then does the committed read point (`committed`) move past it. Reads, lists and watches see revisions
 * <= `committed` only, so nobody observes a write that a crash could still lose. A failure decided against
 * a not-yet-durable version (a Conflict, AlreadyExists...) also waits for that version to be durable.
 *
 * Time to live: each version written with a ttl records its expiry (epoch ms) in the key's history, the
 * log record and snapshots, so it survives restarts. One timer (`ExpiryTimer`) deletes due keys through
 * `write` like any other delete (a revision, fsync, watch events with previous values). The check that the
 * due version is still the key's newest and the delete's installation happen in one synchronous step, so a
 * concurrent update that refreshed the key (a newer modRevision) always wins.
 */
export class MemoryStore implements Store {
  /** The durable revision: the read point for everyone. */
  private committed: number;
  /** Highest compaction queued (applied once durable). */
  private compactTarget: number;
  private readonly hub: WatchHub;
  private readonly commits: GroupCommit<Pending>;
  private readonly snapshots: SnapshotScheduler;
  /** Waiters for "everything evaluated so far is durable", in revision order. */
  private durableWaiters: { rev: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  private failure: StorageError | undefined;
  private closing: Promise<void> | undefined;
  private readonly expiries: ExpiryTimer;

  constructor(
    options: MemoryStoreOptions,
    private readonly lock: DataDirLock,
    private readonly state: MvccState,
    recovered: Recovered,
    private readonly logger: StoreLogger,
  ) {
    this.committed = state.revision;
    this.compactTarget = state.compactedRevision;
    this.hub = new WatchHub(
      state.events,
      () => this.committed,
      () => this.state.compactedRevision,
      {
        maxEvents: options.watchBufferEvents ?? DEFAULTS.watchBufferEvents,
        maxBytes: options.watchBufferBytes ?? DEFAULTS.watchBufferBytes,
      },
    );
    this.snapshots = new SnapshotScheduler(options, state, recovered, () => this.committed, logger);
    this.commits = new GroupCommit<Pending>({
      write: (chunk, records) => this.snapshots.append(chunk, records),
      durable: (entries) => this.onDurable(entries),
      failed: (err, entries) => this.onFailed(err, entries),
      between: () => this.snapshots.maybeRotate(),
    });
    // Expiries recovered from the data directory, overdue ones included: they fire at once.
    this.expiries = new ExpiryTimer((due) => this.expire(due));
    for (const [key, h] of state.index.entries()) {
      const at = h.latestExpiry();
      if (at > 0) this.expiries.track({ at, key, modRevision: h.latest()!.modRevision });
    }
  }

  // ---- reads -------------------------------------------------------------------------------------

  async get(key: string, options: GetOptions = {}): Promise<GetResult> {
    this.ensureUsable();
    checkKey(key);
    const rev = this.readRevision(checkRevision('revision', options.revision));
    return { kv: this.state.index.at(key, rev), revision: rev };
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.ensureUsable();
    checkPrefix(prefix);
    const rev = this.readRevision(checkRevision('revision', options.revision));
    const startKey = options.startKey ?? prefix;
    if (typeof startKey !== 'string' || !startKey.startsWith(prefix)) {
      throw invalidArgument(`startKey ${JSON.stringify(startKey)} does not lie under prefix ${JSON.stringify(prefix)}`);
    }
    const limit = checkRevision('limit', options.limit);
    const r = this.state.index.list(prefix, startKey, limit, options.countOnly === true, rev);
    return { items: r.items, revision: rev, more: r.more, count: r.count };
  }

  async currentRevision(): Promise<number> {
    this.ensureUsable();
    return this.committed;
  }

  async compactedRevision(): Promise<number> {
    this.ensureUsable();
    return this.state.compactedRevision;
  }

  async check(): Promise<void> {
    this.ensureUsable();
  }

  /** Resolves the revision to read at: 0 means the committed one; compacted and future ones throw. */
  private readRevision(rev: number): number {
    if (rev === 0) return this.committed;
    if (rev > this.committed) throw futureRevision(rev, this.committed);
    if (rev < this.state.compactedRevision) throw compacted(rev, this.state.compactedRevision, this.committed);
    return rev;
  }

  // ---- writes ------------------------------------------------------------------------------------

  async create(key: string, value: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
    this.ensureUsable();
    checkKey(key);
    checkValue(value);
    const expiresAt = expiryOf(checkTtl(options));
    const cur = this.state.index.latest(key);
    if (cur !== undefined) {
      await this.settled(key);
      throw alreadyExists(key, cur);
    }
    return { revision: await this.write([{ key, value, createRevision: this.state.revision + 1, expiresAt }]) };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number, options?: WriteOptions): Promise<WriteResult> {
    this.ensureUsable();
    checkKey(key);
    checkValue(value);
    const expiresAt = expiryOf(checkTtl(options));
    const cur = this.state.index.latest(key);
    if (cur === undefined || cur.modRevision !== expectedModRevision) {
      await this.settled(key);
      throw cur === undefined ? notFound(key) : conflict(key, cur);
    }
    return { revision: await this.write([{ key, value, createRevision: cur.createRevision, expiresAt }]) };
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    this.ensureUsable();
    checkKey(key);
    if (expectedModRevision !== undefined) checkRevision('expectedModRevision', expectedModRevision);
    const cur = this.state.index.latest(key);
    if (cur === undefined || (expectedModRevision !== undefined && cur.modRevision !== expectedModRevision)) {
      await this.settled(key);
      throw cur === undefined ? notFound(key) : conflict(key, cur);
    }
    return { revision: await this.write([{ key, value: undefined, createRevision: 0 }]), prev: cur };
  }

  async txn(compares: readonly Compare[], ops: readonly TxnOp[]): Promise<TxnResult> {
    this.ensureUsable();
    for (const c of compares) {
      checkKey(c.key);
      checkRevision('compare modRevision', c.modRevision);
    }
    for (const op of ops) {
      checkKey(op.key);
      if (op.type === 'put') checkValue(op.value);
      else if (op.type !== 'delete') throw invalidArgument(`unknown op type ${(op as { type: unknown }).type}`);
    }
    const index = this.state.index;
    let ok = true;
    for (const c of compares) {
      if ((index.latest(c.key)?.modRevision ?? 0) !== c.modRevision) {
        ok = false;
        break;
      }
    }
    if (!ok) {
      const current = compares.map((c) => index.latest(c.key));
      await this.settled(...compares.map((c) => c.key));
      return { succeeded: false, revision: this.committed, current };
    }
    const changes = planOps((k) => index.latest(k), ops, this.state.revision + 1);
    if (changes.length === 0) {
      await this.settled(...ops.map((o) => o.key));
      return { succeeded: true, revision: this.committed, current: [] };
    }
    return { succeeded: true, revision: await this.write(changes), current: [] };
  }

  async compact(revision: number): Promise<void> {
    this.ensureUsable();
    checkRevision('revision', revision);
    if (revision > this.committed) throw futureRevision(revision, this.committed);
    if (revision <= this.compactTarget) return this.untilDurable(this.state.revision);
    this.compactTarget = revision;
    await new Promise<void>((resolve, reject) =>
      this.commits.submit({ frame: encodeCompact(revision), revision: this.state.revision, batch: undefined, compactTo: revision, resolve, reject }),
    );
  }

  /**
   * Assigns the next revision to `changes`, installs them (visible to later evaluations, not to reads),
   * and resolves with the revision once durable. Puts with an expiry are handed to the expiry timer.
   */
  private write(changes: RecordOp[]): Promise<number> {
    const rev = this.state.revision + 1;
    const { frame, values } = encodeTxn(rev, changes);
    const batch = this.state.install(rev, changes, values);
    for (const c of changes) {
      if (c.expiresAt !== undefined && c.expiresAt > 0) this.expiries.track({ at: c.expiresAt, key: c.key, modRevision: rev });
    }
    return new Promise<number>((resolve, reject) =>
      this.commits.submit({ frame, revision: rev, batch, compactTo: 0, resolve: () => resolve(rev), reject }),
    );
  }

  /**
   * Deletes the due keys, in one transaction, whose newest version (pending ones included) is still the
   * one the ttl was given to; a key written or deleted since is left alone. Checking and installing in the
   * same synchronous step is what makes this a compare-and-delete on modRevision.
   */
  private expire(due: readonly Expiry[]): void {
    if (this.failure !== undefined || this.closing !== undefined) return;
    const changes: RecordOp[] = [];
    const taken = new Set<string>();
    for (const e of due) {
      if (this.state.index.latest(e.key)?.modRevision !== e.modRevision || taken.has(e.key)) continue;
      taken.add(e.key);
      changes.push({ key: e.key, value: undefined, createRevision: 0 });
    }
    if (changes.length === 0) return;
    // A failed write fails the whole store (onFailed); nobody awaits this one, so only log it.
    this.write(changes).catch((err: unknown) =>
      this.logger.warn({ keys: changes.length, err: (err as Error)?.message ?? String(err) }, 'deleting expired keys failed'),
    );
  }

  /** Waits until every version of `keys` seen by an evaluation is durable (no wait when they already are). */
  private settled(...keys: string[]): Promise<void> {
    let newest = 0;
    for (const k of keys) {
      const h = this.state.index.history(k);
      const last = h?.revs[h.revs.length - 1] ?? 0;
      if (last > newest) newest = last;
    }
    return newest <= this.committed ? Promise.resolve() : this.untilDurable(this.state.revision);
  }

  private untilDurable(rev: number): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (rev <= this.committed) return Promise.resolve();
    return new Promise((resolve, reject) => this.durableWaiters.push({ rev, resolve, reject }));
  }

  private onDurable(entries: Pending[]): void {
    const batches: WatchBatch[] = [];
    for (const e of entries) {
      if (e.batch !== undefined) {
        this.state.events.append(e.batch);
        batches.push(e.batch);
        this.committed = e.revision;
      } else if (e.compactTo > this.state.compactedRevision) {
        this.state.compact(e.compactTo);
      }
    }
    this.hub.publish(batches);
    for (const e of entries) e.resolve();
    let n = 0;
    const waiters = this.durableWaiters;
    while (n < waiters.length && waiters[n]!.rev <= this.committed) waiters[n++]!.resolve();
    if (n > 0) this.durableWaiters = waiters.slice(n);
  }

  private onFailed(err: unknown, entries: Pending[]): void {
    const failure = unavailable(`the store's log could not be written; it must be restarted: ${(err as Error)?.message ?? String(err)}`, err);
    this.failure = failure;
    for (const e of entries) e.reject(failure);
    for (const w of this.durableWaiters) w.reject(failure);
    this.durableWaiters = [];
    this.hub.endAll(failure);
  }

  // ---- watch, progress, lifecycle ----------------------------------------------------------------

  /**
   * See `Store.watch`. The start revision is fixed when `watch` is called (0: committed revision + 1);
   * each iteration opens its own watch. `close()` ends open watches with `Unavailable`.
   */
  watch(prefix: string, options: WatchOptions = {}): AsyncIterable<WatchBatch> {
    checkPrefix(prefix);
    const from = checkRevision('fromRevision', options.fromRevision);
    const start = from === 0 ? this.committed + 1 : from;
    return {
      [Symbol.asyncIterator]: () => {
        const w = this.hub.open(prefix, start, options.signal);
        const failure = this.failure ?? (this.closing !== undefined ? unavailable('the store is closed') : undefined);
        if (failure !== undefined) w.end(failure);
        return w;
      },
    };
  }

  async requestProgress(): Promise<void> {
    this.ensureUsable();
    this.hub.requestProgress();
  }

  /** Finishes queued writes, ends watches (with `Unavailable`), waits for a running snapshot, unlocks. */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.expiries.stop();
    await this.commits.idle();
    this.hub.endAll(unavailable('the store is closed'));
    await this.snapshots.close();
    await this.lock.release();
  }

  private ensureUsable(): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.closing !== undefined) throw unavailable('the store is closed');
  }

  /** For tests: resolves when no snapshot is being written. */
  snapshotIdle(): Promise<void> {
    return this.snapshots.idle();
  }

  /** For tests: pending expiries, stale ones included. */
  get expiryCount(): number {
    return this.expiries.size;
  }

  /** For tests: the number of open watches. */
  get watchCount(): number {
    return this.hub.size;
  }
}

/** The expiry of a write with `ttlSeconds` (0: none), from now. */
function expiryOf(ttlSeconds: number): number {
  return ttlSeconds > 0 ? Date.now() + ttlSeconds * 1000 : 0;
}
