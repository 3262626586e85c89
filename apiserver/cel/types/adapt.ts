/**
 * JSON data -> CEL values under a DeclType (Kubernetes' `UnstructuredToVal`), for `self`, `oldSelf`
 * and typed variables. Views are lazy: an object's fields and a map's values are adapted on first access
 * and memoized; lists are built at once but their object items are views themselves.
 *
 * | DeclType                | JSON                    | CEL value                                         |
 * |-------------------------|-------------------------|---------------------------------------------------|
 * | object                  | object                  | `SchemaObject` (CelObject); a null property is    |
 * |                         |                         | unset; undeclared properties are no fields        |
 * | map                     | object                  | `SchemaMap` (CelMap, string keys)                 |
 * | list                    | array                   | CelList tagged with its set/map list type         |
 * | int                     | number or bigint        | bigint (a lossless parser's bigint beyond 2^53)   |
 * | double                  | number or bigint        | number                                            |
 * | int-or-string           | integer or string       | bigint or string                                  |
 * | bytes (format byte)     | base64 string           | Uint8Array                                        |
 * | timestamp (date, date-time) | string              | Timestamp with nanoseconds                        |
 * | duration                | string                  | Duration                                          |
 * | bool, string            | boolean, string         | themselves                                        |
 *
 * `null` adapts to CEL null when the schema is nullable. Data that does not fit its schema (it passed
 * schema validation first, so only a programming error or an unvalidated old object gets here) throws
 * CelEvalError at the access, with Kubernetes' wording, never a crash.
 *
 * Untyped data (`dyn`: admission's `object`, `oldObject`, `params`) goes through `adaptUntyped`.
 */
import { CelEvalError } from '../errors.js';
import { INT64_MAX, INT64_MIN, tagList, type CelList, type CelMap, type CelMapKey, type CelObject, type CelValue } from '../values/value.js';
import type { DeclType, ListDecl, MapDecl, ObjectDecl } from './decl-type.js';
import { parseDate, parseDateTime, parseSchemaDuration } from './time-formats.js';

type Json = unknown;
type JsonObject = Readonly<Record<string, Json>>;

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const isJsonObject = (v: Json): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array);

/** Go's %T of a JSON value, for error messages. */
function goType(v: Json): string {
  if (v === null) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  switch (typeof v) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int64';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return 'map[string]interface {}';
  }
}

