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
import {
  SKIP,
  never,
  bytesCodec,
  durationCodec,
  eachField,
  expectWire,
  intOrStringCodec,
  join,
  micro,
  quantityCodec,
  rawJsonCodec,
  stringCodec,
  time,
  intCodec,
  boolCodec,
  doubleCodec,
  type DecodeContext,
  type Encode,
  type ValueCodec,
} from './value-codecs.js';
import { ProtobufError, WireReader } from './wire-reader.js';
import { WIRE_LEN, type WireWriter } from './wire-writer.js';

export type { DecodeContext } from './value-codecs.js';

/** Reads one occurrence of a field into `out[name]`. */
type Decode = (r: WireReader, wire: number, out: Record<string, unknown>, name: string, path: string, ctx: DecodeContext) => void;

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

/**
 * The fields of one protobuf message level: the message itself, or a Go embedded struct inside it (whose
 * fields sit in the parent's JSON object but in a nested message on the wire), which may embed others.
 */
interface Layer {
  readonly byTag: Map<number, CompiledField>;
  readonly groups: Map<number, EmbeddedGroup>;
  /** Direct fields and embedded groups together, in field-number order. */
  readonly order: { readonly tag: number; readonly field?: CompiledField; readonly group?: EmbeddedGroup }[];
}

/** A Go embedded struct at field `tag` of its parent layer. */
interface EmbeddedGroup extends Layer {
  readonly tag: number;
}

const compiled = new WeakMap<Schema, MessageCodec>();

function writeLayer(w: WireWriter, layer: Layer, obj: Record<string, unknown>): void {
  const order = layer.order;
  for (let i = 0; i < order.length; i++) {
    const { field, group } = order[i]!;
    if (field !== undefined) {
      const v = obj[field.name];
      if (v !== undefined && v !== null) field.write(w, field.tag, v);
    } else {
      // Go always writes an embedded struct, even empty.
      w.tag(group!.tag, WIRE_LEN);
      const m = w.begin();
      writeLayer(w, group!, obj);
      w.end(m);
    }
  }
}

function readFields(r: WireReader, end: number, layer: Layer, out: Record<string, unknown>, path: string, ctx: DecodeContext): void {
  while (r.pos < end) {
    const t = r.uint32();
    const n = t >>> 3;
    const wire = t & 7;
    if (n === 0) throw new ProtobufError(`${path === '' ? 'object' : path}: illegal field number 0`);
    const f = layer.byTag.get(n);
    if (f !== undefined) {
      f.decode(r, wire, out, f.name, path, ctx);
      continue;
    }
    const g = layer.groups.get(n);
    if (g !== undefined) {
      expectWire(wire, WIRE_LEN, `field ${join(path, `#${n}`)}`);
      const { start, end: gEnd } = r.delimited();
      readFields(new WireReader(r.buf, start, gEnd), gEnd, g, out, path, ctx);
      continue;
    }
    ctx.unknown.push(join(path, `#${n}`));
    r.skip(wire);
  }
}

const newLayer = (): Layer => ({ byTag: new Map(), groups: new Map(), order: [] });

/** Checks that no embedded struct shares a number with a field of its layer and orders the layer (and those below). */
function finishLayer(layer: Layer): void {
  for (const g of layer.groups.values()) {
    if (layer.byTag.has(g.tag)) throw new Error(`protobuf: field number ${g.tag} is both a field and an embedded struct`);
    finishLayer(g);
    layer.order.push({ tag: g.tag, group: g });
  }
  for (const f of layer.byTag.values()) layer.order.push({ tag: f.tag, field: f });
  layer.order.sort((a, b) => a.tag - b.tag);
}

/** The codec of an object schema with `protobuf` numbers; memoized per schema object. */
export function messageCodec(schema: Schema): MessageCodec {
  const known = compiled.get(schema);
  if (known !== undefined) return known;
  const top = newLayer();
  const codec: MessageCodec = {
    encode(w, obj) {
      writeLayer(w, top, obj);
    },
    decode(r, end, path, ctx) {
      const out: Record<string, unknown> = {};
      readFields(r, end, top, out, path, ctx);
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
    let into = top;
    for (const at of embedded === undefined ? [] : typeof embedded === 'number' ? [embedded] : embedded) {
      let g = into.groups.get(at);
      if (g === undefined) into.groups.set(at, (g = { tag: at, ...newLayer() }));
      into = g;
    }
    if (into.byTag.has(tag)) throw new Error(`protobuf: field number ${tag} used twice (${into.byTag.get(tag)!.name}, ${name})`);
    into.byTag.set(tag, field);
  }
  finishLayer(top);
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

