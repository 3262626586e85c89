/**
 * Helpers the Kubernetes libraries share: CEL type names of runtime values (for error messages), CEL
 * equality and ordering (for `indexOf`, `min`, `sets.contains`...), code-point string helpers, int64 range
 * checks and the cost units of Kubernetes' library cost functions (k8s.io/apiserver/pkg/cel/library/cost.go).
 *
 * Equality and ordering here follow CEL: numbers compare across int, uint and double by value (`1 == 1u ==
 * 1.0`), NaN equals nothing, strings order by code point (Go compares UTF-8 bytes, which orders the same),
 * bytes bytewise, lists and maps by content. `set`/`map` list tags are honoured by the interpreter's own
 * equality (values/); inside library functions lists compare element by element in order, as cel-go's
 * list equality does for the lists it is given.
 */
import { CelEvalError } from '../errors.js';
import {
  CelOpaque,
  CelType,
  CelUint,
  Duration,
  INT64_MAX,
  INT64_MIN,
  Optional,
  Timestamp,
  UINT64_MAX,
  type CelList,
  type CelMap,
  type CelObject,
  type CelValue,
} from '../values/value.js';

/** cel-go's `common.StringTraversalCostFactor`. */
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
/** cel-go's `common.RegexStringLengthCostFactor`. */
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;

export const isList = (v: CelValue): v is CelList => Array.isArray(v);
export const isMap = (v: CelValue): v is CelMap => typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'map' && !Array.isArray(v);
export const isObject = (v: CelValue): v is CelObject =>
  typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'object' && !Array.isArray(v);

/** The CEL type name of a value, as cel-go prints it in messages (one definition, in values/). */
export { typeNameOf } from '../values/type-of.js';

/** Number of Unicode code points (CEL string size). */
export function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low surrogate is one code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The string as an array of code points (each element one code point, possibly two UTF-16 units). */
export const codePoints = (s: string): string[] => Array.from(s);

/** Size in UTF-8 bytes (Go's `len(string)`, used by the traversal cost). */
export const utf8Length = (s: string): number => Buffer.byteLength(s, 'utf8');

/** cel-go's `actualSize`: the size of strings (code points), bytes, lists and maps; 1 otherwise. */
export function actualSize(v: CelValue): number {
  if (typeof v === 'string') return codePointLength(v);
  if (v instanceof Uint8Array) return v.length;
  if (isList(v)) return v.length;
  if (isMap(v)) return v.size;
  if (v instanceof CelOpaque && typeof (v as unknown as { size?: unknown }).size === 'function') {
    return (v as unknown as { size(): number }).size();
  }
  return 1;
}

/** `ceil(actualSize(v) * factor)`: the cost of a string traversal. */
export const traversal = (v: CelValue, factor = STRING_TRAVERSAL_COST_FACTOR): number => Math.ceil(actualSize(v) * factor);

/**
 * Kubernetes' `traversalCost` (lists library): strings and bytes `floor(bytes * 0.1)`, lists and maps the
 * sum over their members (keys and values), anything else 1.
 */
export function traversalCost(v: CelValue): number {
  if (typeof v === 'string') return Math.floor(utf8Length(v) * STRING_TRAVERSAL_COST_FACTOR);
  if (v instanceof Uint8Array) return Math.floor(v.length * STRING_TRAVERSAL_COST_FACTOR);
  if (isList(v)) {
    let c = 0;
    for (const item of v) c += traversalCost(item);
    return c;
  }
  if (isMap(v)) {
    let c = 0;
    for (const k of v.keys()) c += traversalCost(k as CelValue) + traversalCost(v.get(k) ?? null);
    return c;
  }
  if (isObject(v)) {
    let c = 0;
    for (const name of v.fieldNames()) c += traversalCost(name) + traversalCost(v.field(name) ?? null);
    return c;
  }
  return 1;
}

/** An int result, or cel-go's `integer overflow` error outside int64. */
export function checkedInt(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw new CelEvalError('integer overflow');
  return v;
}

/** A uint result, or cel-go's `unsigned integer overflow` error outside uint64. */
export function checkedUint(v: bigint): CelUint {
  if (v < 0n || v > UINT64_MAX) throw new CelEvalError('unsigned integer overflow');
  return new CelUint(v);
}

/** The int64 as a JS number index, saturated (indices beyond 2^53 are out of range anyway). */
export const toIndex = (v: bigint): number => (v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : v < -BigInt(Number.MAX_SAFE_INTEGER) ? -Number.MAX_SAFE_INTEGER : Number(v));

/** cel-go's error for an overload applied to values it does not accept (only reachable through `dyn`). */
export const noSuchOverload = (): CelEvalError => new CelEvalError('no such overload');

