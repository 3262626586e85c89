/**
 * The wire forms of single protobuf values, one codec each: scalars (string, bytes as base64 in JSON,
 * varint integers, bools, doubles) and the small meta/v1, intstr and resource messages whose JSON form is
 * text or a number (Time, MicroTime, Duration, IntOrString, Quantity) or raw JSON (FieldsV1,
 * RawExtension). message-codec.ts composes them into messages, maps and repeated fields.
 */
import { formatGoDuration, formatTimestamp, parseGoDuration, parseTimestamp } from './time-values.js';
import { ProtobufError, WireReader } from './wire-reader.js';
import { jsonDepthExceededAt, jsonDepthMessage } from '../nesting-depth.js';
import { maxNestingDepth } from '../../request/limits.js';
import { WIRE_FIXED64, WIRE_LEN, WIRE_VARINT, type WireWriter } from './wire-writer.js';

/** What decoding collects besides the value. */
export interface DecodeContext {
  /** `metadata.#15`: field numbers the schema does not know. */
  readonly unknown: string[];
  /** Messages open around the one being read; past `MAX_DEPTH` the input is refused. */
  depth: number;
}

/** Writes one value of a field as `tag` + payload. */
export type Encode = (w: WireWriter, tag: number, v: unknown) => void;
/** Reads one payload (the wire type already checked); `SKIP` for a value that reads back as absent. */
export type ReadValue = (r: WireReader, path: string, ctx: DecodeContext) => unknown;

export const SKIP = Symbol('skip');

/** `spec.containers`: a field's path for messages. */
export const join = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);

export interface ValueCodec {
  readonly wire: number;
  readonly write: Encode;
  readonly read: ReadValue;
  /** Scalars packable in a repeated field. */
  readonly packable: boolean;
  /** Go's zero value of the JSON form, dropped when decoding a plain field. */
  readonly isZero: (v: unknown) => boolean;
}

export const never = (): boolean => false;

export const stringCodec: ValueCodec = {
  wire: WIRE_LEN,
  packable: false,
  write: (w, tag, v) => w.string(tag, typeof v === 'string' ? v : String(v)),
  read: (r) => r.string(),
  isZero: (v) => v === '',
};

export const bytesCodec: ValueCodec = {
  wire: WIRE_LEN,
  packable: false,
  write: (w, tag, v) => w.bytes(tag, Buffer.from(typeof v === 'string' ? v : '', 'base64')),
  read: (r) => {
    const b = r.bytes();
    return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
  },
  isZero: never, // Go writes []byte only when non-nil: present means set.
};

export const intCodec: ValueCodec = {
  wire: WIRE_VARINT,
  packable: true,
  write: (w, tag, v) => {
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isFinite(n)) return;
    w.tag(tag, WIRE_VARINT);
    w.varint(Math.trunc(n));
  },
  read: (r) => r.int64(),
  isZero: (v) => v === 0,
};

export const boolCodec: ValueCodec = {
  wire: WIRE_VARINT,
  packable: true,
  write: (w, tag, v) => {
    w.tag(tag, WIRE_VARINT);
    w.varint(v === true ? 1 : 0);
  },
  read: (r) => r.int64() !== 0,
  isZero: (v) => v === false,
};

export const doubleCodec: ValueCodec = {
  wire: WIRE_FIXED64,
  packable: true,
  write: (w, tag, v) => w.double(tag, typeof v === 'number' ? v : Number(v)),
  read: (r) => r.double(),
  isZero: (v) => v === 0,
};

/**
 * Iterates the fields of the message payload at the reader's position: calls `onField(n, wire, r)` for
 * each, which must consume the field's value. Leaves the reader after the payload.
 */
export function eachField(r: WireReader, onField: (n: number, wire: number, r: WireReader) => void): void {
  const { start, end } = r.delimited();
  const sub = new WireReader(r.buf, start, end);
  while (!sub.done) {
    const t = sub.uint32();
    onField(t >>> 3, t & 7, sub);
  }
}

export function expectWire(wire: number, want: number, what: string): void {
  if (wire !== want) throw new ProtobufError(`wrong wire type ${wire} for ${what}`);
}

