/**
 * What a matched policy decides, driven through the plugin with real CEL and the real RBAC authorizer:
 * matchConditions (false / true / error x failurePolicy), validations and their messages
 * (message, messageExpression with its fallbacks), reasons and codes, variables, the `request` the
 * expressions see for CREATE / UPDATE / DELETE / CONNECT / sub-resources / dry run / a PUT that creates,
 * `namespaceObject`, the authorizer, and the cost budgets.
 */
import type { KubeObject } from '../../api/object.js';
import type { Authorizer } from '../../authorization/authorizer.js';
import type { ValidatingAdmissionPolicySpec } from './policy-types.js';
import { admit, binding, CONFIGMAPS_RULE, policy, request, testAuthorizer, type RequestSpec, type Setup } from './testing.js';

const DENY = (message: string, resource = 'configmaps', name = 'cm1'): string =>
  `${resource} "${name}" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b' denied request: ${message}`;

const one = (spec: ValidatingAdmissionPolicySpec, extra: Partial<Setup> = {}): Setup => ({ policies: [policy('p', spec)], bindings: [binding('b', 'p')], ...extra });
const validation = (expression: string, more: { message?: string; messageExpression?: string; reason?: string } = {}): ValidatingAdmissionPolicySpec => ({
  validations: [{ expression, ...more }],
});

/** A list of n numbers: `all` over it twice costs about 5 n^2 (n = 420: ~0.89M, under the 1M per-call limit). */
const costly = (n: number): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'default' }, spec: { items: Array.from({ length: n }, (_, i) => i) } });
const HEAVY = 'object.spec.items.all(x, object.spec.items.all(y, x >= 0))';
const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

interface Case {
  readonly setup: Setup;
  readonly request?: RequestSpec;
  readonly denied?: string;
  readonly code?: number;
  readonly reason?: string;
}

