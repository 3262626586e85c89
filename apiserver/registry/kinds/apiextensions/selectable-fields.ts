/**
 * `selectableFields` of a version (Kubernetes v1.32 `ValidateCustomResourceSelectableFields`): each
 * `jsonPath` required, resolvable in the version's schema without array notation, not under `metadata`,
 * ending at a string, boolean or integer; no duplicates; at most 8 distinct paths.
 */
import { duplicate, FieldPath, invalidValue, required, tooMany, type FieldError } from '../../../validation/field-error.js';
import { isObject, stringAt, type Json } from './json-schema-node.js';
import { validFieldPath } from './schema-field-path.js';

export const MAX_SELECTABLE_FIELDS = 8;

export function validateSelectableFields(fields: readonly unknown[], schema: Json, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const unique = new Set<string>();
  fields.forEach((f, i) => {
    const at = p.index(i).child('jsonPath');
    const jsonPath = isObject(f) ? stringAt(f, 'jsonPath') : '';
    if (jsonPath === '') {
      errs.push(required(at, ''));
      return;
    }
    const resolved = validFieldPath(jsonPath, schema, false);
    if (!resolved.ok) {
      errs.push(invalidValue(at, jsonPath, `is an invalid path: ${resolved.error}`));
      return;
    }
    if (resolved.value.root === 'metadata') errs.push(invalidValue(at, jsonPath, 'must not point to fields in metadata'));
    const type = resolved.value.schema?.type;
    if (type !== 'string' && type !== 'boolean' && type !== 'integer') {
      errs.push(invalidValue(at, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (unique.has(resolved.value.path)) errs.push(duplicate(at, jsonPath));
    else unique.add(resolved.value.path);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) errs.push(tooMany(p, unique.size, MAX_SELECTABLE_FIELDS));
  return errs;
}
