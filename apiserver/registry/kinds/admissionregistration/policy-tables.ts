/**
 * `kubectl get` columns of the admission policy kinds, as kube-apiserver 1.32 prints them:
 *
 * - ValidatingAdmissionPolicy: NAME, VALIDATIONS (the number of validations, an integer), PARAMKIND
 *   (`<apiVersion>/<kind>`, or `<unset>`), AGE;
 * - ValidatingAdmissionPolicyBinding: NAME, POLICYNAME, PARAMREF (`<namespace>/<name>`, `*\/<name>` without
 *   a namespace, the selector in Go's generated `String()` form for a selector, else `<unset>`), AGE.
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { arrayAt, isObject, objectAt, stringAt, type JsonObject } from '../core/pod/json-values.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';

const UNSET = '<unset>';
const specOf = (obj: KubeObject): JsonObject => (isObject(obj.spec) ? obj.spec : {});

function paramKindCell(obj: KubeObject): string {
  const pk = objectAt(specOf(obj), 'paramKind');
  return pk === undefined ? UNSET : `${stringAt(pk, 'apiVersion')}/${stringAt(pk, 'kind')}`;
}

/** metav1.LabelSelector's generated `String()`: `&LabelSelector{MatchLabels:map[string]string{a: b,},MatchExpressions:[]LabelSelectorRequirement{},}`. */
export function labelSelectorString(selector: JsonObject): string {
  const labels = objectAt(selector, 'matchLabels') ?? {};
  const keys = Object.keys(labels).sort();
  const labelText = keys.map((k) => `${k}: ${typeof labels[k] === 'string' ? labels[k] : ''},`).join('');
  const expressions = arrayAt(selector, 'matchExpressions')
    .filter(isObject)
    .map((e) => {
      const values = arrayAt(e, 'values').map((v) => (typeof v === 'string' ? v : ''));
      return `LabelSelectorRequirement{Key:${stringAt(e, 'key')},Operator:${stringAt(e, 'operator')},Values:[${values.join(' ')}],},`;
    })
    .join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labelText}},MatchExpressions:[]LabelSelectorRequirement{${expressions}},}`;
}

function paramRefCell(obj: KubeObject): string {
  const ref = objectAt(specOf(obj), 'paramRef');
  if (ref === undefined) return UNSET;
  const name = stringAt(ref, 'name');
  if (name !== '') {
    const namespace = stringAt(ref, 'namespace');
    // Whether the param kind is cluster-scoped is not known here: no namespace prints `*`.
    return namespace !== '' ? `${namespace}/${name}` : `*/${name}`;
  }
  const selector = objectAt(ref, 'selector');
  return selector === undefined ? UNSET : labelSelectorString(selector);
}

export const policyTable: TableConvention = table(
  [
    nameColumn,
    column('Validations', 'integer', 'The number of validations of the policy.'),
    column('ParamKind', 'string', 'The kind of the parameter objects of the policy.'),
    ageColumn,
  ],
  (obj, now) => [nameCell(obj), arrayAt(specOf(obj), 'validations').length, paramKindCell(obj), ageCell(obj, now)],
);

export const bindingTable: TableConvention = table(
  [
    nameColumn,
    column('PolicyName', 'string', 'The policy the binding applies.'),
    column('ParamRef', 'string', 'The parameter objects of the binding.'),
    ageColumn,
  ],
  (obj, now) => [nameCell(obj), stringAt(specOf(obj), 'policyName'), paramRefCell(obj), ageCell(obj, now)],
);
