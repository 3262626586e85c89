import { ClientClosedError, Etcd3 } from 'etcd3';
import { UnaryClient } from './grpc/unary-client.js';
import { neverSent, retriableRead } from './translate-error.js';

/** The KV methods this backend calls, with etcd's raw request/response messages (see `proto.ts`). */
export type KvMethod = 'range' | 'put' | 'deleteRange' | 'txn' | 'compact';

/** The Lease methods this backend calls (ttls of keys, see `lease-manager.ts`). */
export type LeaseMethod = 'leaseGrant';

export interface ConnectionOptions {
  readonly endpoints: readonly string[];
  /** Deadline of one unary call including its retries, in milliseconds. */
  readonly callTimeoutMs: number;
  /**
   * Extra grpc-js channel options of the watch streams (merged over the defaults below); of them the unary
   * calls honour `grpc.max_receive_message_length` (-1: no cap, the default).
   */
  readonly grpcOptions?: Readonly<Record<string, string | number>>;
  /** TLS of `https://` endpoints (see client-tls.ts); undefined: plain text, or the system's roots for https. */
  readonly credentials?: { rootCertificate: Buffer; privateKey?: Buffer; certChain?: Buffer };
}

/** A bidirectional raw watch stream (a grpc-js ClientDuplexStream) and the host it runs on. */
export interface RawWatchStream {
  write(message: unknown): boolean;
  end(): void;
  cancel(): void;
  on(event: 'data', listener: (message: unknown) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'end' | 'close', listener: () => void): this;
  removeAllListeners(): this;
}

/** The parts of grpc-js's Metadata used here (grpc-js is etcd3's dependency, not ours). */
interface Metadata {
  clone(): Metadata;
  set(key: string, value: string): void;
}

/** etcd3's connection pool: hosts, per-host circuit breakers, a shuffled host order per call. */
interface Pool {
  withConnection<T>(
    service: 'KV' | 'Lease' | 'Watch',
    fn: (c: { resource: unknown; client: Record<string, unknown>; metadata: Metadata }) => Promise<T> | T,
  ): Promise<T>;
  markFailed(resource: unknown, err: Error): void;
  close(): void;
}

/** The etcd3 release whose internals `poolOf` relies on: package.json pins exactly this version. */
export const ETCD3_VERSION = '1.1.2';

/**
 * etcd3's connection pool: its protected member `pool` (no public API reaches the per-host gRPC clients).
 * Checked once, at construction, so an etcd3 whose internals moved fails the server's start with a message
 * that says why, instead of the first store call failing with `undefined is not a function`.
 */
export function poolOf(client: object): Pool {
  const pool = (client as { pool?: unknown }).pool as Partial<Record<keyof Pool, unknown>> | undefined;
  const missing = (['withConnection', 'markFailed', 'close'] as const).filter((m) => typeof pool?.[m] !== 'function');
  if (typeof pool !== 'object' || pool === null || missing.length > 0) {
    throw new Error(
      `the etcd3 client library has no usable connection pool (its protected member \`pool\`${
        typeof pool === 'object' && pool !== null ? ` lacks ${missing.join(', ')}` : ' is missing'
      }): the etcd backend is written against etcd3 ${ETCD3_VERSION} exactly; install that version (npm ci)`,
    );
  }
  return pool as Pool;
}

/**
 * The thin layer every etcd call goes through.
 *
 * Why not etcd3's KV/builder API: it retries EVERY recoverable error three times, writes included (a
 * put whose answer was lost would be applied twice), adds its own deadline policy, and its Watcher is buggy
 * (see watch-stream.ts). Unary calls go over the members' own HTTP/2 connections (grpc/unary-client.ts,
 * with etcd3's host failover: a random member per call, circuit breakers that skip a failing member for 5 s),
 * with one deadline for the call and its retries:
 * - reads (`idempotent`) retry any transport failure on another member;
 * - writes retry only when the request certainly never left (no connection, open circuit), so a write that
 *   may have been applied is reported (Unavailable/Timeout), never silently repeated.
 * Watch streams go to a generated gRPC client through etcd3's pool (`withConnection`, the same failover).
 */
export class EtcdConnection {
  private readonly client: Etcd3;
  private readonly pool: Pool;
  private readonly unaryClient: UnaryClient;
  private closed = false;

  constructor(private readonly options: ConnectionOptions) {
    this.client = new Etcd3({
      hosts: options.endpoints.slice(),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      grpcOptions: {
        // grpc-js caps received messages at 4 MiB; ranges are paged, but one page or one watch response
        // of large objects can still exceed it.
        'grpc.max_receive_message_length': -1,
        // A member that vanishes without a TCP reset (partition, frozen VM) is detected on open streams.
        // etcd's default enforcement allows pings every 5 s while calls are active.
        'grpc.keepalive_time_ms': 10_000,
        'grpc.keepalive_timeout_ms': 5_000,
        ...options.grpcOptions,
      },
    });
    this.pool = poolOf(this.client);
    const maxReceive = Number(options.grpcOptions?.['grpc.max_receive_message_length'] ?? -1);
    const credentials = options.credentials;
    this.unaryClient = new UnaryClient({
      endpoints: options.endpoints,
      ...(credentials === undefined
        ? {}
        : { tls: { ca: credentials.rootCertificate ?? undefined, cert: credentials.certChain, key: credentials.privateKey } }),
      maxReceiveBytes: maxReceive < 0 ? Infinity : maxReceive,
      keepaliveMs: 10_000,
      keepaliveTimeoutMs: 5_000,
    });
  }

  get callTimeoutMs(): number {
    return this.options.callTimeoutMs;
  }

  /**
   * One KV call with a deadline of `timeoutMs` (default: the connection's) covering its retries. Rejects
   * with etcd3's typed error (classify it with `classifyEtcdError`).
   */
  kv<Res>(method: KvMethod, req: unknown, idempotent: boolean, timeoutMs = this.options.callTimeoutMs): Promise<Res> {
    return this.unary(method, req, idempotent, timeoutMs);
  }

  /** One Lease call, with the same deadline and retry rules as `kv`. */
  lease<Res>(method: LeaseMethod, req: unknown, idempotent: boolean, timeoutMs = this.options.callTimeoutMs): Promise<Res> {
    return this.unary(method, req, idempotent, timeoutMs);
  }

  private async unary<Res>(method: KvMethod | LeaseMethod, req: unknown, idempotent: boolean, timeoutMs: number): Promise<Res> {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 0; ; attempt++) {
      if (this.closed) throw new ClientClosedError('KV');
      try {
        return await this.unaryClient.call<Res>(method, req, deadline);
      } catch (err) {
        const again = idempotent ? retriableRead(err) : neverSent(err);
        const pause = Math.min(25 * 2 ** attempt, 500);
        if (!again || this.closed || Date.now() + pause >= deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /**
   * Opens a raw Watch stream on some member. The stream carries `hasleader` metadata so that a member cut
   * off from its cluster ends the stream (and the watch resumes elsewhere) instead of going silent.
   */
  async openWatchStream(): Promise<{ stream: RawWatchStream; fail: (err: Error) => void }> {
    return this.pool.withConnection('Watch', ({ resource, client, metadata }) => {
      const md = metadata.clone();
      md.set('hasleader', 'true');
      const stream = (client.watch as (md: Metadata, opts: object) => RawWatchStream).call(client, md, {});
      return { stream, fail: (err: Error) => this.pool.markFailed(resource, err) };
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unaryClient.close();
    this.client.close();
  }
}
