/**
 * etcd's KV and Lease unary calls over the members' own HTTP/2 connections (unary-channel.ts), with the
 * host failover etcd3's pool gave them: each call goes to a random member whose circuit is closed; a member
 * whose calls fail three times in a row (transport failures, and the statuses etcd3 counts as recoverable:
 * UNAVAILABLE, DEADLINE_EXCEEDED, ...) is skipped for five seconds, then given one call to prove itself.
 * With every circuit open a call fails at once, marked `NOT_SENT`. Retries are the caller's
 * (etcd-connection.ts): one call here is one attempt on one member.
 */
import { isRecoverableError } from 'etcd3';
import { decodeMessage, responseDecoders, ProtobufDecodeError } from './decode.js';
import { grpcFrame, requestCodecs, type RequestCodec } from './encode.js';
import { Status, UnaryChannel, grpcError, type UnaryChannelOptions } from './unary-channel.js';

export type UnaryMethod = keyof typeof requestCodecs;

const PATHS: Record<UnaryMethod, string> = {
  range: '/etcdserverpb.KV/Range',
  put: '/etcdserverpb.KV/Put',
  deleteRange: '/etcdserverpb.KV/DeleteRange',
  txn: '/etcdserverpb.KV/Txn',
  compact: '/etcdserverpb.KV/Compact',
  leaseGrant: '/etcdserverpb.Lease/LeaseGrant',
};

/** Consecutive failures that open a member's circuit, and how long it stays open. */
const FAILURES_TO_OPEN = 3;
const OPEN_MS = 5_000;

interface Member {
  readonly channel: UnaryChannel;
  failures: number;
  /** Epoch ms until which the circuit is open (calls skip the member). */
  openUntil: number;
}

export interface UnaryClientOptions extends Omit<UnaryChannelOptions, 'endpoint'> {
  readonly endpoints: readonly string[];
}

export class UnaryClient {
  private readonly members: Member[];

  constructor(options: UnaryClientOptions) {
    this.members = options.endpoints.map((endpoint) => ({
      channel: new UnaryChannel({ ...options, endpoint }),
      failures: 0,
      openUntil: 0,
    }));
  }

  /** One attempt of `method` on one member; resolves with the decoded response (proto.ts shapes). */
  async call<Res>(method: UnaryMethod, req: unknown, deadline: number): Promise<Res> {
    const member = this.pick();
    if (member === undefined) {
      throw grpcError(Status.UNAVAILABLE, 'every etcd member failed its last calls (circuits open); none was tried', true);
    }
    let message: Buffer;
    try {
      message = await member.channel.call(PATHS[method], grpcFrame(requestCodecs[method] as RequestCodec<unknown>, req), deadline);
    } catch (err) {
      if (isRecoverableError(err as Error)) this.failed(member);
      throw err;
    }
    member.failures = 0;
    try {
      return decodeMessage(responseDecoders[method], message, 0, message.length) as Res;
    } catch (err) {
      if (!(err instanceof ProtobufDecodeError)) throw err;
      throw grpcError(Status.INTERNAL, `etcd ${method} answer does not decode: ${err.message}`);
    }
  }

  close(): void {
    for (const m of this.members) m.channel.close();
  }

  /** A random member with its circuit closed (or due for its trial call). */
  private pick(): Member | undefined {
    const n = this.members.length;
    const start = n === 1 ? 0 : Math.floor(Math.random() * n);
    const now = Date.now();
    for (let i = 0; i < n; i++) {
      const m = this.members[(start + i) % n]!;
      if (m.openUntil <= now) return m;
    }
    return undefined;
  }

  private failed(m: Member): void {
    if (++m.failures < FAILURES_TO_OPEN) return;
    m.openUntil = Date.now() + OPEN_MS;
    // After the open period one more failure opens it again.
    m.failures = FAILURES_TO_OPEN - 1;
  }
}
