import { ClientClosedError } from 'etcd3/lib/errors.js';
import type { EtcdConnectionTls } from './client-tls.js';
import { EtcdMembers } from './grpc/members.js';
import { neverSent, retriableRead } from './translate-error.js';

/** The KV methods this backend calls, with etcd's raw request/response messages (see `proto.ts`). */
export type KvMethod = 'range' | 'put' | 'deleteRange' | 'txn' | 'compact';

/** The Lease methods this backend calls (ttls of keys, see `lease-manager.ts`). */
export type LeaseMethod = 'leaseGrant';

export interface ConnectionOptions {
  readonly endpoints: readonly string[];
  /** Deadline of one unary call including its retries, and of opening a watch stream, in milliseconds. */
  readonly callTimeoutMs: number;
  /** The largest answer accepted (gRPC's receive limit); default: no limit (ranges are paged anyway). */
  readonly maxReceiveMessageBytes?: number;
  /** TLS of `https://` endpoints (see client-tls.ts); undefined: plain text, or the system's roots for https. */
  readonly tls?: EtcdConnectionTls;
}

/** A bidirectional raw watch stream (grpc/watch-call.ts). */
export interface RawWatchStream {
  write(message: unknown): boolean;
  end(): void;
  cancel(): void;
  on(event: 'data', listener: (message: unknown) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'end' | 'close', listener: () => void): this;
  removeAllListeners(): this;
}

/**
 * The thin layer every etcd call goes through: gRPC over each member's own HTTP/2 connection
 * (grpc/members.ts: a random member per call or stream, circuit breakers that skip a failing member for 5 s,
 * keepalive pings).
 *
 * Why not etcd3's KV/builder API: it retries EVERY recoverable error three times, writes included (a
 * put whose answer was lost would be applied twice), adds its own deadline policy, and its Watcher is buggy
 * (see watch-stream.ts); and its gRPC layer (grpc-js) cost ~125 µs of CPU per call against ~45 µs for ours
 * (docs/perf/README.md, win 9). Here each unary call has one deadline for itself and its retries:
 * - reads (`idempotent`) retry any transport failure on another member;
 * - writes retry only when the request certainly never left (no connection, open circuit), so a write that
 *   may have been applied is reported (Unavailable/Timeout), never silently repeated.
 */
export class EtcdConnection {
  private readonly members: EtcdMembers;
  private closed = false;

  constructor(private readonly options: ConnectionOptions) {
    this.members = new EtcdMembers({
      endpoints: options.endpoints,
      tls: options.tls,
      maxReceiveBytes: options.maxReceiveMessageBytes ?? Infinity,
      // A member that vanishes without a TCP reset (partition, frozen VM) is found out while calls or
      // watches are open on it. etcd's default enforcement allows a ping every 5 s.
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
        return await this.members.call<Res>(method, req, deadline);
      } catch (err) {
        const again = idempotent ? retriableRead(err) : neverSent(err);
        const pause = Math.min(25 * 2 ** attempt, 500);
        if (!again || this.closed || Date.now() + pause >= deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /**
   * Opens a raw Watch stream on some member (`hasleader`: a member cut off from its cluster ends it instead
   * of going silent). Rejects when no member can be reached within the call timeout; `fail` counts a
   * failure of the stream against its member.
   */
  async openWatchStream(): Promise<{ stream: RawWatchStream; fail: (err: Error) => void }> {
    if (this.closed) throw new ClientClosedError('Watch');
    return this.members.openWatch(Date.now() + this.options.callTimeoutMs);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.members.close();
  }
}
