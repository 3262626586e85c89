/**
 * Authorization through HTTP (issue 10): an in-process server with static tokens (an admin in
 * system:masters, bob, carol), RBAC as the only mode, the RBAC objects written through the API and
 * picked up from the watch caches. Asserts decisions, Kubernetes' Forbidden wording, anonymous requests,
 * revocation, and escalation / bind prevention on RBAC writes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { eventually, startTestServer, stopAll, tempDir } from '../server/helpers.js';
import { apiRequest, type ApiRequestOptions, type ApiResponse } from './helpers.js';

afterAll(stopAll);

const RBAC = 'rbac.platform.io';
const tokens = ['admin-token,admin,admin-uid,"system:masters"', 'bob-token,bob,bob-uid', 'carol-token,carol,carol-uid'].join('\n');

let server: RunningServer;
const ns = 'team';
const other = 'elsewhere';

function as(token: string | null, method: string, path: string, o: ApiRequestOptions = {}): Promise<ApiResponse> {
  return apiRequest({ url: server.url, ca: server.caPem! }, method, path, { ...o, token });
}
const admin = (method: string, path: string, o: ApiRequestOptions = {}) => as('admin-token', method, path, o);
const bob = (method: string, path: string, o: ApiRequestOptions = {}) => as('bob-token', method, path, o);

async function must(res: Promise<ApiResponse>, status: number): Promise<ApiResponse> {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text()}`);
  return r;
}

/** The status and, for errors, the Status message. */
async function outcome(res: Promise<ApiResponse>): Promise<[number, string]> {
  const r = await res;
  return [r.status, r.status >= 400 ? String(r.json().message) : ''];
}

const role = (name: string, rules: unknown[]) => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name }, rules });
const binding = (name: string, roleKind: string, roleName: string, user: string) => ({
  apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name },
  roleRef: { apiGroup: RBAC, kind: roleKind, name: roleName }, subjects: [{ apiGroup: RBAC, kind: 'User', name: user }],
});

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'tokens.csv');
  writeFileSync(file, `${tokens}\n`);
  server = await startTestServer({ tokenAuthFile: file, authorizationModes: ['RBAC'] });
  for (const name of [ns, other]) {
    await must(admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }), 201);
  }
  for (const name of ['named', 'unnamed']) {
    await must(admin('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } }), 201);
  }
  await must(admin('POST', `/apis/${RBAC}/v1/namespaces/${ns}/roles`, { body: role('bob-role', [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
    { verbs: ['watch', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['named'] },
    { verbs: ['deletecollection'], apiGroups: [''], resources: ['secrets'] },
    { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
    { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] },
    { verbs: ['create'], apiGroups: [RBAC], resources: ['roles', 'rolebindings'] },
  ]) }), 201);
  await must(admin('POST', `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings`, { body: binding('bob-binding', 'Role', 'bob-role', 'bob') }), 201);
  await must(admin('POST', `/apis/${RBAC}/v1/clusterroles`, { body: {
    apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'metrics-reader' },
    rules: [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }],
  } }), 201);
  await must(admin('POST', `/apis/${RBAC}/v1/clusterrolebindings`, { body: {
    apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'bob-metrics' },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'metrics-reader' }, subjects: [{ apiGroup: RBAC, kind: 'User', name: 'bob' }],
  } }), 201);
  // The index follows the caches: wait until both bindings apply.
  await eventually(async () => (await bob('GET', `/api/v1/namespaces/${ns}/configmaps`)).status === 200
    && (await bob('GET', '/metrics')).status === 200, 'bob\'s bindings to apply');
}, 60_000);

const forbiddenIn = (what: string, verb: string, resource: string, group = '', namespace = ns, user = 'bob') =>
  `${what} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${group}" in the namespace "${namespace}"`;

