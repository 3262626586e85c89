/**
 * An engine-neutral model of CEL values, so that each engine's results and the conformance data's expected
 * `cel.expr.Value`s are compared by one function with CEL's rules for conformance matching:
 *
 * - int, uint and double are distinct kinds (`1`, `1u` and `1.0` never match each other);
 * - NaN matches NaN (a test expecting NaN passes on NaN), otherwise doubles compare with `===`;
 * - bytes compare byte by byte; lists in order; maps as sets of entries, whatever their order;
 * - timestamps and durations compare as (seconds, nanos); type values by their CEL name; enums by
 *   (type name, number); protobuf messages with protobuf equality.
 *
 * Conversion from `cel.expr.Value` unpacks `objectValue` (an Any) with the test registry: well-known
 * types become the CEL value they denote (wrappers their primitive, Struct/Value/ListValue JSON-like
 * values, Timestamp/Duration), any other message stays a message.
 */
import { equals, type Message, type Registry } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';

export type NeutralValue =
  | { readonly k: 'null' }
  | { readonly k: 'bool'; readonly v: boolean }
  | { readonly k: 'int'; readonly v: bigint }
  | { readonly k: 'uint'; readonly v: bigint }
  | { readonly k: 'double'; readonly v: number }
  | { readonly k: 'string'; readonly v: string }
  | { readonly k: 'bytes'; readonly v: Uint8Array }
  | { readonly k: 'list'; readonly v: readonly NeutralValue[] }
  | { readonly k: 'map'; readonly v: readonly (readonly [NeutralValue, NeutralValue])[] }
  | { readonly k: 'timestamp'; readonly seconds: bigint; readonly nanos: number }
  | { readonly k: 'duration'; readonly seconds: bigint; readonly nanos: number }
  | { readonly k: 'type'; readonly name: string }
  | { readonly k: 'enum'; readonly type: string; readonly v: number }
  | { readonly k: 'message'; readonly typeName: string; readonly message: Message }
  | { readonly k: 'optional'; readonly v: NeutralValue | undefined };

/** Thrown by converters for a value the neutral model (or an engine) cannot represent. */
export class UnsupportedValue extends Error {
  override readonly name = 'UnsupportedValue';
}

export const TIMESTAMP = 'google.protobuf.Timestamp';
export const DURATION = 'google.protobuf.Duration';

const WRAPPERS: Record<string, 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes'> = {
  'google.protobuf.BoolValue': 'bool',
  'google.protobuf.Int32Value': 'int',
  'google.protobuf.Int64Value': 'int',
  'google.protobuf.UInt32Value': 'uint',
  'google.protobuf.UInt64Value': 'uint',
  'google.protobuf.FloatValue': 'double',
  'google.protobuf.DoubleValue': 'double',
  'google.protobuf.StringValue': 'string',
  'google.protobuf.BytesValue': 'bytes',
};

/** The canonical CEL name of a type value (`timestamp` and `duration` spelled as their message names). */
/**
 * The scalars every engine represents alike (bigint int, number double, string, boolean, null, Uint8Array
 * bytes) as neutral values; undefined for anything else (each adapter maps its own classes).
 */
export function neutralScalar(v: unknown): NeutralValue | undefined {
  switch (typeof v) {
    case 'bigint':
      return { k: 'int', v };
    case 'number':
      return { k: 'double', v };
    case 'string':
      return { k: 'string', v };
    case 'boolean':
      return { k: 'bool', v };
    default:
  }
  if (v === null) return { k: 'null' };
  if (v instanceof Uint8Array) return { k: 'bytes', v };
  return undefined;
}

export function canonicalTypeName(name: string): string {
  if (name === 'timestamp') return TIMESTAMP;
  if (name === 'duration') return DURATION;
  if (name === 'null') return 'null_type';
  if (name === 'optional') return 'optional_type';
  return name;
}

/** Converts an expected `cel.expr.Value` of the conformance data. */
export function fromExprValue(value: Value, registry: Registry): NeutralValue {
  const kind = value.kind;
  switch (kind.case) {
    case 'nullValue':
      return { k: 'null' };
    case 'boolValue':
      return { k: 'bool', v: kind.value };
    case 'int64Value':
      return { k: 'int', v: kind.value };
    case 'uint64Value':
      return { k: 'uint', v: kind.value };
    case 'doubleValue':
      return { k: 'double', v: kind.value };
    case 'stringValue':
      return { k: 'string', v: kind.value };
    case 'bytesValue':
      return { k: 'bytes', v: kind.value };
    case 'enumValue':
      return { k: 'enum', type: kind.value.type, v: kind.value.value };
    case 'typeValue':
      return { k: 'type', name: canonicalTypeName(kind.value) };
    case 'listValue':
      return { k: 'list', v: kind.value.values.map((e) => fromExprValue(e, registry)) };
    case 'mapValue':
      return {
        k: 'map',
        v: kind.value.entries.map((e) => {
          if (e.key === undefined || e.value === undefined) throw new UnsupportedValue('map entry without key or value');
          return [fromExprValue(e.key, registry), fromExprValue(e.value, registry)] as const;
        }),
      };
    case 'objectValue': {
      const message = anyUnpack(kind.value, registry);
      if (message === undefined) throw new UnsupportedValue(`cannot unpack Any of ${kind.value.typeUrl}`);
      return fromMessage(message);
    }
    default:
      throw new UnsupportedValue('empty cel.expr.Value');
  }
}

