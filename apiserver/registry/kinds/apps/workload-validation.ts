/**
 * Checks shared by the workload kinds (StatefulSet here, ReplicationController in core/): Kubernetes'
 * ValidateNonnegativeField, its IntOrString percent checks (ValidatePositiveIntOrPercent,
 * IsNotMoreThan100Percent), and document 2's rule for workload conditions (`type` required, `status` one
 * of True, False, Unknown), which Kubernetes v1.32 does not check for these kinds.
 */
import { type FieldError, type FieldPath, invalidValue, notSupported, required } from '../../../validation/field-error.js';
import { arrayAt, objectItems, stringAt, type JsonObject } from '../core/pod/json-values.js';

export const CONDITION_STATUSES = Object.freeze(['True', 'False', 'Unknown']);
const PERCENT = /^[0-9]+%$/;
const PERCENT_MSG = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** `must be greater than or equal to 0` for a negative value. */
export const nonNegative = (value: number, path: FieldPath | string): FieldError[] =>
  value < 0 ? [invalidValue(path, value, 'must be greater than or equal to 0')] : [];

/**
 * An int-or-percent value (`maxUnavailable`): a non-negative integer or `<digits>%`, at most 100%; with
 * `positive`, 0 and 0% are refused too (`cannot be 0`).
 */
export function validateIntOrPercent(value: unknown, path: FieldPath, positive: boolean): FieldError[] {
  if (typeof value === 'number') {
    const errs = nonNegative(value, path);
    if (positive && value === 0) errs.push(invalidValue(path, value, 'cannot be 0'));
    return errs;
  }
  if (typeof value !== 'string') return [];
  if (!PERCENT.test(value)) return [invalidValue(path, value, PERCENT_MSG)];
  const pct = Number(value.slice(0, -1));
  const errs: FieldError[] = [];
  if (positive && pct === 0) errs.push(invalidValue(path, value, 'cannot be 0'));
  if (pct > 100) errs.push(invalidValue(path, value, 'must not be greater than 100%'));
  return errs;
}

/** Each condition of `status.conditions`: `type` required, `status` True, False or Unknown. */
export function validateConditions(status: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const [i, c] of objectItems(arrayAt(status, 'conditions'))) {
    const at = path.index(i);
    if (stringAt(c, 'type') === '') errs.push(required(at.child('type'), ''));
    const s = stringAt(c, 'status');
    if (s === '') errs.push(required(at.child('status'), ''));
    else if (!CONDITION_STATUSES.includes(s)) errs.push(notSupported(at.child('status'), s, CONDITION_STATUSES));
  }
  return errs;
}
