/**
 * Schema-driven protobuf: a structural schema whose object nodes carry `protobuf` field numbers
 * (schema.ts) is compiled once into an encoder and a decoder of its JSON-shaped objects, so a kind gets its
 * protobuf form from the same definition as its JSON, YAML and OpenAPI forms.
 *
 * Wire forms follow Kubernetes' `generated.proto` (proto2): strings; `int32`/`int64` varints (negative
 * ones as ten-byte two's complement); bools; doubles for `number`; `format: byte` as raw bytes (base64 in
 * JSON); `format: date-time` as meta/v1 Time and `protobufType` `microtime`/`duration`/`quantity` as
 * MicroTime, Duration and resource.Quantity messages; int-or-string as util/intstr IntOrString; objects
 * with properties as messages; maps as repeated {key = 1, value = 2} entries, whose list values are
 * wrapped in a {items = 1} message (`ExtraValue`); arrays as unpacked repeated fields (packed input is
 * read too); objects that only preserve unknown fields (FieldsV1, RawExtension) as {raw = 1} holding
 * their JSON text.
 *
 * Encoding writes the fields present in the object, in field-number order; properties without a number
 * (a top-level `apiVersion` and `kind`, which travel in the envelope) are not written.
 *
 * Decoding mirrors what Go does when it unmarshals into its structs and marshals JSON again: zero values
 * of plain fields (`""`, `0`, `false`, an empty Time) are dropped as `omitempty` drops them, pointer
 * fields keep theirs, empty messages stay `{}`. Later occurrences of a field win (messages merge), as in
 * protobuf. Unknown field numbers are collected as `path.#n` for `fieldValidation`. Any malformation
 * (truncation, a wrong wire type for a field, a bad varint, invalid nested JSON) is a `ProtobufError`.
 */
import type { ProtobufField, Schema } from '../../schema/schema.js';
import { formatGoDuration, formatTimestamp, parseGoDuration, parseTimestamp } from './time-values.js';
import { ProtobufError, WireReader } from './wire-reader.js';
import { WIRE_FIXED64, WIRE_LEN, WIRE_VARINT, type WireWriter } from './wire-writer.js';

/** What decoding collects besides the value. */
export interface DecodeContext {
  /** `metadata.#15`: field numbers the schema does not know. */
  readonly unknown: string[];
  /** Messages open around the one being read; past `MAX_DEPTH` the input is refused. */
  depth: number;
}

/** Nesting deeper than any built-in kind's, bounding recursive schemas (JSONSchemaProps) on hostile input. */
const MAX_DEPTH = 100;

/** Reads a nested message, counting the depth. */
function nested(codec: MessageCodec, r: WireReader, start: number, end: number, path: string, ctx: DecodeContext): Record<string, unknown> {
  if (++ctx.depth > MAX_DEPTH) throw new ProtobufError(`${path}: messages nested more than ${MAX_DEPTH} deep`);
  const out = codec.decode(new WireReader(r.buf, start, end), end, path, ctx);
  ctx.depth--;
  return out;
}

export interface MessageCodec {
  /** Writes the fields of `obj` (the message body, without tag or length). */
  encode(w: WireWriter, obj: Record<string, unknown>): void;
  /** Reads a message body between the reader's position and `end`. */
  decode(r: WireReader, end: number, path: string, ctx: DecodeContext): Record<string, unknown>;
}

/** Writes one value of a field as `tag` + payload. */
type Encode = (w: WireWriter, tag: number, v: unknown) => void;
/** Reads one occurrence of a field into `out[name]`. */
type Decode = (r: WireReader, wire: number, out: Record<string, unknown>, name: string, path: string, ctx: DecodeContext) => void;
/** Reads one payload (the wire type already checked); `SKIP` for a value that reads back as absent. */
type ReadValue = (r: WireReader, path: string, ctx: DecodeContext) => unknown;

const SKIP = Symbol('skip');

/** `spec.containers`: a field's path for messages. */
const join = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);

interface ValueCodec {
  readonly wire: number;
  readonly write: Encode;
  readonly read: ReadValue;
  /** Scalars packable in a repeated field. */
  readonly packable: boolean;
  /** Go's zero value of the JSON form, dropped when decoding a plain field. */
  readonly isZero: (v: unknown) => boolean;
}

const never = (): boolean => false;