function timeCodec(micro: boolean): ValueCodec {
  return {
    wire: WIRE_LEN,
    packable: false,
    write: (w, tag, v) => {
      if (typeof v !== 'string') return;
      const t = parseTimestamp(v);
      if (t === undefined) return;
      w.tag(tag, WIRE_LEN);
      const m = w.begin();
      if (t.seconds !== 0 || t.nanos !== 0) {
        w.tag(1, WIRE_VARINT);
        w.varint(t.seconds);
        w.tag(2, WIRE_VARINT);
        w.varint(micro ? Math.floor(t.nanos / 1000) * 1000 : 0);
      }
      w.end(m);
    },
    read: (r, path) => {
      let seconds = 0;
      let nanos = 0;
      eachField(r, (n, wire, sub) => {
        if (n === 1 || n === 2) {
          expectWire(wire, WIRE_VARINT, `${path}.${n === 1 ? 'seconds' : 'nanos'}`);
          if (n === 1) seconds = sub.int64();
          else nanos = sub.int64();
        } else sub.skip(wire);
      });
      if (seconds === 0 && nanos === 0) return SKIP;
      if (Math.abs(seconds) > 253402300799 || nanos < 0 || nanos > 999999999) throw new ProtobufError(`${path}: time out of range`);
      return formatTimestamp(seconds, nanos, micro);
    },
    isZero: never,
  };
}

export const durationCodec: ValueCodec = {
  wire: WIRE_LEN,
  packable: false,
  write: (w, tag, v) => {
    const ns = typeof v === 'string' ? parseGoDuration(v) : undefined;
    if (ns === undefined) return;
    w.tag(tag, WIRE_LEN);
    const m = w.begin();
    w.tag(1, WIRE_VARINT);
    w.varint(ns);
    w.end(m);
  },
  read: (r, path) => {
    let ns = 0;
    eachField(r, (n, wire, sub) => {
      if (n !== 1) return sub.skip(wire);
      expectWire(wire, WIRE_VARINT, `${path}.duration`);
      ns = sub.int64();
    });
    return formatGoDuration(ns);
  },
  isZero: (v) => v === '0s',
};

export const intOrStringCodec: ValueCodec = {
  wire: WIRE_LEN,
  packable: false,
  write: (w, tag, v) => {
    w.tag(tag, WIRE_LEN);
    const m = w.begin();
    // Go writes all three fields: type (0 int, 1 string), intVal, strVal.
    const isString = typeof v === 'string';
    w.tag(1, WIRE_VARINT);
    w.varint(isString ? 1 : 0);
    w.tag(2, WIRE_VARINT);
    w.varint(isString ? 0 : Math.trunc(Number(v)));
    w.string(3, isString ? v : '');
    w.end(m);
  },
  read: (r, path) => {
    let type = 0;
    let intVal = 0;
    let strVal = '';
    eachField(r, (n, wire, sub) => {
      if (n === 1 || n === 2) {
        expectWire(wire, WIRE_VARINT, `${path}.${n === 1 ? 'type' : 'intVal'}`);
        if (n === 1) type = sub.int64();
        else intVal = sub.int64();
      } else if (n === 3) {
        expectWire(wire, WIRE_LEN, `${path}.strVal`);
        strVal = sub.string();
      } else sub.skip(wire);
    });
    return type === 1 ? strVal : intVal;
  },
  isZero: never,
};

export const quantityCodec: ValueCodec = {
  wire: WIRE_LEN,
  packable: false,
  write: (w, tag, v) => {
    w.tag(tag, WIRE_LEN);
    const m = w.begin();
    w.string(1, String(v));
    w.end(m);
  },
  read: (r, path) => {
    let text = '';
    eachField(r, (n, wire, sub) => {
      if (n !== 1) return sub.skip(wire);
      expectWire(wire, WIRE_LEN, `${path}.string`);
      text = sub.string();
    });
    return text;
  },
  isZero: never,
};

/** FieldsV1, RawExtension, apiextensions JSON: {raw = 1} with the value's JSON text. */
export const rawJsonCodec: ValueCodec = {
  wire: WIRE_LEN,
  packable: false,
  write: (w, tag, v) => {
    w.tag(tag, WIRE_LEN);
    const m = w.begin();
    w.string(1, JSON.stringify(v));
    w.end(m);
  },
  read: (r, path) => {
    let raw: Uint8Array | undefined;
    eachField(r, (n, wire, sub) => {
      if (n !== 1) return sub.skip(wire);
      expectWire(wire, WIRE_LEN, `${path}.raw`);
      raw = sub.bytes();
    });
    if (raw === undefined || raw.length === 0) return SKIP;
    const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new ProtobufError(`${path}: invalid JSON in raw bytes: ${(e as Error).message}`);
    }
    // Raw JSON nests freely inside the message: bounded like a JSON body (codec/nesting-depth.ts).
    const at = jsonDepthExceededAt(text, maxNestingDepth);
    if (at >= 0) throw new ProtobufError(`${path}: invalid JSON in raw bytes: ${jsonDepthMessage(text, at)}`);
    return value;
  },
  isZero: never,
};

/** meta/v1 Time and MicroTime. */
export const time = timeCodec(false);
export const micro = timeCodec(true);
