/**
 * ValidatingAdmissionPolicy validation with Kubernetes v1.32's messages and field paths, as tables: the
 * spec members, the match rules with every wildcard form, paramKind, matchConditions, variables,
 * validations (expression, message, messageExpression, reason), audit annotations, the update rules
 * (stored expressions, unchanged matchConditions), the status sub-resource, identity, defaults and the
 * table. Each case runs the create (or update) path of the registry without a store (testing.ts).
 */
import type { KubeObject } from '../../../api/object.js';
import { naming } from '../../../naming/naming.js';
import { groupOf } from '../../kind-strategy.js';
import { validatingAdmissionPolicies as policies } from './validating-admission-policy.js';
import { createAs, updateAs, updateStatusAs } from './testing.js';

type Json = Record<string, unknown>;

const rule = (extra: Json = {}): Json => ({ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'], ...extra });

/** A valid policy `p`, with `spec` members merged over it. */
function policy(spec: Json = {}, name = 'p'): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { matchConstraints: { resourceRules: [rule()] }, validations: [{ expression: 'object.spec.replicas <= 5' }], ...spec },
  };
}

const errorsOf = (spec: Json, name?: string): string[] => createAs(policies, policy(spec, name)).errors;
const withRule = (r: Json): Json => ({ matchConstraints: { resourceRules: [rule(r)] } });
const R = 'spec.matchConstraints.resourceRules[0]';
/** The CEL parser's words for an expression that ends early (the cel layer's; cel-go's ANTLR text differs). */
const PARSE_EOF = 'Unexpected token: EOF';
const snippet = (expression: string, column: number): string => `\n | ${expression}\n | ${'.'.repeat(column - 1)}^`;

