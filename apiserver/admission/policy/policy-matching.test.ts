/**
 * Which requests a policy and its bindings apply to, driven through the plugin with real CEL (the
 * policy's one validation is `false`, so "applies" reads as a denial): resource rules with every
 * wildcard form, operations, scope, resourceNames, exclude rules (which win), namespace and object
 * selectors, the binding's matchResources, the exempt configuration kinds, matchPolicy Equivalent, and
 * the resource index.
 */
import { naming } from '../../naming/naming.js';
import type { NamedRuleWithOperations, MatchResources } from './policy-types.js';
import { admit, binding, configMap, CONFIGMAPS_RULE, policy, request, type RequestSpec, type Setup } from './testing.js';
import { compilePolicy, compileBinding } from './compiled-policy.js';
import { buildPolicyIndex } from './policy-index.js';

const DENIED = (resource = 'configmaps', name = 'cm1', p = 'p', b = 'b'): string =>
  `${resource} "${name}" is forbidden: ValidatingAdmissionPolicy '${p}' with binding '${b}' denied request: failed expression: false`;

const withRules = (rules: NamedRuleWithOperations[], extra: Omit<MatchResources, 'resourceRules'> = {}): Setup => ({
  policies: [policy('p', { matchConstraints: { resourceRules: rules, ...extra } })],
  bindings: [binding('b', 'p')],
});

const rule = (r: Partial<NamedRuleWithOperations>): NamedRuleWithOperations => ({ ...CONFIGMAPS_RULE, ...r });

const pods = { group: '', version: 'v1', resource: 'pods' };
const podKind = { group: '', version: 'v1', kind: 'Pod' };
const deployments = { group: 'apps', version: 'v1', resource: 'deployments' };
const deploymentKind = { group: 'apps', version: 'v1', kind: 'Deployment' };
const nodes = { group: '', version: 'v1', resource: 'nodes' };
const nodeKind = { group: '', version: 'v1', kind: 'Node' };
const namespacesResource = { group: '', version: 'v1', resource: 'namespaces' };
const namespaceKind = { group: '', version: 'v1', kind: 'Namespace' };
const podReq = (r: RequestSpec = {}): RequestSpec => ({ resource: pods, kind: podKind, name: 'web', ...r });
const nsObject = (name: string, labels: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });

interface Case {
  readonly setup: Setup;
  readonly request?: RequestSpec;
  /** The full denial message, or undefined when the request is admitted. */
  readonly denied?: string;
}

