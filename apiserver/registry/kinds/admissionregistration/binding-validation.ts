/**
 * ValidatingAdmissionPolicyBinding validation with Kubernetes v1.32's rules, messages and field paths
 * (`ValidateValidatingAdmissionPolicyBinding`; an update is validated the same way). `metadata` is the
 * registry's (DNS subdomain name).
 *
 * - policyName required, a DNS subdomain;
 * - paramRef: name (a path segment) xor selector (a valid label selector), one of them required;
 *   parameterNotFoundAction required, Allow or Deny;
 * - matchResources, when given, as the policy's (resourceRules optional). Its errors are reported under
 *   `spec.matchResouces`: the misspelling is Kubernetes' own (v1.32), kept so messages match;
 * - validationActions: at least one; each Audit, Deny or Warn; not Deny with Warn. Duplicates are the
 *   schema's error (a set), worded as Kubernetes'.
 */
import type { KubeObject } from '../../../api/object.js';
import { FieldPath, forbidden, invalidValue, notSupported, required, type FieldError } from '../../../validation/field-error.js';
import { isDNS1123Subdomain, isPathSegmentName } from '../../../validation/names.js';
import { isObject, objectAt, stringAt, type JsonObject } from '../core/pod/json-values.js';
import { validateLabelSelector } from '../../../validation/label-selector.js';
import { goStrings, invalidRendered } from './go-values.js';
import { validateMatchResources } from './match-validation.js';

const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];
const NOT_FOUND_ACTIONS = ['Deny', 'Allow'];
const EXCLUSIVE = 'name and selector are mutually exclusive';

function validateParamRef(ref: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const name = stringAt(ref, 'name');
  const hasSelector = isObject(ref.selector);
  if (name !== '') {
    for (const msg of isPathSegmentName(name)) errs.push(invalidValue(path.child('name'), name, msg));
    if (hasSelector) errs.push(forbidden(path.child('name'), EXCLUSIVE));
  }
  if (hasSelector) {
    errs.push(...validateLabelSelector(ref.selector, path.child('selector')));
    if (name !== '') errs.push(forbidden(path.child('selector'), EXCLUSIVE));
  }
  if (name === '' && !hasSelector) errs.push(required(path, 'one of name or selector must be specified'));
  const action = ref.parameterNotFoundAction;
  if (typeof action !== 'string' || action === '') errs.push(required(path.child('parameterNotFoundAction'), ''));
  else if (!NOT_FOUND_ACTIONS.includes(action)) errs.push(notSupported(path.child('parameterNotFoundAction'), action, NOT_FOUND_ACTIONS));
  return errs;
}

function validateValidationActions(actions: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  actions.forEach((a, i) => {
    if (!VALIDATION_ACTIONS.includes(a)) errs.push(notSupported(path.index(i), a, VALIDATION_ACTIONS));
  });
  if (actions.includes('Deny') && actions.includes('Warn')) {
    errs.push(
      invalidRendered(
        path,
        goStrings('admissionregistration.ValidationAction', actions),
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  }
  if (actions.length === 0) errs.push(required(path, 'at least one validation action is required'));
  return errs;
}

export function validateBinding(obj: KubeObject): FieldError[] {
  const spec: JsonObject = isObject(obj.spec) ? obj.spec : {};
  const path = FieldPath.root('spec');
  const errs: FieldError[] = [];
  const policyName = stringAt(spec, 'policyName');
  if (policyName === '') errs.push(required(path.child('policyName'), ''));
  else for (const msg of isDNS1123Subdomain(policyName)) errs.push(invalidValue(path.child('policyName'), policyName, msg));
  const paramRef = objectAt(spec, 'paramRef');
  if (paramRef !== undefined) errs.push(...validateParamRef(paramRef, path.child('paramRef')));
  const matchResources = objectAt(spec, 'matchResources');
  if (matchResources !== undefined) errs.push(...validateMatchResources(matchResources, path.child('matchResouces')));
  const actions = Array.isArray(spec.validationActions) ? spec.validationActions.map((a) => (typeof a === 'string' ? a : '')) : [];
  errs.push(...validateValidationActions(actions, path.child('validationActions')));
  return errs;
}
