/**
 * Validation of the RBAC kinds with Kubernetes v1.32's rules and messages (`pkg/apis/rbac/validation`):
 *
 * - names of roles, bindings and roleRefs are path segments (the registry checks `metadata.name` through
 *   the kinds' `nameRule`; `roleRef.name` is checked here);
 * - a rule needs verbs; a rule with nonResourceURLs may not name apiGroups, resources or resourceNames, and
 *   a namespaced Role's rules may not use nonResourceURLs at all; a resource rule needs apiGroups and
 *   resources;
 * - an aggregationRule needs at least one selector, each a valid label selector;
 * - roleRef.apiGroup is the RBAC group; a RoleBinding refers to a Role or a ClusterRole, a
 *   ClusterRoleBinding to a ClusterRole only; roleRef never changes on update;
 * - subjects are ServiceAccounts (DNS-subdomain name, apiGroup "", a namespace when the binding is
 *   cluster-wide), Users or Groups (apiGroup the RBAC group).
 *
 * `group` is the RBAC group under the server's naming (`rbac.authorization.k8s.io` / `rbac.platform.io`).
 * Values are read defensively: the schema has checked types, but hooks must not throw on odd input.
 */
import type { KubeObject } from '../../../api/object.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../../selectors/label-selector-object.js';
import { FieldPath, invalidValue, notSupported, required, type FieldError } from '../../../validation/field-error.js';
import { isDNS1123Subdomain, isPathSegmentName } from '../../../validation/names.js';
import { SUBJECT_KINDS } from './rbac-names.js';
import { validateLabelSelector } from '../../../validation/label-selector.js';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const record = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** One PolicyRule; `namespaced` for a Role's rules. */
export function validatePolicyRule(rule: unknown, namespaced: boolean, path: FieldPath): FieldError[] {
  const r = record(rule);
  const errs: FieldError[] = [];
  if (strings(r.verbs).length === 0) errs.push(required(path.child('verbs'), 'verbs must contain at least one value'));
  const urls = strings(r.nonResourceURLs);
  if (urls.length > 0) {
    if (namespaced) errs.push(invalidValue(path.child('nonResourceURLs'), urls, 'namespaced rules cannot apply to non-resource URLs'));
    if (strings(r.apiGroups).length > 0 || strings(r.resources).length > 0 || strings(r.resourceNames).length > 0) {
      errs.push(invalidValue(path.child('nonResourceURLs'), urls, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if (strings(r.apiGroups).length === 0) errs.push(required(path.child('apiGroups'), 'resource rules must supply at least one api group'));
  if (strings(r.resources).length === 0) errs.push(required(path.child('resources'), 'resource rules must supply at least one resource'));
  return errs;
}

export function validateRules(obj: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const rules = FieldPath.root('rules');
  list(obj.rules).forEach((rule, i) => errs.push(...validatePolicyRule(rule, namespaced, rules.index(i))));
  return errs;
}

export function validateAggregationRule(obj: KubeObject): FieldError[] {
  if (obj.aggregationRule === undefined || obj.aggregationRule === null) return [];
  const errs: FieldError[] = [];
  const path = FieldPath.root('aggregationRule').child('clusterRoleSelectors');
  const selectors = list(record(obj.aggregationRule).clusterRoleSelectors);
  if (selectors.length === 0) errs.push(required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  selectors.forEach((selector, i) => {
    errs.push(...validateLabelSelector(selector, path.index(i)));
    try {
      labelSelectorFromObject(selector as LabelSelectorObject);
    } catch {
      errs.push(invalidValue(path.index(i), null, 'invalid label selector.'));
    }
  });
  return errs;
}

/** roleRef and subjects of a binding; `namespaced` for a RoleBinding. */
export function validateBinding(obj: KubeObject, namespaced: boolean, group: string): FieldError[] {
  const errs: FieldError[] = [];
  const ref = record(obj.roleRef);
  const refPath = FieldPath.root('roleRef');
  const apiGroup = text(ref.apiGroup);
  if (apiGroup !== group) errs.push(notSupported(refPath.child('apiGroup'), apiGroup, [group]));
  const kind = text(ref.kind);
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(kind)) errs.push(notSupported(refPath.child('kind'), kind, kinds));
  const name = text(ref.name);
  if (name === '') errs.push(required(refPath.child('name'), ''));
  else for (const msg of isPathSegmentName(name)) errs.push(invalidValue(refPath.child('name'), name, msg));

  const subjects = FieldPath.root('subjects');
  list(obj.subjects).forEach((s, i) => errs.push(...validateSubject(s, namespaced, group, subjects.index(i))));
  return errs;
}

export function validateSubject(subject: unknown, namespaced: boolean, group: string, path: FieldPath): FieldError[] {
  const s = record(subject);
  const errs: FieldError[] = [];
  const name = text(s.name);
  const apiGroup = text(s.apiGroup);
  if (name === '') errs.push(required(path.child('name'), ''));
  switch (text(s.kind)) {
    case 'ServiceAccount':
      if (name !== '') for (const msg of isDNS1123Subdomain(name)) errs.push(invalidValue(path.child('name'), name, msg));
      if (apiGroup !== '') errs.push(notSupported(path.child('apiGroup'), apiGroup, ['']));
      if (!namespaced && text(s.namespace) === '') errs.push(required(path.child('namespace'), ''));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== group) errs.push(notSupported(path.child('apiGroup'), apiGroup, [group]));
      break;
    default:
      errs.push(notSupported(path.child('kind'), text(s.kind), SUBJECT_KINDS));
  }
  return errs;
}

/** `cannot change roleRef` when any of its three fields differs from the stored binding's. */
export function validateRoleRefUnchanged(obj: KubeObject, old: KubeObject): FieldError[] {
  const a = record(obj.roleRef);
  const b = record(old.roleRef);
  const same = text(a.apiGroup) === text(b.apiGroup) && text(a.kind) === text(b.kind) && text(a.name) === text(b.name);
  if (same) return [];
  // Kubernetes prints the new value as a Go struct literal (`%#v`); the detail carries it verbatim so the
  // message reads as upstream's: `roleRef: Invalid value: rbac.RoleRef{APIGroup:"...", ...}: cannot change roleRef`.
  const goStruct = `rbac.RoleRef{APIGroup:${JSON.stringify(text(a.apiGroup))}, Kind:${JSON.stringify(text(a.kind))}, Name:${JSON.stringify(text(a.name))}}`;
  return [{ type: 'FieldValueInvalid', field: 'roleRef', detail: `${goStruct}: cannot change roleRef` }];
}

/**
 * Kubernetes' defaults (`pkg/apis/rbac/v1/defaults.go`): an empty roleRef.apiGroup is the RBAC group; an
 * empty subject apiGroup is the RBAC group for Users and Groups and stays "" for ServiceAccounts.
 */
export function defaultBinding(obj: KubeObject, group: string): void {
  const ref = obj.roleRef;
  if (ref !== null && typeof ref === 'object' && !Array.isArray(ref)) {
    const r = ref as Record<string, unknown>;
    if (r.apiGroup === undefined || r.apiGroup === '') r.apiGroup = group;
  }
  for (const s of list(obj.subjects)) {
    if (s === null || typeof s !== 'object') continue;
    const subject = s as Record<string, unknown>;
    if ((subject.apiGroup === undefined || subject.apiGroup === '') && (subject.kind === 'User' || subject.kind === 'Group')) subject.apiGroup = group;
  }
}
