/**
 * The CEL standard functions as a library (size, string tests, regex `matches`, conversions, timestamp
 * and duration accessors, optional helpers), with cel-go's semantics. The type checker (cel-js) already
 * declares most of these signatures; `STD_DECLARATIONS` lists the ones it lacks, which the environment
 * registers with it (`int(uint)`, `string(timestamp)`, identity `timestamp()`/`duration()`,
 * `optional.ofNonZeroValue`...). Global functions of a namespace are written `ns.name(...)` and listed in
 * `STD_NAMESPACES`.
 */
import { CelEvalError } from '../errors.js';
import { compileRe2, re2Test } from '../library/re2.js';
import type { CelLibrary, Overload } from '../library/library.js';
import { CelUint, Duration, Optional, Timestamp, type CelList, type CelMap, type CelObject, type CelValue } from '../values/value.js';
import { boolFromString, bytesFromString, doubleFromString, formatDouble, intFromDouble, intFromString, intFromUint, stringFromBytes, uintFromDouble, uintFromInt, uintFromString } from './conversions.js';
import { civilTime, durationNanos, formatDuration, formatTimestamp, makeTimestamp, parseDuration, parseTimestamp } from './time.js';
import { actualSize } from '../library/support.js';

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

/** Code points of a string (CEL string size). */
export function codePointCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

const sizeOf = (v: CelValue): bigint => {
  if (typeof v === 'string') return BigInt(codePointCount(v));
  if (v instanceof Uint8Array || Array.isArray(v)) return BigInt((v as CelList).length);
  return BigInt((v as CelMap).size);
};

/** cel-go's traversal cost of a string (code points) or bytes argument: `ceil(0.1 x size)`. */
const strCost = (v: CelValue): number => Math.ceil(actualSize(v) * 0.1);
/** cel-go's `matches`: `ceil(0.1 x (1 + size)) x ceil(0.25 x size of the regex)`. */
const matchesCost = (a: readonly CelValue[]): number => Math.ceil((1 + actualSize(a[0]!)) * 0.1) * Math.ceil(actualSize(a[1]!) * 0.25);

const matches = (s: CelValue, p: CelValue): CelValue => re2Test(compileRe2(p as string), s as string);

const tz = (v: CelValue | undefined): string | undefined => (v === undefined ? undefined : (v as string));

function timestampAccessors(): Overload[] {
  const out: Overload[] = [];
  const fields: [string, (c: ReturnType<typeof civilTime>, t: Timestamp) => number][] = [
    ['getFullYear', (c) => c.year],
    ['getMonth', (c) => c.month - 1],
    ['getDate', (c) => c.day],
    ['getDayOfMonth', (c) => c.day - 1],
    ['getDayOfWeek', (c) => c.dayOfWeek],
    ['getDayOfYear', (c) => c.dayOfYear],
    ['getHours', (c) => c.hour],
    ['getMinutes', (c) => c.minute],
    ['getSeconds', (c) => c.second],
    ['getMilliseconds', (_c, t) => Math.floor(t.nanos / 1e6)],
  ];
  for (const [name, get] of fields) {
    out.push({ signature: `${TS}.${name}(): int`, impl: (t) => BigInt(get(civilTime(t as Timestamp), t as Timestamp)) });
    out.push({ signature: `${TS}.${name}(string): int`, impl: (t, z) => BigInt(get(civilTime(t as Timestamp, tz(z)), t as Timestamp)) });
  }
  return out;
}

const NS = 1_000_000_000n;
const durationPart = (d: CelValue, unit: bigint): bigint => durationNanos(d as Duration) / unit;

/** Whether a value is its type's zero value (`optional.ofNonZeroValue`). */
export function isZeroValue(v: CelValue): boolean {
  switch (typeof v) {
    case 'bigint':
      return v === 0n;
    case 'number':
      return v === 0;
    case 'string':
      return v === '';
    case 'boolean':
      return !v;
    default:
  }
  if (v === null) return true;
  if (v instanceof CelUint) return v.value === 0n;
  if (v instanceof Uint8Array || Array.isArray(v)) return (v as CelList).length === 0;
  if (v instanceof Timestamp || v instanceof Duration) return v.seconds === 0n && v.nanos === 0;
  if (v instanceof Optional) return !v.hasValue;
  const k = (v as { kind?: unknown }).kind;
  if (k === 'map') return (v as CelMap).size === 0;
  if (k === 'object') {
    for (const _ of (v as CelObject).fieldNames()) return false;
    return true;
  }
  return false;
}

