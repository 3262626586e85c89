/**
 * CBOR encoding of API objects (RFC 8949), as kube-apiserver 1.32 writes `application/cbor` where it
 * matters to the programs reading it:
 * - every data item the server writes starts with the self-described CBOR tag 55799 (`d9 d9 f7`), the
 *   magic number by which Kubernetes recognizes CBOR;
 * - strings whose schema says `format: byte` (Go `[]byte`: Secret `data`, ConfigMap `binaryData`), held as
 *   base64 text in our JSON-shaped objects, are written as CBOR byte strings inside tag 22 ("expected
 *   later base64 encoding"), as kube does, so Go clients decode them into `[]byte`;
 * - integers are CBOR integers in their shortest head (also beyond 2^32: never floats), numbers with a
 *   fraction, and whole numbers where the schema says `type: number`, are floats in the shortest of half,
 *   single or double precision that keeps the value (kube's ShortestFloat16); times are RFC 3339 strings
 *   without a tag (kube's `TimeTag: EncTagNone`);
 * - definite lengths only; `null` for null; object properties whose value is `undefined` are left out and
 *   `undefined` array elements are `null`, as `JSON.stringify` does.
 *
 * Two choices differ from kube's bytes without changing what any decoder reads: strings are CBOR text
 * strings (kube writes Go strings as byte strings, which kube's own decoder and Go clients take either
 * way, while generic CBOR decoders would hand byte strings back as binary), and map keys keep the object's
 * order instead of kube's bytewise sort (decoders do not care; it saves a sort per object).
 *
 * NaN and ±Infinity cannot occur in a JSON-shaped object; met anyway they throw (a programming error).
 */
import type { Schema } from '../../schema/schema.js';
import { toFloat16Bits } from './float16.js';
import { isBytes, isFloat, itemSchema, propertySchema } from './schema-path.js';

/** The head of tag 55799 (self-described CBOR): the first three bytes of everything the server writes. */
export const SELF_DESCRIBED_CBOR = Buffer.from([0xd9, 0xd9, 0xf7]);

const MAJOR_UNSIGNED = 0x00;
const MAJOR_NEGATIVE = 0x20;
const MAJOR_BYTES = 0x40;
const MAJOR_TEXT = 0x60;
const MAJOR_ARRAY = 0x80;
const MAJOR_MAP = 0xa0;
const TAG_BASE64_LATER = 0xd6; // tag 22 in one byte

/**
 * A growable output buffer. One scratch buffer is reused by every encode (encoding is synchronous, so no
 * two encodes interleave); each result is copied out of it once.
 */
class Writer {
  buf: Buffer;
  pos = 0;

