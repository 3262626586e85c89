/**
 * Type checking of policies against the schemas this server serves (built-in kinds, and custom resources
 * served at runtime): which kinds are checked, Kubernetes' warning text, typed params, variables,
 * messageExpressions, and what is not checked.
 */
import type { KubeObject } from '../../api/object.js';
import { naming } from '../../naming/naming.js';
import { customResourceKinds } from '../../registry/kinds/apiextensions/custom-resource-kinds.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { servedSchemaResolver } from './served-schemas.js';
import { typeCheckPolicy, typesToCheck, MAX_TYPES_TO_CHECK, type SchemaResolver } from './type-check.js';
import { testdataObjects } from '../../registry/kinds/admissionregistration/testing.js';

type Json = Record<string, unknown>;
const names = naming('k8s.io');
let store: ServedStore;
let resolver: SchemaResolver;

/** A namespaced custom resource `<plural>.<group>` whose only version has `properties` under spec. */
function crd(group: string, plural: string, kind: string, specProperties: Json): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: specProperties } } } } }],
    },
  };
}

beforeAll(async () => {
  store = await openServedStore(names);
  // apps/v1 Deployments and ReplicaSets are not built in here: custom resources stand in for them.
  for (const [plural, kind] of [['deployments', 'Deployment'], ['replicasets', 'ReplicaSet']] as const) {
    const def = crd('apps', plural, kind, { replicas: { type: 'integer' }, paused: { type: 'boolean' } });
    store.served.serveSet(`${plural}.apps`, customResourceKinds(def, names), { resourcePrefix: `apps/${plural}`, validationStyle: 'crd' });
  }
  const limits = crd('rules.example.com', 'replicalimits', 'ReplicaLimit', {});
  store.served.serveSet('replicalimits.rules.example.com', customResourceKinds({ ...limits, spec: { ...(limits.spec as Json), versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { maxReplicas: { type: 'integer' } } } } }] } }, names), {
    resourcePrefix: 'rules.example.com/replicalimits',
    validationStyle: 'crd',
  });
  resolver = servedSchemaResolver(store.served);
});

afterAll(async () => {
  await store.close();
});

const rule = (apiGroups: string[], resources: string[], apiVersions = ['v1']): Json => ({ apiGroups, apiVersions, operations: ['CREATE'], resources });

function policy(rules: Json[], validations: Json[], extra: Json = {}): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: 'p', generation: 1 },
    spec: { matchConstraints: { resourceRules: rules }, validations, ...extra },
  };
}

const undefinedField = (gvk: string, expression: string, field: string, column: number): string =>
  `${gvk}: ERROR: <input>:1:${column}: undefined field '${field}'\n | ${expression}\n | ${'.'.repeat(column - 1)}^\n`;

describe('the kinds checked', () => {
  test('resolved from the rules, sorted by group, version and kind; wildcards and sub-resources skipped', () => {
    const kinds = (rules: Json[]): string[] => typesToCheck(policy(rules, []), resolver).map((g) => `${g.group}/${g.version}/${g.kind}`);
    expect(kinds([rule(['apps', ''], ['replicasets', 'deployments', 'configmaps', 'pods', 'limitranges'])])).toEqual(['/v1/ConfigMap', '/v1/Pod', 'apps/v1/Deployment', 'apps/v1/ReplicaSet']);
    expect(kinds([rule(['*'], ['configmaps'])])).toEqual([]);
    expect(kinds([rule([''], ['configmaps'], ['*'])])).toEqual([]);
    expect(kinds([rule([''], ['*', 'configmaps/status', 'secrets'])])).toEqual(['/v1/Secret']);
    // Singular names resolve, as a REST mapper resolves them.
    expect(kinds([rule([''], ['configmap'])])).toEqual(['/v1/ConfigMap']);
    expect(kinds([rule(['nope.example.com'], ['things'])])).toEqual([]);
  });

  test(`at most ${MAX_TYPES_TO_CHECK} kinds`, () => {
    const core = ['configmaps', 'events', 'namespaces', 'nodes', 'podtemplates', 'secrets', 'serviceaccounts'];
    const rbac = ['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles'];
    const kinds = typesToCheck(policy([rule([''], core), rule(['rbac.authorization.k8s.io'], rbac)], []), resolver);
    expect(kinds).toHaveLength(MAX_TYPES_TO_CHECK);
    expect(kinds.filter((k) => k.group === '')).toHaveLength(7);
  });
});

