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
import { MAX_TTL_SECONDS } from '../interface.js';
import {
  StorageError,
  alreadyExists,
  compacted,
  conflict,
  futureRevision,
  invalidArgument,
  notFound,
  unavailable,
} from '../errors.js';
import { CompactionTracker } from './compaction.js';
import { etcdClientCredentials, type EtcdClientTls } from './client-tls.js';
import { membersOrderProgress } from './progress-order.js';
import { EtcdConnection, type KvMethod } from './etcd-connection.js';
import { toKeyValue } from './key-value.js';
import { LeaseManager, type LeaseManagerOptions } from './lease-manager.js';
import type {
  RawDeleteRangeResponse,
  RawLeaseGrantRequest,
  RawLeaseGrantResponse,
  RawPutRequest,
  RawRangeRequest,
  RawRangeResponse,
  RawTxnResponse,
} from './proto.js';
import { rangeList } from './range.js';
import { classifyEtcdError } from './translate-error.js';
import { guarded, multiKeyTxn, readBack } from './txn.js';
import { WatchHub } from './watch-hub.js';

export interface EtcdStoreOptions {
  /** Client URLs of the etcd members (`http://host:port`); calls go to a random live member. */
  readonly endpoints: readonly string[];
  /** Deadline of each unary call, retries included, in ms. Default 10,000 (a killed leader stalls ~7 s). */
  readonly callTimeoutMs?: number;
  /** Deadline of `check()`, in ms. Default 2,000. */
  readonly checkTimeoutMs?: number;
  /** Keys per range request when a list is paged internally. Default 10,000 (kube-apiserver's largest page): one round trip for most lists. */
  readonly rangePageSize?: number;
  /** Events a watcher may buffer before it fails with `Lagging`. Default 10,000. */
  readonly watchBufferEvents?: number;
  /** Watchers sharing one gRPC watch stream. Default 1,000. */
  readonly watchersPerStream?: number;
  /** The largest etcd answer accepted, in bytes (gRPC's receive limit). Default: none (ranges are paged). */
  readonly maxReceiveMessageBytes?: number;
  /** Client TLS (kube's `--etcd-cafile/-certfile/-keyfile`), used for `https://` endpoints (see client-tls.ts). */
  readonly tls?: EtcdClientTls;
  /** How writes with a ttl share etcd leases (see lease-manager.ts). Default: kube-apiserver's. */
  readonly leases?: LeaseManagerOptions;
}

/** Opens a store over an etcd 3.4+ cluster. Connections are made lazily: an unreachable cluster fails calls
 * (Unavailable / Timeout), not the open; `check()` tells readiness. TLS files that are missing or do not
 * parse fail the open (`EtcdTlsError`); a CA or client certificate etcd refuses fails calls like an
 * unreachable cluster. */
export async function openEtcdStore(options: EtcdStoreOptions): Promise<EtcdStore> {
  if (options.endpoints.length === 0) throw invalidArgument('openEtcdStore: no endpoints');
  return new EtcdStore(options);
}

/** Any key serves for reads whose only purpose is the header revision or a revision probe. */
const PROBE_KEY = Buffer.from([0]);

/**
 * The Store contract over etcd (see storage/interface.ts). Keys pass through unchanged, values are bytes,
 * revisions are etcd's. Every write is one etcd Txn or DeleteRange: one round trip, no retries of a write
 * that may have been applied (see etcd-connection.ts). Reads are linearizable unless at a revision.
 *
 * A write with a ttl attaches the key to an etcd lease (shared by nearby writes, see lease-manager.ts);
 * etcd deletes the key when the lease expires, and its watchers see an ordinary delete with the previous
 * value. A write without one attaches none, which detaches the key from a lease it had.
 */
export class EtcdStore implements Store {
  private readonly connection: EtcdConnection;
  private readonly compaction = new CompactionTracker();
  private readonly watches: WatchHub;
  private readonly pageSize: number;
  private readonly checkTimeoutMs: number;
  private readonly leases: LeaseManager;
  private closed = false;

  constructor(options: EtcdStoreOptions) {
    const credentials = etcdClientCredentials(options.endpoints, options.tls);
    this.connection = new EtcdConnection({
      endpoints: options.endpoints,
      callTimeoutMs: options.callTimeoutMs ?? 10_000,
      maxReceiveMessageBytes: options.maxReceiveMessageBytes,
      tls: credentials,
    });
    this.pageSize = options.rangePageSize ?? 10_000;
    this.checkTimeoutMs = options.checkTimeoutMs ?? 2_000;
    this.leases = new LeaseManager((ttl) => this.grantLease(ttl), options.leases);
    this.watches = new WatchHub(this.connection, this.compaction, {
      bufferEvents: options.watchBufferEvents ?? 10_000,
      watchersPerStream: options.watchersPerStream ?? 1_000,
      askMembersOrderProgress: () => membersOrderProgress(options.endpoints, this.checkTimeoutMs, credentials),
    });
  }

