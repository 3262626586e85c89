/**
 * What a binding does with a failed validation (Deny, Warn, Audit), the policy's auditAnnotations, and
 * params (by name, by selector, missing with Allow / Deny, scope mistakes, a paramKind nothing serves),
 * driven through the plugin with real CEL.
 */
import type { KubeObject } from '../../api/object.js';
import type { ValidatingAdmissionPolicySpec, ValidatingAdmissionPolicyBindingSpec } from './policy-types.js';
import { admit, binding, configMap, CONFIGMAPS_RULE, policy, request, type RequestSpec, type Setup } from './testing.js';

const DENY = (message: string, p = 'p', b = 'b'): string => `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy '${p}' with binding '${b}' denied request: ${message}`;
const POLICY_ERROR = (message: string, p = 'p'): string => `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy '${p}' denied request: ${message}`;
const WARN = (message: string, p = 'p', b = 'b'): string => `Validation failed for ValidatingAdmissionPolicy '${p}' with binding '${b}': ${message}`;
const FAILURE_KEY = 'validation.policy.admission.k8s.io/validation_failure';
const failure = (message: string, actions: string[], index = 0, p = 'p', b = 'b'): string =>
  `[{"message":${JSON.stringify(message)},"policy":"${p}","binding":"${b}","expressionIndex":${index},"validationActions":${JSON.stringify(actions)}}]`;

const one = (spec: ValidatingAdmissionPolicySpec, b: Omit<ValidatingAdmissionPolicyBindingSpec, 'policyName'> = {}, extra: Partial<Setup> = {}): Setup => ({
  policies: [policy('p', spec)],
  bindings: [binding('b', 'p', b)],
  ...extra,
});

const cm = (name: string, data: Record<string, string>, labels?: Record<string, string>, namespace = 'default'): KubeObject => configMap(name, data, labels, namespace);
const CM_PARAMS = { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } };
const SETTINGS_PARAMS = { paramKind: { apiVersion: 'example.com/v1', kind: 'Settings' } };
const settings = (name: string, max: string, labels?: Record<string, string>): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Settings', metadata: { name, ...(labels === undefined ? {} : { labels }) }, max });
const nodeRequest: RequestSpec = { resource: { group: '', version: 'v1', resource: 'nodes' }, kind: { group: '', version: 'v1', kind: 'Node' }, namespace: '', name: 'n1' };
const nodeRule = { matchConstraints: { resourceRules: [{ ...CONFIGMAPS_RULE, resources: ['nodes'] }] } };

interface Case {
  readonly setup: Setup;
  readonly request?: RequestSpec;
  readonly denied?: string;
  readonly warnings?: readonly string[];
  readonly annotations?: Readonly<Record<string, string>>;
}

