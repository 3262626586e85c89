/**
 * Validation of the match types (MatchResources, NamedRuleWithOperations) with Kubernetes v1.32's rules,
 * messages and field paths (`pkg/apis/admissionregistration/validation`):
 *
 * - operations: required; `*` alone; each one of `*`, CONNECT, CREATE, DELETE, UPDATE;
 * - apiGroups and apiVersions: required; `*` alone; versions non-empty;
 * - resources (sub-resources allowed): required, entries non-empty; `x/*` excludes other `x/...`, `*\/y`
 *   excludes other `.../y`; `*\/*` alone; `*` with a plain resource is refused (Kubernetes looks at the
 *   last plain entry only, so `["pods", "*"]` passes: kept as upstream);
 * - scope: `*`, Cluster or Namespaced;
 * - resourceNames: path segments, unique;
 * - MatchResources: matchPolicy and both selectors required (defaulting sets them), selectors valid.
 *
 * Values are read defensively (wrong types read as absent: the schema reports them).
 */
import { FieldPath, duplicate, notSupported, required, invalidValue, type FieldError } from '../../../validation/field-error.js';
import { isPathSegmentName } from '../../../validation/names.js';
import { arrayAt, isObject, objectItems, type JsonObject } from '../core/pod/json-values.js';
import { validateLabelSelector } from '../../../validation/label-selector.js';
import { goStrings, invalidRendered } from './go-values.js';

const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
export const MATCH_POLICIES = ['Equivalent', 'Exact'];

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : '')) : []);

/** The resources of a rule that may name sub-resources. */
function validateResources(resources: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(required(path, ''));
  const wildcardSubresources = new Set<string>(); // x/*
  const wildcardResources = new Set<string>(); // */x
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  resources.forEach((entry, i) => {
    if (entry === '') {
      errs.push(required(path.index(i), ''));
      return;
    }
    if (entry === '*/*') doubleWildcard = true;
    if (entry === '*') singleWildcard = true;
    const slash = entry.indexOf('/');
    if (slash < 0) {
      // Upstream assigns (not accumulates): only the last plain entry counts.
      plainResource = entry !== '*';
      return;
    }
    const res = entry.slice(0, slash);
    const sub = entry.slice(slash + 1);
    if (wildcardSubresources.has(res)) errs.push(invalidValue(path.index(i), entry, `if '${res}/*' is present, must not specify ${entry}`));
    if (wildcardResources.has(sub)) errs.push(invalidValue(path.index(i), entry, `if '*/${sub}' is present, must not specify ${entry}`));
    if (sub === '*') wildcardSubresources.add(res);
    if (res === '*') wildcardResources.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(invalidRendered(path, goStrings('string', resources), "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plainResource) errs.push(invalidRendered(path, goStrings('string', resources), "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

/** A RuleWithOperations (the operations and the embedded Rule), fields at `path`. */
export function validateRuleWithOperations(rule: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const operations = strings(rule.operations);
  if (operations.length === 0) errs.push(required(path.child('operations'), ''));
  if (operations.length > 1 && operations.includes('*')) {
    errs.push(invalidRendered(path.child('operations'), goStrings('admissionregistration.OperationType', operations), "if '*' is present, must not specify other operations"));
  }
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(notSupported(path.child('operations').index(i), op, OPERATIONS));
  });

  const groups = strings(rule.apiGroups);
  if (groups.length === 0) errs.push(required(path.child('apiGroups'), ''));
  if (groups.length > 1 && groups.includes('*')) errs.push(invalidRendered(path.child('apiGroups'), goStrings('string', groups), "if '*' is present, must not specify other API groups"));
  const versions = strings(rule.apiVersions);
  if (versions.length === 0) errs.push(required(path.child('apiVersions'), ''));
  if (versions.length > 1 && versions.includes('*')) {
    errs.push(invalidRendered(path.child('apiVersions'), goStrings('string', versions), "if '*' is present, must not specify other API versions"));
  }
  versions.forEach((v, i) => {
    if (v === '') errs.push(required(path.child('apiVersions').index(i), ''));
  });
  errs.push(...validateResources(strings(rule.resources), path.child('resources')));
  if (typeof rule.scope === 'string' && !SCOPES.includes(rule.scope)) errs.push(notSupported(path.child('scope'), rule.scope, SCOPES));
  return errs;
}

export function validateNamedRuleWithOperations(rule: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  strings(rule.resourceNames).forEach((name, i) => {
    for (const msg of isPathSegmentName(name)) errs.push(invalidValue(path.child('resourceNames').index(i), name, msg));
    if (seen.has(name)) errs.push(duplicate(path.child('resourceNames').index(i), name));
    else seen.add(name);
  });
  errs.push(...validateRuleWithOperations(rule, path));
  return errs;
}

/** A MatchResources that is present. */
export function validateMatchResources(mr: JsonObject, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof mr.matchPolicy !== 'string') errs.push(required(path.child('matchPolicy'), ''));
  else if (!MATCH_POLICIES.includes(mr.matchPolicy)) errs.push(notSupported(path.child('matchPolicy'), mr.matchPolicy, MATCH_POLICIES));
  for (const selector of ['namespaceSelector', 'objectSelector']) {
    if (!isObject(mr[selector])) errs.push(required(path.child(selector), ''));
    else errs.push(...validateLabelSelector(mr[selector], path.child(selector)));
  }
  for (const list of ['resourceRules', 'excludeResourceRules']) {
    for (const [i, rule] of objectItems(arrayAt(mr, list))) errs.push(...validateNamedRuleWithOperations(rule, path.child(list).index(i)));
  }
  return errs;
}