  async get(key: string, options?: GetOptions): Promise<GetResult> {
    const revision = checkRevision(options?.revision);
    const res = await this.read({ key: Buffer.from(key), revision }, revision);
    const kv = res.kvs[0];
    return { kv: kv === undefined ? undefined : toKeyValue(kv), revision: revision || res.header.revision };
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const requested = options.revision ?? 0;
    return rangeList((req) => this.read(req, requested), prefix, options, this.pageSize);
  }

  async create(key: string, value: Uint8Array, options?: WriteOptions): Promise<WriteResult> {
    const k = Buffer.from(key);
    const ttl = checkTtl(options);
    const res = await this.guardedPut(k, 0, value, ttl);
    if (!res.succeeded) throw alreadyExists(key, readBack(res.responses[0]));
    return { revision: res.header.revision };
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number, options?: WriteOptions): Promise<WriteResult> {
    const k = Buffer.from(key);
    const ttl = checkTtl(options);
    if (expectedModRevision === 0) throw await this.mismatch(key);
    const res = await this.guardedPut(k, checkModRevision(expectedModRevision), value, ttl);
    if (!res.succeeded) throw missingOrConflict(key, readBack(res.responses[0]));
    return { revision: res.header.revision };
  }

  /**
   * A put guarded by the key's modRevision, attached to a lease when `ttl` > 0. etcd refuses a put whose
   * lease is gone (revoked, or expired sooner than this clock expected) without applying anything, so
   * that one failure is retried once with a fresh lease.
   */
  private async guardedPut(k: Buffer, expected: number, value: Uint8Array, ttl: number): Promise<RawTxnResponse> {
    for (let attempt = 0; ; attempt++) {
      const put: RawPutRequest = { key: k, value };
      if (ttl > 0) put.lease = await this.leaseFor(ttl);
      try {
        return await this.write<RawTxnResponse>('txn', guarded(k, expected, { request_put: put }));
      } catch (err) {
        if (put.lease === undefined || attempt > 0 || !leaseNotFound(err)) throw err;
        this.leases.forget(put.lease);
      }
    }
  }

  private async leaseFor(ttl: number): Promise<string> {
    try {
      return await this.leases.leaseFor(ttl);
    } catch (err) {
      throw this.finalError(err);
    }
  }

  /** Lease grants may be retried like reads: a grant whose answer was lost leaves an unused lease that expires. */
  private async grantLease(ttl: number): Promise<string> {
    const req: RawLeaseGrantRequest = { TTL: Math.min(ttl, MAX_TTL_SECONDS), ID: 0 };
    const res = await this.connection.lease<RawLeaseGrantResponse>('leaseGrant', req, true);
    if (res.error !== '') throw unavailable(`etcd: lease grant failed: ${res.error}`);
    return res.ID;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    const k = Buffer.from(key);
    if (expectedModRevision === undefined) {
      const res = await this.write<RawDeleteRangeResponse>('deleteRange', { key: k, prev_kv: true });
      const prev = res.prev_kvs[0];
      if (prev === undefined) throw notFound(key);
      return { revision: res.header.revision, prev: toKeyValue(prev) };
    }
    if (expectedModRevision === 0) throw await this.mismatch(key);
    const res = await this.write<RawTxnResponse>(
      'txn',
      guarded(k, checkModRevision(expectedModRevision), { request_delete_range: { key: k, prev_kv: true } }),
    );
    if (!res.succeeded) throw missingOrConflict(key, readBack(res.responses[0]));
    const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
    // The compare held, so the key existed and was deleted in this very transaction.
    if (prev === undefined) throw unavailable(`etcd: delete of ${key} returned no previous value`);
    return { revision: res.header.revision, prev: toKeyValue(prev) };
  }

  async txn(compares: readonly Compare[], ops: readonly TxnOp[]): Promise<TxnResult> {
    for (const c of compares) checkRevision(c.modRevision);
    const res = await this.write<RawTxnResponse>('txn', multiKeyTxn(compares, ops));
    const revision = res.header.revision;
    if (res.succeeded) return { succeeded: true, revision, current: [] };
    return { succeeded: false, revision, current: res.responses.map(readBack) };
  }

  watch(prefix: string, options?: WatchOptions): AsyncIterable<WatchBatch> {
    return this.watches.watch(prefix, options);
  }

