/**
 * Strict CBOR decoding of request bodies (RFC 8949) into the JSON-shaped values the rest of the server
 * works on, with the limits and refusals of kube-apiserver 1.32's CBOR decoder (apimachinery's decode
 * mode): every problem is a 400 BadRequest whose message starts with `cbor: `, never a 500.
 *
 * Refused, as kube refuses them: duplicate map keys (whatever `fieldValidation` says: CBOR calls such a
 * map invalid, so there is no strict-decoding warning for them), map keys that are not strings, nesting
 * deeper than 64 (arrays, maps and tags each count a level), arrays over 1,024 elements and maps over 1,024
 * pairs, text strings that are not UTF-8, NaN and ±Infinity, integers outside int64, simple values other
 * than false, true, null and undefined, malformed items (reserved additional information, a stray "break",
 * an indefinite-length string with a chunk of another type), a truncated item, and bytes after the item.
 *
 * Accepted, as kube accepts them: the self-described tag 55799 (before the item or anywhere inside; it
 * is not required), indefinite-length arrays, maps and strings (other encoders write them), non-shortest
 * heads, byte strings wherever a string is expected (map keys included), and tags: 0 (an RFC 3339 text
 * string, kept), 1 (epoch seconds, turned into an RFC 3339 string), 21/22/23 on a byte string (its
 * base64url, base64 or base16 text), 55799 (transparent); bignums (2, 3) are refused; any other tag is
 * replaced by its content (kube's `UnrecognizedTagContentToAny`). `undefined` reads as null.
 *
 * Schema-aware: a byte string where the schema says `format: byte` (Go `[]byte`) becomes its base64 text,
 * the JSON form our objects hold; elsewhere a byte string must be UTF-8 and becomes that text. A text
 * string at a `format: byte` field is kept (already base64, as in JSON; validation checks it).
 */
import { isUtf8 } from 'node:buffer';
import { badRequest } from '../../errors/constructors.js';
import type { StatusError } from '../../errors/status-error.js';
import type { Schema } from '../../schema/schema.js';
import { fromFloat16Bits } from './float16.js';
import { isBytes, itemSchema, propertySchema } from './schema-path.js';

/** The shape `parseJsonStrict` returns. `duplicateFields` is always empty: duplicate keys are a 400. */
export interface DecodedCbor {
  readonly value: unknown;
  readonly duplicateFields: string[];
}

/** kube's MaxNestedLevels, MaxArrayElements and MaxMapPairs. */
export const CBOR_MAX_DEPTH = 64;
export const CBOR_MAX_ARRAY_ELEMENTS = 1024;
export const CBOR_MAX_MAP_PAIRS = 1024;

const INT64_MAX = 2n ** 63n - 1n;
const MAJOR_NAMES = ['positive integer', 'negative integer', 'byte string', 'UTF-8 text string', 'array', 'map', 'tag', 'primitive'];

/** Thrown inside the decoder, turned into one 400 at its boundary. */
class CborError extends Error {}

const fail = (message: string): never => {
  throw new CborError(message);
};

/**
 * Decodes `bytes`, one CBOR data item, into a JSON-shaped value, using `schema` (the kind's) to turn
 * byte strings at `format: byte` fields into base64. Throws a 400 `StatusError` (`cbor: ...`) for
 * anything kube's decoder refuses; an empty body is `cbor: unexpected EOF` (callers that accept empty
 * bodies check first).
 */
export function decodeCborObject(bytes: Uint8Array, schema?: Schema): DecodedCbor {
  const r = new Reader(bytes);
  let value: unknown;
  try {
    value = r.item(schema, 0);
    if (r.pos < bytes.length) fail(`${bytes.length - r.pos} bytes of extraneous data starting at index ${r.pos}`);
  } catch (err) {
    if (err instanceof CborError) throw cborBadRequest(err.message);
    throw err;
  }
  return { value, duplicateFields: [] };
}

function cborBadRequest(message: string): StatusError {
  return badRequest(`cbor: ${message}`);
}

/** Where a decoded string is going: a plain string, a `[]byte` field, or a map key. */
type StringUse = 'text' | 'bytes';

class Reader {
  pos = 0;
  private readonly view: DataView;
  /** The same bytes as a Buffer, for its string conversions. */
  private readonly buf: Buffer;

  constructor(private readonly b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    this.buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  }

  private need(n: number): void {
    if (this.pos + n > this.b.length) fail('unexpected EOF');
  }