describe('identity, defaults and table', () => {
  test('cluster-scoped admissionregistration/v1 with the api-extensions category and a status sub-resource', () => {
    const s = policies;
    expect(groupOf(s, naming('k8s.io'))).toBe('admissionregistration.k8s.io');
    expect(groupOf(s, naming('platform.io'))).toBe('admissionregistration.platform.io');
    expect([s.version, s.kind, s.resource, s.singular, s.namespaced]).toEqual(['v1', 'ValidatingAdmissionPolicy', 'validatingadmissionpolicies', 'validatingadmissionpolicy', false]);
    expect(s.categories).toEqual(['api-extensions']);
    expect(s.subresources).toEqual(['status']);
    expect(s.tracksGeneration).toBe(true);
  });

  test("Kubernetes' defaults: failurePolicy Fail, matchPolicy Equivalent, empty selectors, scope *; status reset to {}", () => {
    const { obj, errors } = createAs(policies, { ...policy(), status: { observedGeneration: 7 } });
    expect(errors).toEqual([]);
    expect(obj.spec).toEqual({
      failurePolicy: 'Fail',
      matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ ...rule(), scope: '*' }] },
      validations: [{ expression: 'object.spec.replicas <= 5' }],
    });
    expect(obj.status).toEqual({});
  });

  test('what is given is kept', () => {
    const { obj } = createAs(
      policies,
      policy({ failurePolicy: 'Ignore', matchConstraints: { matchPolicy: 'Exact', namespaceSelector: { matchLabels: { a: 'b' } }, resourceRules: [rule({ scope: 'Namespaced' })] } }),
    );
    const spec = obj.spec as Json;
    expect(spec.failurePolicy).toBe('Ignore');
    expect(spec.matchConstraints).toEqual({ matchPolicy: 'Exact', namespaceSelector: { matchLabels: { a: 'b' } }, objectSelector: {}, resourceRules: [{ ...rule(), scope: 'Namespaced' }] });
  });

  test('table: NAME, VALIDATIONS, PARAMKIND, AGE', () => {
    const t = policies.table;
    expect(t.columns.map((c) => [c.name, c.type])).toEqual([
      ['Name', 'string'],
      ['Validations', 'integer'],
      ['ParamKind', 'string'],
      ['Age', 'string'],
    ]);
    const now = new Date('2024-01-01T01:00:00Z');
    const at = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, creationTimestamp: '2024-01-01T00:00:00Z' } });
    expect(t.cells(at(policy()), now)).toEqual(['p', 1, '<unset>', '60m']);
    expect(t.cells(at(policy({ paramKind: { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' }, validations: [] })), now)).toEqual(['p', 0, 'rules.example.com/v1/ReplicaLimit', '60m']);
  });
});

describe('spec members', () => {
  test.each<[string, Json, string[]]>([
    ['a valid policy', {}, []],
    ['failurePolicy Ignore', { failurePolicy: 'Ignore' }, []],
    ['failurePolicy not supported', { failurePolicy: 'Never' }, ['spec.failurePolicy: Unsupported value: "Never": supported values: "Fail", "Ignore"']],
    ['matchConstraints required', { matchConstraints: undefined }, ['spec.matchConstraints: Required value']],
    ['matchConstraints needs resourceRules (the type information)', { matchConstraints: {} }, ['spec.matchConstraints.resourceRules: Required value']],
    ['matchPolicy not supported', { matchConstraints: { matchPolicy: 'Loose', resourceRules: [rule()] } }, ['spec.matchConstraints.matchPolicy: Unsupported value: "Loose": supported values: "Equivalent", "Exact"']],
    [
      'selectors are validated',
      { matchConstraints: { resourceRules: [rule()], namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In' }] }, objectSelector: { matchLabels: { 'a b': 'c' } } } },
      [
        "spec.matchConstraints.namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        `spec.matchConstraints.objectSelector.matchLabels: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ],
    [
      'validations or auditAnnotations required',
      { validations: [] },
      [
        'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
        'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
      ],
    ],
    ['auditAnnotations alone are enough', { validations: undefined, auditAnnotations: [{ key: 'k', valueExpression: "'v'" }] }, []],
  ])('%s', (_name, spec, expected) => {
    const merged = { ...policy().spec as Json, ...spec };
    for (const k of Object.keys(merged)) if (merged[k] === undefined) delete merged[k];
    expect(createAs(policies, { ...policy(), spec: merged }).errors).toEqual(expected);
  });
});

describe('rules', () => {
  test.each<[string, Json, string[]]>([
    ['operations required', { operations: [] }, [`${R}.operations: Required value`]],
    ['operation * alone', { operations: ['*'] }, []],
    ['every operation', { operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] }, []],
    ['* with others', { operations: ['*', 'CREATE'] }, [`${R}.operations: Invalid value: []admissionregistration.OperationType{"*", "CREATE"}: if '*' is present, must not specify other operations`]],
    ['unknown operation', { operations: ['PATCH'] }, [`${R}.operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`]],
    ['lower-case operation', { operations: ['create'] }, [`${R}.operations[0]: Unsupported value: "create": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"`]],
    ['apiGroups required', { apiGroups: [] }, [`${R}.apiGroups: Required value`]],
    ['the core group ""', { apiGroups: [''], resources: ['pods'] }, []],
    ['apiGroups * alone', { apiGroups: ['*'] }, []],
    ['apiGroups * with others', { apiGroups: ['*', 'apps'] }, [`${R}.apiGroups: Invalid value: []string{"*", "apps"}: if '*' is present, must not specify other API groups`]],
    ['apiVersions required', { apiVersions: [] }, [`${R}.apiVersions: Required value`]],
    ['apiVersions * with others', { apiVersions: ['v1', '*'] }, [`${R}.apiVersions: Invalid value: []string{"v1", "*"}: if '*' is present, must not specify other API versions`]],
    ['an empty apiVersion', { apiVersions: ['v1', ''] }, [`${R}.apiVersions[1]: Required value`]],
    ['resources required', { resources: [] }, [`${R}.resources: Required value`]],
    ['an empty resource', { resources: ['pods', ''] }, [`${R}.resources[1]: Required value`]],
    ['sub-resources', { resources: ['pods', 'pods/log', 'deployments/scale'] }, []],
    ['* alone', { resources: ['*'] }, []],
    ['*/* alone', { resources: ['*/*'] }, []],
    ['*/scale with *', { resources: ['*', '*/scale'] }, []],
    ['pods/* with pods', { resources: ['pods', 'pods/*'] }, []],
    ['*/* with others', { resources: ['*/*', 'pods'] }, [`${R}.resources: Invalid value: []string{"*/*", "pods"}: if '*/*' is present, must not specify other resources`]],
    ['* with a plain resource', { resources: ['*', 'pods'] }, [`${R}.resources: Invalid value: []string{"*", "pods"}: if '*' is present, must not specify other resources without subresources`]],
    // Upstream only looks at the last plain entry.
    ['a plain resource then * passes, as upstream', { resources: ['pods', '*'] }, []],
    ['pods/* then pods/log', { resources: ['pods/*', 'pods/log'] }, [`${R}.resources[1]: Invalid value: "pods/log": if 'pods/*' is present, must not specify pods/log`]],
    ['*/scale then pods/scale', { resources: ['*/scale', 'deployments/scale'] }, [`${R}.resources[1]: Invalid value: "deployments/scale": if '*/scale' is present, must not specify deployments/scale`]],
    [
      '*/* then */status: both overlaps',
      { resources: ['*/*', '*/status'] },
      [`${R}.resources[1]: Invalid value: "*/status": if '*/*' is present, must not specify */status`, `${R}.resources: Invalid value: []string{"*/*", "*/status"}: if '*/*' is present, must not specify other resources`],
    ],
    ['pods/log then pods/* is not an overlap upstream reports', { resources: ['pods/log', 'pods/*'] }, []],
    ['scope Cluster', { scope: 'Cluster' }, []],
    ['scope Namespaced', { scope: 'Namespaced' }, []],
    ['scope not supported', { scope: 'Global' }, [`${R}.scope: Unsupported value: "Global": supported values: "*", "Cluster", "Namespaced"`]],
    ['resourceNames', { resourceNames: ['a', 'b.c'] }, []],
    ['resourceNames are path segments', { resourceNames: ['a/b', '..'] }, [`${R}.resourceNames[0]: Invalid value: "a/b": may not contain '/'`, `${R}.resourceNames[1]: Invalid value: "..": may not be '..'`]],
    ['resourceNames are unique', { resourceNames: ['a', 'a'] }, [`${R}.resourceNames[1]: Duplicate value: "a"`]],
  ])('%s', (_name, r, expected) => {
    expect(errorsOf(withRule(r))).toEqual(expected);
  });

  test('exclude rules are validated the same way, and need no include rule beside the required one', () => {
    expect(errorsOf({ matchConstraints: { resourceRules: [rule()], excludeResourceRules: [rule({ operations: ['*', 'DELETE'], resourceNames: ['x', 'x'] })] } })).toEqual([
      'spec.matchConstraints.excludeResourceRules[0].resourceNames[1]: Duplicate value: "x"',
      'spec.matchConstraints.excludeResourceRules[0].operations: Invalid value: []admissionregistration.OperationType{"*", "DELETE"}: if \'*\' is present, must not specify other operations',
    ]);
  });
});

describe('paramKind', () => {
  test.each<[string, Json, string[]]>([
    ['group/version and kind', { apiVersion: 'rules.example.com/v1', kind: 'ReplicaLimit' }, []],
    ['the core group', { apiVersion: 'v1', kind: 'ConfigMap' }, []],
    ['apiVersion required', { kind: 'ReplicaLimit' }, ['spec.paramKind.apiVersion: Required value']],
    ['kind required', { apiVersion: 'v1' }, ['spec.paramKind.kind: Required value']],
    ['too many slashes', { apiVersion: 'a/b/c', kind: 'K' }, ['spec.paramKind.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c']],
    ['a version is needed', { apiVersion: 'example.com/', kind: 'K' }, ['spec.paramKind.apiVersion: Invalid value: "example.com/": version must be specified']],
    [
      'the group is a DNS subdomain',
      { apiVersion: 'Example.com/v1', kind: 'K' },
      [
        "spec.paramKind.apiVersion: Invalid value: \"Example.com\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    ],
    [
      'the version is a DNS-1035 label',
      { apiVersion: 'example.com/1', kind: 'K' },
      [
        "spec.paramKind.apiVersion: Invalid value: \"1\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    [
      'the kind is a DNS-1035 label in any case',
      { apiVersion: 'v1', kind: 'Replica_Limit' },
      [
        "spec.paramKind.kind: Invalid value: \"Replica_Limit\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
  ])('%s', (_name, paramKind, expected) => {
    expect(errorsOf({ paramKind })).toEqual(expected);
  });

  test('params is declared only with a paramKind', () => {
    expect(errorsOf({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: "params.data['max'] == '1'" }] })).toEqual([]);
    expect(errorsOf({ validations: [{ expression: "params.data['max'] == '1'" }] })).toEqual([
      `spec.validations[0].expression: Invalid value: "params.data['max'] == '1'": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')${snippet("params.data['max'] == '1'", 1)}`,
    ]);
  });
});

describe('matchConditions', () => {
  const mc = (name: string, expression = 'true'): Json => ({ name, expression });
  test.each<[string, Json[], string[]]>([
    ['valid conditions', [mc('a'), mc('example.com/b', "request.operation == 'CREATE'")], []],
    ['a name is required', [mc('')], ['spec.matchConditions[0].name: Required value']],
    ['an expression is required', [mc('a', '  ')], ['spec.matchConditions[0].expression: Required value']],
    [
      'names are qualified names',
      [mc('-a')],
      [
        `spec.matchConditions[0].name: Invalid value: "-a": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ],
    // The schema (a list keyed by name) and Kubernetes' own check both report it.
    ['names are unique', [mc('a'), mc('a')], ['spec.matchConditions[1]: Duplicate value: {"name":"a"}', 'spec.matchConditions[1].name: Duplicate value: "a"']],
    ['the result is a bool', [mc('a', "'x'")], [`spec.matchConditions[0].expression: Invalid value: "'x'": must evaluate to bool but got string`]],
    [
      'variables are not visible to match conditions',
      [mc('a', 'variables.x')],
      [`spec.matchConditions[0].expression: Invalid value: "variables.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')${snippet('variables.x', 1)}`],
    ],
    ['the authorizer is', [mc('a', "authorizer.group('').resource('pods').check('get').allowed()")], []],
    [
      'an unknown request field',
      [mc('a', "request.kind.nope == 'x'")],
      [`spec.matchConditions[0].expression: Invalid value: "request.kind.nope == 'x'": compilation failed: ERROR: <input>:1:13: undefined field 'nope'${snippet("request.kind.nope == 'x'", 13)}`],
    ],
  ])('%s', (_name, conditions, expected) => {
    expect(errorsOf({ matchConditions: conditions })).toEqual(expected);
  });

  test('at most 64', () => {
    const many = Array.from({ length: 65 }, (_, i) => mc(`c${i}`));
    expect(errorsOf({ matchConditions: many })).toEqual(['spec.matchConditions: Too many: 65: must have at most 64 items']);
    expect(errorsOf({ matchConditions: many.slice(0, 64) })).toEqual([]);
  });

  test('params in match conditions only with a paramKind', () => {
    expect(errorsOf({ paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, matchConditions: [mc('a', 'params != null')] })).toEqual([]);
    expect(errorsOf({ matchConditions: [mc('a', 'params != null')] })[0]).toMatch(/^spec\.matchConditions\[0\]\.expression: Invalid value: "params != null": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params'/);
  });
});

describe('variables', () => {
  const v = (name: string, expression: string): Json => ({ name, expression });
  test.each<[string, Json[], Json[], string[]]>([
    ['variables used by validations', [v('replicas', 'object.spec.replicas'), v('max', '5')], [{ expression: 'variables.replicas <= variables.max' }], []],
    ['a variable sees the ones before it', [v('a', '1'), v('b', 'variables.a + 1')], [{ expression: 'variables.b == 2' }], []],
    [
      'but not the ones after it',
      [v('a', 'variables.b'), v('b', '1')],
      [{ expression: 'true' }],
      [`spec.variables[0].expression: Invalid value: "variables.b": compilation failed: ERROR: <input>:1:10: undefined field 'b'${snippet('variables.b', 10)}`],
    ],
    ['a typed variable keeps its type', [v('n', "'x'")], [{ expression: 'variables.n + 1 == 2' }], [
      `spec.validations[0].expression: Invalid value: "variables.n + 1 == 2": compilation failed: ERROR: <input>:1:13: found no matching overload for '_+_' applied to '(string, int)'${snippet('variables.n + 1 == 2', 13)}`,
    ]],
    ['a name is required', [v(' ', 'true')], [{ expression: 'true' }], ['spec.variables[0].name: Required value: name is not specified']],
    ['an expression is required', [v('a', ' ')], [{ expression: 'true' }], ['spec.variables[0].expression: Required value: expression is not specified']],
    ['names are CEL identifiers', [v('my-var', 'true')], [{ expression: 'true' }], ['spec.variables[0].name: Invalid value: "my-var": name is not a valid CEL identifier']],
    ['reserved words are not identifiers', [v('namespace', 'true')], [{ expression: 'true' }], ['spec.variables[0].name: Invalid value: "namespace": name is not a valid CEL identifier']],
    ['underscores and digits', [v('_a1', 'true')], [{ expression: 'variables._a1' }], []],
    ['names are unique (a list keyed by name)', [v('a', '1'), v('a', '2')], [{ expression: 'true' }], ['spec.variables[1]: Duplicate value: {"name":"a"}']],
    [
      'a variable that does not compile',
      [v('a', 'object.x +')],
      [{ expression: 'true' }],
      [`spec.variables[0].expression: Invalid value: "object.x +": compilation failed: ERROR: <input>:1:11: ${PARSE_EOF}${snippet('object.x +', 11)}`],
    ],
  ])('%s', (_name, variables, validations, expected) => {
    expect(errorsOf({ variables, validations })).toEqual(expected);
  });

  test('without variables, `variables` is not declared', () => {
    expect(errorsOf({ validations: [{ expression: 'variables.a' }] })).toEqual([
      `spec.validations[0].expression: Invalid value: "variables.a": compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')${snippet('variables.a', 1)}`,
    ]);
  });
});

describe('validations', () => {
  test.each<[string, Json, string[]]>([
    ['an expression over object, oldObject, request and namespaceObject', { expression: "object.spec.replicas > 1 && oldObject == null && request.operation == 'CREATE' && namespaceObject.metadata.name != ''" }, []],
    ['the authorizer and the request resource', { expression: "authorizer.requestResource.check('update').allowed() && authorizer.group('apps').resource('deployments').check('get').reason() == ''" }, []],
    ['an expression is required', { expression: '' }, ['spec.validations[0].expression: Required value: expression is not specified']],
    ['a blank expression is missing', { expression: ' \n' }, ['spec.validations[0].expression: Required value: expression is not specified']],
    // A dynamic result is not a bool (Kubernetes compares the checked type exactly).
    ['a dynamic result is not a bool', { expression: 'object.spec.paused' }, ['spec.validations[0].expression: Invalid value: "object.spec.paused": must evaluate to bool but got dyn']],
    ['a comparison of dynamic values is', { expression: 'object.spec.paused == true' }, []],
    ['an int is not a bool', { expression: '1 + 1' }, ['spec.validations[0].expression: Invalid value: "1 + 1": must evaluate to bool but got int']],
    [
      'a compile error, with the snippet',
      { expression: 'request.nope' },
      [`spec.validations[0].expression: Invalid value: "request.nope": compilation failed: ERROR: <input>:1:8: undefined field 'nope'${snippet('request.nope', 8)}`],
    ],
    [
      'an unknown function',
      { expression: 'object.nope()' },
      [`spec.validations[0].expression: Invalid value: "object.nope()": compilation failed: ERROR: <input>:1:12: found no matching overload for 'nope' applied to 'dyn.()'${snippet('object.nope()', 12)}`],
    ],
    ['a message', { expression: 'true', message: 'replicas must be at most 5' }, []],
    ['a blank message', { expression: 'true', message: '  ' }, ['spec.validations[0].message: Invalid value: "  ": message must be non-empty if specified']],
    ['a message with a line break', { expression: 'true', message: 'a\nb' }, ['spec.validations[0].message: Invalid value: "a\\nb": message must not contain line breaks']],
    ['trailing line breaks are trimmed', { expression: 'true', message: 'a\n' }, []],
    ['a messageExpression', { expression: 'true', messageExpression: "'replicas: ' + string(object.spec.replicas)" }, []],
    ['a blank messageExpression', { expression: 'true', messageExpression: ' ' }, ['spec.validations[0].messageExpression: Invalid value: " ": must be non-empty if specified']],
    ['a messageExpression is a string', { expression: 'true', messageExpression: '1' }, ['spec.validations[0].messageExpression: Invalid value: "1": must evaluate to string but got int']],
    [
      'a messageExpression has no authorizer',
      { expression: 'true', messageExpression: "authorizer.group('').resource('pods').check('get').reason()" },
      [
        `spec.validations[0].messageExpression: Invalid value: "authorizer.group('').resource('pods').check('get').reason()": compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')${snippet("authorizer.group('').resource('pods').check('get').reason()", 1)}`,
      ],
    ],
    ['reason Invalid', { expression: 'true', reason: 'Invalid' }, []],
    ['reason Forbidden', { expression: 'true', reason: 'Forbidden' }, []],
    ['reason RequestEntityTooLarge', { expression: 'true', reason: 'RequestEntityTooLarge' }, []],
    // Documented upstream, refused by its validation.
    ['reason Unauthorized', { expression: 'true', reason: 'Unauthorized' }, ['spec.validations[0].reason: Unsupported value: "Unauthorized": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"']],
    ['reason NotFound', { expression: 'true', reason: 'NotFound' }, ['spec.validations[0].reason: Unsupported value: "NotFound": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"']],
    ['a regex literal that does not compile', { expression: "object.metadata.name.matches('[')" }, [
      'spec.validations[0].expression: Invalid value: "object.metadata.name.matches(\'[\')": compilation failed: ERROR: <input>:1:30: invalid matches argument' + snippet("object.metadata.name.matches('[')", 30),
    ]],
  ])('%s', (_name, validation, expected) => {
    expect(errorsOf({ validations: [validation] })).toEqual(expected);
  });

  test('no write-time cost limit: the budget is per evaluation, as upstream', () => {
    const costly = "object.spec.containers.all(c, object.spec.containers.all(d, object.spec.containers.all(e, c.name.matches(d.name + e.name))))";
    expect(errorsOf({ validations: [{ expression: costly }] })).toEqual([]);
  });
});

describe('auditAnnotations', () => {
  const a = (key: string, valueExpression: string): Json => ({ key, valueExpression });
  test.each<[string, Json[], string[]]>([
    ['a string value', [a('replicas', "'high: ' + string(object.spec.replicas)")], []],
    ['null alone', [a('none', 'null')], []],
    ['an int is not a value', [a('n', '1')], ['spec.auditAnnotations[0].valueExpression: Invalid value: "1": must evaluate to one of [string null_type] but got int']],
    ['a valueExpression is required', [a('k', ' ')], ['spec.auditAnnotations[0].valueExpression: Required value: valueExpression is not specified']],
    ['at most 5 KiB', [a('k', `'${'x'.repeat(5 * 1024)}'`)], ['spec.auditAnnotations[0].valueExpression: Required value: must not exceed 5120 bytes in length']],
    ['keys are unique', [a('k', "'a'"), a('k', "'b'")], ['spec.auditAnnotations[1].key: Duplicate value: "k"']],
    [
      'keys are qualified names under the policy name',
      [a('a b', "'x'")],
      [
        `spec.auditAnnotations[0].key: Invalid value: "p/a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ],
    ],
    ['keys of at most 63 bytes', [a('k'.repeat(64), "'x'")], [`spec.auditAnnotations[0].key: Invalid value: "p/${'k'.repeat(64)}": name part must be no more than 63 characters`]],
    [
      'compile errors, positions of the trimmed expression',
      [a('k', "  object.x + 'a' + ")],
      [`spec.auditAnnotations[0].valueExpression: Invalid value: "  object.x + 'a' + ": compilation failed: ERROR: <input>:1:17: ${PARSE_EOF}\n | object.x + 'a' +\n | ................^`],
    ],
  ])('%s', (_name, annotations, expected) => {
    expect(errorsOf({ validations: undefined, auditAnnotations: annotations })).toEqual(expected);
  });

  test('at most 20, printed as Go prints the list', () => {
    const many = Array.from({ length: 21 }, (_, i) => a(`k${i}`, "'v'"));
    const errors = errorsOf({ auditAnnotations: many });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^spec\.auditAnnotations: Invalid value: \[\]admissionregistration\.AuditAnnotation\{admissionregistration\.AuditAnnotation\{Key:"k0", ValueExpression:"'v'"\}, .*\}: must not have more than 20 auditAnnotations$/);
    expect(errorsOf({ auditAnnotations: many.slice(0, 20) })).toEqual([]);
  });

  test('the policy name prefixes the key, and is checked as its DNS subdomain prefix', () => {
    expect(errorsOf({ auditAnnotations: [a('k', "'v'")] }, 'example.com')).toEqual([]);
    // (metadata.name itself is the registry's check; this is the key's)
    expect(errorsOf({ auditAnnotations: [a('k', "'v'")] }, 'Example')).toEqual([
      `spec.auditAnnotations[0].key: Invalid value: "Example/k": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
    expect(errorsOf({ auditAnnotations: [a('k', "'v'")] }, '')).toEqual(['spec.auditAnnotations[0].key: Invalid value: "k": requires metadata.name be non-empty']);
  });
});

describe('update', () => {
  test('generation follows the spec; the stored status is kept', () => {
    const stored = { ...createAs(policies, policy()).obj, status: { observedGeneration: 1 } };
    const { obj, errors } = updateAs(policies, { ...policy({ failurePolicy: 'Ignore' }), status: { observedGeneration: 9 } }, stored);
    expect(errors).toEqual([]);
    expect(obj.status).toEqual({ observedGeneration: 1 });
  });

  test('the whole policy is validated again', () => {
    const stored = createAs(policies, policy()).obj;
    expect(updateAs(policies, policy({ failurePolicy: 'Sometimes' }), stored).errors).toEqual(['spec.failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"']);
  });

  test('unchanged matchConditions and paramKind are not checked again', () => {
    // A stored policy whose match condition no longer compiles (written before a library changed, say).
    const stored = policy({ matchConditions: [{ name: 'a', expression: "'not a bool'" }] });
    expect(updateAs(policies, policy({ matchConditions: [{ name: 'a', expression: "'not a bool'" }], failurePolicy: 'Ignore' }), stored).errors).toEqual([]);
    expect(updateAs(policies, policy({ matchConditions: [{ name: 'a', expression: "'not a bool'" }], paramKind: { apiVersion: 'v1', kind: 'ConfigMap' } }), stored).errors).toEqual([
      `spec.matchConditions[0].expression: Invalid value: "'not a bool'": must evaluate to bool but got string`,
    ]);
  });

  test('every kind of expression is compiled again on update, stored ones included', () => {
    const spec = {
      variables: [{ name: 'r', expression: 'object.spec.replicas' }],
      validations: [{ expression: 'variables.r <= 5', messageExpression: "'replicas: ' + string(variables.r)" }],
      auditAnnotations: [{ key: 'k', valueExpression: "'v'" }],
      matchConditions: [{ name: 'm', expression: 'true' }],
    };
    const stored = createAs(policies, policy(spec)).obj;
    expect(updateAs(policies, policy({ ...spec, failurePolicy: 'Ignore' }), stored).errors).toEqual([]);
    expect(updateAs(policies, policy({ ...spec, validations: [{ expression: 'variables.r' }] }), stored).errors).toEqual([
      'spec.validations[0].expression: Invalid value: "variables.r": must evaluate to bool but got dyn',
    ]);
  });
});

describe('status sub-resource', () => {
  const stored = (): KubeObject => createAs(policies, policy()).obj;
  const status = (s: Json): KubeObject => ({ ...stored(), status: s });
  const condition = (extra: Json = {}): Json => ({ type: 'Ready', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'Checked', message: '', ...extra });

  test.each<[string, Json, string[]]>([
    ['type checking warnings', { observedGeneration: 1, typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: 'apps/v1, Kind=Deployment: ERROR: ...' }] } }, []],
    ['an empty typeChecking', { typeChecking: {} }, []],
    ['a warning is required', { typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: '' }] } }, ['status.typeChecking.expressionWarnings[0].warning: Required value']],
    ['a fieldRef is required', { typeChecking: { expressionWarnings: [{ fieldRef: ' ', warning: 'w' }] } }, ['status.typeChecking.expressionWarnings[0].fieldRef: Required value']],
    ['a fieldRef is a JSONPath', { typeChecking: { expressionWarnings: [{ fieldRef: 'spec.#', warning: 'w' }] } }, [`status.typeChecking.expressionWarnings[0].fieldRef: Invalid value: "spec.#": invalid JSONPath: unrecognized character in action: U+0023 '#'`]],
    ['conditions', { conditions: [condition()] }, []],
    ['condition types are unique', { conditions: [condition(), condition()] }, ['status.conditions[1]: Duplicate value: {"type":"Ready"}', 'status.conditions[1].type: Duplicate value: "Ready"']],
    ['condition status', { conditions: [condition({ status: 'Yes' })] }, ['status.conditions[0].status: Unsupported value: "Yes": supported values: "False", "True", "Unknown"']],
    ['lastTransitionTime is needed', { conditions: [condition({ lastTransitionTime: undefined })] }, ['status.conditions[0].lastTransitionTime: Required value: must be set']],
    ['a reason is needed', { conditions: [condition({ reason: '' })] }, ['status.conditions[0].reason: Required value: must be set']],
    [
      'a reason is CamelCase-ish',
      { conditions: [condition({ reason: 'not ok' })] },
      [
        `status.conditions[0].reason: Invalid value: "not ok": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')`,
      ],
    ],
    ['observedGeneration is not negative', { conditions: [condition({ observedGeneration: -1 })] }, ['status.conditions[0].observedGeneration: Invalid value: -1: must be greater than or equal to zero']],
  ])('%s', (_name, s, expected) => {
    const next = status(s);
    const conditions = (next.status as Json).conditions;
    if (Array.isArray(conditions)) for (const c of conditions as Json[]) for (const k of Object.keys(c)) if (c[k] === undefined) delete c[k];
    expect(updateStatusAs(policies, next, stored())).toEqual(expected);
  });
});
