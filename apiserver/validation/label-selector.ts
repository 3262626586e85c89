/**
 * metav1's `ValidateLabelSelector` with Kubernetes' messages (invalid label values not tolerated): matchLabels
 * keys and values, and each matchExpression's operator, values and key. Values are read defensively.
 */
import { forbidden, invalidValue, required, type FieldError, type FieldPath } from './field-error.js';
import { isQualifiedName, isValidLabelValue } from './names.js';
import { isObject } from '../api/json.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const record = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function validateLabelSelector(selector: unknown, path: FieldPath): FieldError[] {
  const s = record(selector);
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(record(s.matchLabels))) {
    for (const msg of isQualifiedName(k)) errs.push(invalidValue(path.child('matchLabels'), k, msg));
    for (const msg of isValidLabelValue(text(v))) errs.push(invalidValue(path.child('matchLabels'), text(v), msg));
  }
  list(s.matchExpressions).forEach((e, i) => {
    const req = record(e);
    const at = path.child('matchExpressions').index(i);
    const operator = text(req.operator);
    const values = strings(req.values);
    switch (operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(required(at.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(forbidden(at.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(invalidValue(at.child('operator'), operator, 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(text(req.key))) errs.push(invalidValue(at.child('key'), text(req.key), msg));
    values.forEach((v, j) => {
      for (const msg of isValidLabelValue(v)) errs.push(invalidValue(at.child('values').index(j), v, msg));
    });
  });
  return errs;
}