const cases: Record<string, Case> = {
  // ---- matchConditions ----
  'matchConditions all true: the policy applies': {
    setup: one({ matchConditions: [{ name: 'a', expression: 'true' }, { name: 'b', expression: "request.operation == 'CREATE'" }] }),
    denied: DENY('failed expression: false'),
  },
  'matchConditions one false: the policy is skipped': { setup: one({ matchConditions: [{ name: 'a', expression: 'true' }, { name: 'b', expression: 'false' }] }) },
  'matchConditions false wins over an error (Fail)': { setup: one({ matchConditions: [{ name: 'a', expression: 'object.nope == 1' }, { name: 'b', expression: 'false' }] }) },
  'matchConditions error and true, failurePolicy Fail': {
    setup: one({ matchConditions: [{ name: 'a', expression: 'object.nope == 1' }, { name: 'b', expression: 'true' }] }),
    denied: DENY("expression 'object.nope == 1' resulted in error: no such key: nope"),
  },
  'matchConditions error and true, failurePolicy Ignore': { setup: one({ failurePolicy: 'Ignore', matchConditions: [{ name: 'a', expression: 'object.nope == 1' }] }) },
  'matchConditions two errors are aggregated': {
    setup: one({ matchConditions: [{ name: 'a', expression: 'object.nope == 1' }, { name: 'b', expression: 'object.other == 1' }] }),
    denied: DENY("[expression 'object.nope == 1' resulted in error: no such key: nope, expression 'object.other == 1' resulted in error: no such key: other]"),
  },
  'matchConditions that do not compile, Fail': {
    setup: one({ matchConditions: [{ name: 'a', expression: 'request.nope' }] }),
    denied: DENY("compilation error: compilation failed: ERROR: <input>:1:8: undefined field 'nope'\n | request.nope\n | .......^"),
  },
  'matchConditions that do not compile, Ignore': { setup: one({ failurePolicy: 'Ignore', matchConditions: [{ name: 'a', expression: 'request.nope' }] }) },
  'matchConditions see params': {
    setup: one({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConditions: [{ name: 'a', expression: "params.data.enforce == 'yes'" }] }, {
      bindings: [binding('b', 'p', { paramRef: { name: 'cfg', parameterNotFoundAction: 'Deny' } })],
      params: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'default' }, data: { enforce: 'no' } }],
    }),
  },
  'matchConditions see the authorizer': {
    setup: one({ matchConditions: [{ name: 'admins-skip', expression: "!authorizer.group('').resource('secrets').check('get').allowed()" }] }),
    request: { userInfo: { name: 'bob', uid: '', groups: [] } },
    denied: DENY('failed expression: false'),
  },
  'matchConditions skipped: validations are not evaluated at all': { setup: one({ matchConditions: [{ name: 'a', expression: 'false' }], validations: [{ expression: 'object.nope' }] }) },
  'matchConditions out of their 2.5M budget, Fail': {
    setup: one({ matchConditions: [1, 2, 3].map((i) => ({ name: `m${i}`, expression: HEAVY })) }),
    request: { object: costly(420) },
    denied: DENY(OUT_OF_BUDGET),
  },
  'matchConditions out of their budget, Ignore': {
    setup: one({ failurePolicy: 'Ignore', matchConditions: [1, 2, 3].map((i) => ({ name: `m${i}`, expression: HEAVY })) }),
    request: { object: costly(420) },
  },

  // ---- validations, messages, reasons ----
  'a validation that holds': { setup: one(validation('true')) },
  'a failing validation without a message': { setup: one(validation("  object.data.a == '2' ")), denied: DENY("failed expression: object.data.a == '2'") },
  'a failing validation with a message (trimmed)': { setup: one(validation('false', { message: '  no way  ' })), denied: DENY('no way') },
  'a message of only spaces falls back to the expression': { setup: one(validation('false', { message: '   ' })), denied: DENY('failed expression: false') },
  'messageExpression': { setup: one(validation('false', { message: 'static', messageExpression: "'name ' + object.metadata.name + ' refused'" })), denied: DENY('name cm1 refused') },
  'messageExpression result trimmed': { setup: one(validation('false', { messageExpression: "'  padded  '" })), denied: DENY('padded') },
  'messageExpression empty falls back to message': { setup: one(validation('false', { message: 'static', messageExpression: "''" })), denied: DENY('static') },
  'messageExpression with a newline falls back to message': { setup: one(validation('false', { message: 'static', messageExpression: "'a\\nb'" })), denied: DENY('static') },
  'messageExpression over 5 KiB falls back to message': { setup: one(validation('false', { message: 'static', messageExpression: "'x'.repeat(5121)".replace("'x'.repeat(5121)", `'${'x'.repeat(5121)}'`) })), denied: DENY('static') },
  'messageExpression of exactly 5 KiB is kept': { setup: one(validation('false', { message: 'static', messageExpression: `'${'y'.repeat(5120)}'` })), denied: DENY('y'.repeat(5120)) },
  'messageExpression error falls back to message': { setup: one(validation('false', { message: 'static', messageExpression: 'object.nope' })), denied: DENY('static') },
  'messageExpression error without message falls back to the expression': { setup: one(validation('1 > 2', { messageExpression: 'object.nope' })), denied: DENY('failed expression: 1 > 2') },
  'messageExpression has no authorizer (does not compile): falls back': { setup: one(validation('false', { message: 'static', messageExpression: "authorizer.path('/x').check('get').reason()" })), denied: DENY('static') },
  'reason Forbidden is 403': { setup: one(validation('false', { reason: 'Forbidden', message: 'm' })), denied: DENY('m'), code: 403, reason: 'Forbidden' },
  'reason Unauthorized is 401': { setup: one(validation('false', { reason: 'Unauthorized', message: 'm' })), denied: DENY('m'), code: 401, reason: 'Unauthorized' },
  'reason RequestEntityTooLarge is 413': { setup: one(validation('false', { reason: 'RequestEntityTooLarge', message: 'm' })), denied: DENY('m'), code: 413, reason: 'RequestEntityTooLarge' },
  'reason Invalid is 422': { setup: one(validation('false', { reason: 'Invalid', message: 'm' })), denied: DENY('m'), code: 422, reason: 'Invalid' },
  'no reason is Invalid 422': { setup: one(validation('false', { message: 'm' })), denied: DENY('m'), code: 422, reason: 'Invalid' },
  'the first failing validation answers': {
    setup: one({ validations: [{ expression: 'true', message: 'one' }, { expression: 'false', message: 'two', reason: 'Forbidden' }, { expression: 'false', message: 'three' }] }),
    denied: DENY('two'),
    code: 403,
  },
  'a runtime error, Fail': { setup: one(validation('object.spec.replicas > 1')), denied: DENY("expression 'object.spec.replicas > 1' resulted in error: no such key: spec") },
  'a runtime error, Ignore': { setup: one({ failurePolicy: 'Ignore', ...validation('object.spec.replicas > 1') }) },
  'a runtime error is Invalid whatever the reason': { setup: one(validation('object.spec.replicas > 1', { reason: 'Forbidden' })), denied: DENY("expression 'object.spec.replicas > 1' resulted in error: no such key: spec"), code: 422 },
  'a validation that does not compile, Fail': {
    setup: one(validation('request.nope == 1')),
    denied: DENY("compilation error: compilation failed: ERROR: <input>:1:8: undefined field 'nope'\n | request.nope == 1\n | .......^"),
  },
  'a validation that does not compile, Ignore': { setup: one({ failurePolicy: 'Ignore', ...validation('request.nope == 1') }) },
  'a validation whose type is not bool does not compile': { setup: one(validation('object.data.a', { message: 'not a bool' })), denied: DENY('compilation error: must evaluate to bool but got dyn') },
  'unset failurePolicy is Fail': { setup: { policies: [{ ...policy('p'), spec: { matchConstraints: { resourceRules: [CONFIGMAPS_RULE] }, validations: [{ expression: 'object.nope == 1' }] } }], bindings: [binding('b', 'p')] }, denied: DENY("expression 'object.nope == 1' resulted in error: no such key: nope") },
  'an unknown failurePolicy denies a configuration error with Kubernetes text': {
    setup: { policies: [{ ...policy('p'), spec: { failurePolicy: 'Sometimes' as never, validations: [{ expression: 'true' }] } }], bindings: [binding('b', 'p')] },
    denied: `configmaps "cm1" is forbidden: ValidatingAdmissionPolicy 'p' denied request: unrecognized failure policy: 'Sometimes'`,
  },

  // ---- variables ----
  'a variable in a validation': { setup: one({ variables: [{ name: 'a', expression: 'object.data.a' }], validations: [{ expression: "variables.a != '1'" }] }), denied: DENY("failed expression: variables.a != '1'") },
  'variables see the ones before them': {
    setup: one({ variables: [{ name: 'a', expression: 'int(object.data.a)' }, { name: 'b', expression: 'variables.a + 1' }], validations: [{ expression: 'variables.b == 2' }] }),
  },
  'an erroring variable that is not read costs nothing': { setup: one({ variables: [{ name: 'bad', expression: 'object.nope' }], validations: [{ expression: 'true || variables.bad' }] }) },
  'an erroring variable read by a validation': {
    setup: one({ variables: [{ name: 'bad', expression: 'object.nope' }], validations: [{ expression: 'variables.bad == 1' }] }),
    denied: DENY('expression \'variables.bad == 1\' resulted in error: composited variable "bad" fails to evaluate: no such key: nope'),
  },
  'a variable that does not compile, read': {
    setup: one({ variables: [{ name: 'broken', expression: 'request.nope' }], validations: [{ expression: 'variables.broken == 1' }] }),
    denied: DENY('expression \'variables.broken == 1\' resulted in error: composited variable "broken" fails to compile: compilation failed: ERROR: <input>:1:8: undefined field \'nope\'\n | request.nope\n | .......^'),
  },
  'a variable in a messageExpression': {
    setup: one({ variables: [{ name: 'who', expression: 'request.userInfo.username' }], validations: [{ expression: 'false', messageExpression: "'denied for ' + variables.who" }] }),
    denied: DENY('denied for alice'),
  },
  'a variable reading params': {
    setup: one({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, variables: [{ name: 'limit', expression: 'int(params.data.max)' }], validations: [{ expression: 'int(object.data.a) <= variables.limit', message: 'too big' }] }, {
      bindings: [binding('b', 'p', { paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } })],
      params: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', namespace: 'default' }, data: { max: '0' } }],
    }),
    denied: DENY('too big'),
  },
  'an expensive variable read by many validations is evaluated (and charged) once': {
    setup: one({ variables: [{ name: 'ok', expression: HEAVY }], validations: Array.from({ length: 12 }, () => ({ expression: 'variables.ok' })) }),
    request: { object: costly(420) },
  },

  // ---- the request ----
  'request fields of a CREATE': {
    setup: one(
      validation(
        "request.kind.group == '' && request.kind.version == 'v1' && request.kind.kind == 'ConfigMap' && request.resource.resource == 'configmaps' && request.requestKind.kind == 'ConfigMap' && request.requestResource.version == 'v1' && !has(request.subResource) && request.name == 'cm1' && request.namespace == 'default' && request.operation == 'CREATE' && !request.dryRun && request.options.kind == 'CreateOptions'",
        { message: 'fields' },
      ),
    ),
    denied: undefined,
  },
  'request.userInfo': {
    setup: one(validation("request.userInfo.username == 'alice' && request.userInfo.uid == 'a-1' && request.userInfo.groups == ['devs', 'system:authenticated'] && request.userInfo.extra['scopes'] == ['b', 'a']")),
  },
  'request.userInfo of the server\'s own writes is empty': { setup: one(validation('!has(request.userInfo.username) && !has(request.userInfo.groups)')), request: { userInfo: null } },
  'UPDATE sees object and oldObject': {
    setup: one(validation("request.operation == 'UPDATE' && oldObject.data.a == '0' && object.data.a == '1'")),
    request: { operation: 'UPDATE', oldObject: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: { a: '0' } } },
  },
  'CREATE has no oldObject': { setup: one(validation('oldObject == null && object != null')) },
  'DELETE has no object': { setup: one(validation("object == null && oldObject.data.a == '1' && request.operation == 'DELETE' && request.options.kind == 'DeleteOptions'")), request: { operation: 'DELETE' } },
  'a DELETE denial names the request\'s object': { setup: one(validation('object != null', { message: 'no deletes' })), request: { operation: 'DELETE' }, denied: DENY('no deletes') },
  'a sub-resource UPDATE': {
    setup: one({ matchConstraints: { resourceRules: [{ ...CONFIGMAPS_RULE, apiGroups: ['apps'], resources: ['deployments/scale'] }] }, validations: [{ expression: "request.subResource == 'scale' && request.requestSubResource == 'scale'", message: 'sub' }] }),
    request: { operation: 'UPDATE', subresource: 'scale', resource: { group: 'apps', version: 'v1', resource: 'deployments' }, kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, name: 'web' },
  },
  'a CONNECT': {
    setup: one({ matchConstraints: { resourceRules: [{ ...CONFIGMAPS_RULE, resources: ['serviceaccounts/token'] }] }, validations: [{ expression: "request.operation != 'CONNECT'", message: 'no tokens' }] }),
    request: { operation: 'CONNECT', subresource: 'token', resource: { group: '', version: 'v1', resource: 'serviceaccounts' }, kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, name: 'default' },
    denied: DENY('no tokens', 'serviceaccounts', 'default'),
  },
  'a dry run is evaluated, sees dryRun and is denied like any request': {
    setup: one(validation('!request.dryRun', { message: 'dry' })),
    request: { dryRun: true, options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] } },
    denied: DENY('dry'),
  },
  'a PUT that creates is a CREATE with CreateOptions': {
    setup: one(validation("!(request.operation == 'CREATE' && request.options.kind == 'CreateOptions' && oldObject == null)", { message: 'created by PUT' })),
    request: { operation: 'CREATE', options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl-replace' } },
    denied: DENY('created by PUT'),
  },
  'a generateName create is answered with the generateName': {
    setup: one(validation('false', { message: 'm' })),
    request: { name: '', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-', namespace: 'default' } } },
    denied: DENY('m', 'configmaps', 'cm-'),
  },
  'a group resource is answered with its qualified name': {
    setup: one({ matchConstraints: { resourceRules: [{ ...CONFIGMAPS_RULE, apiGroups: ['apps'], resources: ['deployments'] }] }, validations: [{ expression: 'false', message: 'm' }] }),
    request: { resource: { group: 'apps', version: 'v1', resource: 'deployments' }, kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, name: 'web' },
    denied: DENY('m', 'deployments.apps', 'web'),
  },

  // ---- namespaceObject ----
  'namespaceObject of a namespaced request': {
    setup: one(validation("namespaceObject.metadata.name == 'prod' && namespaceObject.metadata.labels['env'] == 'prod' && namespaceObject.status.phase == 'Active' && namespaceObject.metadata.annotations['owner'] == 'ops'")),
    request: { namespace: 'prod' },
  },
  'namespaceObject is null for a cluster-scoped request': {
    setup: one({ matchConstraints: { resourceRules: [{ ...CONFIGMAPS_RULE, resources: ['nodes'] }] }, validations: [{ expression: 'namespaceObject == null' }] }),
    request: { resource: { group: '', version: 'v1', resource: 'nodes' }, kind: { group: '', version: 'v1', kind: 'Node' }, namespace: '', name: 'n1' },
  },
  'namespaceObject is null for a Namespace itself': {
    setup: one({ matchConstraints: { resourceRules: [{ ...CONFIGMAPS_RULE, resources: ['namespaces'] }] }, validations: [{ expression: 'namespaceObject == null' }] }),
    request: { operation: 'UPDATE', resource: { group: '', version: 'v1', resource: 'namespaces' }, kind: { group: '', version: 'v1', kind: 'Namespace' }, namespace: 'prod', name: 'prod' },
  },

  // ---- authorizer ----
  'authorizer.requestResource allowed': { setup: one(validation("authorizer.requestResource.check('update').allowed()", { message: 'not allowed' })) },
  'authorizer.requestResource denied': { setup: one(validation("authorizer.requestResource.check('update').allowed()", { message: 'not allowed' })), request: { userInfo: { name: 'bob', uid: '', groups: ['system:authenticated'] } }, denied: DENY('not allowed') },
  'authorizer.requestResource is the request\'s namespace': { setup: one(validation("authorizer.requestResource.check('update').allowed()", { message: 'not allowed' })), request: { namespace: 'prod' }, denied: DENY('not allowed') },
  'authorizer resource check on another resource': { setup: one(validation("authorizer.group('').resource('secrets').namespace('prod').name('s').check('get').allowed()")) },
  'authorizer check denied with its reason': {
    setup: one(validation("authorizer.group('apps').resource('deployments').check('delete').allowed()", { message: 'x' })),
    denied: DENY('x'),
  },
  'authorizer path check': { setup: one(validation("authorizer.path('/healthz').check('GET').allowed() && !authorizer.path('/metrics').check('get').allowed()")) },
  'authorizer.serviceAccount': {
    setup: one(validation("authorizer.serviceAccount('default', 'robot').group('').resource('pods').check('list').allowed() && !authorizer.serviceAccount('default', 'other').group('').resource('pods').check('list').allowed()")),
  },
  'authorizer decision reason of an allowed check': {
    setup: one(validation("authorizer.group('').resource('secrets').check('get').reason() == 'RBAC: allowed by ClusterRoleBinding \"alice-secrets\" of ClusterRole \"secret-reader\" to User \"alice\"'")),
  },
  'authorizer decision of a check that errs is not errored for RBAC': { setup: one(validation("!authorizer.group('').resource('nodes').check('get').errored()")) },

  // ---- cost ----
  'a validation over the per-call limit': {
    setup: one(validation(HEAVY)),
    request: { object: costly(500) },
    denied: DENY(`expression '${HEAVY}' resulted in error: operation cancelled: actual cost limit exceeded`),
  },
  'a validation over the per-call limit, Ignore': { setup: one({ failurePolicy: 'Ignore', ...validation(HEAVY) }), request: { object: costly(500) } },
  'validations out of the 10M budget of the binding': {
    setup: one({ validations: Array.from({ length: 12 }, () => ({ expression: HEAVY })) }),
    request: { object: costly(420) },
    denied: DENY(OUT_OF_BUDGET),
  },
  'validations out of budget, Ignore': { setup: one({ failurePolicy: 'Ignore', validations: Array.from({ length: 12 }, () => ({ expression: HEAVY })) }), request: { object: costly(420) } },
  'eleven heavy validations fit the budget': { setup: one({ validations: Array.from({ length: 11 }, () => ({ expression: HEAVY })) }), request: { object: costly(420) } },
  'messageExpressions pay from what the validations left': {
    setup: one({ validations: [...Array.from({ length: 11 }, () => ({ expression: HEAVY })), { expression: 'true', messageExpression: `${HEAVY} ? 'a' : 'b'` }] }),
    request: { object: costly(420) },
    denied: DENY(`failed messageExpression: ${OUT_OF_BUDGET}`),
  },
  'each binding has its own budget': {
    setup: { policies: [policy('p', { validations: Array.from({ length: 11 }, () => ({ expression: HEAVY })) })], bindings: [binding('b', 'p'), binding('b2', 'p')] },
    request: { object: costly(420) },
  },
};

describe('evaluation', () => {
  test('there are many cases', () => expect(Object.keys(cases).length).toBeGreaterThanOrEqual(70));

  test.each(Object.entries(cases))('%s', async (_, c) => {
    const out = await admit(c.setup, request(c.request));
    expect(out.error?.message).toBe(c.denied);
    if (c.code !== undefined) expect(out.error?.code).toBe(c.code);
    if (c.reason !== undefined) expect(out.error?.reason).toBe(c.reason);
  });
});

describe('the denial Status', () => {
  test('details name the object, the group and the resource, with the message as the one cause', async () => {
    const out = await admit(one(validation('false', { message: 'm', reason: 'Forbidden' })), request());
    expect(out.error).toEqual({
      code: 403,
      reason: 'Forbidden',
      message: DENY('m'),
      details: { name: 'cm1', group: '', kind: 'configmaps', causes: [{ message: "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: m" }] },
    });
  });

  test('a namespace that does not exist ends the request with its 404 (Kubernetes reads it for namespaceObject)', async () => {
    const out = await admit(one(validation('true')), request({ namespace: 'ghost' }));
    expect(out.error).toMatchObject({ code: 404, reason: 'NotFound', message: 'namespaces "ghost" not found' });
  });
});

describe('the authorizer is asked once per distinct check per request', () => {
  test('the same check in several expressions, bindings and policies', async () => {
    const real = testAuthorizer();
    let calls = 0;
    const counting: Authorizer = { authorize: (a) => (calls++, real.authorize(a)) };
    const check = "authorizer.group('').resource('secrets').check('get').allowed()";
    const setup: Setup = {
      policies: [policy('p', { validations: [{ expression: check }, { expression: check }], matchConditions: [{ name: 'm', expression: check }] }), policy('q', { validations: [{ expression: check }] })],
      bindings: [binding('b', 'p'), binding('b2', 'p'), binding('bq', 'q')],
      authorizer: counting,
    };
    expect((await admit(setup, request())).error).toBeUndefined();
    expect(calls).toBe(1);
  });
});