describe('RBAC decisions over HTTP', () => {
  const cm = `/api/v1/namespaces/${ns}/configmaps`;
  it.each([
    ['list in the bound namespace', () => bob('GET', cm), 200, ''],
    ['get by name', () => bob('GET', `${cm}/unnamed`), 200, ''],
    ['HEAD is get', () => bob('HEAD', `${cm}/unnamed`), 200, ''],
    ['list in another namespace', () => bob('GET', `/api/v1/namespaces/${other}/configmaps`), 403,
      forbiddenIn('configmaps', 'list', 'configmaps', '', other)],
    ['list across namespaces', () => bob('GET', '/api/v1/configmaps'), 403,
      'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" at the cluster scope'],
    ['watch of the collection', () => bob('GET', cm, { query: { watch: 'true' } }), 403, forbiddenIn('configmaps', 'watch', 'configmaps')],
    ['watch through /watch/', () => bob('GET', `/api/v1/watch/namespaces/${ns}/configmaps`), 403, forbiddenIn('configmaps', 'watch', 'configmaps')],
    ['watch of one allowed name (field selector)', () => bob('GET', cm, { query: { watch: 'true', fieldSelector: 'metadata.name=named', timeoutSeconds: '1' } }), 200, ''],
    ['watch of another name', () => bob('GET', cm, { query: { watch: 'true', fieldSelector: 'metadata.name=unnamed' } }), 403,
      forbiddenIn('configmaps "unnamed"', 'watch', 'configmaps')],
    ['create (no name to match)', () => bob('POST', cm, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'named' } } }), 403,
      forbiddenIn('configmaps', 'create', 'configmaps')],
    ['update of the allowed name', () => bob('PUT', `${cm}/named`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'named' }, data: { a: 'b' } } }), 200, ''],
    ['update of another name', () => bob('PUT', `${cm}/unnamed`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'unnamed' } } }), 403,
      forbiddenIn('configmaps "unnamed"', 'update', 'configmaps')],
    ['patch is its own verb', () => bob('PATCH', `${cm}/named`, { body: { data: { c: 'd' } } }), 403, forbiddenIn('configmaps "named"', 'patch', 'configmaps')],
    ['delete is not deletecollection', () => bob('DELETE', `/api/v1/namespaces/${ns}/secrets/x`), 403, forbiddenIn('secrets "x"', 'delete', 'secrets')],
    ['deletecollection allowed', () => bob('DELETE', `/api/v1/namespaces/${ns}/secrets`), 200, ''],
    ['deletecollection refused', () => bob('DELETE', cm), 403, forbiddenIn('configmaps', 'deletecollection', 'configmaps')],
    // Authorization runs before routing: an allowed request for a resource this server does not serve is a 404.
    ['sub-resource allowed (pods/log)', () => bob('GET', `/api/v1/namespaces/${ns}/pods/p/log`), 404, 'the server could not find the requested resource'],
    ['the resource of an allowed sub-resource', () => bob('GET', `/api/v1/namespaces/${ns}/pods/p`), 403, forbiddenIn('pods "p"', 'get', 'pods')],
    ['another sub-resource', () => bob('GET', `/api/v1/namespaces/${ns}/pods/p/exec`), 403, forbiddenIn('pods "p"', 'get', 'pods/exec')],
    ['*/scale in apps', () => bob('GET', `/apis/apps/v1/namespaces/${ns}/deployments/d/scale`), 404, 'the server could not find the requested resource'],
    ['*/scale is not the resource', () => bob('GET', `/apis/apps/v1/namespaces/${ns}/deployments/d`), 403, forbiddenIn('deployments.apps "d"', 'get', 'deployments', 'apps')],
    ['cluster-scoped list', () => bob('GET', '/api/v1/namespaces'), 403,
      'namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" at the cluster scope'],
    ['a namespace is cluster-scoped with its own name as namespace', () => bob('GET', `/api/v1/namespaces/${ns}`), 403,
      forbiddenIn(`namespaces "${ns}"`, 'get', 'namespaces')],
    ['non-resource URL granted', () => bob('GET', '/metrics'), 200, ''],
    ['non-resource URL not granted', () => bob('GET', '/metrics/slis'), 403, 'forbidden: User "bob" cannot get path "/metrics/slis"'],
    ['non-resource URL, other verb', () => bob('POST', '/metrics'), 403, 'forbidden: User "bob" cannot post path "/metrics"'],
    ['discovery (system:discovery, authenticated)', () => bob('GET', '/apis'), 200, ''],
    ['OpenAPI (system:discovery)', () => bob('GET', '/openapi/v2'), 200, ''],
    ['health root (system:public-info-viewer)', () => bob('GET', '/readyz'), 200, ''],
    ['a single health check (system:monitoring only)', () => bob('GET', '/readyz/etcd'), 403, 'forbidden: User "bob" cannot get path "/readyz/etcd"'],
    ['carol holds nothing', () => as('carol-token', 'GET', cm), 403, forbiddenIn('configmaps', 'list', 'configmaps', '', ns, 'carol')],
    ['admin (system:masters) everything', () => admin('GET', '/api/v1/configmaps'), 200, ''],
    ['anonymous: version', () => as(null, 'GET', '/version'), 200, ''],
    ['anonymous: health', () => as(null, 'GET', '/healthz'), 200, ''],
    ['anonymous: discovery is for authenticated users', () => as(null, 'GET', '/api'), 403, 'forbidden: User "system:anonymous" cannot get path "/api"'],
    ['anonymous: a resource', () => as(null, 'GET', cm), 403, forbiddenIn('configmaps', 'list', 'configmaps', '', ns, 'system:anonymous')],
    ['anonymous: metrics', () => as(null, 'GET', '/metrics'), 403, 'forbidden: User "system:anonymous" cannot get path "/metrics"'],
    ['invalid token stays 401', () => as('nope', 'GET', '/version'), 401, 'Unauthorized'],
  ] as const)('%s', async (_name, send, status, message) => {
    expect(await outcome(send())).toEqual([status, message]);
  });

  it('a Forbidden Status names group, resource (without sub-resource) and name', async () => {
    const res = await bob('GET', `/apis/apps/v1/namespaces/${ns}/deployments/d/status`);
    expect(res.json()).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: forbiddenIn('deployments.apps "d"', 'get', 'deployments/status', 'apps'),
      details: { name: 'd', group: 'apps', kind: 'deployments' },
    });
  });

  it('a binding to a missing role gives its reason; deleting a binding revokes', async () => {
    await must(admin('POST', `/apis/${RBAC}/v1/namespaces/${other}/rolebindings`, { body: binding('dangling', 'Role', 'missing', 'carol') }), 201);
    const path = `/api/v1/namespaces/${other}/configmaps`;
    await eventually(async () => (await as('carol-token', 'GET', path)).json().message.includes('RBAC:'), 'the dangling binding to apply');
    expect(await outcome(as('carol-token', 'GET', path))).toEqual([403,
      `${forbiddenIn('configmaps', 'list', 'configmaps', '', other, 'carol')}: RBAC: role.${RBAC} "missing" not found`]);

    await must(admin('POST', `/apis/${RBAC}/v1/namespaces/${other}/roles`, { body: role('missing', [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] }]) }), 201);
    await eventually(async () => (await as('carol-token', 'GET', path)).status === 200, 'the role to appear');
    await must(admin('DELETE', `/apis/${RBAC}/v1/namespaces/${other}/rolebindings/dangling`), 200);
    await eventually(async () => (await as('carol-token', 'GET', path)).status === 403, 'the binding deletion to revoke');
  });
});