  /** The argument of a head with additional information `ai` (< 28), as a number or, past 2^53, a bigint. */
  private argument(ai: number, major: number): number | bigint {
    if (ai < 24) return ai;
    switch (ai) {
      case 24:
        this.need(1);
        return this.b[this.pos++]!;
      case 25: {
        this.need(2);
        const v = this.view.getUint16(this.pos);
        this.pos += 2;
        return v;
      }
      case 26: {
        this.need(4);
        const v = this.view.getUint32(this.pos);
        this.pos += 4;
        return v;
      }
      case 27: {
        this.need(8);
        const v = this.view.getBigUint64(this.pos);
        this.pos += 8;
        return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
      }
      default:
        return fail(`invalid additional information ${ai} for type ${MAJOR_NAMES[major]}`);
    }
  }

  /** A length or count: anything past 2^53 is more than any body holds. */
  private length(ai: number, major: number): number {
    const n = this.argument(ai, major);
    if (typeof n === 'bigint') return fail('unexpected EOF');
    return n;
  }

  item(s: Schema | undefined, depth: number): unknown {
    this.need(1);
    const initial = this.b[this.pos++]!;
    const major = initial >> 5;
    const ai = initial & 0x1f;
    switch (major) {
      case 0: {
        const n = this.argument(ai, major);
        if (typeof n === 'bigint' && n > INT64_MAX) fail(`cannot unmarshal positive integer into Go value of type int64 (${n} overflows Go's int64)`);
        return Number(n);
      }
      case 1: {
        const n = this.argument(ai, major);
        if (typeof n === 'bigint' && n > INT64_MAX) fail(`cannot unmarshal negative integer into Go value of type int64 (-1-${n} overflows Go's int64)`);
        return typeof n === 'bigint' ? Number(-1n - n) : -1 - n;
      }
      case 2:
      case 3:
        return this.string(major, ai, isBytes(s) ? 'bytes' : 'text');
      case 4:
        return this.array(ai, s, depth + 1);
      case 5:
        return this.map(ai, s, depth + 1);
      case 6:
        return this.tag(ai, s, depth + 1);
      default:
        return this.simple(ai);
    }
  }

  private string(major: number, ai: number, use: StringUse): string {
    if (ai !== 31) {
      const n = this.length(ai, major);
      this.need(n);
      const start = this.pos;
      this.pos += n;
      return this.text(major, use, this.buf, start, start + n);
    }
    // Indefinite length: definite-length chunks of the same major type until "break".
    const chunks: Buffer[] = [];
    for (;;) {
      this.need(1);
      const c = this.b[this.pos++]!;
      if (c === 0xff) break;
      if (c >> 5 !== major || (c & 0x1f) === 31) {
        fail(`wrong element type ${MAJOR_NAMES[c >> 5]} for indefinite-length ${MAJOR_NAMES[major]}`);
      }
      const n = this.length(c & 0x1f, major);
      this.need(n);
      chunks.push(this.buf.subarray(this.pos, this.pos + n));
      this.pos += n;
    }
    const joined = Buffer.concat(chunks);
    return this.text(major, use, joined, 0, joined.length);
  }

