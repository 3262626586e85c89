/**
 * The etcd members this backend talks to, each over its own HTTP/2 connection (member-channel.ts): KV and
 * Lease unary calls and Watch streams, with the host failover etcd3's pool gave them. Each call or stream
 * goes to a random member whose circuit is closed; a member whose calls fail three times in a row (transport
 * failures, and the statuses etcd3 counts as recoverable: UNAVAILABLE, DEADLINE_EXCEEDED, ...) is skipped for
 * five seconds, then given one call to prove itself. With every circuit open a call fails at once, marked
 * `NOT_SENT`. Retries are the caller's (etcd-connection.ts, watch-hub.ts): one call here is one attempt on
 * one member.
 */
import { isRecoverableError } from 'etcd3/lib/errors.js';
import { decodeMessage, responseDecoders, ProtobufDecodeError } from './decode.js';
import { grpcFrame, requestSpecs, type Spec } from './encode.js';
import { MemberChannel, type MemberChannelOptions } from './member-channel.js';
import { Status, grpcError } from './status.js';
import { WatchCall } from './watch-call.js';
import type { EtcdConnectionTls } from '../client-tls.js';

export type UnaryMethod = keyof typeof requestSpecs;

const PATHS: Record<UnaryMethod, string> = {
  range: '/etcdserverpb.KV/Range',
  put: '/etcdserverpb.KV/Put',
  deleteRange: '/etcdserverpb.KV/DeleteRange',
  txn: '/etcdserverpb.KV/Txn',
  compact: '/etcdserverpb.KV/Compact',
  leaseGrant: '/etcdserverpb.Lease/LeaseGrant',
  status: '/etcdserverpb.Maintenance/Status',
};

/**
 * One call of `method` on `channel`; resolves with the decoded response (proto.ts shapes). Rejects with
 * etcd3's typed error: the channel's, or INTERNAL for an answer that does not decode.
 */
export async function callOn<Res>(channel: MemberChannel, method: UnaryMethod, req: unknown, deadline: number): Promise<Res> {
  const message = await channel.call(PATHS[method], grpcFrame(requestSpecs[method] as Spec<unknown>, req), deadline);
  try {
    return decodeMessage(responseDecoders[method], message, 0, message.length) as Res;
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
    throw grpcError(Status.INTERNAL, `etcd ${method} answer does not decode: ${err.message}`);
  }
}

/** Consecutive failures that open a member's circuit, and how long it stays open. */
const FAILURES_TO_OPEN = 3;
const OPEN_MS = 5_000;

interface Member {
  readonly channel: MemberChannel;
  failures: number;
  /** Epoch ms until which the circuit is open (calls skip the member). */
  openUntil: number;
}

export interface EtcdMembersOptions extends Omit<MemberChannelOptions, 'endpoint'> {
  readonly endpoints: readonly string[];
}

/** A channel to one named member, outside the failover (the size monitor's and the version check's). */
export function singleMember(endpoint: string, tls: EtcdConnectionTls | undefined): MemberChannel {
  return new MemberChannel({ endpoint, tls, maxReceiveBytes: Infinity, keepaliveMs: 10_000, keepaliveTimeoutMs: 5_000 });
}

export class EtcdMembers {
  private readonly members: Member[];

  constructor(options: EtcdMembersOptions) {
    this.members = options.endpoints.map((endpoint) => ({
      channel: new MemberChannel({ ...options, endpoint }),
      failures: 0,
      openUntil: 0,
    }));
  }

  /** One attempt of `method` on one member; resolves with the decoded response (proto.ts shapes). */
  async call<Res>(method: UnaryMethod, req: unknown, deadline: number): Promise<Res> {
    const member = this.pick();
    try {
      const res = await callOn<Res>(member.channel, method, req, deadline);
      member.failures = 0;
      return res;
    } catch (err) {
      if (isRecoverableError(err as Error)) this.failed(member);
      throw err;
    }
  }

  /**
   * Opens a Watch stream on a random member, waiting for its connection until `connectDeadline`. The stream
   * carries `hasleader` metadata, so that a member cut off from its cluster ends it (and the watch resumes
   * elsewhere) instead of going silent. `fail` counts a failure of the stream against the member's circuit.
   */
  async openWatch(connectDeadline: number): Promise<{ stream: WatchCall; fail: (err: Error) => void }> {
    const member = this.pick();
    const fail = (err: Error): void => {
      if (isRecoverableError(err)) this.failed(member);
    };
    try {
      const open = await member.channel.openStream('/etcdserverpb.Watch/Watch', { hasleader: 'true' }, connectDeadline);
      return { stream: new WatchCall(open), fail };
    } catch (err) {
      fail(err as Error);
      throw err;
    }
  }

  close(): void {
    for (const m of this.members) m.channel.close();
  }

  /** A random member with its circuit closed (or due for its trial call); throws NOT_SENT when none is. */
  private pick(): Member {
    const n = this.members.length;
    const start = n === 1 ? 0 : Math.floor(Math.random() * n);
    const now = Date.now();
    for (let i = 0; i < n; i++) {
      const m = this.members[(start + i) % n]!;
      if (m.openUntil <= now) return m;
    }
    throw grpcError(Status.UNAVAILABLE, 'every etcd member failed its last calls (circuits open); none was tried', true);
  }

  private failed(m: Member): void {
    if (++m.failures < FAILURES_TO_OPEN) return;
    m.openUntil = Date.now() + OPEN_MS;
    // After the open period one more failure opens it again.
    m.failures = FAILURES_TO_OPEN - 1;
  }
}
