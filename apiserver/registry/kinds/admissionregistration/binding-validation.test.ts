/**
 * ValidatingAdmissionPolicyBinding validation with Kubernetes v1.32's messages and field paths, as tables:
 * policyName, paramRef (name xor selector, parameterNotFoundAction), matchResources (reported under
 * Kubernetes' misspelt `spec.matchResouces`), validationActions; identity, defaults, update and the table.
 */
import type { KubeObject } from '../../../api/object.js';
import { naming } from '../../../naming/naming.js';
import { groupOf } from '../../kind-strategy.js';
import { validatingAdmissionPolicyBindings as bindings } from './validating-admission-policy-binding.js';
import { createAs, updateAs } from './testing.js';

type Json = Record<string, unknown>;

function binding(spec: Json = {}): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'b' },
    spec: { policyName: 'p', validationActions: ['Deny'], ...spec },
  };
}

describe('identity, defaults and table', () => {
  test('cluster-scoped admissionregistration/v1 with the api-extensions category, no status', () => {
    const s = bindings;
    expect(groupOf(s, naming('k8s.io'))).toBe('admissionregistration.k8s.io');
    expect([s.version, s.kind, s.resource, s.singular, s.namespaced]).toEqual([
      'v1',
      'ValidatingAdmissionPolicyBinding',
      'validatingadmissionpolicybindings',
      'validatingadmissionpolicybinding',
      false,
    ]);
    expect(s.categories).toEqual(['api-extensions']);
    expect('subresources' in s).toBe(false);
    expect(s.tracksGeneration).toBe(true);
  });

  test('matchResources stays absent; when given it is defaulted; paramRef gets no default action', () => {
    expect(createAs(bindings, binding()).obj.spec).toEqual({ policyName: 'p', validationActions: ['Deny'] });
    const { obj } = createAs(bindings, binding({ matchResources: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['pods'] }] } }));
    expect((obj.spec as Json).matchResources).toEqual({
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['pods'], scope: '*' }],
    });
    expect(createAs(bindings, binding({ paramRef: { name: 'x' } })).errors).toEqual(['spec.paramRef.parameterNotFoundAction: Required value']);
  });

  test('table: NAME, POLICYNAME, PARAMREF, AGE', () => {
    const t = bindings.table;
    expect(t.columns.map((c) => c.name)).toEqual(['Name', 'PolicyName', 'ParamRef', 'Age']);
    const now = new Date('2024-01-02T00:00:00Z');
    const cells = (spec: Json): unknown[] => [...t.cells({ ...binding(spec), metadata: { name: 'b', creationTimestamp: '2024-01-01T00:00:00Z' } }, now)];
    expect(cells({})).toEqual(['b', 'p', '<unset>', '24h']);
    expect(cells({ paramRef: { name: 'limits', namespace: 'prod', parameterNotFoundAction: 'Deny' } })).toEqual(['b', 'p', 'prod/limits', '24h']);
    expect(cells({ paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } })).toEqual(['b', 'p', '*/limits', '24h']);
    expect(cells({ paramRef: { selector: { matchLabels: { env: 'prod', a: 'b' } }, parameterNotFoundAction: 'Allow' } })[2]).toBe(
      '&LabelSelector{MatchLabels:map[string]string{a: b,env: prod,},MatchExpressions:[]LabelSelectorRequirement{},}',
    );
    expect(cells({ paramRef: { selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }, parameterNotFoundAction: 'Allow' } })[2]).toBe(
      '&LabelSelector{MatchLabels:map[string]string{},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:tier,Operator:In,Values:[a b],},},}',
    );
    expect(cells({ paramRef: { parameterNotFoundAction: 'Allow' } })[2]).toBe('<unset>');
  });
});