  constructor(buf: Buffer) {
    this.buf = buf;
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A head: major type plus argument, in the shortest form (RFC 8949 §4.2.1). */
  head(major: number, n: number): void {
    this.ensure(9);
    const b = this.buf;
    if (n < 24) {
      b[this.pos++] = major | n;
    } else if (n < 0x100) {
      b[this.pos++] = major | 24;
      b[this.pos++] = n;
    } else if (n < 0x10000) {
      b[this.pos++] = major | 25;
      b.writeUInt16BE(n, this.pos);
      this.pos += 2;
    } else if (n < 0x100000000) {
      b[this.pos++] = major | 26;
      b.writeUInt32BE(n, this.pos);
      this.pos += 4;
    } else {
      this.head64(major, BigInt(n));
    }
  }

  /** A head with an 8-byte argument (integers beyond 32 bits). */
  head64(major: number, n: bigint): void {
    this.ensure(9);
    this.buf[this.pos++] = major | 27;
    this.buf.writeBigUInt64BE(n, this.pos);
    this.pos += 8;
  }

  bytes(src: Uint8Array): void {
    this.ensure(src.length);
    this.buf.set(src, this.pos);
    this.pos += src.length;
  }

  text(s: string): void {
    const n = s.length;
    // One pass for ASCII (one byte per character): head for n bytes, then the characters; on the first
    // non-ASCII character start over with the UTF-8 encoder. 3 bytes per UTF-16 unit bound the UTF-8 size.
    this.ensure(n * 3 + 9);
    const start = this.pos;
    this.head(MAJOR_TEXT, n);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) {
        this.pos = start;
        const len = Buffer.byteLength(s, 'utf8');
        this.head(MAJOR_TEXT, len);
        this.pos += b.write(s, this.pos, 'utf8');
        return;
      }
      b[p++] = c;
    }
    this.pos = p;
  }

  number(v: number, float: boolean): void {
    if (!Number.isFinite(v)) throw new Error(`cbor: cannot encode ${v}: not a finite number`);
    if (!float && Number.isInteger(v) && v < 2 ** 64 && v >= -(2 ** 64)) {
      if (v >= 0) {
        this.head(MAJOR_UNSIGNED, v);
      } else if (v >= -0x100000000) {
        this.head(MAJOR_NEGATIVE, -1 - v);
      } else {
        // -1 - v in doubles would round: exact in BigInt.
        this.head64(MAJOR_NEGATIVE, -1n - BigInt(v));
      }
      return;
    }
    this.ensure(9);
    const b = this.buf;
    const half = toFloat16Bits(v);
    if (half >= 0) {
      b[this.pos++] = 0xf9;
      b.writeUInt16BE(half, this.pos);
      this.pos += 2;
    } else if (Math.fround(v) === v) {
      b[this.pos++] = 0xfa;
      b.writeFloatBE(v, this.pos);
      this.pos += 4;
    } else {
      b[this.pos++] = 0xfb;
      b.writeDoubleBE(v, this.pos);
      this.pos += 8;
    }
  }

  value(v: unknown, s: Schema | undefined): void {
    switch (typeof v) {
      case 'string':
        if (isBytes(s)) {
          // Go []byte: tag 22 + the bytes (the JSON form is their base64).
          const raw = Buffer.from(v, 'base64');
          this.ensure(1);
          this.buf[this.pos++] = TAG_BASE64_LATER;
          this.head(MAJOR_BYTES, raw.length);
          this.bytes(raw);
        } else {
          this.text(v);
        }
        return;
      case 'number':
        this.number(v, isFloat(s));
        return;
      case 'boolean':
        this.ensure(1);
        this.buf[this.pos++] = v ? 0xf5 : 0xf4;
        return;
      case 'object':
        if (v === null) break;
        if (Array.isArray(v)) {
          const items = itemSchema(s);
          this.head(MAJOR_ARRAY, v.length);
          for (const item of v) this.value(item, items);
          return;
        }
        if (v instanceof Uint8Array) {
          this.head(MAJOR_BYTES, v.length);
          this.bytes(v);
          return;
        }
        this.map(v as Record<string, unknown>, s);
        return;
      case 'bigint': {
        const major = v >= 0n ? MAJOR_UNSIGNED : MAJOR_NEGATIVE;
        const n = BigInt.asUintN(64, v >= 0n ? v : -1n - v);
        if (n < 0x100000000n) this.head(major, Number(n));
        else this.head64(major, n);
        return;
      }
      default:
        // undefined (in arrays), functions, symbols: null, as JSON.stringify writes them in arrays.
        break;
    }
    this.ensure(1);
    this.buf[this.pos++] = 0xf6;
  }

  map(o: Record<string, unknown>, s: Schema | undefined): void {
    const keys = Object.keys(o);
    const headAt = this.pos;
    this.head(MAJOR_MAP, keys.length);
    const headLen = this.pos - headAt;
    let skipped = 0;
    for (const k of keys) {
      const v = o[k];
      if (v === undefined) {
        skipped++;
        continue;
      }
      this.text(k);
      this.value(v, propertySchema(s, k));
    }
    if (skipped > 0) this.rewriteHead(headAt, headLen, MAJOR_MAP, keys.length - skipped);
  }

  /** Replaces a head written at `at` (`len` bytes) by the head of `n`, moving what follows if its size changes. */
  private rewriteHead(at: number, len: number, major: number, n: number): void {
    const end = this.pos;
    this.pos = at;
    this.head(major, n);
    const newLen = this.pos - at;
    if (newLen !== len) this.buf.copy(this.buf, at + newLen, at + len, end);
    this.pos = end + newLen - len;
  }

  /** The bytes written, copied out of the scratch buffer. */
  result(): Buffer {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }
}

let scratch: Buffer = Buffer.allocUnsafe(64 * 1024);
const SCRATCH_KEEP_LIMIT = 4 * 1024 * 1024;

/** Runs `write` on a writer over the shared scratch buffer and returns its bytes. */
export function withWriter(write: (w: Writer) => void): Buffer {
  const w = new Writer(scratch);
  write(w);
  // Keep a grown buffer for the next encode, unless it grew beyond what is worth holding on to.
  if (w.buf.length <= SCRATCH_KEEP_LIMIT) scratch = w.buf;
  return w.result();
}

export type { Writer };

/**
 * `value` as one self-described CBOR data item (`d9 d9 f7` + the item). `schema` is the value's structural
 * schema (a kind's, or a list schema from `cborListSchema`): it marks the `format: byte` strings and the
 * `type: number` floats; without it every string is text and every whole number an integer.
 */
export function encodeCbor(value: unknown, schema?: Schema): Buffer {
  return withWriter((w) => {
    w.bytes(SELF_DESCRIBED_CBOR);
    w.value(value, schema);
  });
}

const listSchemas = new WeakMap<Schema, Schema>();

/** The schema of a list of objects of `itemSchema` (`items` is the only field that needs it), memoized. */
export function cborListSchema(itemSchema: Schema): Schema {
  let s = listSchemas.get(itemSchema);
  if (s === undefined) {
    s = { type: 'object', properties: { items: { type: 'array', items: itemSchema } } };
    listSchemas.set(itemSchema, s);
  }
  return s;
}
