/**
 * The real policies and bindings of /work/shared/testdata/policies (read as they are, never edited) on the
 * create path of the registry: every complete v1 object is accepted, with Kubernetes' defaults.
 *
 * What SOURCES.md says cannot be created as written is checked for what Kubernetes answers instead:
 * kyverno's generated-vap files are chainsaw assertions (ownerReferences without uid, which ObjectMeta
 * validation refuses: those are dropped before the create, as SOURCES.md says to; some are bare
 * `spec: {}` shapes, refused with Kubernetes' required-field errors), and the website's
 * `deployment-replicas-policy.yaml` is a v1alpha1 object (not served; its pre-GA paramKind form is not v1).
 *
 * Two complete v1 objects are invalid for Kubernetes v1.32 too, and are refused with its messages: the
 * website's `binding-with-param-prod.yaml` has a paramRef without the required parameterNotFoundAction
 * (kubernetes/kubernetes#130822; the docs example was fixed later), and kyverno's CLI-only
 * `match-namespaces` policy has a rule without operations (kyverno's CLI never sends it to a server).
 */
import type { KubeObject } from '../../../api/object.js';
import { validatingAdmissionPolicyBindings as bindings } from './validating-admission-policy-binding.js';
import { validatingAdmissionPolicies as policies } from './validating-admission-policy.js';
import { createAs, testdataObjects } from './testing.js';

const all = testdataObjects(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
const v1 = all.filter(({ obj }) => obj.apiVersion === 'admissionregistration.k8s.io/v1');
/** Kyverno's assertion shapes with nothing in them. */
const bare = ({ obj }: { obj: KubeObject }): boolean => JSON.stringify(obj.spec) === '{}';

/** As SOURCES.md says: the assertion files' ownerReferences have no uid; they are removed before creating. */
function creatable(obj: KubeObject): KubeObject {
  const { ownerReferences: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

const kindOf = (obj: KubeObject) => (obj.kind === 'ValidatingAdmissionPolicy' ? policies : bindings);

/** Complete v1 objects a Kubernetes v1.32 server refuses, with its errors. */
const REFUSED: Readonly<Record<string, readonly string[]>> = {
  'kubernetes-website/validatingadmissionpolicy/binding-with-param-prod.yaml': ['spec.paramRef.parameterNotFoundAction: Required value'],
  'kyverno/cli/test-validating-admission-policy/match-namespaces/policy.yaml ValidatingAdmissionPolicy': ['spec.matchConstraints.resourceRules[0].operations: Required value'],
};
const refusal = (file: string, obj: KubeObject): readonly string[] | undefined => REFUSED[file] ?? REFUSED[`${file} ${obj.kind}`];

test('the testdata holds the policies and bindings SOURCES.md counts', () => {
  expect(all.filter(({ obj }) => obj.kind === 'ValidatingAdmissionPolicy')).toHaveLength(62);
  expect(all.filter(({ obj }) => obj.kind === 'ValidatingAdmissionPolicyBinding')).toHaveLength(25);
  expect(all.filter(({ obj }) => obj.apiVersion !== 'admissionregistration.k8s.io/v1').map(({ file }) => file)).toEqual([
    'kubernetes-website/access/deployment-replicas-policy.yaml',
  ]);
});

describe.each(v1.filter((x) => !bare(x)).map(({ file, obj }) => [`${file} ${obj.kind}/${obj.metadata.name}`, obj] as const))('%s', (name, obj) => {
  test('is accepted (or refused as Kubernetes v1.32 refuses it)', () => {
    expect(createAs(kindOf(obj), creatable(obj)).errors).toEqual(refusal(name.split(' ')[0]!, obj) ?? []);
  });
});

test('the refusals are exactly the two known ones', () => {
  const refused = v1.filter((x) => !bare(x) && createAs(kindOf(x.obj), creatable(x.obj)).errors.length > 0).map(({ file }) => file);
  expect(refused).toEqual([
    'kubernetes-website/validatingadmissionpolicy/binding-with-param-prod.yaml',
    'kyverno/cli/test-validating-admission-policy/match-namespaces/policy.yaml',
  ]);
});

test('every policy gets failurePolicy, matchPolicy, selectors and rule scopes by default; bindings keep what they say', () => {
  for (const { obj } of v1.filter((x) => !bare(x) && refusal(x.file, x.obj) === undefined)) {
    const stored = createAs(kindOf(obj), creatable(obj)).obj;
    const spec = stored.spec as Record<string, any>;
    if (obj.kind === 'ValidatingAdmissionPolicy') {
      expect(['Fail', 'Ignore']).toContain(spec.failurePolicy);
      expect(spec.matchConstraints.matchPolicy).toMatch(/^(Equivalent|Exact)$/);
      expect(spec.matchConstraints.namespaceSelector).toBeDefined();
      expect(spec.matchConstraints.objectSelector).toBeDefined();
      for (const r of spec.matchConstraints.resourceRules) expect(r.scope).toBeDefined();
      expect(stored.status).toEqual({});
    } else if (spec.matchResources === undefined) {
      expect((obj.spec as Record<string, unknown>).matchResources).toBeUndefined();
    } else {
      expect(spec.matchResources.namespaceSelector).toBeDefined();
    }
  }
});

test('the typechecking examples (a deliberate type error on object) are accepted: object is dynamic at write time', () => {
  const typechecking = v1.filter(({ file }) => file.includes('typechecking'));
  expect(typechecking).toHaveLength(2);
  for (const { obj } of typechecking) expect(createAs(policies, obj).errors).toEqual([]);
});

test("kyverno's bare assertion shapes are refused with Kubernetes' required fields", () => {
  const shapes = v1.filter(bare);
  expect(shapes.length).toBeGreaterThan(0);
  for (const { obj } of shapes) {
    const errors = createAs(kindOf(obj), creatable(obj)).errors;
    if (obj.kind === 'ValidatingAdmissionPolicy') {
      expect(errors).toEqual([
        'spec.matchConstraints: Required value',
        'spec.validations: Required value: validations or auditAnnotations must contain at least one item',
        'spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item',
      ]);
    } else {
      expect(errors).toEqual(['spec.policyName: Required value', 'spec.validationActions: Required value: at least one validation action is required']);
    }
  }
});