const stringCodec: ValueCodec = {
  wire: WIRE_LEN,
  packable: false,
  write: (w, tag, v) => w.string(tag, typeof v === 'string' ? v : String(v)),
  read: (r) => r.string(),
  isZero: (v) => v === '',
};

const bytesCodec: ValueCodec = {
  wire: WIRE_LEN,
  packable: false,
  write: (w, tag, v) => w.bytes(tag, Buffer.from(typeof v === 'string' ? v : '', 'base64')),
  read: (r) => {
    const b = r.bytes();
    return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
  },
  isZero: never, // Go writes []byte only when non-nil: present means set.
};

const intCodec: ValueCodec = {
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

const boolCodec: ValueCodec = {
  wire: WIRE_VARINT,
  packable: true,
  write: (w, tag, v) => {
    w.tag(tag, WIRE_VARINT);
    w.varint(v === true ? 1 : 0);
  },
  read: (r) => r.int64() !== 0,
  isZero: (v) => v === false,
};

const doubleCodec: ValueCodec = {
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
function eachField(r: WireReader, onField: (n: number, wire: number, r: WireReader) => void): void {
  const { start, end } = r.delimited();
  const sub = new WireReader(r.buf, start, end);
  while (!sub.done) {
    const t = sub.uint32();
    onField(t >>> 3, t & 7, sub);
  }
}

function expectWire(wire: number, want: number, what: string): void {
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

const durationCodec: ValueCodec = {
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

const intOrStringCodec: ValueCodec = {
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

const quantityCodec: ValueCodec = {
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
const rawJsonCodec: ValueCodec = {
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
    try {
      return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
    } catch (e) {
      throw new ProtobufError(`${path}: invalid JSON in raw bytes: ${(e as Error).message}`);
    }
  },
  isZero: never,
};

function messageValue(codec: MessageCodec): ValueCodec {
  return {
    wire: WIRE_LEN,
    packable: false,
    write: (w, tag, v) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return;
      w.tag(tag, WIRE_LEN);
      const m = w.begin();
      codec.encode(w, v as Record<string, unknown>);
      w.end(m);
    },
    read: (r, path, ctx) => {
      const { start, end } = r.delimited();
      return nested(codec, r, start, end, path, ctx);
    },
    isZero: never,
  };
}

/** A list as a map value: `ExtraValue`-like {items = 1 repeated}. */
function wrappedListValue(item: ValueCodec): ValueCodec {
  const field = repeatedField(item);
  return {
    wire: WIRE_LEN,
    packable: false,
    write: (w, tag, v) => {
      w.tag(tag, WIRE_LEN);
      const m = w.begin();
      if (Array.isArray(v)) for (const e of v) if (e !== null && e !== undefined) item.write(w, 1, e);
      w.end(m);
    },
    read: (r, path, ctx) => {
      const holder: Record<string, unknown> = { items: [] };
      eachField(r, (n, wire, sub) => {
        if (n !== 1) return sub.skip(wire);
        field(sub, wire, holder, 'items', path, ctx);
      });
      return holder.items;
    },
    isZero: never,
  };
}

function mapValue(value: ValueCodec): ValueCodec {
  return {
    wire: WIRE_LEN,
    packable: false,
    write: (w, tag, v) => {
      if (typeof v !== 'object' || v === null) return;
      const map = v as Record<string, unknown>;
      for (const key in map) {
        const e = map[key];
        if (e === undefined || e === null) continue;
        w.tag(tag, WIRE_LEN);
        const m = w.begin();
        w.string(1, key);
        value.write(w, 2, e);
        w.end(m);
      }
    },
    read: () => {
      throw new Error('maps are read entry by entry');
    },
    isZero: never,
  };
}

function scalarField(codec: ValueCodec, pointer: boolean): Decode {
  return (r, wire, out, name, path, ctx) => {
    expectWire(wire, codec.wire, `field ${join(path, name)}`);
    const v = codec.read(r, `${join(path, name)}`, ctx);
    if (v === SKIP || (!pointer && codec.isZero(v))) return;
    out[name] = v;
  };
}

function messageField(codec: MessageCodec): Decode {
  return (r, wire, out, name, path, ctx) => {
    expectWire(wire, WIRE_LEN, `field ${join(path, name)}`);
    const { start, end } = r.delimited();
    const decoded = nested(codec, r, start, end, join(path, name), ctx);
    const prior = out[name];
    // A repeated occurrence of a message field merges into the first, as protobuf does.
    out[name] = typeof prior === 'object' && prior !== null && !Array.isArray(prior) ? Object.assign(prior, decoded) : decoded;
  };
}

function repeatedField(item: ValueCodec): Decode {
  return (r, wire, out, name, path, ctx) => {
    let list = out[name] as unknown[] | undefined;
    if (list === undefined) out[name] = list = [];
    const where = `${join(path, name)}`;
    if (item.packable && wire === WIRE_LEN) {
      const { start, end } = r.delimited();
      const sub = new WireReader(r.buf, start, end);
      while (!sub.done) list.push(item.read(sub, where, ctx));
      return;
    }
    expectWire(wire, item.wire, `field ${where}`);
    const v = item.read(r, where, ctx);
    if (v !== SKIP) list.push(v);
  };
}

function mapField(value: ValueCodec): Decode {
  return (r, wire, out, name, path, ctx) => {
    expectWire(wire, WIRE_LEN, `field ${join(path, name)}`);
    let map = out[name] as Record<string, unknown> | undefined;
    if (map === undefined) out[name] = map = {};
    let key = '';
    const entry: Record<string, unknown> = {};
    eachField(r, (n, w, sub) => {
      if (n === 1) {
        expectWire(w, WIRE_LEN, `${join(path, name)} key`);
        key = sub.string();
      } else if (n === 2) {
        expectWire(w, value.wire, `${join(path, name)} value`);
        const v = value.read(sub, `${join(path, name)}`, ctx);
        if (v !== SKIP) entry.v = v;
      } else sub.skip(w);
    });
    // A missing value is the value type's zero (Go writes only the key of a nil []byte).
    map[key] = 'v' in entry ? entry.v : value === bytesCodec || value === stringCodec ? '' : value.wire === WIRE_LEN ? {} : 0;
  };
}

interface CompiledField {
  readonly name: string;
  readonly tag: number;
  readonly write: Encode;
  readonly decode: Decode;
}

/** A Go embedded struct: its fields sit in the parent's JSON object, in a nested message on the wire. */
interface EmbeddedGroup {
  readonly tag: number;
  readonly fields: CompiledField[];
  readonly byTag: Map<number, CompiledField>;
}

const compiled = new WeakMap<Schema, MessageCodec>();

function writeFields(w: WireWriter, fields: readonly CompiledField[], obj: Record<string, unknown>): void {
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const v = obj[f.name];
    if (v !== undefined && v !== null) f.write(w, f.tag, v);
  }
}

function readFields(
  r: WireReader,
  end: number,
  byTag: ReadonlyMap<number, CompiledField>,
  groups: ReadonlyMap<number, EmbeddedGroup>,
  out: Record<string, unknown>,
  path: string,
  ctx: DecodeContext,
): void {
  while (r.pos < end) {
    const t = r.uint32();
    const n = t >>> 3;
    const wire = t & 7;
    if (n === 0) throw new ProtobufError(`${path === '' ? 'object' : path}: illegal field number 0`);
    const f = byTag.get(n);
    if (f !== undefined) {
      f.decode(r, wire, out, f.name, path, ctx);
      continue;
    }
    const g = groups.get(n);
    if (g !== undefined) {
      expectWire(wire, WIRE_LEN, `field ${join(path, `#${n}`)}`);
      const { start, end: gEnd } = r.delimited();
      readFields(new WireReader(r.buf, start, gEnd), gEnd, g.byTag, NO_GROUPS, out, path, ctx);
      continue;
    }
    ctx.unknown.push(join(path, `#${n}`));
    r.skip(wire);
  }
}

const NO_GROUPS: ReadonlyMap<number, EmbeddedGroup> = new Map();

/** The codec of an object schema with `protobuf` numbers; memoized per schema object. */
export function messageCodec(schema: Schema): MessageCodec {
  const known = compiled.get(schema);
  if (known !== undefined) return known;
  const fields: CompiledField[] = [];
  const byTag = new Map<number, CompiledField>();
  const groups = new Map<number, EmbeddedGroup>();
  // Direct fields and embedded groups, written together in field-number order.
  const order: { readonly tag: number; readonly field?: CompiledField; readonly group?: EmbeddedGroup }[] = [];
  const codec: MessageCodec = {
    encode(w, obj) {
      for (let i = 0; i < order.length; i++) {
        const { field, group } = order[i]!;
        if (field !== undefined) {
          const v = obj[field.name];
          if (v !== undefined && v !== null) field.write(w, field.tag, v);
        } else {
          // Go always writes an embedded struct, even empty.
          w.tag(group!.tag, WIRE_LEN);
          const m = w.begin();
          writeFields(w, group!.fields, obj);
          w.end(m);
        }
      }
    },
    decode(r, end, path, ctx) {
      const out: Record<string, unknown> = {};
      readFields(r, end, byTag, groups, out, path, ctx);
      return out;
    },
  };
  // Registered before the fields are compiled, so recursive schemas (JSONSchemaProps) terminate.
  compiled.set(schema, codec);
  const numbers = schema.protobuf ?? {};
  for (const [name, spec] of Object.entries(numbers)) {
    const property = schema.properties?.[name];
    if (property === undefined) throw new Error(`protobuf: field number for "${name}", which the schema does not declare`);
    const { tag, pointer = false, embedded } = typeof spec === 'number' ? ({ tag: spec } as ProtobufField) : spec;
    const field = compileField(name, tag, pointer, property);
    let into = byTag;
    if (embedded !== undefined) {
      let g = groups.get(embedded);
      if (g === undefined) groups.set(embedded, (g = { tag: embedded, fields: [], byTag: new Map() }));
      g.fields.push(field);
      into = g.byTag;
    } else fields.push(field);
    if (into.has(tag)) throw new Error(`protobuf: field number ${tag} used twice (${into.get(tag)!.name}, ${name})`);
    into.set(tag, field);
  }
  for (const g of groups.values()) {
    if (byTag.has(g.tag)) throw new Error(`protobuf: field number ${g.tag} is both a field and an embedded struct`);
    g.fields.sort((a, b) => a.tag - b.tag);
    order.push({ tag: g.tag, group: g });
  }
  for (const f of fields) order.push({ tag: f.tag, field: f });
  order.sort((a, b) => a.tag - b.tag);
  return codec;
}

function compileField(name: string, tag: number, pointer: boolean, s: Schema): CompiledField {
  if (s.type === 'array') {
    const item = valueCodec(s.items ?? {}, `${name}[]`);
    return {
      name,
      tag,
      write: (w, t, v) => {
        if (!Array.isArray(v)) return;
        for (let i = 0; i < v.length; i++) {
          const e = v[i];
          if (e !== null && e !== undefined) item.write(w, t, e);
        }
      },
      decode: repeatedField(item),
    };
  }
  if (isMap(s)) {
    const value = mapValueCodec(s, name);
    return { name, tag, write: mapValue(value).write, decode: mapField(value) };
  }
  const value = valueCodec(s, name);
  if (isMessage(s)) return { name, tag, write: value.write, decode: messageField(messageCodec(s)) };
  return { name, tag, write: value.write, decode: scalarField(value, pointer) };
}

const isMessage = (s: Schema): boolean => s.type === 'object' && s.properties !== undefined && s.protobufType === undefined;
const isMap = (s: Schema): boolean => s.type === 'object' && s.properties === undefined && typeof s.additionalProperties === 'object';

function mapValueCodec(s: Schema, where: string): ValueCodec {
  const v = s.additionalProperties as Schema;
  if (v.type === 'array') return wrappedListValue(valueCodec(v.items ?? {}, `${where}{}[]`));
  return valueCodec(v, `${where}{}`);
}

/** The codec of one (non-repeated) value of schema `s`. */
function valueCodec(s: Schema, where: string): ValueCodec {
  switch (s.protobufType) {
    case 'quantity':
      return quantityCodec;
    case 'microtime':
      return micro;
    case 'duration':
      return durationCodec;
    default:
  }
  if (s['x-kubernetes-int-or-string'] === true) return intOrStringCodec;
  switch (s.type) {
    case 'string':
      return s.format === 'byte' ? bytesCodec : s.format === 'date-time' ? time : stringCodec;
    case 'integer':
      return intCodec;
    case 'number':
      return doubleCodec;
    case 'boolean':
      return boolCodec;
    case 'object':
      if (s.properties !== undefined) return messageValue(messageCodec(s));
      if (s['x-kubernetes-preserve-unknown-fields'] === true) return rawJsonCodec;
      break;
    case undefined:
      if (s['x-kubernetes-preserve-unknown-fields'] === true) return rawJsonCodec;
      break;
    default:
  }
  throw new Error(`protobuf: no wire form for ${where} (${s.type ?? 'untyped'})`);
}

const time = timeCodec(false);
const micro = timeCodec(true);
