/**
 * The binary record format shared by the log and the snapshot. Every record is one frame:
 *
 *   u32le payloadLength | u32le crc32(payload) | payload
 *
 * so a reader can tell a complete record from a torn or overwritten tail without trusting anything after it.
 * Payloads start with a one-byte type. Integers are little-endian; revisions use 6 bytes (2^48 is far beyond
 * any revision this process can reach); strings are UTF-8 with a u32 byte length.
 *
 * Log payloads:
 *   TXN      u8 1 | rev:u48 | count:u32 | count x op
 *            op = u8 1 (put) | keyLen:u32 | key | createRevision:u48 | valueLen:u32 | value
 *               | u8 2 (delete) | keyLen:u32 | key
 *               | u8 3 (put with a ttl) | keyLen:u32 | key | createRevision:u48 | expiresAt:u48 | valueLen:u32
 *                 | value                                    (expiresAt: epoch milliseconds)
 *   COMPACT  u8 2 | rev:u48
 * Snapshot payloads are defined in `snapshot.ts` with the same primitives (`RecordWriter`, `RecordReader`).
 */
// CRC-32 (IEEE, as zlib and every frame written before computes it); a subarray is a view, not a copy.
import { crc32 } from 'node:zlib';

export const FRAME_HEADER = 8;
/** Larger lengths are treated as garbage: no single record may exceed this. */
export const MAX_PAYLOAD = 1 << 30;

export const enum RecordType {
  Txn = 1,
  Compact = 2,
}
export const enum OpKind {
  Put = 1,
  Delete = 2,
  /** A put whose key expires: logs written before ttls existed never hold it, so old logs still read. */
  PutExpiring = 3,
}

/** One net change of a transaction as logged: a put (`value` set) or a delete (`value` undefined). */
export interface RecordOp {
  readonly key: string;
  readonly value: Uint8Array | undefined;
  readonly createRevision: number;
  /** Puts only: when the store deletes the key, in epoch milliseconds. Unset or 0: never. */
  readonly expiresAt?: number;
}

/** Sequential writer over a pre-sized frame; `finish` fills in the header. */
export class RecordWriter {
  readonly buf: Buffer;
  pos = FRAME_HEADER;
  /**
   * `kept`: the frame (or a view into it) outlives the write, so it gets memory of its own, never a slice of
   * node's shared 8 KiB pool: a pool slab stays allocated whole while any slice of it lives, and long-lived
   * values among the request path's short-lived slices kept ~8 KiB per 2.4 values (heap snapshot, embedded
   * store, 20,000 ConfigMaps: 3.4 KB of buffers per 1.4 KB value).
   */
  constructor(payloadSize: number, kept = false) {
    this.buf = kept ? Buffer.allocUnsafeSlow(FRAME_HEADER + payloadSize) : Buffer.allocUnsafe(FRAME_HEADER + payloadSize);
  }
  u8(v: number): void {
    this.buf[this.pos++] = v;
  }
  u32(v: number): void {
    this.buf.writeUInt32LE(v, this.pos);
    this.pos += 4;
  }
  u48(v: number): void {
    this.buf.writeUIntLE(v, this.pos, 6);
    this.pos += 6;
  }
  /** Writes a length-prefixed UTF-8 string whose byte length the caller computed. */
  str(s: string, byteLength: number): void {
    this.u32(byteLength);
    this.pos += this.buf.write(s, this.pos, byteLength, 'utf8');
  }
  /** Writes length-prefixed bytes and returns the offset of the copy inside `buf`. */
  bytes(b: Uint8Array): number {
    this.u32(b.length);
    const at = this.pos;
    this.buf.set(b, at);
    this.pos += b.length;
    return at;
  }
  /** Fills in length and CRC; the frame is complete afterwards. */
  finish(): Buffer {
    if (this.pos !== this.buf.length) throw new Error(`record size mismatch: wrote ${this.pos} of ${this.buf.length}`);
    this.buf.writeUInt32LE(this.buf.length - FRAME_HEADER, 0);
    this.buf.writeUInt32LE(crc32(this.buf.subarray(FRAME_HEADER)), 4);
    return this.buf;
  }
}

