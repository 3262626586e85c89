/**
 * The etcd v3 request messages this backend sends, encoded as protobuf straight into one gRPC message
 * frame (the 5-byte prefix: not compressed, big-endian length; then the message). Each message is data: its
 * fields' numbers (etcd's `rpc.proto`, etcdserverpb), kinds and accessors, which drive both passes of the
 * encoding: sizes, then bytes into a buffer of exactly that size, so a value is copied once.
 *
 * proto3 rules: scalars at their default (0, false, empty bytes) are left out, except members of a oneof
 * (`always`), written whatever their value because their presence selects the union's arm
 * (`Compare.mod_revision`); an embedded message is written when present, even empty (a progress request).
 * int64 fields are JavaScript numbers (revisions are below 2^53) except lease IDs, which are decimal strings
 * (random 63-bit).
 */
import type {
  RawCompactionRequest,
  RawCompare,
  RawDeleteRangeRequest,
  RawLeaseGrantRequest,
  RawPutRequest,
  RawRangeRequest,
  RawRequestOp,
  RawTxnRequest,
  RawWatchRequest,
} from '../proto.js';

/** One field: its number, how it is encoded, and where its value is (undefined: absent). */
type Field<M> =
  | { readonly n: number; readonly kind: 'bytes'; readonly get: (m: M) => Uint8Array | undefined }
  | { readonly n: number; readonly kind: 'uint'; readonly get: (m: M) => number | undefined; readonly always?: true }
  | { readonly n: number; readonly kind: 'bool'; readonly get: (m: M) => boolean | undefined }
  /** A signed int64 given as a decimal string (lease IDs). */
  | { readonly n: number; readonly kind: 'int64'; readonly get: (m: M) => string | undefined }
  | { readonly n: number; readonly kind: 'message'; readonly spec: Spec<never>; readonly get: (m: M) => unknown }
  | { readonly n: number; readonly kind: 'repeated'; readonly spec: Spec<never>; readonly get: (m: M) => readonly unknown[] };

/** A message: its fields in the order they are written. */
export type Spec<M> = readonly Field<M>[];

/** Bytes of `v` (a non-negative safe integer) as a varint. */
function varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    n++;
  }
  return n;
}

/** A decimal int64 as the unsigned 64-bit value protobuf writes (two's complement if negative). */
const int64Bits = (decimal: string): bigint => BigInt.asUintN(64, BigInt(decimal));

function bigVarintSize(v: bigint): number {
  let n = 1;
  while (v >= 0x80n) {
    v >>= 7n;
    n++;
  }
  return n;
}

/** The encoded size of message `m` of `spec` (its fields, not its own tag and length). */
function sizeOf<M>(spec: Spec<M>, m: M): number {
  let size = 0;
  for (const f of spec) {
    // Field numbers here are below 16: every tag is one byte.
    switch (f.kind) {
      case 'bytes': {
        const b = f.get(m);
        if (b !== undefined && b.length > 0) size += 1 + varintSize(b.length) + b.length;
        break;
      }
      case 'uint': {
        const v = f.get(m);
        if (v || (f.always && v !== undefined)) size += 1 + varintSize(v);
        break;
      }
      case 'bool':
        if (f.get(m)) size += 2;
        break;
      case 'int64': {
        const v = f.get(m);
        const bits = v === undefined ? 0n : int64Bits(v);
        if (bits !== 0n) size += 1 + bigVarintSize(bits);
        break;
      }
      case 'message': {
        const sub = f.get(m);
        if (sub !== undefined) {
          const s = sizeOf(f.spec as Spec<unknown>, sub);
          size += 1 + varintSize(s) + s;
        }
        break;
      }
      case 'repeated':
        for (const sub of f.get(m)) {
          const s = sizeOf(f.spec as Spec<unknown>, sub);
          size += 1 + varintSize(s) + s;
        }
        break;
    }
  }
  return size;
}

