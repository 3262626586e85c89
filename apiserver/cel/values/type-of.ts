/**
 * The CEL type of a runtime value: `type(x)` and the names used in `no such overload` errors and runtime
 * overload dispatch. Names are cel-go's canonical ones (`null_type`, `google.protobuf.Timestamp`,
 * `optional_type`); library opaque types and schema objects carry their own names.
 */
import { CelType, CelUint, Duration, Optional, Timestamp, type CelValue } from './value.js';

export const TIMESTAMP_TYPE_NAME = 'google.protobuf.Timestamp';
export const DURATION_TYPE_NAME = 'google.protobuf.Duration';

/** The type name of a value (cheap: a typeof switch, then the classes). */
export function typeNameOf(v: CelValue): string {
  switch (typeof v) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    default:
  }
  if (v === null) return 'null_type';
  if (Array.isArray(v)) return 'list';
  if (v instanceof CelUint) return 'uint';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Timestamp) return TIMESTAMP_TYPE_NAME;
  if (v instanceof Duration) return DURATION_TYPE_NAME;
  if (v instanceof CelType) return 'type';
  if (v instanceof Optional) return 'optional_type';
  const k = (v as { kind?: unknown }).kind;
  if (k === 'map') return 'map';
  if (k === 'object') return (v as { typeName: string }).typeName;
  return (v as { typeName: string }).typeName;
}

const TYPE_VALUES = new Map<string, CelType>();

/** The type value of a name, shared per name (type values compare by name anyway). */
export function celTypeNamed(name: string): CelType {
  let t = TYPE_VALUES.get(name);
  if (t === undefined) TYPE_VALUES.set(name, (t = new CelType(name)));
  return t;
}

/** `type(v)`. */
export const typeOf = (v: CelValue): CelType => celTypeNamed(typeNameOf(v));

/** The identifiers that denote type values in every environment. */
export const BUILTIN_TYPE_NAMES: readonly string[] = ['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'optional_type', TIMESTAMP_TYPE_NAME, DURATION_TYPE_NAME];