const cases: Record<string, Case> = {
  // ---- rules ----
  'exact group, version, resource and operation': { setup: withRules([CONFIGMAPS_RULE]), denied: DENIED() },
  'another resource is not matched': { setup: withRules([CONFIGMAPS_RULE]), request: podReq() },
  'apiGroups *': { setup: withRules([rule({ apiGroups: ['*'], resources: ['deployments'] })]), request: { resource: deployments, kind: deploymentKind, name: 'web' }, denied: DENIED('deployments.apps', 'web') },
  'apiGroups listing another group': { setup: withRules([rule({ apiGroups: ['apps'] })]) },
  'apiVersions *': { setup: withRules([rule({ apiVersions: ['*'] })]), denied: DENIED() },
  'apiVersions listing another version': { setup: withRules([rule({ apiVersions: ['v2'] })]) },
  'resources * matches a main resource': { setup: withRules([rule({ resources: ['*'] })]), request: podReq(), denied: DENIED('pods', 'web') },
  'resources * does not match a sub-resource': { setup: withRules([rule({ resources: ['*'] })]), request: podReq({ subresource: 'status', operation: 'UPDATE' }) },
  'resources */* matches a sub-resource': { setup: withRules([rule({ resources: ['*/*'] })]), request: podReq({ subresource: 'status', operation: 'UPDATE' }), denied: DENIED('pods', 'web') },
  'resources */* matches a main resource': { setup: withRules([rule({ resources: ['*/*'] })]), denied: DENIED() },
  'resources */status matches any status': { setup: withRules([rule({ apiGroups: ['*'], resources: ['*/status'] })]), request: { resource: deployments, kind: deploymentKind, name: 'web', subresource: 'status', operation: 'UPDATE' }, denied: DENIED('deployments.apps', 'web') },
  'resources */status does not match scale': { setup: withRules([rule({ apiGroups: ['*'], resources: ['*/status'] })]), request: { resource: deployments, kind: deploymentKind, name: 'web', subresource: 'scale', operation: 'UPDATE' } },
  'resources pods/* matches pods/status': { setup: withRules([rule({ resources: ['pods/*'] })]), request: podReq({ subresource: 'status', operation: 'UPDATE' }), denied: DENIED('pods', 'web') },
  // Kubernetes' matcher: `*` after the slash also matches the empty sub-resource.
  'resources pods/* matches the pods resource itself (as Kubernetes)': { setup: withRules([rule({ resources: ['pods/*'] })]), request: podReq(), denied: DENIED('pods', 'web') },
  'resources pods/log matches pods/log only': { setup: withRules([rule({ resources: ['pods/log'] })]), request: podReq({ subresource: 'log', operation: 'CONNECT' }), denied: DENIED('pods', 'web') },
  'resources pods/log does not match pods/status': { setup: withRules([rule({ resources: ['pods/log'] })]), request: podReq({ subresource: 'status', operation: 'UPDATE' }) },
  'resources pods does not match pods/status': { setup: withRules([rule({ resources: ['pods'] })]), request: podReq({ subresource: 'status', operation: 'UPDATE' }) },
  'operations * matches DELETE': { setup: withRules([rule({ operations: ['*'] })]), request: { operation: 'DELETE' }, denied: DENIED() },
  'operations CREATE does not match UPDATE': { setup: withRules([rule({ operations: ['CREATE'] })]), request: { operation: 'UPDATE' } },
  'operations UPDATE matches UPDATE': { setup: withRules([rule({ operations: ['UPDATE'] })]), request: { operation: 'UPDATE' }, denied: DENIED() },
  'operations CONNECT matches CONNECT': { setup: withRules([rule({ operations: ['CONNECT'], resources: ['pods/exec'] })]), request: podReq({ operation: 'CONNECT', subresource: 'exec' }), denied: DENIED('pods', 'web') },
  'resourceNames naming the object': { setup: withRules([rule({ resourceNames: ['cm1'] })]), denied: DENIED() },
  'resourceNames naming another object': { setup: withRules([rule({ resourceNames: ['cm2'] })]) },
  'resourceNames and a generateName create (no name yet)': {
    setup: withRules([rule({ resourceNames: ['cm-'] })]),
    request: { name: '', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-', namespace: 'default' } } },
  },
  'scope Namespaced matches a namespaced request': { setup: withRules([rule({ scope: 'Namespaced' })]), denied: DENIED() },
  'scope Namespaced does not match a cluster-scoped request': { setup: withRules([rule({ scope: 'Namespaced', resources: ['nodes'] })]), request: { resource: nodes, kind: nodeKind, namespace: '', name: 'n1' } },
  'scope Cluster matches a cluster-scoped request': { setup: withRules([rule({ scope: 'Cluster', resources: ['nodes'] })]), request: { resource: nodes, kind: nodeKind, namespace: '', name: 'n1' }, denied: DENIED('nodes', 'n1') },
  'scope Cluster does not match a namespaced request': { setup: withRules([rule({ scope: 'Cluster' })]) },
  'scope Cluster matches a Namespace (even with its namespace field set)': {
    setup: withRules([rule({ scope: 'Cluster', resources: ['namespaces'] })]),
    request: { resource: namespacesResource, kind: namespaceKind, namespace: 'prod', name: 'prod', operation: 'UPDATE', object: nsObject('prod', {}), oldObject: nsObject('prod', {}) },
    denied: DENIED('namespaces', 'prod'),
  },
  'scope Namespaced does not match a Namespace': {
    setup: withRules([rule({ scope: 'Namespaced', resources: ['namespaces'] })]),
    request: { resource: namespacesResource, kind: namespaceKind, namespace: 'prod', name: 'prod', operation: 'UPDATE', object: nsObject('prod', {}), oldObject: nsObject('prod', {}) },
  },
  'scope * matches both': { setup: withRules([rule({ scope: '*', resources: ['nodes'] })]), request: { resource: nodes, kind: nodeKind, namespace: '', name: 'n1' }, denied: DENIED('nodes', 'n1') },
  'any rule of several': { setup: withRules([rule({ resources: ['secrets'] }), rule({ resources: ['pods'] })]), request: podReq(), denied: DENIED('pods', 'web') },

  // ---- exclude rules ----
  'exclude rules win over include rules': { setup: withRules([rule({ resources: ['*'] })], { excludeResourceRules: [CONFIGMAPS_RULE] }) },
  'exclude rules with resourceNames exclude that name only': { setup: withRules([CONFIGMAPS_RULE], { excludeResourceRules: [rule({ resourceNames: ['cm2'] })] }), denied: DENIED() },
  'exclude rules with resourceNames exclude the named object': { setup: withRules([CONFIGMAPS_RULE], { excludeResourceRules: [rule({ resourceNames: ['cm1'] })] }) },
  'exclude rules by operation: DELETE excluded': { setup: withRules([CONFIGMAPS_RULE], { excludeResourceRules: [rule({ operations: ['DELETE'] })] }), request: { operation: 'DELETE' } },
  'exclude rules by operation: CREATE still matched': { setup: withRules([CONFIGMAPS_RULE], { excludeResourceRules: [rule({ operations: ['DELETE'] })] }), denied: DENIED() },
  'exclude */status keeps the main resource': { setup: withRules([rule({ resources: ['pods', 'pods/status'] })], { excludeResourceRules: [rule({ resources: ['*/status'] })] }), request: podReq(), denied: DENIED('pods', 'web') },
  'exclude */status excludes the status': { setup: withRules([rule({ resources: ['pods', 'pods/status'] })], { excludeResourceRules: [rule({ resources: ['*/status'] })] }), request: podReq({ subresource: 'status', operation: 'UPDATE' }) },

  // ---- namespaceSelector ----
  'namespaceSelector matchLabels matching the namespace': { setup: withRules([CONFIGMAPS_RULE], { namespaceSelector: { matchLabels: { env: 'prod' } } }), request: { namespace: 'prod' }, denied: DENIED() },
  'namespaceSelector matchLabels not matching': { setup: withRules([CONFIGMAPS_RULE], { namespaceSelector: { matchLabels: { env: 'prod' } } }) },
  'namespaceSelector In': { setup: withRules([CONFIGMAPS_RULE], { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev', 'test'] }] } }), denied: DENIED() },
  'namespaceSelector NotIn': { setup: withRules([CONFIGMAPS_RULE], { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] } }) },
  'namespaceSelector Exists': { setup: withRules([CONFIGMAPS_RULE], { namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'Exists' }] } }), request: { namespace: 'prod' }, denied: DENIED() },
  'namespaceSelector DoesNotExist': { setup: withRules([CONFIGMAPS_RULE], { namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] } }), request: { namespace: 'prod' } },
  'namespaceSelector never skips a cluster-scoped resource': { setup: withRules([rule({ resources: ['nodes'] })], { namespaceSelector: { matchLabels: { env: 'prod' } } }), request: { resource: nodes, kind: nodeKind, namespace: '', name: 'n1' }, denied: DENIED('nodes', 'n1') },
  'namespaceSelector: a Namespace create matches its own labels': {
    setup: withRules([rule({ resources: ['namespaces'] })], { namespaceSelector: { matchLabels: { env: 'prod' } } }),
    request: { resource: namespacesResource, kind: namespaceKind, namespace: '', name: 'fresh', object: nsObject('fresh', { env: 'prod' }) },
    denied: DENIED('namespaces', 'fresh'),
  },
  'namespaceSelector: a Namespace create with other labels': {
    setup: withRules([rule({ resources: ['namespaces'] })], { namespaceSelector: { matchLabels: { env: 'prod' } } }),
    request: { resource: namespacesResource, kind: namespaceKind, namespace: '', name: 'fresh', object: nsObject('fresh', { env: 'dev' }) },
  },
  'namespaceSelector: a Namespace update is judged by its new labels': {
    setup: withRules([rule({ resources: ['namespaces'] })], { namespaceSelector: { matchLabels: { env: 'prod' } } }),
    request: { resource: namespacesResource, kind: namespaceKind, namespace: 'default', name: 'default', operation: 'UPDATE', object: nsObject('default', { env: 'prod' }), oldObject: nsObject('default', { env: 'dev' }) },
    denied: DENIED('namespaces', 'default'),
  },
  'namespaceSelector: a Namespace delete is judged by the stored namespace': {
    setup: withRules([rule({ resources: ['namespaces'] })], { namespaceSelector: { matchLabels: { env: 'prod' } } }),
    request: { resource: namespacesResource, kind: namespaceKind, namespace: '', name: 'prod', operation: 'DELETE', object: undefined, oldObject: nsObject('prod', {}) },
    denied: DENIED('namespaces', 'prod'),
  },
  'namespaceSelector: a namespace that does not exist is a configuration error': {
    setup: withRules([CONFIGMAPS_RULE], { namespaceSelector: { matchLabels: { env: 'prod' } } }),
    request: { namespace: 'ghost' },
    denied: `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: namespaces "ghost" not found`,
  },
  'namespaceSelector: a selector that does not parse is a configuration error when the rules match': {
    setup: withRules([CONFIGMAPS_RULE], { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'Near', values: ['x'] }] } }),
    denied: `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: Internal error occurred: "Near" is not a valid label selector operator`,
  },
  'namespaceSelector: a selector that does not parse is nothing when the rules do not match': {
    setup: withRules([rule({ resources: ['secrets'] })], { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'Near', values: ['x'] }] } }),
  },

  // ---- objectSelector ----
  'objectSelector matching the new object': { setup: withRules([CONFIGMAPS_RULE], { objectSelector: { matchLabels: { tier: 'db' } } }), request: { object: configMap('cm1', {}, { tier: 'db' }) }, denied: DENIED() },
  'objectSelector matching the old object only': {
    setup: withRules([CONFIGMAPS_RULE], { objectSelector: { matchLabels: { tier: 'db' } } }),
    request: { operation: 'UPDATE', object: configMap('cm1', {}, {}), oldObject: configMap('cm1', {}, { tier: 'db' }) },
    denied: DENIED(),
  },
  'objectSelector matching neither': { setup: withRules([CONFIGMAPS_RULE], { objectSelector: { matchLabels: { tier: 'db' } } }), request: { object: configMap('cm1', {}, { tier: 'web' }) } },
  'objectSelector on DELETE reads the old object': {
    setup: withRules([CONFIGMAPS_RULE], { objectSelector: { matchLabels: { tier: 'db' } } }),
    request: { operation: 'DELETE', oldObject: configMap('cm1', {}, { tier: 'db' }) },
    denied: DENIED(),
  },
  'objectSelector with an expression': { setup: withRules([CONFIGMAPS_RULE], { objectSelector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] } }), denied: DENIED() },

  // ---- the binding's matchResources ----
  "binding matchResources narrowing to another resource": {
    setup: { policies: [policy('p')], bindings: [binding('b', 'p', { matchResources: { resourceRules: [rule({ resources: ['secrets'] })] } })] },
  },
  "binding matchResources excluding the request": {
    setup: { policies: [policy('p')], bindings: [binding('b', 'p', { matchResources: { excludeResourceRules: [CONFIGMAPS_RULE] } })] },
  },
  "binding matchResources with only a namespaceSelector (no rules: everything the policy matches)": {
    setup: { policies: [policy('p')], bindings: [binding('b', 'p', { matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } })] },
    request: { namespace: 'prod' },
    denied: DENIED(),
  },
  "binding matchResources namespaceSelector not matching": {
    setup: { policies: [policy('p')], bindings: [binding('b', 'p', { matchResources: { namespaceSelector: { matchLabels: { env: 'prod' } } } })] },
  },
  "binding matchResources objectSelector": {
    setup: { policies: [policy('p')], bindings: [binding('b', 'p', { matchResources: { objectSelector: { matchLabels: { tier: 'db' } } } })] },
    request: { object: configMap('cm1', {}, { tier: 'db' }) },
    denied: DENIED(),
  },
  'binding matchResources cannot widen the policy': {
    setup: { policies: [policy('p')], bindings: [binding('b', 'p', { matchResources: { resourceRules: [rule({ resources: ['pods'] })] } })] },
    request: podReq(),
  },
  'a binding whose selector does not parse is a configuration error of the binding': {
    setup: { policies: [policy('p')], bindings: [binding('b', 'p', { matchResources: { objectSelector: { matchExpressions: [{ key: 'x', operator: 'In', values: [] }] } } })] },
    denied: `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: failed to configure binding: Internal error occurred: values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`,
  },

  // ---- active policies ----
  'a policy without bindings does nothing': { setup: { policies: [policy('p')], bindings: [] } },
  'a binding of a policy that does not exist does nothing': { setup: { policies: [], bindings: [binding('b', 'p')] } },
  'every binding of a policy applies (first denial answers)': { setup: { policies: [policy('p')], bindings: [binding('b1', 'p'), binding('b2', 'p')] }, denied: DENIED('configmaps', 'cm1', 'p', 'b1') },
  'several policies: the first by name answers': {
    setup: { policies: [policy('z'), policy('a')], bindings: [binding('bz', 'z'), binding('ba', 'a')] },
    denied: DENIED('configmaps', 'cm1', 'a', 'ba'),
  },
  'a policy without matchConstraints is a configuration error': {
    setup: { policies: [{ ...policy('p'), spec: { validations: [{ expression: 'false' }] } }], bindings: [binding('b', 'p')] },
    denied: `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: policy contained no match constraints, a required field`,
  },
  'a policy without matchConstraints and failurePolicy Ignore': {
    setup: { policies: [{ ...policy('p'), spec: { failurePolicy: 'Ignore', validations: [{ expression: 'false' }] } }], bindings: [binding('b', 'p')] },
  },

  // ---- never matched ----
  'a ValidatingAdmissionPolicy request is never matched': {
    setup: withRules([rule({ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['*'] })]),
    request: { resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicies' }, kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' }, namespace: '', name: 'x' },
  },
  'a binding request is never matched': {
    setup: withRules([rule({ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['*'] })]),
    request: { resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingadmissionpolicybindings' }, kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingAdmissionPolicyBinding' }, namespace: '', name: 'x' },
  },
  'the review APIs are never matched': {
    setup: withRules([rule({ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['*'] })]),
    request: { resource: { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews' }, kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenReview' }, namespace: '', name: '' },
  },
  'other kinds are matched by a match-everything policy': {
    setup: withRules([rule({ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['*'] })]),
    request: { resource: deployments, kind: deploymentKind, name: 'web' },
    denied: DENIED('deployments.apps', 'web'),
  },
};