const cases: Record<string, Case> = {
  // ---- validationActions ----
  'Deny': { setup: one({ validations: [{ expression: 'false', message: 'no' }] }), denied: DENY('no') },
  'Warn only: admitted with a warning': { setup: one({ validations: [{ expression: 'false', message: 'careful' }] }, { validationActions: ['Warn'] }), warnings: [WARN('careful')] },
  'Audit only: admitted with the validation_failure annotation': {
    setup: one({ validations: [{ expression: 'false', message: 'seen' }] }, { validationActions: ['Audit'] }),
    annotations: { [FAILURE_KEY]: failure('seen', ['Audit']) },
  },
  'Warn and Audit': {
    setup: one({ validations: [{ expression: 'false', message: 'both' }] }, { validationActions: ['Warn', 'Audit'] }),
    warnings: [WARN('both')],
    annotations: { [FAILURE_KEY]: failure('both', ['Warn', 'Audit']) },
  },
  'Deny and Audit: denied and annotated': {
    setup: one({ validations: [{ expression: 'false', message: 'gone' }] }, { validationActions: ['Deny', 'Audit'] }),
    denied: DENY('gone'),
    annotations: { [FAILURE_KEY]: failure('gone', ['Deny', 'Audit']) },
  },
  'the annotation names the failing validation by index': {
    setup: one({ validations: [{ expression: 'true' }, { expression: 'false', message: 'second' }] }, { validationActions: ['Audit'] }),
    annotations: { [FAILURE_KEY]: failure('second', ['Audit'], 1) },
  },
  'the annotation is Go JSON (HTML characters escaped)': {
    setup: one({ validations: [{ expression: 'false', message: 'a <b> & c' }] }, { validationActions: ['Audit'] }),
    annotations: { [FAILURE_KEY]: '[{"message":"a \\u003cb\\u003e \\u0026 c","policy":"p","binding":"b","expressionIndex":0,"validationActions":["Audit"]}]' },
  },
  'the first validation_failure annotation of a request stays': {
    setup: { policies: [policy('p', { validations: [{ expression: 'false', message: 'one' }] })], bindings: [binding('a', 'p', { validationActions: ['Audit'] }), binding('b', 'p', { validationActions: ['Audit'] })] },
    annotations: { [FAILURE_KEY]: failure('one', ['Audit'], 0, 'p', 'a') },
  },
  'Warn with an evaluation error under Fail warns with the error': {
    setup: one({ validations: [{ expression: 'object.nope == 1' }] }, { validationActions: ['Warn'] }),
    warnings: [WARN("expression 'object.nope == 1' resulted in error: no such key: nope")],
  },
  'Warn with an evaluation error under Ignore: nothing': { setup: one({ failurePolicy: 'Ignore', validations: [{ expression: 'object.nope == 1' }] }, { validationActions: ['Warn'] }) },
  'one binding warns, another denies': {
    setup: { policies: [policy('p', { validations: [{ expression: 'false', message: 'm' }] })], bindings: [binding('a-warn', 'p', { validationActions: ['Warn'] }), binding('b-deny', 'p')] },
    denied: DENY('m', 'p', 'b-deny'),
    warnings: [WARN('m', 'p', 'a-warn')],
  },
  'a passing validation neither warns nor annotates': { setup: one({ validations: [{ expression: 'true' }] }, { validationActions: ['Warn', 'Audit'] }) },
  'a configuration error denies whatever the actions (Warn-only binding)': {
    setup: one({ ...CM_PARAMS }, { validationActions: ['Warn'], paramRef: { name: 'missing', parameterNotFoundAction: 'Deny' } }),
    denied: DENY('failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction'),
  },
  'the same warning of two params is given once': {
    setup: one({ ...CM_PARAMS, validations: [{ expression: 'false', message: 'same' }] }, { validationActions: ['Warn'], paramRef: { selector: {}, parameterNotFoundAction: 'Deny' } }, { params: [cm('p1', {}), cm('p2', {})] }),
    warnings: [WARN('same')],
  },

  // ---- auditAnnotations ----
  'an auditAnnotation is published as policy/key': {
    setup: one({ validations: [], auditAnnotations: [{ key: 'who', valueExpression: "'by ' + request.userInfo.username" }] }),
    annotations: { 'p/who': 'by alice' },
  },
  'an auditAnnotation is published on a denied request too': {
    setup: one({ validations: [{ expression: 'false' }], auditAnnotations: [{ key: 'k', valueExpression: "'v'" }] }),
    denied: DENY('failed expression: false'),
    annotations: { 'p/k': 'v' },
  },
  'an auditAnnotation that is null is left out': { setup: one({ validations: [], auditAnnotations: [{ key: 'k', valueExpression: 'null' }] }) },
  'an auditAnnotation that is empty or spaces is left out': { setup: one({ validations: [], auditAnnotations: [{ key: 'k', valueExpression: "'   '" }] }) },
  'an auditAnnotation is trimmed': { setup: one({ validations: [], auditAnnotations: [{ key: 'k', valueExpression: "'  v  '" }] }), annotations: { 'p/k': 'v' } },
  'an auditAnnotation over 10 KiB is cut to 10 KiB': {
    setup: one({ validations: [], auditAnnotations: [{ key: 'k', valueExpression: `'${'z'.repeat(10 * 1024 + 7)}'` }] }),
    annotations: { 'p/k': 'z'.repeat(10 * 1024) },
  },
  'a conditional auditAnnotation (string or null)': {
    setup: one({ validations: [], auditAnnotations: [{ key: 'a', valueExpression: "object.data.a == '1' ? object.data.a : null" }, { key: 'b', valueExpression: "object.data.a == '2' ? object.data.a : null" }] }),
    annotations: { 'p/a': '1' },
  },
  'equal values of two bindings are published once': {
    setup: { policies: [policy('p', { validations: [], auditAnnotations: [{ key: 'k', valueExpression: "'same'" }] })], bindings: [binding('b1', 'p'), binding('b2', 'p')] },
    annotations: { 'p/k': 'same' },
  },
  'distinct values of several params are joined with ", "': {
    setup: one({ ...CM_PARAMS, validations: [], auditAnnotations: [{ key: 'tier', valueExpression: 'params.data.tier' }] }, { paramRef: { selector: { matchLabels: { kind: 'tier' } }, parameterNotFoundAction: 'Deny' } }, {
      params: [cm('t1', { tier: 'gold' }, { kind: 'tier' }), cm('t2', { tier: 'silver' }, { kind: 'tier' }), cm('t3', { tier: 'gold' }, { kind: 'tier' })],
    }),
    annotations: { 'p/tier': 'gold, silver' },
  },
  'an auditAnnotation error denies under Fail': {
    setup: one({ validations: [], auditAnnotations: [{ key: 'k', valueExpression: 'object.nope' }] }),
    denied: DENY("expression 'object.nope' resulted in error: no such key: nope"),
  },
  'an auditAnnotation error is left out under Ignore': { setup: one({ failurePolicy: 'Ignore', validations: [], auditAnnotations: [{ key: 'k', valueExpression: 'object.nope' }] }) },
  'an auditAnnotation of another type denies, even under Ignore': {
    setup: one({ failurePolicy: 'Ignore', validations: [], auditAnnotations: [{ key: 'k', valueExpression: 'object.spec.replicas' }] }),
    request: { object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'default' }, spec: { replicas: 3 } } },
    denied: DENY("valueExpression 'object.spec.replicas' resulted in unsupported return type: int. Return type must be either string or null."),
  },
  'auditAnnotations with variables': {
    setup: one({ variables: [{ name: 'n', expression: 'object.metadata.name' }], validations: [], auditAnnotations: [{ key: 'name', valueExpression: 'variables.n' }] }),
    annotations: { 'p/name': 'cm1' },
  },
  'auditAnnotations of a Warn-only binding are published too': {
    setup: one({ validations: [{ expression: 'false', message: 'w' }], auditAnnotations: [{ key: 'k', valueExpression: "'v'" }] }, { validationActions: ['Warn'] }),
    warnings: [WARN('w')],
    annotations: { 'p/k': 'v' },
  },
  'auditAnnotations are not evaluated when matchConditions skip the policy': {
    setup: one({ matchConditions: [{ name: 'never', expression: 'false' }], validations: [], auditAnnotations: [{ key: 'k', valueExpression: "'v'" }] }),
  },

  // ---- params ----
  'params by name, in the request\'s namespace': {
    setup: one({ ...CM_PARAMS, validations: [{ expression: 'int(object.data.a) <= int(params.data.max)', messageExpression: "'at most ' + params.data.max" }] }, { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }, {
      params: [cm('limits', { max: '0' }), cm('limits', { max: '5' }, undefined, 'prod')],
    }),
    denied: DENY('at most 0'),
  },
  'params by name in paramRef.namespace': {
    setup: one({ ...CM_PARAMS, validations: [{ expression: 'int(object.data.a) <= int(params.data.max)', messageExpression: "'at most ' + params.data.max" }] }, { paramRef: { name: 'limits', namespace: 'prod', parameterNotFoundAction: 'Deny' } }, {
      params: [cm('limits', { max: '0' }), cm('limits', { max: '5' }, undefined, 'prod')],
    }),
  },
  'params by name, missing, Allow: not evaluated': { setup: one({ ...CM_PARAMS, validations: [{ expression: 'false' }] }, { paramRef: { name: 'missing', parameterNotFoundAction: 'Allow' } }) },
  'params by name, missing, Deny': {
    setup: one({ ...CM_PARAMS }, { paramRef: { name: 'missing', parameterNotFoundAction: 'Deny' } }),
    denied: DENY('failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction'),
  },
  'params by name, missing, Deny, failurePolicy Ignore': { setup: one({ ...CM_PARAMS, failurePolicy: 'Ignore' }, { paramRef: { name: 'missing', parameterNotFoundAction: 'Deny' } }) },
  'params by selector: one evaluation per param (one fails)': {
    setup: one({ ...CM_PARAMS, validations: [{ expression: "params.data.ok == 'yes'", messageExpression: "'param ' + params.metadata.name" }] }, { paramRef: { selector: { matchLabels: { role: 'rule' } }, parameterNotFoundAction: 'Deny' } }, {
      params: [cm('r1', { ok: 'yes' }, { role: 'rule' }), cm('r2', { ok: 'no' }, { role: 'rule' }), cm('other', { ok: 'no' })],
    }),
    denied: DENY('param r2'),
  },
  'params by selector: every param holds': {
    setup: one({ ...CM_PARAMS, validations: [{ expression: "params.data.ok == 'yes'" }] }, { paramRef: { selector: { matchLabels: { role: 'rule' } }, parameterNotFoundAction: 'Deny' } }, {
      params: [cm('r1', { ok: 'yes' }, { role: 'rule' }), cm('other', { ok: 'no' })],
    }),
  },
  'params by selector: only the request\'s namespace': {
    setup: one({ ...CM_PARAMS, validations: [{ expression: "params.data.ok == 'yes'" }] }, { paramRef: { selector: {}, parameterNotFoundAction: 'Deny' } }, {
      params: [cm('r1', { ok: 'yes' }), cm('r2', { ok: 'no' }, undefined, 'prod')],
    }),
  },
  'params by selector, none, Deny': {
    setup: one({ ...CM_PARAMS }, { paramRef: { selector: { matchLabels: { role: 'nothing' } }, parameterNotFoundAction: 'Deny' } }),
    denied: DENY('failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction'),
  },
  'params by selector, none, Allow': { setup: one({ ...CM_PARAMS }, { paramRef: { selector: { matchLabels: { role: 'nothing' } }, parameterNotFoundAction: 'Allow' } }) },
  'paramKind without a paramRef: params is null': { setup: one({ ...CM_PARAMS, validations: [{ expression: 'params == null' }] }) },
  'a param keeps its kind': {
    setup: one({ ...CM_PARAMS, validations: [{ expression: "params.kind == 'ConfigMap' && params.apiVersion == 'v1'" }] }, { paramRef: { name: 'bare', parameterNotFoundAction: 'Deny' } }, {
      params: [{ metadata: { name: 'bare', namespace: 'default' }, data: {} }],
    }),
  },
  'a namespaced paramKind for a cluster-scoped request without paramRef.namespace': {
    setup: one({ ...CM_PARAMS, ...nodeRule }, { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }),
    request: nodeRequest,
    denied: `nodes "n1" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources`,
  },
  'a namespaced paramKind for a cluster-scoped request with paramRef.namespace': {
    setup: one({ ...CM_PARAMS, ...nodeRule, validations: [{ expression: "params.data.max == '3'" }] }, { paramRef: { name: 'limits', namespace: 'prod', parameterNotFoundAction: 'Deny' } }, { params: [cm('limits', { max: '3' }, undefined, 'prod')] }),
    request: nodeRequest,
  },
  'a cluster-scoped paramKind by name': {
    setup: one({ ...SETTINGS_PARAMS, validations: [{ expression: "int(object.data.a) < int(params.max)", message: 'over' }] }, { paramRef: { name: 'global', parameterNotFoundAction: 'Deny' } }, { params: [settings('global', '1')] }),
    denied: DENY('over'),
  },
  'a cluster-scoped paramKind by selector': {
    setup: one({ ...SETTINGS_PARAMS, validations: [{ expression: 'int(object.data.a) < int(params.max)', messageExpression: "'over ' + params.metadata.name" }] }, { paramRef: { selector: { matchLabels: { on: 'true' } }, parameterNotFoundAction: 'Deny' } }, {
      params: [settings('s1', '9', { on: 'true' }), settings('s2', '1', { on: 'true' }), settings('s3', '0')],
    }),
    denied: DENY('over s2'),
  },
  'a cluster-scoped paramKind with paramRef.namespace': {
    setup: one({ ...SETTINGS_PARAMS }, { paramRef: { name: 'global', namespace: 'default', parameterNotFoundAction: 'Deny' } }, { params: [settings('global', '1')] }),
    denied: DENY('failed to configure binding: paramRef.namespace must not be provided for a cluster-scoped `paramKind`'),
  },
  'paramRef with both name and selector': {
    setup: one({ ...CM_PARAMS }, { paramRef: { name: 'x', selector: {}, parameterNotFoundAction: 'Deny' } }),
    denied: DENY('failed to configure binding: paramRef.name and paramRef.selector are mutually exclusive'),
  },
  'paramRef with neither name nor selector': {
    setup: one({ ...CM_PARAMS }, { paramRef: { parameterNotFoundAction: 'Deny' } }),
    denied: DENY('failed to configure binding: one of name or selector must be provided'),
  },
  'a paramKind whose kind does not exist, Fail': {
    setup: one({ paramKind: { apiVersion: 'example.com/v1', kind: 'Missing' } }, { paramRef: { name: 'x', parameterNotFoundAction: 'Allow' } }),
    denied: POLICY_ERROR("failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Missing'"),
  },
  'a paramKind of the core group that does not exist': {
    setup: one({ paramKind: { apiVersion: 'v1', kind: 'Missing' } }),
    denied: POLICY_ERROR("failed to configure policy: failed to find resource referenced by paramKind: '/v1, Kind=Missing'"),
  },
  'a paramKind whose kind does not exist, Ignore': { setup: one({ failurePolicy: 'Ignore', paramKind: { apiVersion: 'example.com/v1', kind: 'Missing' } }, { paramRef: { name: 'x', parameterNotFoundAction: 'Deny' } }) },
  'a paramKind whose kind does not exist, for a request the policy does not match': {
    setup: one({ paramKind: { apiVersion: 'example.com/v1', kind: 'Missing' } }, { paramRef: { name: 'x', parameterNotFoundAction: 'Deny' } }),
    request: nodeRequest,
  },
  'a paramKind whose apiVersion does not parse leaves the policy out (as Kubernetes)': { setup: one({ paramKind: { apiVersion: 'a/b/c', kind: 'X' } }) },
};

describe('actions, audit annotations and params', () => {
  test('there are many cases', () => expect(Object.keys(cases).length).toBeGreaterThanOrEqual(50));

  test.each(Object.entries(cases))('%s', async (_, c) => {
    const out = await admit(c.setup, request(c.request));
    expect(out.error?.message).toBe(c.denied);
    expect(out.warnings).toEqual(c.warnings ?? []);
    expect(out.annotations).toEqual(c.annotations ?? {});
  });
});