/** A protobuf message as the CEL value it denotes (well-known types unwrapped). */
export function fromMessage(message: Message): NeutralValue {
  const typeName = message.$typeName;
  const m = message as unknown as Record<string, unknown>;
  const wrapped = WRAPPERS[typeName];
  if (wrapped !== undefined) {
    const v = m['value'];
    switch (wrapped) {
      case 'int':
      case 'uint':
        return { k: wrapped, v: BigInt(v as bigint | number) };
      case 'double':
        return { k: 'double', v: v as number };
      case 'bool':
        return { k: 'bool', v: v as boolean };
      case 'string':
        return { k: 'string', v: v as string };
      case 'bytes':
        return { k: 'bytes', v: v as Uint8Array };
    }
  }
  if (typeName === TIMESTAMP || typeName === DURATION) {
    return { k: typeName === TIMESTAMP ? 'timestamp' : 'duration', seconds: m['seconds'] as bigint, nanos: m['nanos'] as number };
  }
  if (typeName === 'google.protobuf.Value') return fromProtoValue(m);
  if (typeName === 'google.protobuf.Struct') return fromStruct(m);
  if (typeName === 'google.protobuf.ListValue') return fromListValue(m);
  return { k: 'message', typeName, message };
}

function fromProtoValue(m: Record<string, unknown>): NeutralValue {
  const kind = m['kind'] as { case: string | undefined; value?: unknown };
  switch (kind.case) {
    case 'nullValue':
    case undefined:
      return { k: 'null' };
    case 'numberValue':
      return { k: 'double', v: kind.value as number };
    case 'stringValue':
      return { k: 'string', v: kind.value as string };
    case 'boolValue':
      return { k: 'bool', v: kind.value as boolean };
    case 'structValue':
      return fromStruct(kind.value as Record<string, unknown>);
    case 'listValue':
      return fromListValue(kind.value as Record<string, unknown>);
    default:
      throw new UnsupportedValue(`google.protobuf.Value of kind ${kind.case}`);
  }
}

function fromStruct(m: Record<string, unknown>): NeutralValue {
  const fields = m['fields'] as Record<string, Record<string, unknown>>;
  return { k: 'map', v: Object.entries(fields).map(([key, v]) => [{ k: 'string', v: key }, fromProtoValue(v)] as const) };
}

function fromListValue(m: Record<string, unknown>): NeutralValue {
  return { k: 'list', v: (m['values'] as Record<string, unknown>[]).map(fromProtoValue) };
}

/**
 * Conformance matching of two values (see the file comment). `registry` resolves message descriptors
 * for protobuf equality.
 */
export function neutralEquals(a: NeutralValue, b: NeutralValue, registry: Registry): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'null':
      return true;
    case 'bool':
    case 'int':
    case 'uint':
    case 'string':
      return a.v === (b as typeof a).v;
    case 'double': {
      const y = (b as typeof a).v;
      return Number.isNaN(a.v) ? Number.isNaN(y) : a.v === y;
    }
    case 'bytes': {
      const y = (b as typeof a).v;
      return a.v.length === y.length && a.v.every((x, i) => x === y[i]);
    }
    case 'list': {
      const y = (b as typeof a).v;
      return a.v.length === y.length && a.v.every((x, i) => neutralEquals(x, y[i]!, registry));
    }
    case 'map': {
      const y = (b as typeof a).v;
      if (a.v.length !== y.length) return false;
      return a.v.every(([ka, va]) => {
        const match = y.find(([kb]) => neutralEquals(ka, kb, registry));
        return match !== undefined && neutralEquals(va, match[1], registry);
      });
    }
    case 'timestamp':
    case 'duration': {
      const y = b as typeof a;
      return a.seconds === y.seconds && a.nanos === y.nanos;
    }
    case 'type':
      return a.name === (b as typeof a).name;
    case 'enum': {
      const y = b as typeof a;
      return a.type === y.type && a.v === y.v;
    }
    case 'message': {
      const y = b as typeof a;
      if (a.typeName !== y.typeName) return false;
      const desc = registry.getMessage(a.typeName);
      return desc !== undefined && equals(desc, a.message, y.message);
    }
    case 'optional': {
      const y = (b as typeof a).v;
      if (a.v === undefined || y === undefined) return a.v === y;
      return neutralEquals(a.v, y, registry);
    }
  }
}

/** A short CEL-like rendering for failure reasons (truncated by the caller). */
export function formatNeutral(v: NeutralValue): string {
  switch (v.k) {
    case 'null':
      return 'null';
    case 'bool':
      return String(v.v);
    case 'int':
      return String(v.v);
    case 'uint':
      return `${v.v}u`;
    case 'double':
      return Number.isInteger(v.v) ? `${v.v}.0` : String(v.v);
    case 'string':
      return JSON.stringify(v.v);
    case 'bytes':
      return `b"${Array.from(v.v, (x) => `\\x${x.toString(16).padStart(2, '0')}`).join('')}"`;
    case 'list':
      return `[${v.v.map(formatNeutral).join(', ')}]`;
    case 'map':
      return `{${v.v.map(([k, x]) => `${formatNeutral(k)}: ${formatNeutral(x)}`).join(', ')}}`;
    case 'timestamp':
      return `timestamp(${v.seconds}s+${v.nanos}ns)`;
    case 'duration':
      return `duration(${v.seconds}s+${v.nanos}ns)`;
    case 'type':
      return `type(${v.name})`;
    case 'enum':
      return `${v.type}(${v.v})`;
    case 'message':
      return `${v.typeName}{...}`;
    case 'optional':
      return v.v === undefined ? 'optional.none()' : `optional.of(${formatNeutral(v.v)})`;
  }
}