describe('matching', () => {
  test('there are many cases', () => expect(Object.keys(cases).length).toBeGreaterThanOrEqual(70));

  test.each(Object.entries(cases))('%s', async (_, c) => {
    const out = await admit(c.setup, request(c.request));
    expect(out.error?.message).toBe(c.denied);
    if (c.denied !== undefined) expect(out.error?.code).toBe(422);
  });
});

describe('matching in the platform domain', () => {
  test('the policy kinds of admissionregistration.platform.io are exempt too', async () => {
    const setup = { ...withRules([rule({ apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], operations: ['*'] })]), naming: naming('platform.io') };
    const req = request({
      resource: { group: 'admissionregistration.platform.io', version: 'v1', resource: 'validatingadmissionpolicies' },
      kind: { group: 'admissionregistration.platform.io', version: 'v1', kind: 'ValidatingAdmissionPolicy' },
      namespace: '',
      name: 'x',
    });
    expect((await admit(setup, req)).error).toBeUndefined();
  });
});

describe('matchPolicy Equivalent', () => {
  const coreEvents = { group: '', version: 'v1', resource: 'events' };
  const eventsEvents = { group: 'events.k8s.io', version: 'v1', resource: 'events' };
  const equivalentResources = (r: { group: string; resource: string }) =>
    r.resource === 'events' ? [{ resource: coreEvents, kind: { group: '', version: 'v1', kind: 'Event' } }, { resource: eventsEvents, kind: { group: 'events.k8s.io', version: 'v1', kind: 'Event' } }] : [];
  const eventsPolicy = (matchPolicy: 'Exact' | 'Equivalent') =>
    policy('p', {
      matchConstraints: { matchPolicy, resourceRules: [{ apiGroups: ['events.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['events'] }] },
      validations: [{ expression: "request.kind.group != 'events.k8s.io'", messageExpression: "request.resource.group + '/' + request.kind.kind + ' via ' + request.requestResource.version + ' ' + request.requestKind.kind" }],
    });
  const coreEventRequest = () => request({ resource: coreEvents, kind: { group: '', version: 'v1', kind: 'Event' }, name: 'e1' });

  test('a request for an equivalent resource matches, and sees the matched resource and kind', async () => {
    const out = await admit({ policies: [eventsPolicy('Equivalent')], bindings: [binding('b', 'p')], equivalentResources }, coreEventRequest());
    expect(out.error?.message).toBe(`events "e1" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: events.k8s.io/Event via v1 Event`);
  });

  test('the objects are converted to the matched version when a converter is given; its failure is a configuration error', async () => {
    const p = policy('p', {
      matchConstraints: { resourceRules: [{ apiGroups: ['events.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['events'] }] },
      validations: [{ expression: "object.apiVersion == 'v1'", messageExpression: "'seen as ' + object.apiVersion" }],
    });
    const convert = (o: { metadata: object }, to: { group: string; version: string; kind: string }) => ({ ...o, apiVersion: `${to.group}/${to.version}`, kind: to.kind, metadata: o.metadata });
    const out = await admit({ policies: [p], bindings: [binding('b', 'p')], equivalentResources, convert }, coreEventRequest());
    expect(out.error?.message).toBe(`events "e1" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: seen as events.k8s.io/v1`);
    const failing = () => {
      throw new Error('no conversion');
    };
    const broken = await admit({ policies: [p], bindings: [binding('b', 'p')], equivalentResources, convert: failing }, coreEventRequest());
    expect(broken.error?.message).toBe(`events "e1" is forbidden: ValidatingAdmissionPolicy 'p' denied request: failed to configure policy: failed to convert object version: no conversion`);
  });

  test('Exact does not match an equivalent resource', async () => {
    expect((await admit({ policies: [eventsPolicy('Exact')], bindings: [binding('b', 'p')], equivalentResources }, coreEventRequest())).error).toBeUndefined();
  });

  test('without equivalent resources (one version per resource) Equivalent behaves as Exact', async () => {
    expect((await admit({ policies: [eventsPolicy('Equivalent')], bindings: [binding('b', 'p')] }, coreEventRequest())).error).toBeUndefined();
  });
});

describe('the resource index', () => {
  const compiled = [
    compilePolicy(policy('cm')),
    compilePolicy(policy('pods', { matchConstraints: { resourceRules: [rule({ resources: ['pods/status'] })] } })),
    compilePolicy(policy('any-group-deploy', { matchConstraints: { resourceRules: [rule({ apiGroups: ['*'], resources: ['deployments'] })] } })),
    compilePolicy(policy('apps-all', { matchConstraints: { resourceRules: [rule({ apiGroups: ['apps'], resources: ['*'] })] } })),
    compilePolicy(policy('everything', { matchConstraints: { resourceRules: [rule({ apiGroups: ['*'], resources: ['*/*'] })] } })),
    compilePolicy(policy('unbound')),
  ];
  const index = buildPolicyIndex(compiled, ['cm', 'pods', 'any-group-deploy', 'apps-all', 'everything'].map((p) => compileBinding(binding(`b-${p}`, p))));

  test.each([
    ['', 'configmaps', ['cm', 'everything']],
    ['', 'pods', ['everything', 'pods']],
    ['apps', 'deployments', ['any-group-deploy', 'apps-all', 'everything']],
    ['apps', 'replicasets', ['apps-all', 'everything']],
    ['batch', 'jobs', ['everything']],
  ])('%s/%s', (group, resource, expected) => {
    expect(index.candidates([{ group, resource }]).map((h) => h.policy.name)).toEqual(expected);
  });

  test('policies without bindings are not in the index', () => {
    expect(index.hooks.map((h) => h.policy.name)).not.toContain('unbound');
  });
});
