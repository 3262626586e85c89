/**
 * The etcd v3 request messages this backend sends, encoded as protobuf straight into one gRPC message
 * frame (the 5-byte prefix: not compressed, big-endian length; then the message). Field numbers are etcd's
 * `rpc.proto` (etcdserverpb). Two passes: sizes, then bytes into a buffer of exactly that size, so a value is
 * copied once.
 *
 * proto3 rules: scalars at their default (0, false, empty bytes) are left out, except `Compare.mod_revision`,
 * a member of a oneof, which is always written (its presence selects the union's arm). int64 fields are
 * JavaScript numbers (revisions are below 2^53) except lease IDs, which are decimal strings (random 63-bit).
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

const VARINT = 0;
const LEN = 2;

/** Bytes of `v` (a non-negative safe integer) as a varint. */
function varintSize(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 0x80);
    n++;
  }
  return n;
}

/** A decimal int64 (a lease ID) as the unsigned 64-bit value protobuf writes (two's complement if negative). */
function int64Bits(decimal: string): bigint {
  return BigInt.asUintN(64, BigInt(decimal));
}

function bigVarintSize(v: bigint): number {
  let n = 1;
  while (v >= 0x80n) {
    v >>= 7n;
    n++;
  }
  return n;
}

/** A tag of a field number below 16 is one byte. */
const tagSize = (field: number): number => (field < 16 ? 1 : 2);
const bytesField = (field: number, b: Uint8Array | undefined): number =>
  b === undefined || b.length === 0 ? 0 : tagSize(field) + varintSize(b.length) + b.length;
const uintField = (field: number, v: number | undefined): number => (v ? tagSize(field) + varintSize(v) : 0);
const boolField = (field: number, v: boolean | undefined): number => (v ? tagSize(field) + 1 : 0);
const messageField = (field: number, size: number): number => tagSize(field) + varintSize(size) + size;

function rangeSize(r: RawRangeRequest): number {
  return (
    bytesField(1, r.key) +
    bytesField(2, r.range_end) +
    uintField(3, r.limit) +
    uintField(4, r.revision) +
    boolField(8, r.keys_only) +
    boolField(9, r.count_only) +
    uintField(10, r.min_mod_revision)
  );
}

function putSize(p: RawPutRequest): number {
  const lease = p.lease === undefined ? 0n : int64Bits(p.lease);
  return bytesField(1, p.key) + bytesField(2, p.value) + (lease === 0n ? 0 : 1 + bigVarintSize(lease));
}

function deleteSize(d: RawDeleteRangeRequest): number {
  return bytesField(1, d.key) + boolField(3, d.prev_kv);
}

function compareSize(c: RawCompare): number {
  // result Equal (0) is the default; target Mod is 2; mod_revision always (oneof).
  return uintField(2, 2) + bytesField(3, c.key) + 1 + varintSize(c.mod_revision);
}

function opSize(op: RawRequestOp): number {
  if ('request_range' in op) return messageField(1, rangeSize(op.request_range));
  if ('request_put' in op) return messageField(2, putSize(op.request_put));
  return messageField(3, deleteSize(op.request_delete_range));
}

function txnSize(t: RawTxnRequest): number {
  let n = 0;
  for (const c of t.compare) n += messageField(1, compareSize(c));
  for (const op of t.success) n += messageField(2, opSize(op));
  for (const op of t.failure) n += messageField(3, opSize(op));
  return n;
}

