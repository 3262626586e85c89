/**
 * The runtime values of the CEL environment: what the interpreter computes with, what library functions
 * take and return, and what object data is adapted into. The engine (@marcbachmann/cel-js) parses and
 * type-checks; evaluation is ours (apiserver/cel/interpreter/), so these are our own types, independent of
 * the engine's runtime classes.
 *
 * | CEL type            | JS representation                                                           |
 * |---------------------|-----------------------------------------------------------------------------|
 * | int                 | `bigint`, always within int64 (operations check overflow)                   |
 * | uint                | `CelUint` (a bigint within uint64)                                          |
 * | double              | `number`                                                                    |
 * | bool, string        | `boolean`, `string` (size and indexing count code points)                   |
 * | bytes               | `Uint8Array`                                                                |
 * | null_type           | `null`                                                                      |
 * | list                | `CelList`: a readonly array, optionally tagged as a `set` or `map` list      |
 * | map                 | `CelMap` (keys: int, uint, bool, string)                                    |
 * | object (schema)     | `CelObject` (a message-like view over JSON, fields adapted lazily)          |
 * | timestamp, duration | `Timestamp`, `Duration` (seconds + nanos, nanosecond precision)             |
 * | type                | `CelType`                                                                   |
 * | optional_type(T)    | `Optional`                                                                  |
 * | library opaque types| `CelOpaque` subclasses (Quantity, URL, IP, CIDR, Semver, Authorizer, ...)    |
 *
 * `undefined` is never a CEL value.
 */

export type CelValue =
  | bigint
  | number
  | boolean
  | string
  | null
  | Uint8Array
  | CelUint
  | CelList
  | CelMap
  | CelObject
  | Timestamp
  | Duration
  | CelType
  | Optional
  | CelOpaque;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;

/** A uint64. Construct through `celUint` (range-checked by the caller's rules: overflow is a CEL error). */
export class CelUint {
  constructor(readonly value: bigint) {}
  toString(): string {
    return `${this.value}u`;
  }
}

/**
 * How a list compares and concatenates (Kubernetes' `x-kubernetes-list-type`): `atomic` (plain CEL lists),
 * `set` (equality ignores order; `+` is a union keeping the left operand's order, then new right items),
 * `map` (equality ignores order, items matched by `keys`; `+` merges: right items replace left items with
 * equal keys in place, others are appended in order).
 */
export type ListType = { readonly type: 'atomic' } | { readonly type: 'set' } | { readonly type: 'map'; readonly keys: readonly string[] };

/** Where a list's ListType is kept (absent: atomic). */
export const LIST_TYPE: unique symbol = Symbol('cel.listType');

export type CelList = readonly CelValue[] & { readonly [LIST_TYPE]?: ListType };

/** Attaches a list type (lists built by adaptation from a schema with x-kubernetes-list-type). */
export function tagList(items: CelValue[], listType: ListType): CelList {
  if (listType.type !== 'atomic') Object.defineProperty(items, LIST_TYPE, { value: listType, enumerable: false });
  return items;
}

export const listTypeOf = (l: CelList): ListType => l[LIST_TYPE] ?? ATOMIC;
const ATOMIC: ListType = Object.freeze({ type: 'atomic' });

/** Map keys as CEL allows them. */
export type CelMapKey = bigint | CelUint | boolean | string;

/**
 * A CEL map. Implementations: `JsonMap` style views over JSON objects (string keys) and `EntryMap` for
 * maps built by expressions (any key type). Lookups follow CEL's numeric key rules: `m[1]`, `m[1u]` and
 * `m[1.0]` find the same entry when the values are equal.
 */
export interface CelMap {
  readonly kind: 'map';
  readonly size: number;
  get(key: CelMapKey): CelValue | undefined;
  has(key: CelMapKey): boolean;
  /** In insertion order (CEL leaves map order unspecified; determinism helps tests and cost). */
  keys(): Iterable<CelMapKey>;
}

/**
 * A message-like value: an object of a schema with `properties` (a CEL object type) or an embedded
 * resource. `typeName` is the checker's name of its type. Absent fields are unset (`has()` false); a select
 * of an unset field yields the field type's zero value or an error per the schema rules (interpreter).
 */
export interface CelObject {
  readonly kind: 'object';
  readonly typeName: string;
  /** The field's value, or undefined when unset. Escaped CEL names are already resolved by the caller. */
  field(name: string): CelValue | undefined;
  hasField(name: string): boolean;
  /** Set fields, for equality and size. */
  fieldNames(): Iterable<string>;
}

/** A point in time with nanosecond precision, within 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z. */
export class Timestamp {
  constructor(readonly seconds: bigint, readonly nanos: number) {}
}

/** A signed span with nanosecond precision, within about ±290 years (int64 nanoseconds, as cel-go). */
export class Duration {
  constructor(readonly seconds: bigint, readonly nanos: number) {}
}

/** A type as a value (`type(x)`, `int`, `list`...): compared by name. */
export class CelType {
  constructor(readonly name: string) {}
}

/** optional_type(T): `optional.none()` has no value. */
export class Optional {
  private constructor(readonly value: CelValue | undefined) {}
  static of(value: CelValue): Optional {
    return new Optional(value);
  }
  static readonly NONE = new Optional(undefined);
  get hasValue(): boolean {
    return this.value !== undefined;
  }
}

/**
 * Base of the library types that are values of their own (Quantity, URL, IP, CIDR, Semver, Authorizer,
 * ...). `typeName` is the CEL type name as the checker knows it (`kubernetes.Quantity`...). `equals` is
 * CEL `==` between two values of the same type.
 */
export abstract class CelOpaque {
  abstract readonly typeName: string;
  abstract equals(other: CelOpaque): boolean;
}
