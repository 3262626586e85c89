/**
 * Kubernetes' lists library (`kubernetes.lists`, every version): isSorted, sum, min, max, indexOf and
 * lastIndexOf.
 *
 * - `isSorted`, `min`, `max` are declared per comparable element type (int, uint, double, bool, duration,
 *   timestamp, string, bytes); `min`/`max` of an empty list is the error `min called on empty list` /
 *   `max called on empty list`. Strings order by code point.
 * - `sum` is declared per summable type (int, uint, double, duration); the empty list sums to that type's
 *   zero; int overflow is `integer overflow`, uint `unsigned integer overflow`, durations beyond int64
 *   nanoseconds `integer overflow` (as cel-go).
 * - `indexOf`/`lastIndexOf` take any element type (`list<A>`) and compare with CEL equality (`[1.0].indexOf(1)`
 *   through dyn finds 0); -1 when absent.
 *
 * Cost (k8s cost.go): every function costs the traversal cost of the list (each element 1, strings and
 * bytes floor(bytes * 0.1), nested lists and maps their members').
 */
import { CelEvalError } from '../errors.js';
import { CelUint, Duration, type CelValue } from '../values/value.js';
import type { CelLibrary, Overload } from './library.js';
import { celCompare, celEquals, checkedInt, checkedUint, list, noSuchOverload, traversalCost } from './support.js';
import { withKubernetesEstimates } from '../cost/kubernetes-estimates.js';

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'google.protobuf.Duration', 'google.protobuf.Timestamp', 'string', 'bytes'] as const;

const cost = (args: readonly CelValue[]): number => traversalCost(args[0]!);

export function isSorted(items: readonly CelValue[]): boolean {
  for (let i = 1; i < items.length; i++) if (celCompare(items[i - 1]!, items[i]!) > 0) return false;
  return true;
}

/** min (prefer = 1: replace when the current result is greater) or max (prefer = -1). */
function extreme(name: 'min' | 'max', items: readonly CelValue[]): CelValue {
  if (items.length === 0) throw new CelEvalError(`${name} called on empty list`);
  const prefer = name === 'min' ? 1 : -1;
  let result = items[0]!;
  for (let i = 1; i < items.length; i++) if (celCompare(result, items[i]!) === prefer) result = items[i]!;
  return result;
}

const NANOS = 1_000_000_000n;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

function addDurations(a: Duration, b: Duration): Duration {
  const total = a.seconds * NANOS + BigInt(a.nanos) + b.seconds * NANOS + BigInt(b.nanos);
  if (total > INT64_MAX || total < INT64_MIN) throw new CelEvalError('integer overflow');
  const seconds = total / NANOS; // truncates toward zero: nanos keep the sign of the total
  return new Duration(seconds, Number(total - seconds * NANOS));
}

function sum(kind: 'int' | 'uint' | 'double' | 'google.protobuf.Duration', items: readonly CelValue[]): CelValue {
  switch (kind) {
    case 'int': {
      let acc = 0n;
      for (const v of items) {
        if (typeof v !== 'bigint') throw noSuchOverload();
        acc = checkedInt(acc + v);
      }
      return acc;
    }
    case 'uint': {
      let acc = new CelUint(0n);
      for (const v of items) {
        if (!(v instanceof CelUint)) throw noSuchOverload();
        acc = checkedUint(acc.value + v.value);
      }
      return acc;
    }
    case 'double': {
      let acc = 0;
      for (const v of items) {
        if (typeof v !== 'number') throw noSuchOverload();
        acc += v;
      }
      return acc;
    }
    default: {
      let acc = new Duration(0n, 0);
      for (const v of items) {
        if (!(v instanceof Duration)) throw noSuchOverload();
        acc = addDurations(acc, v);
      }
      return acc;
    }
  }
}

export function indexOf(items: readonly CelValue[], v: CelValue): bigint {
  for (let i = 0; i < items.length; i++) if (celEquals(items[i]!, v)) return BigInt(i);
  return -1n;
}

export function lastIndexOf(items: readonly CelValue[], v: CelValue): bigint {
  for (let i = items.length - 1; i >= 0; i--) if (celEquals(items[i]!, v)) return BigInt(i);
  return -1n;
}

const overloads: Overload[] = [];
for (const t of COMPARABLE) {
  overloads.push({ signature: `list<${t}>.isSorted(): bool`, impl: (l) => isSorted(list(l)), cost });
  overloads.push({ signature: `list<${t}>.min(): ${t}`, impl: (l) => extreme('min', list(l)), cost });
  overloads.push({ signature: `list<${t}>.max(): ${t}`, impl: (l) => extreme('max', list(l)), cost });
}
for (const t of ['int', 'uint', 'double', 'google.protobuf.Duration'] as const) {
  overloads.push({ signature: `list<${t}>.sum(): ${t}`, impl: (l) => sum(t, list(l)), cost });
}
overloads.push({ signature: 'list<A>.indexOf(A): int', impl: (l, v) => indexOf(list(l), v), cost });
overloads.push({ signature: 'list<A>.lastIndexOf(A): int', impl: (l, v) => lastIndexOf(list(l), v), cost });

export const listsLibrary: CelLibrary = {
  name: 'kubernetes.lists',
  since: 0,
  overloads: withKubernetesEstimates(overloads),
};
