/**
 * Validation of a ValidatingAdmissionPolicy's status (the `status` sub-resource), with Kubernetes v1.32's
 * messages: each type checking warning needs a `warning` and a `fieldRef` that parses as a JSONPath (no
 * further checks, for easy upgrades and rollbacks); conditions follow metav1's ValidateConditions (unique
 * types that are qualified names, status True/False/Unknown, observedGeneration >= 0, lastTransitionTime
 * set, a CamelCase-ish reason of at most 1 KiB, a message of at most 32 KiB).
 *
 * The JSONPath check accepts the paths Kubernetes' controller writes (`spec.validations[0].expression`)
 * and client-go's usual forms; its error names the first character the parser rejects, as client-go's.
 */
import { FieldPath, duplicate, invalidValue, notSupported, required, tooLong, type FieldError } from '../../../validation/field-error.js';
import { isQualifiedName } from '../../../validation/names.js';
import { arrayAt, isObject, numberAt, objectItems, stringAt, type JsonObject } from '../core/pod/json-values.js';
import { parseSimpleJsonPath } from '../apiextensions/simple-json-path.js';

const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const MAX_REASON_LENGTH = 1024;
const MAX_MESSAGE_LENGTH = 32 * 1024;
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const REASON_ERROR =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')";

/** metav1 ValidateConditions. */
export function validateConditions(conditions: readonly unknown[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const types = new Set<string>();
  for (const [i, c] of objectItems(conditions)) {
    const at = path.index(i);
    const type = stringAt(c, 'type');
    if (types.has(type)) errs.push(duplicate(at.child('type'), type));
    else types.add(type);
    for (const msg of isQualifiedName(type)) errs.push(invalidValue(at.child('type'), type, msg));
    const status = stringAt(c, 'status');
    if (!CONDITION_STATUSES.includes(status)) errs.push(notSupported(at.child('status'), status, CONDITION_STATUSES));
    const generation = numberAt(c, 'observedGeneration');
    if (generation !== undefined && generation < 0) errs.push(invalidValue(at.child('observedGeneration'), generation, 'must be greater than or equal to zero'));
    if (stringAt(c, 'lastTransitionTime') === '') errs.push(required(at.child('lastTransitionTime'), 'must be set'));
    const reason = stringAt(c, 'reason');
    if (reason === '') errs.push(required(at.child('reason'), 'must be set'));
    else {
      if (!REASON.test(reason)) errs.push(invalidValue(at.child('reason'), reason, REASON_ERROR));
      if (Buffer.byteLength(reason) > MAX_REASON_LENGTH) errs.push(tooLong(at.child('reason'), MAX_REASON_LENGTH));
    }
    if (Buffer.byteLength(stringAt(c, 'message')) > MAX_MESSAGE_LENGTH) errs.push(tooLong(at.child('message'), MAX_MESSAGE_LENGTH));
  }
  return errs;
}

/** client-go's complaint about the first character of `{<fieldRef>}` its JSONPath parser cannot take. */
function jsonPathError(fieldRef: string): string {
  for (const ch of fieldRef) {
    if (!/[A-Za-z0-9_.[\]*'"@$?()=!<>&| +-]/.test(ch)) {
      const code = ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      return `unrecognized character in action: U+${code} '${ch}'`;
    }
  }
  return 'unrecognized identifier';
}

function validateFieldRef(raw: string, path: FieldPath): FieldError[] {
  const fieldRef = raw.trim();
  if (fieldRef === '') return [required(path, '')];
  if (parseSimpleJsonPath(`{${fieldRef}}`) === undefined) return [invalidValue(path, fieldRef, `invalid JSONPath: ${jsonPathError(fieldRef)}`)];
  return [];
}

/** ValidateValidatingAdmissionPolicyStatusUpdate: the status alone. */
export function validatePolicyStatus(status: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const path = FieldPath.root('status');
  if (isObject(status.typeChecking)) {
    const warnings = path.child('typeChecking').child('expressionWarnings');
    for (const [i, w] of objectItems(arrayAt(status.typeChecking, 'expressionWarnings'))) {
      if (stringAt(w, 'warning') === '') errs.push(required(warnings.index(i).child('warning'), ''));
      errs.push(...validateFieldRef(stringAt(w, 'fieldRef'), warnings.index(i).child('fieldRef')));
    }
  }
  errs.push(...validateConditions(arrayAt(status, 'conditions'), path.child('conditions')));
  return errs;
}
