/**
 * Small walks over plain JSON values (what JSON.parse yields), shared by the patch functions and the generic
 * registry: deep equality with unordered object keys, and a deep copy that is faster than structuredClone
 * for JSON (no cycle tracking, no exotic types).
 */

import { isObject, type JsonObject } from '../../api/json.js';

export { isObject, type JsonObject };

/**
 * Structural equality of JSON values: object key order is ignored, array order is not, numbers compare by
 * value (`1` equals `1.0`). `undefined` members count as absent, as JSON encoding drops them.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as JsonObject;
  const bo = b as JsonObject;
  let na = 0;
  for (const k in ao) {
    const av = ao[k];
    if (av === undefined) continue;
    na++;
    if (!jsonEqual(av, bo[k])) return false;
  }
  let nb = 0;
  for (const k in bo) if (bo[k] !== undefined) nb++;
  return na === nb;
}

/** A deep copy of a JSON value; `undefined` members are dropped. */
export function jsonClone<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return v.map(jsonClone) as T;
  const out: JsonObject = {};
  for (const k in v as JsonObject) {
    const x = (v as JsonObject)[k];
    if (x !== undefined) setMember(out, k, jsonClone(x));
  }
  return out as T;
}

/**
 * Sets an own member, also for the key `__proto__` (which JSON.parse creates as an own member, and plain
 * assignment would turn into a prototype change).
 */
export function setMember(o: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/** Own-member lookup (never the prototype chain). */
export const hasMember = (o: JsonObject, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);
