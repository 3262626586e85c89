/**
 * `additionalPrinterColumns` and the scale subresource's paths, as Kubernetes v1.32 validates them:
 * columns name a type among `boolean, date, integer, number, string`, an optional format among Kubernetes'
 * list, and a simple JSON path (the error path is `...JSONPath`, Kubernetes' spelling); scale paths are
 * simple JSON paths under `.spec` / `.status` (`labelSelectorPath` under either).
 */
import { FieldPath, invalidValue, required, type FieldError } from '../../../validation/field-error.js';
import { isObject, isSet, objectAt, stringAt, type Json } from './json-schema-node.js';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** Kubernetes' `validateSimpleJSONPath`: starts with `.`. */
export function validateSimpleJSONPath(s: string, p: FieldPath): FieldError[] {
  if (s === '') return [invalidValue(p, s, 'must not be empty')];
  if (!s.startsWith('.')) return [invalidValue(p, s, 'must be a simple json path starting with .')];
  return [];
}

export function validateColumn(col: Json, p: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = stringAt(col, 'name');
  const type = stringAt(col, 'type');
  const format = stringAt(col, 'format');
  const jsonPath = stringAt(col, 'jsonPath');
  if (name === '') errs.push(required(p.child('name'), ''));
  const types = `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`;
  if (type === '') errs.push(required(p.child('type'), types));
  else if (!PRINTER_COLUMN_TYPES.includes(type)) errs.push(invalidValue(p.child('type'), type, types));
  if (format !== '' && !PRINTER_COLUMN_FORMATS.includes(format)) errs.push(invalidValue(p.child('format'), format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  if (jsonPath === '') errs.push(required(p.child('JSONPath'), ''));
  else errs.push(...validateSimpleJSONPath(jsonPath, p.child('JSONPath')));
  return errs;
}

export function validateColumns(columns: unknown, p: FieldPath): FieldError[] {
  if (!Array.isArray(columns)) return [];
  return columns.flatMap((c, i) => (isObject(c) ? validateColumn(c, p.index(i)) : []));
}

/** Kubernetes' `ValidateCustomResourceDefinitionSubresources`. */
export function validateSubresources(subresources: Json | undefined, p: FieldPath): FieldError[] {
  const scale = subresources === undefined ? undefined : objectAt(subresources, 'scale');
  if (scale === undefined) return [];
  const errs: FieldError[] = [];
  const under = (key: string, prefixes: readonly string[], detail: string): void => {
    const v = stringAt(scale, key);
    const at = p.child(`scale.${key}`);
    const pathErrs = validateSimpleJSONPath(v, at);
    if (pathErrs.length > 0) errs.push(...pathErrs);
    else if (!prefixes.some((x) => v.startsWith(x))) errs.push(invalidValue(at, v, detail));
  };
  if (stringAt(scale, 'specReplicasPath') === '') errs.push(required(p.child('scale.specReplicasPath'), ''));
  else under('specReplicasPath', ['.spec.'], 'should be a json path under .spec');
  if (stringAt(scale, 'statusReplicasPath') === '') errs.push(required(p.child('scale.statusReplicasPath'), ''));
  else under('statusReplicasPath', ['.status.'], 'should be a json path under .status');
  if (isSet(scale, 'labelSelectorPath') && stringAt(scale, 'labelSelectorPath') !== '') {
    under('labelSelectorPath', ['.spec.', '.status.'], 'should be a json path under either .spec or .status');
  }
  return errs;
}
