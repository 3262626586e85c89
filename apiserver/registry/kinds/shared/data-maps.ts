/**
 * Checks shared by Secret and ConfigMap: config-key syntax of map keys and the total size of the values.
 * Sizes are computed from the base64 text without decoding it (no copies on the hot path).
 */
import { invalidValue, FieldPath, type FieldError } from '../../../validation/field-error.js';
import { isConfigMapKey } from '../../../validation/names.js';
import { isObject } from '../../../api/json.js';

/** Kubernetes' MaxSecretSize, also the ConfigMap limit: 1 MiB of values in total. */
export const MAX_DATA_SIZE = 1024 * 1024;

/** The `Too long` error of an oversized `data` (Kubernetes v1.32 wording). */
export const dataTooLong = (field: string): FieldError => ({
  type: 'FieldValueTooLong',
  field,
  detail: `must have at most ${MAX_DATA_SIZE} bytes`,
});

/**
 * The decoded length of standard base64 text (`=` padding optional). Invalid text is the schema's
 * concern (format `byte`); this only needs a size.
 */
export function base64DecodedLength(text: string): number {
  let len = text.length;
  while (len > 0 && text.charCodeAt(len - 1) === 61 /* = */) len--;
  return Math.floor((len * 3) / 4);
}

export type ValueSize = (value: unknown) => number;

/** Size of a base64 value (`[]byte` in Go). */
export const byteSize: ValueSize = (v) => (typeof v === 'string' ? base64DecodedLength(v) : 0);
/** Size of a string value in UTF-8 bytes. */
export const stringSize: ValueSize = (v) => (typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : 0);

/** A map-valued field as a record, or undefined when absent or not an object. */
export function asMap(value: unknown): Record<string, unknown> | undefined {
  return isObject(value) ? value : undefined;
}

/**
 * Validates the keys of `map` (field `name`) as config keys, pushing errors to `errs`, and returns the
 * total size of its values.
 */
export function checkDataMap(map: Record<string, unknown> | undefined, name: string, size: ValueSize, errs: FieldError[]): number {
  if (map === undefined) return 0;
  const path = FieldPath.root(name);
  let total = 0;
  for (const key in map) {
    for (const msg of isConfigMapKey(key)) errs.push(invalidValue(path.key(key), key, msg));
    total += size(map[key]);
  }
  return total;
}

/** Semantic equality of two string maps (absent equals empty, as both serialize the same way). */
export function sameMap(a: unknown, b: unknown): boolean {
  const x = asMap(a) ?? {};
  const y = asMap(b) ?? {};
  let n = 0;
  for (const k in x) {
    if (x[k] !== y[k]) return false;
    n++;
  }
  let m = 0;
  for (const _k in y) m++;
  return n === m;
}