describe('warnings', () => {
  test("the website's typechecking examples: an undefined field of Deployment (and of ReplicaSet), Kubernetes' text", () => {
    const examples = Object.fromEntries(
      testdataObjects(['ValidatingAdmissionPolicy'])
        .filter(({ file }) => file.includes('typechecking'))
        .map(({ file, obj }) => [file.split('/').pop(), obj]),
    );
    const one = undefinedField('apps/v1, Kind=Deployment', 'object.replicas > 1', 'replicas', 7);
    expect(typeCheckPolicy(examples['typechecking.yaml']!, resolver)).toEqual([{ fieldRef: 'spec.validations[0].expression', warning: one }]);
    expect(typeCheckPolicy(examples['typechecking-multiple-match.yaml']!, resolver)).toEqual([
      { fieldRef: 'spec.validations[0].expression', warning: `${one}\n${undefinedField('apps/v1, Kind=ReplicaSet', 'object.replicas > 1', 'replicas', 7)}` },
    ]);
  });

  test('a correct expression has no warning; built-in kinds are typed by their schemas', () => {
    expect(typeCheckPolicy(policy([rule(['apps'], ['deployments'])], [{ expression: 'object.spec.replicas > 1' }]), resolver)).toEqual([]);
    expect(typeCheckPolicy(policy([rule([''], ['configmaps'])], [{ expression: "object.data['k'] == 'v' && object.metadata.name != ''" }]), resolver)).toEqual([]);
    expect(typeCheckPolicy(policy([rule([''], ['configmaps'])], [{ expression: 'object.dta.size() > 0' }]), resolver)).toEqual([
      { fieldRef: 'spec.validations[0].expression', warning: undefinedField('/v1, Kind=ConfigMap', 'object.dta.size() > 0', 'dta', 7) },
    ]);
  });

  test('types, not only fields: a string field compared with an int', () => {
    const [w] = typeCheckPolicy(policy([rule([''], ['configmaps'])], [{ expression: "object.metadata.name > 1" }]), resolver);
    expect(w!.warning).toBe(
      "/v1, Kind=ConfigMap: ERROR: <input>:1:22: found no matching overload for '_>_' applied to '(string, int)'\n | object.metadata.name > 1\n | .....................^\n",
    );
  });

  test('oldObject is typed like object; request and namespaceObject as at admission', () => {
    expect(typeCheckPolicy(policy([rule([''], ['configmaps'])], [{ expression: "oldObject == null || oldObject.data == object.data && request.operation == 'UPDATE' && namespaceObject.metadata.name != ''" }]), resolver)).toEqual([]);
    expect(typeCheckPolicy(policy([rule([''], ['configmaps'])], [{ expression: 'oldObject.nope' }]), resolver)[0]!.warning).toBe(undefinedField('/v1, Kind=ConfigMap', 'oldObject.nope', 'nope', 10));
  });

  test('messageExpressions are checked; matchConditions and auditAnnotations are not', () => {
    const p = policy([rule([''], ['configmaps'])], [{ expression: 'true', messageExpression: "object.nope + ''" }, { expression: 'object.nope2 == 1' }], {
      matchConditions: [{ name: 'm', expression: 'object.nope3 == 1' }],
      auditAnnotations: [{ key: 'k', valueExpression: 'object.nope4' }],
    });
    expect(typeCheckPolicy(p, resolver).map((w) => w.fieldRef)).toEqual(['spec.validations[0].messageExpression', 'spec.validations[1].expression']);
  });

  test('variables are typed from their expressions, in order', () => {
    const variables = [{ name: 'cm', expression: 'object' }, { name: 'labels', expression: 'variables.cm.metadata.labels' }];
    expect(typeCheckPolicy(policy([rule([''], ['configmaps'])], [{ expression: "variables.labels['a'] == 'b'" }], { variables }), resolver)).toEqual([]);
    expect(typeCheckPolicy(policy([rule([''], ['configmaps'])], [{ expression: 'variables.cm.nope == 1' }], { variables }), resolver)[0]!.warning).toBe(
      undefinedField('/v1, Kind=ConfigMap', 'variables.cm.nope == 1', 'nope', 13),
    );
  });

  test('params are typed by the paramKind, and undeclared when its kind is not served (as upstream)', () => {
    const paramKind = (apiVersion: string, kind: string): Json => ({ paramKind: { apiVersion, kind } });
    expect(typeCheckPolicy(policy([rule(['apps'], ['deployments'])], [{ expression: 'object.spec.replicas <= params.maxReplicas' }], paramKind('rules.example.com/v1', 'ReplicaLimit')), resolver)).toEqual([]);
    expect(typeCheckPolicy(policy([rule(['apps'], ['deployments'])], [{ expression: 'object.spec.replicas <= params.max' }], paramKind('rules.example.com/v1', 'ReplicaLimit')), resolver)[0]!.warning).toBe(
      undefinedField('apps/v1, Kind=Deployment', 'object.spec.replicas <= params.max', 'max', 31),
    );
    expect(typeCheckPolicy(policy([rule(['apps'], ['deployments'])], [{ expression: "params.data['max'] == '1'" }], paramKind('v1', 'ConfigMap')), resolver)).toEqual([]);
    expect(typeCheckPolicy(policy([rule(['apps'], ['deployments'])], [{ expression: 'params.max == 1' }], paramKind('example.com/v1', 'Missing')), resolver)[0]!.warning).toBe(
      "apps/v1, Kind=Deployment: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.max == 1\n | ^\n",
    );
  });

  test('nothing to check: no kinds resolved, or kinds without the field names in rules', () => {
    expect(typeCheckPolicy(policy([rule(['*'], ['*'], ['*'])], [{ expression: 'object.nope == 1' }]), resolver)).toEqual([]);
    expect(typeCheckPolicy(policy([rule(['example.com'], ['widgets'])], [{ expression: 'object.nope == 1' }]), resolver)).toEqual([]);
  });

  test('every policy of the testdata checks against what is served without throwing', () => {
    for (const { obj } of testdataObjects(['ValidatingAdmissionPolicy'])) {
      for (const w of typeCheckPolicy(obj, resolver)) expect(w.warning).toMatch(/^(apps|)\/v1, Kind=\w+: /);
    }
  });
});
