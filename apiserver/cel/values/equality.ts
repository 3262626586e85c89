/**
 * CEL equality (`==`, `!=`, `in`, list and map equality), as cel-go with heterogeneous equality:
 *
 * - int, uint and double compare by numeric value everywhere (`1 == 1u`, `[1] == [1.0]`, `1u in [1.0]`);
 *   NaN equals nothing, itself included;
 * - values of different kinds are unequal (never an error);
 * - bytes bytewise; lists element-wise in order, except when the LEFT operand is a `set` or `map`
 *   tagged list (Kubernetes list types), whose equality ignores order (list-types.ts); maps by key set and values (keys matched with the numeric key
 *   rules); schema objects by type and set fields; timestamps and durations by (seconds, nanos); types by
 *   name; optionals by presence and value; library opaque values through their `equals`.
 */
import { numericOf, compareNumeric } from './numeric.js';
import { listEquals } from './list-types.js';
import { CelOpaque, CelType, CelUint, Duration, Optional, Timestamp, type CelList, type CelMap, type CelObject, type CelValue } from './value.js';

export function celEquals(a: CelValue, b: CelValue): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  switch (typeof a) {
    case 'string':
    case 'boolean':
      return false;
    case 'bigint':
    case 'number': {
      const nb = numericOf(b);
      return nb !== undefined && compareNumeric(a, nb) === 0;
    }
    default:
  }
  if (a === null || b === null || typeof b !== 'object') {
    if (a instanceof CelUint) {
      const nb = numericOf(b);
      return nb !== undefined && compareNumeric(a.value, nb) === 0;
    }
    return false;
  }
  if (a instanceof CelUint) {
    const nb = numericOf(b);
    return nb !== undefined && compareNumeric(a.value, nb) === 0;
  }
  if (Array.isArray(a)) return Array.isArray(b) && listEquals(a as CelList, b as CelList);
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesEqual(a, b);
  if (a instanceof Timestamp) return b instanceof Timestamp && a.seconds === b.seconds && a.nanos === b.nanos;
  if (a instanceof Duration) return b instanceof Duration && a.seconds === b.seconds && a.nanos === b.nanos;
  if (a instanceof CelType) return b instanceof CelType && a.name === b.name;
  if (a instanceof Optional) {
    if (!(b instanceof Optional)) return false;
    if (a.value === undefined || b.value === undefined) return a.value === b.value;
    return celEquals(a.value, b.value);
  }
  if (a instanceof CelOpaque) return b instanceof CelOpaque && a.typeName === b.typeName && a.equals(b);
  const ka = (a as { kind?: unknown }).kind;
  const kb = (b as { kind?: unknown }).kind;
  if (ka === 'map') return kb === 'map' && mapEquals(a as CelMap, b as CelMap);
  if (ka === 'object') return kb === 'object' && objectEquals(a as CelObject, b as CelObject);
  return false;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function mapEquals(a: CelMap, b: CelMap): boolean {
  if (a.size !== b.size) return false;
  for (const k of a.keys()) {
    const vb = b.get(k);
    if (vb === undefined || !celEquals(a.get(k)!, vb)) return false;
  }
  return true;
}

function objectEquals(a: CelObject, b: CelObject): boolean {
  if (a.typeName !== b.typeName) return false;
  let n = 0;
  for (const f of a.fieldNames()) {
    n++;
    const vb = b.field(f);
    if (vb === undefined || !celEquals(a.field(f)!, vb)) return false;
  }
  for (const _ of b.fieldNames()) n--;
  return n === 0;
}

/** `x in list`: heterogeneous equality against each item. */
export function listContains(list: CelList, x: CelValue): boolean {
  for (let i = 0; i < list.length; i++) if (celEquals(x, list[i]!)) return true;
  return false;
}
