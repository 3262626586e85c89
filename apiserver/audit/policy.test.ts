/**
 * The audit Policy: decoding and validation with kube's messages, and the policy matrix (which rule
 * decides, its level, omitted stages per rule and policy, omitManagedFields) over real request infos.
 */
import { naming } from '../naming/naming.js';
import { parseRequestInfo } from '../request/request-info.js';
import type { UserInfo } from '../auth/user-info.js';
import { PolicyChecker, stagesOf } from './policy-checker.js';
import { decodePolicy, PolicyError } from './policy.js';

const platform = naming('platform.io');

function info(method: string, url: string) {
  const u = new URL(url, 'https://x');
  return parseRequestInfo(method, u.pathname, u.searchParams);
}

const alice: UserInfo = { name: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'] };
const bob: UserInfo = { name: 'bob', uid: '', groups: ['ops', 'system:authenticated'] };
const node: UserInfo = { name: 'system:node:n1', uid: '', groups: ['system:nodes', 'system:authenticated'] };

describe('decodePolicy', () => {
  it('accepts audit.<domain>/v1 and audit.k8s.io/v1 (YAML and JSON); unknown fields are ignored', () => {
    const yaml = 'apiVersion: audit.platform.io/v1\nkind: Policy\nsomething: ignored\nrules:\n- level: Metadata\n';
    expect(decodePolicy(yaml, platform).rules).toHaveLength(1);
    const json = JSON.stringify({ apiVersion: 'audit.k8s.io/v1', kind: 'Policy', omitStages: ['RequestReceived'], rules: [{ level: 'None' }] });
    const p = decodePolicy(json, platform);
    expect(p.omitStages).toEqual(['RequestReceived']);
    expect(p.omitManagedFields).toBe(false);
  });

  it.each([
    ['apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]', /no kind "Policy" is registered for version "audit.k8s.io\/v1beta1"/],
    ['apiVersion: audit.platform.io/v1\nrules: [{level: None}]', /Object 'Kind' is missing/],
    ['apiVersion: audit.platform.io/v1\nkind: Policy\n', /^loaded illegal policy with 0 rules$/],
    ['apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{}]', /^rules\[0\]\.level: Required value$/],
    ['apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: Everything}]',
      /^rules\[0\]\.level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"$/],
    ['apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: ["healthz", "/a*b"]}]',
      /rules\[0\]\.nonResourceURLs\[0\]: Invalid value: "healthz": non-resource URL rules must begin with a '\/' character, rules\[0\]\.nonResourceURLs\[1\]: Invalid value: "\/a\*b": non-resource URL wildcards '\*' must be the final character of the rule/],
    ['apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: ["/x"], namespaces: [a]}]',
      /rules cannot apply to both regular resources and non-resource URLs/],
    ['apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: None, resources: [{group: "rbac/v1", resourceNames: [x]}]}]',
      /rules\[0\]\.resources\.group: Invalid value: "rbac\/v1": a lowercase RFC 1123 subdomain.*rules\[0\]\.resources\.resourceNames: Invalid value: \["x"\]: using resourceNames requires at least one resource/],
    ['apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: None, omitStages: [Done]}]',
      /rules\[0\]\.omitStages\[0\]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic/],
    ['apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: None, users: alice}]', /rules\[0\]\.users: Invalid value: "alice": failed decoding: expected a list of strings/],
    ['apiVersion: audit.platform.io/v1\nkind: Policy\nrules: [{level: None\n', /failed decoding: error decoding YAML/],
  ])('refuses %j', (text, message) => {
    expect(() => decodePolicy(text, platform)).toThrow(PolicyError);
    expect(() => decodePolicy(text, platform)).toThrow(message);
  });
});

describe('the policy matrix', () => {
  const policy = decodePolicy(`
apiVersion: audit.platform.io/v1
kind: Policy
omitStages: [RequestReceived]
omitManagedFields: true
rules:
# users: first match wins, even over later more specific rules
- level: None
  users: [system:node:n1]
# groups
- level: RequestResponse
  userGroups: [ops]
  verbs: [create]
  omitStages: [ResponseStarted]
  omitManagedFields: false
# a sub-resource form and a resource name
- level: Request
  resources:
  - group: ""
    resources: [pods/log, configmaps]
    resourceNames: [cfg]
# */sub and res/*
- level: Request
  resources:
  - group: ""
    resources: ["*/status"]
- level: Metadata
  resources:
  - group: apps
    resources: ["deployments/*"]
# namespaces only (all resources)
- level: Request
  namespaces: [team-a]
# a whole group
- level: RequestResponse
  resources:
  - group: rbac.platform.io
# non-resource URLs
- level: Metadata
  nonResourceURLs: [/healthz*, /version]
- level: None
  nonResourceURLs: ["*"]
# everything else
- level: Metadata
  omitStages: [Panic]
`, platform);
  const checker = new PolicyChecker(policy);
  const level = (user: UserInfo | undefined, method: string, url: string): string => checker.evaluate(user, info(method, url)).level;

  it.each([
    // user rule first: a node is never audited, even for requests later rules would log
    ['node', 'POST', '/api/v1/namespaces/team-a/pods', 'None'],
    // group + verb
    ['bob', 'POST', '/api/v1/namespaces/default/pods', 'RequestResponse'],
    ['bob', 'GET', '/api/v1/namespaces/default/pods/p', 'Metadata'],
    ['alice', 'POST', '/api/v1/namespaces/default/pods', 'Metadata'],
    // pods/log matches only the sub-resource, with the name
    ['alice', 'GET', '/api/v1/namespaces/default/pods/cfg/log', 'Request'],
    ['alice', 'GET', '/api/v1/namespaces/default/pods/other/log', 'Metadata'],
    ['alice', 'GET', '/api/v1/namespaces/default/configmaps/cfg', 'Request'],
    ['alice', 'GET', '/api/v1/namespaces/default/configmaps/other', 'Metadata'],
    ['alice', 'GET', '/api/v1/namespaces/default/pods/cfg', 'Metadata'],
    // */status: any resource's status, not the resource itself
    ['alice', 'PUT', '/api/v1/namespaces/default/pods/p/status', 'Request'],
    ['alice', 'PUT', '/api/v1/namespaces/default/services/s/status', 'Request'],
    // deployments/*: the resource and all its sub-resources, in that group only
    ['alice', 'GET', '/apis/apps.platform.io/v1/namespaces/default/deployments/d', 'Metadata'],
    ['alice', 'PUT', '/apis/apps.platform.io/v1/namespaces/default/deployments/d/scale', 'Metadata'],
    // namespaces: every resource in team-a, but not other namespaces or cluster-scoped requests
    ['alice', 'GET', '/api/v1/namespaces/team-a/secrets', 'Request'],
    ['alice', 'GET', '/api/v1/namespaces/team-b/secrets', 'Metadata'],
    // a whole group
    ['alice', 'DELETE', '/apis/rbac.platform.io/v1/clusterroles/x', 'RequestResponse'],
    // non-resource URLs: prefix with *, exact, catch-all
    ['alice', 'GET', '/healthz/etcd', 'Metadata'],
    ['alice', 'GET', '/version', 'Metadata'],
    ['alice', 'GET', '/metrics', 'None'],
    ['nobody', 'GET', '/openapi/v2', 'None'],
  ])('%s %s %s -> %s', (user, method, url, expected) => {
    const users: Record<string, UserInfo | undefined> = { alice, bob, node, nobody: undefined };
    expect(level(users[user], method, url)).toBe(expected);
  });

  it('unions the policy omitStages with each rule\'s; omitManagedFields per rule over the policy', () => {
    const create = checker.evaluate(bob, info('POST', '/api/v1/namespaces/default/pods'));
    expect(stagesOf(create.omitStages)).toEqual(['RequestReceived', 'ResponseStarted']);
    expect(create.omitManagedFields).toBe(false);
    const last = checker.evaluate(alice, info('GET', '/api/v1/nodes'));
    expect(last.level).toBe('Metadata');
    expect(stagesOf(last.omitStages)).toEqual(['RequestReceived', 'Panic']);
    expect(last.omitManagedFields).toBe(true);
  });

  it('is level None with the policy omitStages when no rule matches', () => {
    const p = new PolicyChecker(decodePolicy('apiVersion: audit.platform.io/v1\nkind: Policy\nomitStages: [Panic]\nrules: [{level: Metadata, users: [x]}]', platform));
    const c = p.evaluate(alice, info('GET', '/api/v1/pods'));
    expect(c.level).toBe('None');
    expect(stagesOf(c.omitStages)).toEqual(['Panic']);
  });

  it('matches a rule with resources only on resource requests, and nonResourceURLs only on the others', () => {
    const p = new PolicyChecker(decodePolicy(`
apiVersion: audit.platform.io/v1
kind: Policy
rules:
- level: Request
  resources: [{group: "", resources: ["*"]}]
- level: RequestResponse
  nonResourceURLs: ["/api*"]
`, platform));
    expect(p.evaluate(alice, info('GET', '/api/v1/pods')).level).toBe('Request');
    // /api itself is not a resource request: the nonResourceURLs rule
    expect(p.evaluate(alice, info('GET', '/api')).level).toBe('RequestResponse');
    expect(p.evaluate(alice, info('GET', '/apis/apps.platform.io/v1/deployments')).level).toBe('None');
  });
});
