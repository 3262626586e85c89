/**
 * The protobuf wire format, writing side: varints, tags, length-delimited fields, fixed64 doubles.
 *
 * A growable scratch buffer is reused from one encode to the next: a writer takes it (an encode nested in
 * another, such as an item memoized during a list, finds it taken and allocates its own) and `finish()`
 * copies the result out and gives it back. Nested messages are written in place: `begin()`
 * reserves one byte for the length, `end()` fills it in, and only a message of 128 bytes or more moves its
 * contents right by the extra length bytes (one native `copyWithin`), so there is no sizing pass.
 */

const INITIAL_SIZE = 64 * 1024;
/** Larger scratch buffers are dropped after use, so one huge response does not pin its memory. */
const KEEP_AT_MOST = 4 * 1024 * 1024;

let scratch: Buffer | undefined = Buffer.allocUnsafe(INITIAL_SIZE);

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

/** The length of the varint of `v` (0 <= v < 2^53). */
export function varintSize(v: number): number {
  let n = 1;
  for (; v >= 128; n++) v = Math.floor(v / 128);
  return n;
}

/** Writes the varint of `v` (0 <= v < 2^31) into `out` at `offset`; returns the offset after it. */
export function putVarint(out: Uint8Array, offset: number, v: number): number {
  while (v > 127) {
    out[offset++] = (v & 127) | 128;
    v >>>= 7;
  }
  out[offset++] = v;
  return offset;
}

export class WireWriter {
  buf: Buffer;
  pos = 0;

  constructor() {
    this.buf = scratch ?? Buffer.allocUnsafe(INITIAL_SIZE);
    scratch = undefined;
  }

  /** Makes room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** An unsigned varint of a non-negative integer up to 2^53; negative values as 64-bit two's complement. */
  varint(v: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    if (v >= 0 && v < 0x80000000) {
      pos = putVarint(buf, pos, v);
    } else if (v >= 0) {
      while (v > 127) {
        buf[pos++] = (v % 128) | 128;
        v = Math.floor(v / 128);
      }
      buf[pos++] = v;
    } else {
      // Go writes negative int32 and int64 values as ten-byte two's complement varints.
      let u = BigInt.asUintN(64, BigInt(Math.trunc(v)));
      while (u > 127n) {
        buf[pos++] = Number(u & 127n) | 128;
        u >>= 7n;
      }
      buf[pos++] = Number(u);
    }
    this.pos = pos;
  }

  tag(field: number, wire: number): void {
    const t = field * 8 + wire;
    if (t < 128) {
      this.ensure(1);
      this.buf[this.pos++] = t;
    } else this.varint(t);
  }

  /** Reserves the length byte of a length-delimited payload; returns the mark `end()` takes. */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Closes the payload opened at `mark`: writes its length, moving the payload when it needs more bytes. */
  end(mark: number): void {
    const len = this.pos - mark - 1;
    if (len < 128) {
      this.buf[mark] = len;
      return;
    }
    const extra = len < 1 << 14 ? 1 : len < 1 << 21 ? 2 : len < 1 << 28 ? 3 : 4;
    this.ensure(extra);
    const buf = this.buf;
    buf.copyWithin(mark + 1 + extra, mark + 1, this.pos);
    let v = len;
    let p = mark;
    while (v > 127) {
      buf[p++] = (v & 127) | 128;
      v >>>= 7;
    }
    buf[p] = v;
    this.pos += extra;
  }

  /** A string's UTF-8 bytes with their length (no tag). */
  stringPayload(s: string): void {
    const n = s.length;
    if (n < 43) {
      // At most 126 UTF-8 bytes: the length fits in the one reserved byte. ASCII is copied by hand (a native
      // write costs more than the copy for short strings).
      this.ensure(1 + n * 3);
      const buf = this.buf;
      const start = this.pos;
      let pos = start + 1;
      for (let i = 0; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 128) {
          pos = start + 1 + buf.write(s, start + 1, 'utf8');
          break;
        }
        buf[pos++] = c;
      }
      buf[start] = pos - start - 1;
      this.pos = pos;
      return;
    }
    this.ensure(5 + n * 3);
    const mark = this.begin();
    this.pos += this.buf.write(s, this.pos, 'utf8');
    this.end(mark);
  }

  string(field: number, s: string): void {
    this.tag(field, WIRE_LEN);
    this.stringPayload(s);
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, WIRE_LEN);
    this.varint(b.length);
    this.raw(b);
  }

  /** Bytes copied as they are (an already encoded payload). */
  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  double(field: number, v: number): void {
    this.tag(field, WIRE_FIXED64);
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  /** A copy of what was written; the writer must not be used afterwards. */
  finish(): Buffer {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    if (this.buf.length <= KEEP_AT_MOST) scratch = this.buf;
    return out;
  }
}