  /** The string of `buf[start, end)`: base64 for bytes at a `[]byte` field, else UTF-8 text (checked). */
  private text(major: number, use: StringUse, buf: Buffer, start: number, end: number): string {
    if (major === 2 && use === 'bytes') return buf.toString('base64', start, end);
    // ASCII (names, keys, most values): latin1 is the same text and the cheapest conversion there is.
    let ascii = true;
    for (let i = start; i < end; i++) {
      if (buf[i]! > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (ascii) return buf.toString('latin1', start, end);
    if (!isUtf8(buf.subarray(start, end))) fail(major === 3 ? 'invalid UTF-8 string' : 'byte string is not valid UTF-8 where a string is expected');
    return buf.toString('utf8', start, end);
  }

  private checkDepth(depth: number): void {
    if (depth > CBOR_MAX_DEPTH) fail(`exceeded max nested level ${CBOR_MAX_DEPTH}`);
  }

  private array(ai: number, s: Schema | undefined, depth: number): unknown[] {
    this.checkDepth(depth);
    const items = itemSchema(s);
    const out: unknown[] = [];
    if (ai === 31) {
      for (;;) {
        this.need(1);
        if (this.b[this.pos] === 0xff) {
          this.pos++;
          return out;
        }
        if (out.length === CBOR_MAX_ARRAY_ELEMENTS) this.tooManyElements();
        out.push(this.item(items, depth));
      }
    }
    const n = this.length(ai, 4);
    if (n > CBOR_MAX_ARRAY_ELEMENTS) this.tooManyElements();
    for (let i = 0; i < n; i++) out.push(this.item(items, depth));
    return out;
  }

  private tooManyElements(): never {
    return fail(`exceeded max number of elements ${CBOR_MAX_ARRAY_ELEMENTS} for CBOR array`);
  }

  private tooManyPairs(): never {
    return fail(`exceeded max number of key-value pairs ${CBOR_MAX_MAP_PAIRS} for CBOR map`);
  }

  private map(ai: number, s: Schema | undefined, depth: number): Record<string, unknown> {
    this.checkDepth(depth);
    const out: Record<string, unknown> = {};
    const indefinite = ai === 31;
    const n = indefinite ? Infinity : this.length(ai, 5);
    if (n !== Infinity && n > CBOR_MAX_MAP_PAIRS) this.tooManyPairs();
    for (let i = 0; i < n; i++) {
      if (indefinite) {
        this.need(1);
        if (this.b[this.pos] === 0xff) {
          this.pos++;
          break;
        }
        if (i === CBOR_MAX_MAP_PAIRS) this.tooManyPairs();
      }
      const key = this.key(i, depth);
      if (Object.hasOwn(out, key)) fail(`found duplicate map key ${JSON.stringify(key)} at map element index ${i}`);
      const value = this.item(propertySchema(s, key), depth);
      // A key named __proto__ is data, as JSON.parse keeps it, never the prototype.
      if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else out[key] = value;
    }
    return out;
  }

  /** A map key: a text or byte string, possibly inside tags that leave a string (55799). */
  private key(index: number, depth: number): string {
    this.need(1);
    const c = this.b[this.pos]!;
    const major = c >> 5;
    if (major === 2 || major === 3) {
      this.pos++;
      return this.string(major, c & 0x1f, 'text');
    }
    const start = this.pos;
    const k = this.item(undefined, depth);
    if (typeof k === 'string' && major === 6) return k;
    this.pos = start;
    return fail(`map key at map element index ${index} is a ${MAJOR_NAMES[major]}, not a string`);
  }

  private tag(ai: number, s: Schema | undefined, depth: number): unknown {
    this.checkDepth(depth);
    const tag = this.argument(ai, 6);
    switch (tag) {
      case 0: {
        this.need(1);
        const major = this.b[this.pos]! >> 5;
        if (major !== 3) fail(`tag number 0 must be followed by text string, got ${MAJOR_NAMES[major]}`);
        return this.item(undefined, depth);
      }
      case 1: {
        const v = this.item(undefined, depth);
        if (typeof v !== 'number') return fail(`tag number 1 must be followed by an integer or a float, got ${typeof v}`);
        return epochToRfc3339(v);
      }
      case 2:
      case 3:
        return fail('bignums (tags 2 and 3) are not supported');
      case 21:
      case 22:
      case 23: {
        this.need(1);
        const c = this.b[this.pos]!;
        if (c >> 5 !== 2) return this.item(s, depth);
        this.pos++;
        const base64 = this.string(2, c & 0x1f, 'bytes');
        if (tag === 22) return base64;
        const raw = Buffer.from(base64, 'base64');
        return tag === 21 ? raw.toString('base64url') : raw.toString('hex');
      }
      default:
        // 55799 (self-described CBOR) and tags kube does not know: their content.
        return this.item(s, depth);
    }
  }

  private simple(ai: number): unknown {
    switch (ai) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
      case 23:
        return null;
      case 25: {
        this.need(2);
        const v = fromFloat16Bits(this.view.getUint16(this.pos));
        this.pos += 2;
        return finite(v);
      }
      case 26: {
        this.need(4);
        const v = this.view.getFloat32(this.pos);
        this.pos += 4;
        return finite(v);
      }
      case 27: {
        this.need(8);
        const v = this.view.getFloat64(this.pos);
        this.pos += 8;
        return finite(v);
      }
      case 31:
        return fail('unexpected "break" code');
      case 24:
        this.need(1);
        return fail(`simple value ${this.b[this.pos++]} is not supported`);
      default:
        return fail(ai >= 28 ? `invalid additional information ${ai} for type primitive` : `simple value ${ai} is not supported`);
    }
  }
}

function finite(v: number): number {
  if (Number.isNaN(v)) fail('floating-point NaN is not allowed');
  if (!Number.isFinite(v)) fail('floating-point infinity is not allowed');
  return v;
}

/** Epoch seconds as kube's RFC 3339 text: `2024-05-01T10:00:00Z`, fractional seconds only when present. */
function epochToRfc3339(seconds: number): string {
  const d = new Date(seconds * 1000);
  if (Number.isNaN(d.getTime())) return fail(`tag number 1 content ${seconds} is out of range`);
  const iso = d.toISOString();
  return Number.isInteger(seconds) ? `${iso.slice(0, 19)}Z` : iso;
}
