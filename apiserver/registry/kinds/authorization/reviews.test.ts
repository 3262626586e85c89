import type { KubeObject } from '../../../api/object.js';
import type { AuthorizationAttributes } from '../../../authorization/authorizer.js';
import { policyRulesResolver } from '../../../authorization/rules.js';
import { noServerServices, type VirtualContext } from '../../kind-strategy.js';
import { testContext } from '../shared/test-context.js';
import { selfSubjectReviews } from '../authentication/self-subject-review.js';
import { selfSubjectAccessReviews } from './self-subject-access-review.js';
import { selfSubjectRulesReviews } from './self-subject-rules-review.js';
import { subjectAccessReviews } from './subject-access-review.js';

const alice = { name: 'alice', uid: 'a1', groups: ['devs', 'system:authenticated'] };
const seen: AuthorizationAttributes[] = [];
const services = {
  ...noServerServices,
  authorizer: {
    authorize(a: AuthorizationAttributes) {
      seen.push(a);
      return a.verb === 'get' ? { decision: 'allow' as const, reason: '' } : { decision: 'no-opinion' as const, reason: '' };
    },
  },
  rules: policyRulesResolver({
    rulesFor: (user, namespace) => ({
      rules: user.name === 'alice' && namespace === 'ns1' ? [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }] : [],
      errors: namespace === 'broken' ? ['role "gone" not found'] : [],
    }),
  }),
};
const ctx = (): VirtualContext => ({ ...testContext('k8s.io', ''), user: alice, services });
// A default parameter would turn an explicit undefined back into alice.
const noUser = (): VirtualContext => ({ ...ctx(), user: undefined });
const o = (value: object): KubeObject => ({ metadata: {}, ...value }) as KubeObject;

it('SelfSubjectRulesReview lists the resolver\'s rules in Go\'s JSON shape, a fresh object without the spec', () => {
  const out = selfSubjectRulesReviews.virtual.create(o({ spec: { namespace: 'ns1' } }), ctx());
  expect(out).toEqual({
    metadata: {},
    spec: {},
    status: {
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
      incomplete: false,
    },
  });
  expect(selfSubjectRulesReviews.virtual.create(o({ spec: { namespace: 'broken' } }), ctx()).status).toEqual({
    resourceRules: [],
    nonResourceRules: [],
    incomplete: false,
    evaluationError: 'role "gone" not found',
  });
});

it('the self reviews need a user on the request (400, kube\'s message)', () => {
  for (const create of [
    () => selfSubjectReviews.virtual.create(o({}), noUser()),
    () => selfSubjectAccessReviews.virtual.create(o({ spec: { resourceAttributes: { verb: 'get' } } }), noUser()),
    () => selfSubjectRulesReviews.virtual.create(o({ spec: { namespace: 'ns1' } }), noUser()),
  ]) {
    expect(create).toThrow(expect.objectContaining({ code: 400, message: 'no user present on request' }));
  }
});

it('SelfSubjectAccessReview asks the authorizer about the requester; an empty version means every version', () => {
  seen.length = 0;
  const out = selfSubjectAccessReviews.virtual.create(o({ spec: { resourceAttributes: { verb: 'get', group: 'apps', resource: 'deployments', subresource: 'scale', name: 'w', namespace: 'n' } } }), ctx());
  expect(out.status).toEqual({ allowed: true });
  expect(seen).toEqual([{ user: alice, verb: 'get', isResourceRequest: true, path: '', namespace: 'n', apiGroup: 'apps', apiVersion: '*', resource: 'deployments', subresource: 'scale', name: 'w' }]);
  seen.length = 0;
  selfSubjectAccessReviews.virtual.create(o({ spec: { nonResourceAttributes: { verb: 'post', path: '/x' } } }), ctx());
  expect(seen[0]).toMatchObject({ isResourceRequest: false, verb: 'post', path: '/x', apiVersion: '' });
});

it('SubjectAccessReview asks about the subject of the spec, not the requester', () => {
  seen.length = 0;
  subjectAccessReviews.virtual.create(o({ spec: { user: 'bob', groups: ['g'], uid: 'b1', resourceAttributes: { verb: 'list', version: 'v1' } } }), ctx());
  expect(seen[0]).toMatchObject({ user: { name: 'bob', uid: 'b1', groups: ['g'] }, verb: 'list', apiVersion: 'v1' });
});

it('the access reviews validate with kube\'s rules and drop a status sent in', () => {
  const sar = o({ spec: { groups: ['g'], resourceAttributes: { verb: 'get' } }, status: { allowed: true } });
  subjectAccessReviews.prepareForCreate(sar);
  expect(sar.status).toBeUndefined();
  expect(subjectAccessReviews.validate(sar)).toEqual([]);
  // Empty values in metadata count as empty (kube compares semantically); managedFields are ignored.
  expect(subjectAccessReviews.validate(o({ metadata: { name: '', labels: {}, managedFields: [{ manager: 'm' }] }, spec: { user: 'u', resourceAttributes: {} } }))).toEqual([]);
  expect(subjectAccessReviews.validate(o({ metadata: { generateName: 'x' }, spec: { user: 'u', resourceAttributes: {} } })).map((e) => `${e.field}: ${e.detail}`)).toEqual(['metadata: must be empty']);
});