/** Writes into a buffer sized by `sizeOf`. */
class Writer {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
  ) {
    this.pos = start;
  }

  varint(v: number): void {
    const buf = this.buf;
    while (v >= 0x80) {
      buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    buf[this.pos++] = v;
  }

  bigVarint(v: bigint): void {
    while (v >= 0x80n) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  /** A tag: field number `n` (below 16) and wire type 0 (varint) or 2 (length-delimited). */
  tag(n: number, wire: 0 | 2): void {
    this.buf[this.pos++] = n * 8 + wire;
  }

  message<M>(spec: Spec<M>, m: M): void {
    for (const f of spec) {
      switch (f.kind) {
        case 'bytes': {
          const b = f.get(m);
          if (b === undefined || b.length === 0) break;
          this.tag(f.n, 2);
          this.varint(b.length);
          this.buf.set(b, this.pos);
          this.pos += b.length;
          break;
        }
        case 'uint': {
          const v = f.get(m);
          if (!v && !(f.always && v !== undefined)) break;
          this.tag(f.n, 0);
          this.varint(v!);
          break;
        }
        case 'bool':
          if (!f.get(m)) break;
          this.tag(f.n, 0);
          this.buf[this.pos++] = 1;
          break;
        case 'int64': {
          const v = f.get(m);
          const bits = v === undefined ? 0n : int64Bits(v);
          if (bits === 0n) break;
          this.tag(f.n, 0);
          this.bigVarint(bits);
          break;
        }
        case 'message': {
          const sub = f.get(m);
          if (sub !== undefined) this.embedded(f.n, f.spec as Spec<unknown>, sub);
          break;
        }
        case 'repeated':
          for (const sub of f.get(m)) this.embedded(f.n, f.spec as Spec<unknown>, sub);
          break;
      }
    }
  }

  private embedded(n: number, spec: Spec<unknown>, sub: unknown): void {
    this.tag(n, 2);
    this.varint(sizeOf(spec, sub));
    this.message(spec, sub);
  }
}

const range: Spec<RawRangeRequest> = [
  { n: 1, kind: 'bytes', get: (r) => r.key },
  { n: 2, kind: 'bytes', get: (r) => r.range_end },
  { n: 3, kind: 'uint', get: (r) => r.limit },
  { n: 4, kind: 'uint', get: (r) => r.revision },
  { n: 8, kind: 'bool', get: (r) => r.keys_only },
  { n: 9, kind: 'bool', get: (r) => r.count_only },
  { n: 10, kind: 'uint', get: (r) => r.min_mod_revision },
];

const put: Spec<RawPutRequest> = [
  { n: 1, kind: 'bytes', get: (p) => p.key },
  { n: 2, kind: 'bytes', get: (p) => p.value },
  { n: 3, kind: 'int64', get: (p) => p.lease },
];

const deleteRange: Spec<RawDeleteRangeRequest> = [
  { n: 1, kind: 'bytes', get: (d) => d.key },
  { n: 3, kind: 'bool', get: (d) => d.prev_kv },
];

const COMPARE_TARGET_MOD = 2; // result Equal is 0, the default

const compare: Spec<RawCompare> = [
  { n: 2, kind: 'uint', get: () => COMPARE_TARGET_MOD },
  { n: 3, kind: 'bytes', get: (c) => c.key },
  { n: 6, kind: 'uint', get: (c) => c.mod_revision, always: true },
];

/** RequestOp: a oneof of range (1), put (2) and delete range (3). */
const requestOp: Spec<RawRequestOp> = [
  { n: 1, kind: 'message', spec: range as Spec<never>, get: (op) => ('request_range' in op ? op.request_range : undefined) },
  { n: 2, kind: 'message', spec: put as Spec<never>, get: (op) => ('request_put' in op ? op.request_put : undefined) },
  { n: 3, kind: 'message', spec: deleteRange as Spec<never>, get: (op) => ('request_delete_range' in op ? op.request_delete_range : undefined) },
];

const txn: Spec<RawTxnRequest> = [
  { n: 1, kind: 'repeated', spec: compare as Spec<never>, get: (t) => t.compare },
  { n: 2, kind: 'repeated', spec: requestOp as Spec<never>, get: (t) => t.success },
  { n: 3, kind: 'repeated', spec: requestOp as Spec<never>, get: (t) => t.failure },
];

type CreateWatch = Extract<RawWatchRequest, { create_request: unknown }>['create_request'];

const createWatch: Spec<CreateWatch> = [
  { n: 1, kind: 'bytes', get: (c) => c.key },
  { n: 2, kind: 'bytes', get: (c) => c.range_end },
  { n: 3, kind: 'uint', get: (c) => c.start_revision },
  { n: 4, kind: 'bool', get: (c) => c.progress_notify },
  { n: 6, kind: 'bool', get: (c) => c.prev_kv },
  { n: 7, kind: 'uint', get: (c) => c.watch_id },
];

/** WatchRequest: a oneof of create (1), cancel (2) and progress (3, an empty message). */
const watch: Spec<RawWatchRequest> = [
  { n: 1, kind: 'message', spec: createWatch as Spec<never>, get: (w) => ('create_request' in w ? w.create_request : undefined) },
  {
    n: 2,
    kind: 'message',
    spec: [{ n: 1, kind: 'uint', get: (c: { watch_id: number }) => c.watch_id }] as Spec<never>,
    get: (w) => ('cancel_request' in w ? w.cancel_request : undefined),
  },
  { n: 3, kind: 'message', spec: [], get: (w) => ('progress_request' in w ? w.progress_request : undefined) },
];

const compaction: Spec<RawCompactionRequest> = [
  { n: 1, kind: 'uint', get: (c) => c.revision },
  { n: 2, kind: 'bool', get: (c) => c.physical },
];

const leaseGrant: Spec<RawLeaseGrantRequest> = [
  { n: 1, kind: 'uint', get: (g) => g.TTL },
  { n: 2, kind: 'uint', get: (g) => g.ID },
];

/** The request messages by method (the same names as the decoders' and `members.ts`'s paths). */
export const requestSpecs = {
  range,
  put,
  deleteRange,
  txn,
  compact: compaction,
  leaseGrant,
  /** Maintenance.Status: an empty request. */
  status: [] as Spec<Record<string, never>>,
};

/** A WatchRequest (create, cancel or progress) on a watch stream. */
export const watchRequestSpec = watch;

/** `m` as one gRPC message frame: flag 0 (not compressed), 4-byte big-endian length, the message. */
export function grpcFrame<M>(spec: Spec<M>, m: M): Buffer {
  const size = sizeOf(spec, m);
  // allocUnsafe: every byte is written below (sizes and writes follow the same rules).
  const buf = Buffer.allocUnsafe(5 + size);
  buf[0] = 0;
  buf.writeUInt32BE(size, 1);
  const w = new Writer(buf, 5);
  w.message(spec, m);
  if (w.pos !== buf.length) throw new Error(`etcd request encoding wrote ${w.pos - 5} bytes of ${size}`);
  return buf;
}
