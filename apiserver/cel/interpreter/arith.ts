/**
 * CEL arithmetic as cel-go: int64 and uint64 with overflow errors (`-(-2^63)`, `2^63 - 1 + 1`, `0u - 1u`,
 * `-2^63 / -1`), division and modulo by zero errors, IEEE doubles (division by zero gives ±Inf), string,
 * bytes and list concatenation (Kubernetes set/map list concatenation), timestamp and duration arithmetic
 * with range errors. Mixed kinds (`1 + 1u`, `1 + 1.0`) have no overload.
 */
import { CelEvalError } from '../errors.js';
// `a + b` for lists is decided by the left operand's Kubernetes list type.
import { concatLists } from '../values/list-types.js';
import { typeNameOf } from '../values/type-of.js';
import { CelUint, Duration, INT64_MAX, INT64_MIN, Timestamp, UINT64_MAX, type CelList, type CelValue } from '../values/value.js';
import { addDurations, addTimestampDuration, subDurations, subTimestampDuration, subTimestamps } from './time.js';

export const overflow = (): never => {
  throw new CelEvalError('integer overflow');
};
const uintOverflow = (): never => {
  throw new CelEvalError('unsigned integer overflow');
};
const noOverload = (op: string, a: CelValue, b: CelValue): never => {
  throw new CelEvalError(`no such overload: ${typeNameOf(a)} ${op} ${typeNameOf(b)}`);
};

export function checkInt(v: bigint): bigint {
  return v < INT64_MIN || v > INT64_MAX ? overflow() : v;
}

function checkUint(v: bigint): CelUint {
  return v < 0n || v > UINT64_MAX ? uintOverflow() : new CelUint(v);
}

export function negate(a: CelValue): CelValue {
  if (typeof a === 'bigint') return checkInt(-a);
  if (typeof a === 'number') return -a;
  throw new CelEvalError(`no such overload: -${typeNameOf(a)}`);
}

export function add(a: CelValue, b: CelValue): CelValue {
  switch (typeof a) {
    case 'bigint':
      return typeof b === 'bigint' ? checkInt(a + b) : noOverload('+', a, b);
    case 'number':
      return typeof b === 'number' ? a + b : noOverload('+', a, b);
    case 'string':
      return typeof b === 'string' ? a + b : noOverload('+', a, b);
    default:
  }
  if (a instanceof CelUint) return b instanceof CelUint ? checkUint(a.value + b.value) : noOverload('+', a, b);
  if (Array.isArray(a)) return Array.isArray(b) ? concatLists(a as CelList, b as CelList) : noOverload('+', a, b);
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array)) return noOverload('+', a, b);
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  }
  if (a instanceof Timestamp) return b instanceof Duration ? addTimestampDuration(a, b) : noOverload('+', a, b);
  if (a instanceof Duration) {
    if (b instanceof Duration) return addDurations(a, b);
    if (b instanceof Timestamp) return addTimestampDuration(b, a);
  }
  return noOverload('+', a, b);
}

export function subtract(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint') return typeof b === 'bigint' ? checkInt(a - b) : noOverload('-', a, b);
  if (typeof a === 'number') return typeof b === 'number' ? a - b : noOverload('-', a, b);
  if (a instanceof CelUint) return b instanceof CelUint ? checkUint(a.value - b.value) : noOverload('-', a, b);
  if (a instanceof Timestamp) {
    if (b instanceof Duration) return subTimestampDuration(a, b);
    if (b instanceof Timestamp) return subTimestamps(a, b);
  }
  if (a instanceof Duration && b instanceof Duration) return subDurations(a, b);
  return noOverload('-', a, b);
}

export function multiply(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint') return typeof b === 'bigint' ? checkInt(a * b) : noOverload('*', a, b);
  if (typeof a === 'number') return typeof b === 'number' ? a * b : noOverload('*', a, b);
  if (a instanceof CelUint) return b instanceof CelUint ? checkUint(a.value * b.value) : noOverload('*', a, b);
  return noOverload('*', a, b);
}

export function divide(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint') {
    if (typeof b !== 'bigint') return noOverload('/', a, b);
    if (b === 0n) throw new CelEvalError('division by zero');
    return checkInt(a / b); // BigInt division truncates toward zero, as Go; MIN / -1 overflows
  }
  if (typeof a === 'number') return typeof b === 'number' ? a / b : noOverload('/', a, b);
  if (a instanceof CelUint) {
    if (!(b instanceof CelUint)) return noOverload('/', a, b);
    if (b.value === 0n) throw new CelEvalError('division by zero');
    return new CelUint(a.value / b.value);
  }
  return noOverload('/', a, b);
}

export function modulo(a: CelValue, b: CelValue): CelValue {
  if (typeof a === 'bigint') {
    if (typeof b !== 'bigint') return noOverload('%', a, b);
    if (b === 0n) throw new CelEvalError('modulus by zero');
    if (a === INT64_MIN && b === -1n) return overflow();
    return a % b; // the sign of the dividend, as Go
  }
  if (a instanceof CelUint) {
    if (!(b instanceof CelUint)) return noOverload('%', a, b);
    if (b.value === 0n) throw new CelEvalError('modulus by zero');
    return new CelUint(a.value % b.value);
  }
  return noOverload('%', a, b);
}
