/**
 * A Job's failure and success policies as Kubernetes v1.32 validates them (pkg/apis/batch/validation
 * validatePodFailurePolicy and validateSuccessPolicy), with its field paths and messages. Called by
 * job-validation.ts for a spec that sets them.
 */
import { type FieldError, type FieldPath, invalidValue, notSupported, required, tooLong, tooMany } from '../../../validation/field-error.js';
import { isQualifiedName } from '../../../validation/names.js';
import { type JsonObject, arrayAt, objectAt, objectItems, stringAt } from '../core/pod/json-values.js';
import { countIndexes } from './job-indexes.js';

const MAX_RULES = 20;
const MAX_EXIT_CODES = 255;
const MAX_POD_CONDITION_PATTERNS = 20;
const MAX_SUCCEEDED_INDEXES = 64 * 1024;

const ACTIONS = ['Count', 'FailIndex', 'FailJob', 'Ignore'];
const OPERATORS = ['In', 'NotIn'];
const CONDITION_STATUSES = ['False', 'True', 'Unknown'];

/** Go's `%q` of a string slice: `["a" "b"]`. */
const quotedList = (values: readonly string[]): string => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

const isSet = (v: unknown): boolean => v !== undefined && v !== null;
const int = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

function containerNames(template: JsonObject | undefined): Set<string> {
  const podSpec = template === undefined ? undefined : objectAt(template, 'spec');
  const names = new Set<string>();
  if (podSpec === undefined) return names;
  for (const list of ['containers', 'initContainers']) for (const [, c] of objectItems(arrayAt(podSpec, list))) names.add(stringAt(c, 'name'));
  return names;
}

function validateOnExitCodes(req: JsonObject, path: FieldPath, names: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  const operator = stringAt(req, 'operator');
  if (operator === '') errs.push(required(path.child('operator'), `valid values: ${quotedList(OPERATORS)}`));
  else if (!OPERATORS.includes(operator)) errs.push(notSupported(path.child('operator'), operator, OPERATORS));
  if (typeof req.containerName === 'string' && !names.has(req.containerName)) {
    errs.push(invalidValue(path.child('containerName'), req.containerName, 'must be one of the container or initContainer names in the pod template'));
  }
  const values = arrayAt(req, 'values').filter((v): v is number => typeof v === 'number');
  const valuesPath = path.child('values');
  if (values.length === 0) errs.push(invalidValue(valuesPath, [], 'at least one value is required'));
  else if (values.length > MAX_EXIT_CODES) errs.push(tooMany(valuesPath, values.length, MAX_EXIT_CODES));
  let ordered = true;
  values.forEach((v, j) => {
    if (operator === 'In' && v === 0) errs.push(invalidValue(valuesPath.index(j), 0, 'must not be 0 for the In operator'));
    // Duplicates: the schema's set list reports them (`Duplicate value` at values[j]), as Kubernetes does.
    if (j > 0 && values[j - 1]! > v) ordered = false;
  });
  if (!ordered) errs.push(invalidValue(valuesPath, values, 'must be ordered'));
  return errs;
}

function validateOnPodConditions(patterns: readonly unknown[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (patterns.length > MAX_POD_CONDITION_PATTERNS) errs.push(tooMany(path, patterns.length, MAX_POD_CONDITION_PATTERNS));
  for (const [j, pattern] of objectItems(patterns)) {
    const at = path.index(j);
    const type = stringAt(pattern, 'type');
    for (const msg of isQualifiedName(type)) errs.push(invalidValue(at.child('type'), type, msg));
    const status = stringAt(pattern, 'status');
    if (status === '') errs.push(required(at.child('status'), `valid values: ${quotedList(CONDITION_STATUSES)}`));
    else if (!CONDITION_STATUSES.includes(status)) errs.push(notSupported(at.child('status'), status, CONDITION_STATUSES));
  }
  return errs;
}

/** ValidatePodFailurePolicy: at most 20 rules; each an action and exactly one of onExitCodes and onPodConditions. */
export function validatePodFailurePolicy(spec: JsonObject, policy: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const rules = arrayAt(policy, 'rules');
  const rulesPath = path.child('rules');
  if (rules.length > MAX_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_RULES));
  const names = containerNames(objectAt(spec, 'template'));
  for (const [i, rule] of objectItems(rules)) {
    const at = rulesPath.index(i);
    const action = stringAt(rule, 'action');
    if (action === '') errs.push(required(at.child('action'), `valid values: ${quotedList(ACTIONS)}`));
    else if (action === 'FailIndex') {
      if (!isSet(spec.backoffLimitPerIndex)) errs.push(invalidValue(at.child('action'), action, 'requires the backoffLimitPerIndex to be set'));
    } else if (!ACTIONS.includes(action)) errs.push(notSupported(at.child('action'), action, ACTIONS));
    const onExitCodes = objectAt(rule, 'onExitCodes');
    const patterns = arrayAt(rule, 'onPodConditions');
    if (onExitCodes !== undefined) errs.push(...validateOnExitCodes(onExitCodes, at.child('onExitCodes'), names));
    if (patterns.length > 0) errs.push(...validateOnPodConditions(patterns, at.child('onPodConditions')));
    if (onExitCodes !== undefined && patterns.length > 0) errs.push(invalidValue(at, undefined, 'specifying both OnExitCodes and OnPodConditions is not supported'));
    if (onExitCodes === undefined && patterns.length === 0) errs.push(invalidValue(at, undefined, 'specifying one of OnExitCodes and OnPodConditions is required'));
  }
  return errs;
}

/** validateSuccessPolicy: 1 to 20 rules; each succeededIndexes and/or succeededCount, within the completions. */
export function validateSuccessPolicy(spec: JsonObject, policy: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const rules = arrayAt(policy, 'rules');
  const rulesPath = path.child('rules');
  if (rules.length === 0) errs.push(required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_RULES) errs.push(tooMany(rulesPath, rules.length, MAX_RULES));
  // An Indexed job without completions already failed `spec.completions: Required`; the bounds need it.
  const completions = int(spec.completions);
  for (const [i, rule] of objectItems(rules)) {
    const at = rulesPath.index(i);
    const indexes = typeof rule.succeededIndexes === 'string' ? rule.succeededIndexes : undefined;
    const count = int(rule.succeededCount);
    if (indexes === undefined && count === undefined) errs.push(required(at, 'at least one of succeededCount or succeededIndexes must be specified'));
    let total = 0;
    if (indexes !== undefined) {
      const indexesPath = at.child('succeededIndexes');
      if (indexes.length > MAX_SUCCEEDED_INDEXES) errs.push(tooLong(indexesPath, MAX_SUCCEEDED_INDEXES));
      if (completions !== undefined) {
        const parsed = countIndexes(indexes, completions);
        if ('error' in parsed) errs.push(invalidValue(indexesPath, indexes, `error parsing succeededIndexes: ${parsed.error}`));
        else total = parsed.total;
      }
    }
    if (count !== undefined) {
      const countPath = at.child('succeededCount');
      if (count < 0) errs.push(invalidValue(countPath, count, 'must be greater than or equal to 0'));
      if (completions !== undefined && count > completions) {
        errs.push(invalidValue(countPath, count, `must be less than or equal to ${completions} (the number of specified completions)`));
      }
      if (indexes !== undefined && count > total) {
        errs.push(invalidValue(countPath, count, `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`));
      }
    }
  }
  return errs;
}
