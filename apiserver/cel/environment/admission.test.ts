/**
 * The admission policy scope: gradual typing (`request` typed, `object` dynamic), variables composed in
 * order and evaluated lazily, the authorizer variables, result types in Kubernetes' words, and every
 * expression of real policies (/work/shared/testdata/policies, used as they are) compiling.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CelEvalError } from '../errors.js';
import { CelAuthorizer, type AuthorizerLike, type AuthzAttributes } from '../library/authz.js';
import {
  admissionActivation,
  admissionEnvironment,
  compileAuditAnnotation,
  compileMatchCondition,
  compileMessageExpression,
  compileValidation,
  composeVariables,
  evaluateAdmission,
  type AdmissionInput,
} from './admission.js';

const POLICIES = '/work/shared/testdata/policies';
type Json = Record<string, unknown>;

const request = {
  uid: 'u1',
  kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  resource: { group: 'apps', version: 'v1', resource: 'deployments' },
  requestKind: { group: 'apps', version: 'v1', kind: 'Deployment' },
  requestResource: { group: 'apps', version: 'v1', resource: 'deployments' },
  name: 'web',
  namespace: 'prod',
  operation: 'CREATE',
  userInfo: { username: 'alice', uid: '42', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a', 'b'] } },
  dryRun: false,
  options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl' },
};

const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { app: 'web' } }, spec: { replicas: 3 } };
const namespace = { metadata: { name: 'prod', labels: { env: 'prod' }, creationTimestamp: '2024-01-02T03:04:05Z' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } };

function evaluate(expression: string, input: Partial<AdmissionInput> = {}, options: { hasParams?: boolean } = {}): unknown {
  const env = admissionEnvironment({ hasParams: options.hasParams ?? false });
  const c = compileValidation(env, expression);
  if (c.error !== undefined) throw c.error;
  return evaluateAdmission(c, admissionActivation({ object: deployment, oldObject: null, request, namespaceObject: namespace, ...input }));
}

describe('gradual typing', () => {
  const env = admissionEnvironment();

  test('an unknown field on request is refused; on object it checks (and fails only at run time)', () => {
    expect(compileValidation(env, 'request.nope == 1').error?.detail).toBe("compilation failed: ERROR: <input>:1:8: undefined field 'nope'\n | request.nope == 1\n | .......^");
    expect(compileValidation(env, 'has(request.userInfo.nope)').error?.detail.split('\n')[0]).toBe("compilation failed: ERROR: <input>:1:21: undefined field 'nope'");
    expect(compileValidation(env, 'request.kind.kind + 1 == 2').error?.detail.split('\n')[0]).toBe(
      "compilation failed: ERROR: <input>:1:19: found no matching overload for '_+_' applied to '(string, int)'",
    );
    const onObject = compileValidation(env, 'object.nope == 1');
    expect(onObject.error).toBeUndefined();
    expect(() => evaluateAdmission(onObject, admissionActivation({ object: deployment, oldObject: null, request }))).toThrow(new CelEvalError('no such key: nope'));
    expect(evaluate('!has(object.nope) && has(object.spec.replicas)')).toBe(true);
  });

  test('request fields have their types', () => {
    expect(evaluate("request.kind.group == 'apps' && request.resource.resource == 'deployments' && request.operation == 'CREATE'")).toBe(true);
    expect(evaluate("request.userInfo.username == 'alice' && 'devs' in request.userInfo.groups && request.userInfo.extra['scopes'].size() == 2")).toBe(true);
    expect(evaluate("request.namespace == 'prod' && !request.dryRun && !has(request.subResource)")).toBe(true);
    expect(evaluate("request.options.fieldManager == 'kubectl'")).toBe(true); // options: dyn
    expect(compileValidation(env, 'request.userInfo.groups').error?.detail).toBe('must evaluate to bool but got list(string)');
  });

  test('namespaceObject is typed as Kubernetes declares it, null for cluster-scoped resources', () => {
    expect(evaluate("namespaceObject.metadata.labels['env'] == 'prod' && namespaceObject.status.phase == 'Active'")).toBe(true);
    expect(evaluate("namespaceObject.metadata.creationTimestamp < timestamp('2025-01-01T00:00:00Z')")).toBe(true);
    expect(compileValidation(env, 'namespaceObject.metadata.uid == ""').error?.detail.split('\n')[0]).toBe("compilation failed: ERROR: <input>:1:25: undefined field 'uid'");
    expect(evaluate('namespaceObject == null', { namespaceObject: null })).toBe(true);
  });

  test('object and oldObject are null on CREATE / DELETE; params only with a paramKind', () => {
    expect(evaluate('oldObject == null')).toBe(true);
    expect(compileValidation(env, 'params.max > 1').error?.detail.split('\n')[0]).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')");
    expect(evaluate('object.spec.replicas <= params.max', { params: { max: 5 } }, { hasParams: true })).toBe(true);
    expect(evaluate('params == null', { params: null }, { hasParams: true })).toBe(true);
  });
});

describe('authorizer', () => {
  const seen: AuthzAttributes[] = [];
  const fake: AuthorizerLike = {
    authorize(a) {
      seen.push(a);
      return a.verb === 'delete' ? { decision: 'deny', reason: 'no' } : { decision: 'allow', reason: 'yes' };
    },
  };
  const authorizer = new CelAuthorizer(fake, { name: 'alice', uid: '42', groups: ['devs'] });

  test('authorizer.requestResource is the request resource; authorizer checks others', () => {
    expect(evaluate("authorizer.requestResource.check('update').allowed()", { authorizer })).toBe(true);
    expect(seen.at(-1)).toMatchObject({ verb: 'update', apiGroup: 'apps', resource: 'deployments', namespace: 'prod', name: 'web' });
    expect(evaluate("authorizer.group('').resource('pods').namespace('x').check('delete').reason() == 'no'", { authorizer })).toBe(true);
    expect(seen.at(-1)).toMatchObject({ verb: 'delete', apiGroup: '', resource: 'pods', namespace: 'x' });
  });

  test('authorizer.requestResource is a ResourceCheck: wrong members are refused at compile time', () => {
    const c = compileValidation(admissionEnvironment(), "authorizer.requestResource.path('/x')");
    expect(c.error?.detail).toMatch(/^compilation failed: ERROR: <input>:1:32: found no matching overload for 'path' applied to 'kubernetes.authorization.ResourceCheck.\(string\)'/);
  });
});

describe('variables', () => {
  const env = admissionEnvironment({ hasParams: true });
  const vars = [
    { name: 'replicas', expression: 'object.spec.replicas' },
    { name: 'limit', expression: 'params.max * 2' },
    { name: 'tooMany', expression: 'variables.replicas > variables.limit' },
    { name: 'user', expression: 'request.userInfo' },
    { name: 'broken', expression: 'variables.later' },
    { name: 'later', expression: '1' },
  ];
  const composition = composeVariables(env, vars);

  test('each variable sees only the variables before it, with their types', () => {
    expect(composition.variables.map((v) => [v.name, v.outputType, v.error?.detail.split('\n')[0]])).toEqual([
      ['replicas', 'dyn', undefined],
      ['limit', 'int', undefined], // dyn * int: only int * int fits
      ['tooMany', 'bool', undefined],
      ['user', 'kubernetes.UserInfo', undefined],
      ['broken', 'dyn', "compilation failed: ERROR: <input>:1:10: undefined field 'later'"],
      ['later', 'int', undefined],
    ]);
    expect(composeVariables(env, vars)).toBe(composition); // cached per variables list and environment
  });

  test('validations see every variable, typed; evaluated lazily, once per evaluation', () => {
    const c = compileValidation(composition.environment, '!variables.tooMany && variables.user.username == "alice" && variables.later == 1');
    expect(c.error).toBeUndefined();
    expect(compileValidation(composition.environment, 'variables.user.nope == ""').error?.detail.split('\n')[0]).toBe("compilation failed: ERROR: <input>:1:15: undefined field 'nope'");
    expect(compileValidation(composition.environment, 'has(variables.nope)').error?.detail.split('\n')[0]).toBe("compilation failed: ERROR: <input>:1:14: undefined field 'nope'");
    const tracker = { cost: 0, limit: 1_000_000 };
    const act = admissionActivation({ object: deployment, oldObject: null, request, params: { max: 1 } }, composition, tracker);
    expect(evaluateAdmission(c, act, tracker)).toBe(false); // 3 > 2
    const afterFirst = tracker.cost;
    // A second read of the same variables costs only the selections, not their expressions again.
    expect(evaluateAdmission(c, act, tracker)).toBe(false);
    expect(tracker.cost - afterFirst).toBeLessThan(afterFirst);
  });

  test('a variable that failed to compile errors when read, not before', () => {
    const c = compileValidation(composition.environment, 'variables.later == 1 || variables.broken == 1');
    expect(c.error).toBeUndefined();
    const act = admissionActivation({ object: deployment, oldObject: null, request, params: { max: 1 } }, composition);
    expect(evaluateAdmission(c, act)).toBe(true);
    const reads = compileValidation(composition.environment, 'variables.broken == 1');
    expect(() => evaluateAdmission(reads, act)).toThrow(/variable 'broken' failed to compile/);
  });

  test('matchConditions have no variables', () => {
    expect(compileMatchCondition(env, 'variables.replicas > 1').error?.detail.split('\n')[0]).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'variables' (in container '')");
    expect(compileMatchCondition(env, "request.operation == 'CREATE'").error).toBeUndefined();
  });
});

describe('result types', () => {
  const env = admissionEnvironment();
  test.each([
    ['validation', () => compileValidation(env, "'x'"), 'must evaluate to bool but got string'],
    ['matchCondition', () => compileMatchCondition(env, '1'), 'must evaluate to bool but got int'],
    ['messageExpression', () => compileMessageExpression(env, 'object.spec.replicas > 1'), 'must evaluate to string but got bool'],
    ['auditAnnotation', () => compileAuditAnnotation(env, '1'), 'must evaluate to one of [string null_type] but got int'],
    ['auditAnnotation map', () => compileAuditAnnotation(env, "{'a': 1}"), 'must evaluate to one of [string null_type] but got map(string, int)'],
  ])('%s', (_, compile, detail) => {
    expect(compile().error?.detail).toBe(detail);
  });

  test('accepted result types', () => {
    expect(compileMessageExpression(env, "'replicas: ' + string(object.spec.replicas)").outputType).toBe('string');
    expect(compileAuditAnnotation(env, 'null').error).toBeUndefined();
    expect(compileAuditAnnotation(env, "'a'").error).toBeUndefined();
    expect(compileAuditAnnotation(env, 'object.metadata.name').error).toBeUndefined(); // dyn
  });
});

describe('caching', () => {
  test('one environment per (version, mode, params, authorizer)', () => {
    expect(admissionEnvironment()).toBe(admissionEnvironment());
    expect(admissionEnvironment({ hasParams: true })).not.toBe(admissionEnvironment());
    expect(admissionEnvironment({ mode: 'stored' })).not.toBe(admissionEnvironment());
  });
});

// ---- real policies --------------------------------------------------------------------------------------

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? yamlFiles(p) : /\.ya?ml$/.test(f) ? [p] : [];
  });
}

const policies = yamlFiles(POLICIES)
  .flatMap((f) =>
    parseAllDocuments(readFileSync(f, 'utf8'))
      .map((d) => d.toJS() as Json)
      .filter((d) => d !== null && typeof d === 'object' && d.kind === 'ValidatingAdmissionPolicy')
      .map((d) => ({ file: f.slice(POLICIES.length + 1), policy: d })),
  );

describe('every expression of the real policies compiles', () => {
  test('there are policies', () => {
    expect(policies.length).toBeGreaterThan(40);
  });

  test.each(policies.map((p) => [`${p.file} ${String((p.policy.metadata as Json).name)}`, p.policy] as const))('%s', (_, policy) => {
    const spec = policy.spec as Json;
    const env = admissionEnvironment({ hasParams: spec.paramKind !== undefined });
    const composition = composeVariables(env, ((spec.variables as Json[] | undefined) ?? []).map((v) => ({ name: String(v.name), expression: String(v.expression) })));
    const failures: string[] = [];
    const note = (what: string, c: { error?: { detail: string } }): void => {
      if (c.error !== undefined) failures.push(`${what}: ${c.error.detail}`);
    };
    for (const v of composition.variables) note(`variable ${v.name}`, v);
    for (const m of (spec.matchConditions as Json[] | undefined) ?? []) note(`matchCondition ${String(m.name)}`, compileMatchCondition(env, String(m.expression)));
    for (const v of (spec.validations as Json[] | undefined) ?? []) {
      note(`validation ${String(v.expression)}`, compileValidation(composition.environment, String(v.expression)));
      if (typeof v.messageExpression === 'string') note(`messageExpression ${v.messageExpression}`, compileMessageExpression(composition.environment, v.messageExpression));
    }
    for (const a of (spec.auditAnnotations as Json[] | undefined) ?? []) note(`auditAnnotation ${String(a.key)}`, compileAuditAnnotation(composition.environment, String(a.valueExpression)));
    expect(failures).toEqual([]);
  });
});
