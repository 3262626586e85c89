/**
 * Label and annotation syntax of a pod template's metadata (the object's own metadata is validated by the
 * registry). Messages and paths as Kubernetes: label problems are reported at the map's path.
 */
import { type FieldError, type FieldPath, invalidValue, tooLong } from '../../../../validation/field-error.js';
import { isQualifiedName, isValidLabelValue } from '../../../../validation/names.js';
import type { JsonObject } from './json-values.js';

/** Kubernetes' limit on the total size of an object's annotations (keys plus values). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export function validateLabels(labels: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(invalidValue(path, k, msg));
    if (typeof v === 'string') for (const msg of isValidLabelValue(v)) errs.push(invalidValue(path, v, msg));
  }
  return errs;
}

export function validateAnnotations(annotations: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(invalidValue(path, k, msg));
    size += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) errs.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return errs;
}
