/**
 * What a converter may change in an object's metadata (Kubernetes' `validateConvertedObject` and
 * `restoreObjectMeta`): kind, name, namespace and uid must stay; labels and annotations may change and are
 * then validated; everything else in metadata is put back from the original, whatever the converter sent.
 * Each function returns Kubernetes' error text, or `undefined` when the object is acceptable.
 */
import { invalidValue, errorString, type FieldError } from '../../validation/field-error.js';
import { isQualifiedName, isValidLabelValue } from '../../validation/names.js';
import { TOTAL_ANNOTATION_SIZE_LIMIT } from '../../validation/object-meta.js';
import { goTypeName } from './go-json.js';
import { type JsonObject } from './group-version.js';
import { isObject } from '../../api/json.js';

function metaString(obj: JsonObject, field: string): string {
  const meta = obj['metadata'];
  if (!isObject(meta)) return '';
  const v = meta[field];
  return typeof v === 'string' ? v : '';
}

/** Kind, name, namespace and uid must match between the original and the converted object. */
export function validateConvertedObject(original: JsonObject, converted: JsonObject): string | undefined {
  const kindOf = (o: JsonObject): string => (typeof o['kind'] === 'string' ? o['kind'] : '');
  if (kindOf(original) !== kindOf(converted)) return `must have the same kind: ${kindOf(original)} != ${kindOf(converted)}`;
  for (const [field, word] of [
    ['name', 'name'],
    ['namespace', 'namespace'],
    ['uid', 'UID'],
  ] as const) {
    const e = metaString(original, field);
    const a = metaString(converted, field);
    if (e !== a) return `must have the same ${word}: ${e} != ${a}`;
  }
  return undefined;
}

/** Go's `ErrorList.ToAggregate().Error()`: one error as is, several as `[a, b]`. */
function aggregate(errs: readonly FieldError[]): string {
  const lines = errs.map(errorString);
  return lines.length === 1 ? lines[0]! : `[${lines.join(', ')}]`;
}

function labelErrors(labels: Readonly<Record<string, string>>): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(invalidValue('metadata.labels', k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(invalidValue('metadata.labels', v, msg));
  }
  return errs;
}

/** Upstream validates converted annotations under the path `metadata.annotation` (sic). */
function annotationErrors(annotations: Readonly<Record<string, string>>): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalidValue('metadata.annotation', k, msg));
    total += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) {
    errs.push({ type: 'FieldValueTooLong', field: 'metadata.annotation', detail: `must have at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes` });
  }
  return errs;
}

/**
 * The converted object with the original's metadata, except labels and annotations taken from the
 * converted one (validated when they differ from the original's). Returns the new object, or the error text.
 */
export function restoreObjectMeta(original: JsonObject, converted: JsonObject): { object: JsonObject } | { error: string } {
  const hasConverted = Object.hasOwn(converted, 'metadata');
  const hasOriginal = Object.hasOwn(original, 'metadata');
  if (!hasConverted && !hasOriginal) return { object: converted };
  if (!hasConverted) return { error: 'missing metadata in converted object' };
  const convertedMeta = converted['metadata'];
  const originalMeta = hasOriginal ? original['metadata'] : {};
  if (!isObject(convertedMeta)) return { error: `invalid metadata of type ${goTypeName(convertedMeta)} in converted object` };
  if (!isObject(originalMeta)) return { error: `invalid metadata of type ${goTypeName(originalMeta)} in input object` };

  const result: JsonObject = { ...originalMeta };
  for (const field of ['labels', 'annotations'] as const) {
    const value = convertedMeta[field];
    if (value === undefined || value === null) {
      delete result[field];
      continue;
    }
    if (!isObject(value)) return { error: `invalid metadata.${field} of type ${goTypeName(value)} in converted object` };
    const before = isObject(originalMeta[field]) ? (originalMeta[field] as JsonObject) : {};
    let changed = Object.keys(before).length !== Object.keys(value).length;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') return { error: `metadata.${field}[${k}] must be a string, but is ${goTypeName(v)} in converted object` };
      if (before[k] !== v) changed = true;
    }
    if (changed) {
      const strings = value as Record<string, string>;
      const errs = field === 'labels' ? labelErrors(strings) : annotationErrors(strings);
      if (errs.length > 0) return { error: aggregate(errs) };
    }
    result[field] = value;
  }
  return { object: { ...converted, metadata: result } };
}