  /** A linearizable count-only range of one key: only its header revision matters. */
  async currentRevision(): Promise<number> {
    const res = await this.read({ key: PROBE_KEY, count_only: true }, 0);
    return res.header.revision;
  }

  /** Discovered by reads at chosen revisions (see compaction.ts); usually one read. */
  async compactedRevision(): Promise<number> {
    const current = await this.currentRevision();
    return this.compaction.discover((rev) => this.readable(rev), current);
  }

  async compact(revision: number): Promise<void> {
    checkRevision(revision);
    if (revision <= this.compaction.lowerBound) return;
    try {
      await this.connection.kv('compact', { revision, physical: false }, true);
      this.compaction.observe(revision);
    } catch (err) {
      const failure = classifyEtcdError(err);
      // etcd refuses a compaction at or below its compacted revision: the contract calls that a no-op.
      if (failure.kind === 'compacted') return this.compaction.observe(revision);
      if (failure.kind === 'future') throw futureRevision(revision, await this.currentRevision());
      throw failure.error;
    }
  }

  async requestProgress(): Promise<void> {
    this.watches.requestProgress();
  }

  async check(): Promise<void> {
    if (this.closed) throw unavailable('etcd store is closed');
    try {
      await this.connection.kv('range', { key: PROBE_KEY, count_only: true }, true, this.checkTimeoutMs);
    } catch (err) {
      throw this.finalError(err);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watches.close();
    this.connection.close();
  }

  /** A range; compacted and future revisions become the contract's errors for `requested`. */
  private async read(req: RawRangeRequest, requested: number): Promise<RawRangeResponse> {
    try {
      return await this.connection.kv<RawRangeResponse>('range', req, true);
    } catch (err) {
      throw await this.translate(err, requested);
    }
  }

  private async write<Res>(method: KvMethod, req: unknown): Promise<Res> {
    try {
      return await this.connection.kv<Res>(method, req, false);
    } catch (err) {
      throw this.finalError(err);
    }
  }

  /** Whether a read at `rev` is served (false: compacted). */
  private async readable(rev: number): Promise<boolean> {
    try {
      await this.connection.kv('range', { key: PROBE_KEY, revision: rev, count_only: true }, true);
      return true;
    } catch (err) {
      const failure = classifyEtcdError(err);
      if (failure.kind === 'compacted') return false;
      if (failure.kind === 'future') return true;
      throw failure.error;
    }
  }

  private async translate(err: unknown, requested: number): Promise<StorageError> {
    const failure = classifyEtcdError(err);
    if (failure.kind === 'error') return failure.error;
    try {
      const current = await this.currentRevision();
      if (failure.kind === 'future') return futureRevision(requested, current);
      const compactedAt = await this.compaction.discover((rev) => this.readable(rev), current, requested);
      return compacted(requested, compactedAt, current);
    } catch (lookupError) {
      return this.finalError(lookupError);
    }
  }

  private finalError(err: unknown): StorageError {
    const failure = classifyEtcdError(err);
    if (failure.kind === 'error') return failure.error;
    return unavailable(`etcd: unexpected ${failure.kind} revision error`, err);
  }

  /** update/delete with expected modRevision 0 (a key never matches it when it exists): read and explain. */
  private async mismatch(key: string): Promise<StorageError> {
    const res = await this.read({ key: Buffer.from(key) }, 0);
    const kv = res.kvs[0];
    return missingOrConflict(key, kv === undefined ? undefined : toKeyValue(kv));
  }
}

function missingOrConflict(key: string, current: ReturnType<typeof readBack>): StorageError {
  return current === undefined ? notFound(key) : conflict(key, current);
}

function checkRevision(revision: number | undefined): number {
  const r = revision ?? 0;
  if (!Number.isSafeInteger(r) || r < 0) throw invalidArgument(`invalid revision ${String(revision)}`);
  return r;
}

/** `WriteOptions.ttlSeconds`: unset (0), or an integer from 0 to MAX_TTL_SECONDS. */
function checkTtl(options: WriteOptions | undefined): number {
  const ttl = options?.ttlSeconds ?? 0;
  if (!Number.isSafeInteger(ttl) || ttl < 0 || ttl > MAX_TTL_SECONDS) {
    throw invalidArgument(`ttlSeconds must be an integer from 0 to ${MAX_TTL_SECONDS}, got ${String(options?.ttlSeconds)}`);
  }
  return ttl;
}

/** etcd refused a put because its lease does not exist (the message is all etcd3 keeps). */
function leaseNotFound(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return message.includes('requested lease not found');
}

function checkModRevision(revision: number): number {
  if (!Number.isSafeInteger(revision) || revision < 0) throw invalidArgument(`invalid modRevision ${revision}`);
  return revision;
}