/** An integer JSON value as a CEL int, or undefined when it is not an integer within int64. */
function toInt(v: Json): bigint | undefined {
  let b: bigint;
  if (typeof v === 'bigint') b = v;
  else if (typeof v === 'number' && Number.isInteger(v)) b = BigInt(v);
  else return undefined;
  return b >= INT64_MIN && b <= INT64_MAX ? b : undefined;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function decodeBase64(s: string): Uint8Array {
  if (s.length % 4 !== 0 || !BASE64.test(s)) throw new CelEvalError(`Invalid byte formatted string ${s}: illegal base64 data`);
  const buf = Buffer.from(s, 'base64');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** The CEL value of `json` under `t`. */
export function adaptValue(json: Json, t: DeclType): CelValue {
  if (json === null || json === undefined) {
    if (t.nullable) return null;
    throw new CelEvalError('invalid data, got null for schema with nullable=false');
  }
  switch (t.kind) {
    case 'int-or-string': {
      if (typeof json === 'string') return json;
      const i = toInt(json);
      if (i !== undefined) return i;
      throw new CelEvalError('invalid data, expected XIntOrString value to be either a string or integer');
    }
    case 'object':
      if (!isJsonObject(json)) throw new CelEvalError('invalid data, expected a map for the provided schema with type=object');
      return new SchemaObject(json, t);
    case 'map':
      if (!isJsonObject(json)) throw new CelEvalError('invalid data, expected a map for the provided schema with type=object');
      return new SchemaMap(json, t);
    case 'list':
      if (!Array.isArray(json)) throw new CelEvalError('invalid data, expected an array for the provided schema with type=array');
      return adaptList(json, t);
    case 'string':
      if (typeof json !== 'string') throw new CelEvalError(`invalid data, expected string, got ${goType(json)}`);
      return json;
    case 'bytes':
      if (typeof json !== 'string') throw new CelEvalError(`invalid data, expected string, got ${goType(json)}`);
      return decodeBase64(json);
    case 'timestamp':
      if (typeof json !== 'string') throw new CelEvalError(`invalid data, expected string, got ${goType(json)}`);
      return t.format === 'date' ? parseDate(json) : parseDateTime(json);
    case 'duration':
      if (typeof json !== 'string') throw new CelEvalError(`invalid data, expected string, got ${goType(json)}`);
      return parseSchemaDuration(json);
    case 'bool':
      if (typeof json !== 'boolean') throw new CelEvalError(`invalid data, expected bool, got ${goType(json)}`);
      return json;
    case 'int': {
      const i = toInt(json);
      if (i === undefined) throw new CelEvalError(`invalid data, expected int, got ${goType(json)}`);
      return i;
    }
    case 'double':
      if (typeof json === 'number') return json;
      if (typeof json === 'bigint') return Number(json);
      throw new CelEvalError(`invalid data, expected float, got ${goType(json)}`);
  }
}

function adaptList(json: readonly Json[], t: ListDecl): CelList {
  const items = new Array<CelValue>(json.length);
  for (let i = 0; i < json.length; i++) items[i] = adaptValue(json[i], t.elem);
  return tagList(items, t.listType);
}

/**
 * An object of a schema with properties (or an embedded resource): fields by CEL (escaped) name, the
 * JSON property behind each resolved through the DeclType. A property that is null or absent is unset.
 * `json` is the data itself (Kubernetes compares undeclared properties of equal objects by deep equality;
 * the interpreter can read them here).
 */
export class SchemaObject implements CelObject {
  readonly kind = 'object' as const;
  private readonly memo = new Map<string, CelValue>();

  constructor(
    readonly json: JsonObject,
    readonly decl: ObjectDecl,
  ) {}

  get typeName(): string {
    return this.decl.name;
  }

  /** `name` is the CEL field name as written in the expression (`__dot__`-escaped). */
  field(name: string): CelValue | undefined {
    const cached = this.memo.get(name);
    if (cached !== undefined) return cached;
    const f = this.decl.fields.get(name);
    if (!f || !hasOwn(this.json, f.property)) return undefined;
    const raw = this.json[f.property];
    if (raw === null || raw === undefined) return undefined;
    const v = adaptValue(raw, f.type);
    this.memo.set(name, v);
    return v;
  }

  hasField(name: string): boolean {
    const f = this.decl.fields.get(name);
    if (!f || !hasOwn(this.json, f.property)) return false;
    const raw = this.json[f.property];
    return raw !== null && raw !== undefined;
  }

  *fieldNames(): Iterable<string> {
    for (const [name, f] of this.decl.fields) {
      if (hasOwn(this.json, f.property)) {
        const raw = this.json[f.property];
        if (raw !== null && raw !== undefined) yield name;
      }
    }
  }
}

/**
 * A JSON object as a CEL map with string keys: `additionalProperties` values adapted under the value
 * DeclType, or untyped (`elem` undefined). A null value is CEL null (an error when not nullable).
 */
export class SchemaMap implements CelMap {
  readonly kind = 'map' as const;
  private readonly memo = new Map<string, CelValue>();

  constructor(
    readonly json: JsonObject,
    readonly decl: MapDecl | undefined,
  ) {}

  get size(): number {
    return Object.keys(this.json).length;
  }

  get(key: CelMapKey): CelValue | undefined {
    if (typeof key !== 'string' || !hasOwn(this.json, key)) return undefined;
    const cached = this.memo.get(key);
    if (cached !== undefined) return cached;
    const raw = this.json[key];
    const v = this.decl ? adaptValue(raw, this.decl.elem) : adaptUntyped(raw);
    this.memo.set(key, v);
    return v;
  }

  has(key: CelMapKey): boolean {
    return typeof key === 'string' && hasOwn(this.json, key);
  }

  keys(): Iterable<string> {
    return Object.keys(this.json);
  }
}

/**
 * Untyped adaptation (`dyn`), as Kubernetes' unstructured data reaches CEL: objects are string-keyed
 * maps, arrays atomic lists, integral numbers within ±2^53 and bigints ints (a lossless parser's bigint
 * keeps int64 precision), other numbers doubles, strings, booleans and null themselves. A JSON number
 * that is integral but beyond 2^53 came through a lossy parse or an exponent (`1e20`): a double, as a
 * Go decoder reads a number with an exponent.
 */
export function adaptUntyped(json: Json): CelValue {
  switch (typeof json) {
    case 'string':
    case 'boolean':
      return json;
    case 'bigint':
      if (json < INT64_MIN || json > INT64_MAX) return Number(json);
      return json;
    case 'number':
      return Number.isSafeInteger(json) ? BigInt(json) : json;
    case 'undefined':
      return null;
    case 'object':
      if (json === null) return null;
      if (Array.isArray(json)) return json.map(adaptUntyped);
      if (json instanceof Uint8Array) return json;
      return new SchemaMap(json as JsonObject, undefined);
    default:
      throw new CelEvalError(`invalid data, unsupported value of type ${typeof json}`);
  }
}