/** Sequential reader over one payload. Throws on reads past the end (a CRC-valid but malformed record). */
export class RecordReader {
  pos: number;
  constructor(
    readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }
  private need(n: number): void {
    if (this.pos + n > this.end) throw new Error('malformed record: truncated field');
  }
  u8(): number {
    this.need(1);
    return this.buf[this.pos++]!;
  }
  u32(): number {
    this.need(4);
    const v = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    return v;
  }
  u48(): number {
    this.need(6);
    const v = this.buf.readUIntLE(this.pos, 6);
    this.pos += 6;
    return v;
  }
  str(): string {
    const n = this.u32();
    this.need(n);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  /** A private copy of the bytes, so the (large) file buffer is not kept alive by one small value. */
  bytes(): Uint8Array {
    const n = this.u32();
    this.need(n);
    const out = new Uint8Array(n);
    out.set(this.buf.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }
}

/** An encoded TXN frame plus views of the logged values (which become the stored values: one copy only). */
export interface EncodedTxn {
  readonly frame: Buffer;
  /** Per op, a view of its value inside `frame`; undefined for deletes. */
  readonly values: readonly (Uint8Array | undefined)[];
}

export function encodeTxn(revision: number, ops: readonly RecordOp[]): EncodedTxn {
  const keyLengths = new Array<number>(ops.length);
  let size = 1 + 6 + 4;
  let puts = false;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const kl = Buffer.byteLength(op.key, 'utf8');
    keyLengths[i] = kl;
    size += 1 + 4 + kl + (op.value === undefined ? 0 : 6 + 4 + op.value.length + (op.expiresAt ? 6 : 0));
    puts ||= op.value !== undefined;
  }
  // The values are kept as views into the frame: a frame with puts is kept.
  const w = new RecordWriter(size, puts);
  w.u8(RecordType.Txn);
  w.u48(revision);
  w.u32(ops.length);
  const values = new Array<Uint8Array | undefined>(ops.length);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const expiring = op.value !== undefined && (op.expiresAt ?? 0) > 0;
    w.u8(op.value === undefined ? OpKind.Delete : expiring ? OpKind.PutExpiring : OpKind.Put);
    w.str(op.key, keyLengths[i]!);
    if (op.value === undefined) {
      values[i] = undefined;
    } else {
      w.u48(op.createRevision);
      if (expiring) w.u48(op.expiresAt!);
      const at = w.bytes(op.value);
      // A plain Uint8Array view (not a Buffer): callers compare values as Uint8Array.
      values[i] = new Uint8Array(w.buf.buffer, w.buf.byteOffset + at, op.value.length);
    }
  }
  return { frame: w.finish(), values };
}

export function encodeCompact(revision: number): Buffer {
  const w = new RecordWriter(1 + 6);
  w.u8(RecordType.Compact);
  w.u48(revision);
  return w.finish();
}

export type DecodedRecord =
  | { readonly type: RecordType.Txn; readonly revision: number; readonly ops: readonly RecordOp[] }
  | { readonly type: RecordType.Compact; readonly revision: number };

/** Decodes one log payload (values are copied out of `buf`). Throws on an unknown or malformed record. */
export function decodeLogRecord(buf: Buffer, start: number, end: number): DecodedRecord {
  const r = new RecordReader(buf, start, end);
  const type = r.u8();
  if (type === RecordType.Compact) {
    const revision = r.u48();
    return { type, revision };
  }
  if (type !== RecordType.Txn) throw new Error(`unknown log record type ${type}`);
  const revision = r.u48();
  const count = r.u32();
  const ops: RecordOp[] = [];
  for (let i = 0; i < count; i++) {
    const kind = r.u8();
    const key = r.str();
    if (kind === OpKind.Put) {
      const createRevision = r.u48();
      ops.push({ key, createRevision, value: r.bytes() });
    } else if (kind === OpKind.PutExpiring) {
      const createRevision = r.u48();
      const expiresAt = r.u48();
      ops.push({ key, createRevision, expiresAt, value: r.bytes() });
    } else if (kind === OpKind.Delete) {
      ops.push({ key, createRevision: 0, value: undefined });
    } else {
      throw new Error(`unknown op kind ${kind}`);
    }
  }
  if (r.pos !== end) throw new Error('malformed record: trailing bytes');
  return { type, revision, ops };
}

/** Where a frame scan stopped: `validEnd` is the offset after the last intact frame. */
export interface FrameScan {
  readonly validEnd: number;
  /** Why the scan stopped before the end of the buffer; undefined when every byte was consumed. */
  readonly problem: string | undefined;
}

/**
 * Walks the frames in `buf` from `start`, calling `onFrame(payloadStart, payloadEnd)` for each intact one.
 * Stops at the first incomplete frame, absurd length or CRC mismatch (a torn write or garbage) and reports
 * where; exceptions from `onFrame` propagate.
 */
export function scanFrames(buf: Buffer, start: number, onFrame: (payloadStart: number, payloadEnd: number) => void): FrameScan {
  let pos = start;
  while (pos < buf.length) {
    if (buf.length - pos < FRAME_HEADER) return { validEnd: pos, problem: `partial frame header at offset ${pos}` };
    const len = buf.readUInt32LE(pos);
    if (len === 0 || len > MAX_PAYLOAD) return { validEnd: pos, problem: `bad record length ${len} at offset ${pos}` };
    const payloadStart = pos + FRAME_HEADER;
    const payloadEnd = payloadStart + len;
    if (payloadEnd > buf.length) return { validEnd: pos, problem: `partial record at offset ${pos}` };
    if (crc32(buf.subarray(payloadStart, payloadEnd)) !== buf.readUInt32LE(pos + 4)) {
      return { validEnd: pos, problem: `checksum mismatch at offset ${pos}` };
    }
    onFrame(payloadStart, payloadEnd);
    pos = payloadEnd;
  }
  return { validEnd: pos, problem: undefined };
}