const overloads: Overload[] = [
  // size
  { signature: 'size(string): int', impl: sizeOf },
  { signature: 'size(bytes): int', impl: sizeOf },
  { signature: 'size(list): int', impl: sizeOf },
  { signature: 'size(map): int', impl: sizeOf },
  { signature: 'string.size(): int', impl: sizeOf },
  { signature: 'bytes.size(): int', impl: sizeOf },
  { signature: 'list.size(): int', impl: sizeOf },
  { signature: 'map.size(): int', impl: sizeOf },
  // strings
  { signature: 'string.contains(string): bool', impl: (s, x) => (s as string).includes(x as string), cost: (a) => strCost(a[0]!) * strCost(a[1]!) },
  { signature: 'string.startsWith(string): bool', impl: (s, x) => (s as string).startsWith(x as string), cost: (a) => strCost(a[0]!) },
  { signature: 'string.endsWith(string): bool', impl: (s, x) => (s as string).endsWith(x as string), cost: (a) => strCost(a[0]!) },
  { signature: 'string.matches(string): bool', impl: matches, cost: matchesCost },
  { signature: 'matches(string, string): bool', impl: matches, cost: matchesCost },
  // bool
  { signature: 'bool(bool): bool', impl: (v) => v },
  { signature: 'bool(string): bool', impl: (v) => boolFromString(v as string) },
  // bytes
  { signature: 'bytes(bytes): bytes', impl: (v) => v },
  { signature: 'bytes(string): bytes', impl: (v) => bytesFromString(v as string), cost: (a) => strCost(a[0]!) },
  // double
  { signature: 'double(double): double', impl: (v) => v },
  { signature: 'double(int): double', impl: (v) => Number(v as bigint) },
  { signature: 'double(uint): double', impl: (v) => Number((v as CelUint).value) },
  { signature: 'double(string): double', impl: (v) => doubleFromString(v as string) },
  // int
  { signature: 'int(int): int', impl: (v) => v },
  { signature: 'int(uint): int', impl: (v) => intFromUint(v as CelUint) },
  { signature: 'int(double): int', impl: (v) => intFromDouble(v as number) },
  { signature: 'int(string): int', impl: (v) => intFromString(v as string) },
  { signature: `int(${TS}): int`, impl: (v) => (v as Timestamp).seconds },
  // uint
  { signature: 'uint(uint): uint', impl: (v) => v },
  { signature: 'uint(int): uint', impl: (v) => uintFromInt(v as bigint) },
  { signature: 'uint(double): uint', impl: (v) => uintFromDouble(v as number) },
  { signature: 'uint(string): uint', impl: (v) => uintFromString(v as string) },
  // string
  { signature: 'string(string): string', impl: (v) => v },
  { signature: 'string(bool): string', impl: (v) => String(v) },
  { signature: 'string(int): string', impl: (v) => String(v) },
  { signature: 'string(uint): string', impl: (v) => String((v as CelUint).value) },
  { signature: 'string(double): string', impl: (v) => formatDouble(v as number) },
  { signature: 'string(bytes): string', impl: (v) => stringFromBytes(v as Uint8Array), cost: (a) => strCost(a[0]!) },
  { signature: `string(${TS}): string`, impl: (v) => formatTimestamp(v as Timestamp) },
  { signature: `string(${DUR}): string`, impl: (v) => formatDuration(v as Duration) },
  // timestamp and duration
  { signature: `timestamp(string): ${TS}`, impl: (v) => parseTimestamp(v as string) },
  { signature: `timestamp(int): ${TS}`, impl: (v) => makeTimestamp(v as bigint, 0) },
  { signature: `timestamp(${TS}): ${TS}`, impl: (v) => v },
  { signature: `duration(string): ${DUR}`, impl: (v) => parseDuration(v as string) },
  { signature: `duration(${DUR}): ${DUR}`, impl: (v) => v },
  ...timestampAccessors(),
  { signature: `${DUR}.getHours(): int`, impl: (d) => durationPart(d, 3600n * NS) },
  { signature: `${DUR}.getMinutes(): int`, impl: (d) => durationPart(d, 60n * NS) },
  { signature: `${DUR}.getSeconds(): int`, impl: (d) => durationPart(d, NS) },
  { signature: `${DUR}.getMilliseconds(): int`, impl: (d) => durationPart(d, 1_000_000n) % 1000n },
  // optionals (or, orValue, optMap, optFlatMap are macros: interpreter)
  { signature: 'optional.of(A): optional<A>', impl: (v) => Optional.of(v) },
  { signature: 'optional.none(): optional<T>', impl: () => Optional.NONE },
  { signature: 'optional.ofNonZeroValue(A): optional<A>', impl: (v) => (isZeroValue(v) ? Optional.NONE : Optional.of(v)) },
  { signature: 'optional<A>.hasValue(): bool', impl: (o) => (o as Optional).hasValue },
  {
    signature: 'optional<A>.value(): A',
    impl: (o) => {
      const v = (o as Optional).value;
      if (v === undefined) throw new CelEvalError('optional.none() dereference');
      return v;
    },
  },
];

export const STD_LIBRARY: CelLibrary = { name: 'cel.std', since: 0, overloads };

/** Namespaces of global functions in the standard library (`optional.of`...). */
export const STD_NAMESPACES: ReadonlySet<string> = new Set(['optional']);

/**
 * Declarations the checker lacks, registered with it by the environment (function signatures in its
 * syntax; namespace functions on its namespace type). Operators are listed separately.
 */
export const STD_DECLARATIONS: readonly string[] = [
  // The global form of `matches` (cel-go declares both; real policies use `matches(object.metadata.name, '^a')`).
  'matches(string, string): bool',
  'int(uint): int',
  `int(${TS}): int`,
  `string(${TS}): string`,
  `string(${DUR}): string`,
  `timestamp(${TS}): ${TS}`,
  `duration(${DUR}): ${DUR}`,
  'OptionalNamespace.ofNonZeroValue(A): optional<A>',
  'type(optional<A>): type',
];

export const STD_OPERATOR_DECLARATIONS: readonly string[] = [
  'bytes < bytes',
  'bytes <= bytes',
  'bytes > bytes',
  'bytes >= bytes',
  'optional<A> == optional<A>',
];
