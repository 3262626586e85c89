/**
 * The protobuf wire format, reading side. Every read is bounds-checked: a truncated message, a length
 * prefix past the end (however large it claims to be), an over-long varint or an unknown wire type throws
 * a `ProtobufError`, which the codec turns into a 400; nothing here allocates more than the input holds.
 */
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from './wire-writer.js';

/** Malformed protobuf input; `message` is safe to show to the client. */
export class ProtobufError extends Error {}

export class WireReader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  /** A varint as an unsigned 32-bit number (tags, lengths); larger values are refused. */
  uint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    let result = 0;
    let shift = 0;
    for (;;) {
      if (pos >= this.end) throw new ProtobufError('unexpected EOF');
      const b = buf[pos++]!;
      if (shift === 28) {
        if (b > 15) throw new ProtobufError('integer overflow');
        result += b * 2 ** 28;
        break;
      }
      result |= (b & 127) << shift;
      if (b < 128) break;
      shift += 7;
    }
    this.pos = pos;
    return result >>> 0;
  }

  /** A varint as a signed 64-bit integer (int32 and int64 fields), as a number (exact up to 2^53). */
  int64(): number {
    const buf = this.buf;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    let i = 0;
    for (;; i++) {
      if (pos >= this.end) throw new ProtobufError('unexpected EOF');
      if (i === 10) throw new ProtobufError('integer overflow');
      const b = buf[pos++]!;
      if (i < 4) lo |= (b & 127) << (i * 7);
      else if (i === 4) {
        lo |= (b & 15) << 28;
        hi |= (b & 127) >> 4;
      } else hi |= (b & 127) << (i * 7 - 32);
      if (b < 128) break;
    }
    this.pos = pos;
    return (hi | 0) * 4294967296 + (lo >>> 0);
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new ProtobufError('unexpected EOF');
    const v = Buffer.from(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength).readDoubleLE(this.pos);
    this.pos += 8;
    return v;
  }

  /** The bounds of a length-delimited payload, which the reader then skips. */
  delimited(): { start: number; end: number } {
    const len = this.uint32();
    const start = this.pos;
    if (len > this.end - start) throw new ProtobufError('unexpected EOF');
    this.pos = start + len;
    return { start, end: start + len };
  }

  bytes(): Uint8Array {
    const { start, end } = this.delimited();
    return this.buf.subarray(start, end);
  }

  string(): string {
    const { start, end } = this.delimited();
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + start, end - start).toString('utf8');
  }

  /** Skips a field of `wire` type (unknown fields). Groups (types 3 and 4) are refused, as Go refuses them. */
  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.int64();
        return;
      case WIRE_FIXED64:
        if (this.pos + 8 > this.end) throw new ProtobufError('unexpected EOF');
        this.pos += 8;
        return;
      case WIRE_LEN:
        this.delimited();
        return;
      case WIRE_FIXED32:
        if (this.pos + 4 > this.end) throw new ProtobufError('unexpected EOF');
        this.pos += 4;
        return;
      default:
        throw new ProtobufError(`illegal wire type ${wire}`);
    }
  }
}