/** Writes into a buffer sized by the functions above. */
export class Writer {
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

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  bytes(field: number, b: Uint8Array | undefined): void {
    if (b === undefined || b.length === 0) return;
    this.tag(field, LEN);
    this.varint(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  uint(field: number, v: number | undefined): void {
    if (!v) return;
    this.tag(field, VARINT);
    this.varint(v);
  }

  bool(field: number, v: boolean | undefined): void {
    if (!v) return;
    this.tag(field, VARINT);
    this.buf[this.pos++] = 1;
  }

  /** The header of an embedded message of `size` bytes; its fields follow. */
  message(field: number, size: number): void {
    this.tag(field, LEN);
    this.varint(size);
  }
}

function writeRange(w: Writer, r: RawRangeRequest): void {
  w.bytes(1, r.key);
  w.bytes(2, r.range_end);
  w.uint(3, r.limit);
  w.uint(4, r.revision);
  w.bool(8, r.keys_only);
  w.bool(9, r.count_only);
  w.uint(10, r.min_mod_revision);
}

function writePut(w: Writer, p: RawPutRequest): void {
  w.bytes(1, p.key);
  w.bytes(2, p.value);
  const lease = p.lease === undefined ? 0n : int64Bits(p.lease);
  if (lease !== 0n) {
    w.tag(3, VARINT);
    w.bigVarint(lease);
  }
}

function writeDelete(w: Writer, d: RawDeleteRangeRequest): void {
  w.bytes(1, d.key);
  w.bool(3, d.prev_kv);
}

function writeOp(w: Writer, field: number, op: RawRequestOp): void {
  w.message(field, opSize(op));
  if ('request_range' in op) {
    w.message(1, rangeSize(op.request_range));
    writeRange(w, op.request_range);
  } else if ('request_put' in op) {
    w.message(2, putSize(op.request_put));
    writePut(w, op.request_put);
  } else {
    w.message(3, deleteSize(op.request_delete_range));
    writeDelete(w, op.request_delete_range);
  }
}

function writeTxn(w: Writer, t: RawTxnRequest): void {
  for (const c of t.compare) {
    w.message(1, compareSize(c));
    w.uint(2, 2);
    w.bytes(3, c.key);
    w.tag(6, VARINT);
    w.varint(c.mod_revision);
  }
  for (const op of t.success) writeOp(w, 2, op);
  for (const op of t.failure) writeOp(w, 3, op);
}

type CreateWatch = Extract<RawWatchRequest, { create_request: unknown }>['create_request'];

function createWatchSize(c: CreateWatch): number {
  return (
    bytesField(1, c.key) +
    bytesField(2, c.range_end) +
    uintField(3, c.start_revision) +
    boolField(4, c.progress_notify) +
    boolField(6, c.prev_kv) +
    uintField(7, c.watch_id)
  );
}

function watchSize(w: RawWatchRequest): number {
  if ('create_request' in w) return messageField(1, createWatchSize(w.create_request));
  if ('cancel_request' in w) return messageField(2, uintField(1, w.cancel_request.watch_id));
  return messageField(3, 0);
}

function writeWatch(w: Writer, req: RawWatchRequest): void {
  if ('create_request' in req) {
    const c = req.create_request;
    w.message(1, createWatchSize(c));
    w.bytes(1, c.key);
    w.bytes(2, c.range_end);
    w.uint(3, c.start_revision);
    w.bool(4, c.progress_notify);
    w.bool(6, c.prev_kv);
    w.uint(7, c.watch_id);
  } else if ('cancel_request' in req) {
    w.message(2, uintField(1, req.cancel_request.watch_id));
    w.uint(1, req.cancel_request.watch_id);
  } else {
    w.message(3, 0);
  }
}

/** A WatchRequest (create, cancel or progress) on a watch stream. */
export const watchRequestCodec: RequestCodec<RawWatchRequest> = { size: watchSize, write: writeWatch };

/** The requests by method, each a size and a writer of the message's fields. */
export interface RequestCodec<Req> {
  size(req: Req): number;
  write(w: Writer, req: Req): void;
}

export const requestCodecs = {
  range: { size: rangeSize, write: writeRange } as RequestCodec<RawRangeRequest>,
  put: { size: putSize, write: writePut } as RequestCodec<RawPutRequest>,
  deleteRange: { size: deleteSize, write: writeDelete } as RequestCodec<RawDeleteRangeRequest>,
  txn: { size: txnSize, write: writeTxn } as RequestCodec<RawTxnRequest>,
  compact: {
    size: (c) => uintField(1, c.revision) + boolField(2, c.physical),
    write: (w, c) => {
      w.uint(1, c.revision);
      w.bool(2, c.physical);
    },
  } as RequestCodec<RawCompactionRequest>,
  leaseGrant: {
    size: (g) => uintField(1, g.TTL) + uintField(2, g.ID),
    write: (w, g) => {
      w.uint(1, g.TTL);
      w.uint(2, g.ID);
    },
  } as RequestCodec<RawLeaseGrantRequest>,
  /** Maintenance.Status: an empty request. */
  status: { size: () => 0, write: () => undefined } as RequestCodec<Record<string, never>>,
};

/** `req` as one gRPC message frame: flag 0 (not compressed), 4-byte big-endian length, the message. */
export function grpcFrame<Req>(codec: RequestCodec<Req>, req: Req): Buffer {
  const size = codec.size(req);
  // allocUnsafe: every byte is written below (sizes and writes follow the same rules).
  const buf = Buffer.allocUnsafe(5 + size);
  buf[0] = 0;
  buf.writeUInt32BE(size, 1);
  const w = new Writer(buf, 5);
  codec.write(w, req);
  if (w.pos !== buf.length) throw new Error(`etcd request encoding wrote ${w.pos - 5} bytes of ${size}`);
  return buf;
}