/** The string argument, or `no such overload`. */
export function str(v: CelValue): string {
  if (typeof v !== 'string') throw noSuchOverload();
  return v;
}

/** The int argument, or `no such overload`. */
export function int(v: CelValue): bigint {
  if (typeof v !== 'bigint') throw noSuchOverload();
  return v;
}

/** The list argument, or `no such overload`. */
export function list(v: CelValue): CelList {
  if (!isList(v)) throw noSuchOverload();
  return v;
}

// ---- numbers ----

type Num = { kind: 'int' | 'uint'; value: bigint } | { kind: 'double'; value: number };

function asNum(v: CelValue): Num | undefined {
  if (typeof v === 'bigint') return { kind: 'int', value: v };
  if (v instanceof CelUint) return { kind: 'uint', value: v.value };
  if (typeof v === 'number') return { kind: 'double', value: v };
  return undefined;
}

/** -1/0/1 between two numbers of any numeric type by value; undefined when either is NaN. */
function compareNum(a: Num, b: Num): number | undefined {
  if (a.kind !== 'double' && b.kind !== 'double') return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  if (a.kind === 'double' && b.kind === 'double') {
    if (Number.isNaN(a.value) || Number.isNaN(b.value)) return undefined;
    return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  }
  // One integer (exact bigint), one double: compare without losing the integer's precision.
  const [i, d, flip] = a.kind === 'double' ? [b.value as bigint, a.value, -1] : [a.value as bigint, b.value as number, 1];
  if (Number.isNaN(d)) return undefined;
  if (d === Infinity) return -1 * flip;
  if (d === -Infinity) return 1 * flip;
  const fl = Math.floor(d);
  const bi = BigInt(fl);
  let c: number;
  if (i < bi) c = -1;
  else if (i > bi) c = 1;
  else c = d > fl ? -1 : 0;
  return c * flip;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Code point order (UTF-16 order differs for characters above U+FFFF against U+E000..U+FFFF). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

const compareSpan = (as: bigint, an: number, bs: bigint, bn: number): number => (as !== bs ? (as < bs ? -1 : 1) : an !== bn ? (an < bn ? -1 : 1) : 0);

/**
 * CEL ordering for the comparable types (numbers across types, bool, string, bytes, timestamp,
 * duration). Throws `no such overload` for values that do not order against each other.
 */
export function celCompare(a: CelValue, b: CelValue): number {
  const x = asNum(a);
  const y = asNum(b);
  if (x && y) {
    const c = compareNum(x, y);
    // cel-go: comparisons with NaN are false both ways; for min/max/isSorted a NaN is "not smaller".
    return c ?? 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof Timestamp && b instanceof Timestamp) return compareSpan(a.seconds, a.nanos, b.seconds, b.nanos);
  if (a instanceof Duration && b instanceof Duration) return compareSpan(a.seconds, a.nanos, b.seconds, b.nanos);
  throw noSuchOverload();
}

/** CEL `==` over runtime values (heterogeneous numeric equality, deep for lists, maps and objects). */
export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  const x = asNum(a);
  const y = asNum(b);
  if (x || y) return !!x && !!y && compareNum(x, y) === 0;
  if (a === null || b === null) return false;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && compareBytes(a, b) === 0;
  if (a instanceof Timestamp) return b instanceof Timestamp && compareSpan(a.seconds, a.nanos, b.seconds, b.nanos) === 0;
  if (a instanceof Duration) return b instanceof Duration && compareSpan(a.seconds, a.nanos, b.seconds, b.nanos) === 0;
  if (a instanceof CelType) return b instanceof CelType && a.name === b.name;
  if (a instanceof Optional) {
    if (!(b instanceof Optional)) return false;
    if (!a.hasValue || !b.hasValue) return a.hasValue === b.hasValue;
    return celEquals(a.value!, b.value!);
  }
  if (a instanceof CelOpaque) return b instanceof CelOpaque && a.typeName === b.typeName && a.equals(b);
  if (isList(a)) {
    if (!isList(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!celEquals(a[i]!, b[i]!)) return false;
    return true;
  }
  if (isMap(a)) {
    if (!isMap(b) || a.size !== b.size) return false;
    for (const k of a.keys()) {
      const bv = b.get(k);
      if (bv === undefined || !celEquals(a.get(k)!, bv)) return false;
    }
    return true;
  }
  if (isObject(a)) {
    if (!isObject(b) || a.typeName !== b.typeName) return false;
    const names = [...a.fieldNames()];
    if (names.length !== [...b.fieldNames()].length) return false;
    for (const n of names) {
      const bv = b.field(n);
      if (bv === undefined || !celEquals(a.field(n)!, bv)) return false;
    }
    return true;
  }
  return false;
}

/** A CEL list value from a plain array (atomic). */
export const celList = (items: CelValue[]): CelList => items;