describe('escalation and bind prevention', () => {
  const roles = `/apis/${RBAC}/v1/namespaces/${ns}/roles`;
  const bindings = `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings`;
  const notHeld = (what: string, lines: string[]) =>
    `${what} is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;

  it('a role is created only with rules the writer holds', async () => {
    expect(await outcome(bob('POST', roles, { body: role('held', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]) }))).toEqual([201, '']);
    expect(await outcome(bob('POST', roles, { body: role('esc', [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', 'secrets'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods/exec'] },
    ]) }))).toEqual([403, notHeld(`roles.${RBAC} "esc"`, [
      '{APIGroups:[""], Resources:["pods/exec"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    ])]);
    // resourceNames: holding one name covers only that name.
    expect(await outcome(bob('POST', roles, { body: role('named-watch', [{ verbs: ['watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['named'] }]) }))).toEqual([201, '']);
    expect(await outcome(bob('POST', roles, { body: role('any-watch', [{ verbs: ['watch'], apiGroups: [''], resources: ['configmaps'] }]) }))).toEqual([403,
      notHeld(`roles.${RBAC} "any-watch"`, ['{APIGroups:[""], Resources:["configmaps"], Verbs:["watch"]}'])]);
  });

  it('a binding needs bind on the role or all its rules', async () => {
    expect(await outcome(bob('POST', bindings, { body: binding('to-held', 'Role', 'bob-role', 'carol') }))).toEqual([201, '']);
    const [status, message] = await outcome(bob('POST', bindings, { body: binding('to-edit', 'ClusterRole', 'edit', 'carol') }));
    expect(status).toBe(403);
    expect(message.startsWith(notHeld(`rolebindings.${RBAC} "to-edit"`, []))).toBe(true);
    expect(await outcome(bob('POST', bindings, { body: binding('to-nothing', 'Role', 'nope', 'carol') }))).toEqual([403,
      `rolebindings.${RBAC} "to-nothing" is forbidden: role.${RBAC} "nope" not found`]);
  });

  it('the escalate and bind verbs allow what holding does not', async () => {
    await must(admin('POST', roles, { body: role('grants', [
      { verbs: ['escalate'], apiGroups: [RBAC], resources: ['roles'] },
      { verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['edit'] },
    ]) }), 201);
    await must(admin('POST', bindings, { body: binding('bob-grants', 'Role', 'grants', 'bob') }), 201);
    const esc = role('esc2', [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]);
    await eventually(async () => (await bob('POST', roles, { body: esc, query: { dryRun: 'All' } })).status === 201, 'escalate to apply');
    expect(await outcome(bob('POST', roles, { body: esc }))).toEqual([201, '']);
    expect(await outcome(bob('POST', bindings, { body: binding('to-edit', 'ClusterRole', 'edit', 'carol') }))).toEqual([201, '']);
    expect((await outcome(bob('POST', bindings, { body: binding('to-admin', 'ClusterRole', 'admin', 'carol') })))[0]).toBe(403);
  });
});

describe('SelfSubjectRulesReview lists what RBAC grants', () => {
  it('bob sees his Role\'s rules in his namespace and only the cluster-wide ones elsewhere', async () => {
    const review = async (namespace: string) =>
      (await must(bob('POST', '/apis/authorization.platform.io/v1/selfsubjectrulesreviews', { body: { spec: { namespace } } }), 201)).json().status;
    const inNs = await review(ns);
    expect(inNs.incomplete).toBe(false);
    expect(inNs.resourceRules).toContainEqual({ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] });
    expect(inNs.resourceRules).toContainEqual({ verbs: ['watch', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['named'] });
    expect(inNs.nonResourceRules).toContainEqual({ verbs: ['get'], nonResourceURLs: ['/metrics'] });
    const elsewhere = await review(other);
    expect(elsewhere.resourceRules).not.toContainEqual(expect.objectContaining({ resources: ['configmaps'] }));
    expect(elsewhere.nonResourceRules).toContainEqual({ verbs: ['get'], nonResourceURLs: ['/metrics'] });
    // system:basic-user, bound to every authenticated user by the bootstrap policy, lets bob ask.
    expect(elsewhere.resourceRules).toContainEqual(expect.objectContaining({ verbs: ['create'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] }));
  });
});