describe('validation', () => {
  const rules = [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments'] }];
  test.each<[string, Json, string[]]>([
    ['a valid binding', {}, []],
    ['policyName required', { policyName: '' }, ['spec.policyName: Required value']],
    [
      'policyName a DNS subdomain',
      { policyName: 'My_Policy' },
      [
        "spec.policyName: Invalid value: \"My_Policy\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    ['paramRef by name', { paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } }, []],
    ['paramRef by selector', { paramRef: { selector: { matchLabels: { env: 'prod' } }, parameterNotFoundAction: 'Allow' } }, []],
    ['paramRef selecting every param', { paramRef: { selector: {}, parameterNotFoundAction: 'Allow' } }, []],
    ['paramRef needs name or selector', { paramRef: { parameterNotFoundAction: 'Deny' } }, ['spec.paramRef: Required value: one of name or selector must be specified']],
    [
      'paramRef name and selector exclude each other',
      { paramRef: { name: 'x', selector: {}, parameterNotFoundAction: 'Deny' } },
      ['spec.paramRef.name: Forbidden: name and selector are mutually exclusive', 'spec.paramRef.selector: Forbidden: name and selector are mutually exclusive'],
    ],
    ['paramRef name is a path segment', { paramRef: { name: 'a/b', parameterNotFoundAction: 'Deny' } }, [`spec.paramRef.name: Invalid value: "a/b": may not contain '/'`]],
    [
      'paramRef selector is validated',
      { paramRef: { selector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }, parameterNotFoundAction: 'Deny' } },
      ["spec.paramRef.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
    ],
    ['parameterNotFoundAction required', { paramRef: { name: 'x' } }, ['spec.paramRef.parameterNotFoundAction: Required value']],
    ['parameterNotFoundAction Allow or Deny', { paramRef: { name: 'x', parameterNotFoundAction: 'fail' } }, ['spec.paramRef.parameterNotFoundAction: Unsupported value: "fail": supported values: "Deny", "Allow"']],
    ['matchResources without resourceRules', { matchResources: { namespaceSelector: { matchLabels: { env: 'test' } } } }, []],
    ['matchResources with rules', { matchResources: { resourceRules: rules, excludeResourceRules: rules } }, []],
    [
      "matchResources errors under Kubernetes' spec.matchResouces",
      { matchResources: { matchPolicy: 'Loose', resourceRules: [{ ...rules[0], operations: [] }] } },
      ['spec.matchResouces.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"', 'spec.matchResouces.resourceRules[0].operations: Required value'],
    ],
    ['validationActions required', { validationActions: [] }, ['spec.validationActions: Required value: at least one validation action is required']],
    ['validationActions absent', { validationActions: undefined }, ['spec.validationActions: Required value: at least one validation action is required']],
    ['Warn', { validationActions: ['Warn'] }, []],
    ['Audit', { validationActions: ['Audit'] }, []],
    ['Deny and Audit', { validationActions: ['Deny', 'Audit'] }, []],
    ['Warn and Audit', { validationActions: ['Audit', 'Warn'] }, []],
    [
      'Deny and Warn exclude each other',
      { validationActions: ['Deny', 'Warn'] },
      [
        'spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ],
    ],
    ['an unknown action', { validationActions: ['Block'] }, ['spec.validationActions[0]: Unsupported value: "Block": supported values: "Audit", "Deny", "Warn"']],
    ['a lower-case action', { validationActions: ['deny'] }, ['spec.validationActions[0]: Unsupported value: "deny": supported values: "Audit", "Deny", "Warn"']],
    ['actions are a set', { validationActions: ['Deny', 'Deny'] }, ['spec.validationActions[1]: Duplicate value: "Deny"']],
  ])('%s', (_name, spec, expected) => {
    const merged = { ...(binding().spec as Json), ...spec };
    for (const k of Object.keys(merged)) if (merged[k] === undefined) delete merged[k];
    expect(createAs(bindings, { ...binding(), spec: merged }).errors).toEqual(expected);
  });

  test('an update is validated as a create', () => {
    const stored = createAs(bindings, binding()).obj;
    expect(updateAs(bindings, binding({ validationActions: ['Warn'] }), stored).errors).toEqual([]);
    expect(updateAs(bindings, binding({ policyName: '' }), stored).errors).toEqual(['spec.policyName: Required value']);
  });
});
