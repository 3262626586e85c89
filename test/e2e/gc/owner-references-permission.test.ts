/**
 * OwnerReferencesPermissionEnforcement through HTTP: an in-process server with static tokens and RBAC, the
 * plugin enabled as `--enable-admission-plugins=OwnerReferencesPermissionEnforcement` does. Setting
 * ownerReferences needs `delete` on the object; making one blocking needs `update` on the owner's
 * `<resource>/finalizers` (403 with Kubernetes' messages otherwise). Also: the Job DELETE warning and a
 * Foreground DELETE answered through HTTP.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningServer } from '../../../apiserver/server/start-server.js';
import { naming } from '../../../apiserver/naming/naming.js';
import { OWNER_REFERENCES_PERMISSION_ENFORCEMENT } from '../../../apiserver/admission/plugins/owner-references-permission.js';
import { JOB_ORPHAN_WARNING } from '../../../apiserver/registry/generic/delete-propagation.js';
import { eventually, startTestServer, stopAll, tempDir } from '../../server/helpers.js';
import { apiRequest, type ApiRequestOptions, type ApiResponse } from '../../http/helpers.js';

const names = naming('platform.io');
const RBAC = names.group('rbac');
const ns = 'gc-perm';
const tokens = ['admin-token,admin,admin-uid,"system:masters"', 'alice-token,alice,alice-uid', 'bob-token,bob,bob-uid', 'carol-token,carol,carol-uid'].join('\n');

let server: RunningServer;

const as = (token: string, method: string, path: string, o: ApiRequestOptions = {}): Promise<ApiResponse> =>
  apiRequest({ url: server.url, ca: server.caPem! }, method, path, { ...o, token });

async function must(res: Promise<ApiResponse>, status: number): Promise<ApiResponse> {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text()}`);
  return r;
}

const cms = `/api/v1/namespaces/${ns}/configmaps`;
const configMap = (name: string, ownerReferences: unknown[] = []) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(ownerReferences.length ? { ownerReferences } : {}) } });

afterAll(async () => {
  await stopAll();
});

beforeAll(async () => {
  const file = join(tempDir(), 'tokens.csv');
  writeFileSync(file, `${tokens}\n`);
  server = await startTestServer({ tokenAuthFile: file, authorizationModes: ['RBAC'], enabledAdmissionPlugins: new Set([OWNER_REFERENCES_PERMISSION_ENFORCEMENT]) });
  await must(as('admin-token', 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), 201);
  const role = (name: string, rules: unknown[]) => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name }, rules });
  const bind = (user: string, roleName: string) => ({
    apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name: `${user}-${roleName}` },
    roleRef: { apiGroup: RBAC, kind: 'Role', name: roleName }, subjects: [{ apiGroup: RBAC, kind: 'User', name: user }],
  });
  const roles = `/apis/${RBAC}/v1/namespaces/${ns}/roles`;
  const bindings = `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings`;
  await must(as('admin-token', 'POST', roles, { body: role('writer', [{ verbs: ['get', 'create', 'update', 'delete'], apiGroups: [''], resources: ['configmaps'] }]) }), 201);
  await must(as('admin-token', 'POST', roles, { body: role('creator', [{ verbs: ['get', 'create'], apiGroups: [''], resources: ['configmaps'] }]) }), 201);
  await must(as('admin-token', 'POST', roles, { body: role('finalizer', [{ verbs: ['update'], apiGroups: [''], resources: ['configmaps/finalizers'] }]) }), 201);
  for (const [user, r] of [['alice', 'writer'], ['alice', 'finalizer'], ['bob', 'writer'], ['carol', 'creator']] as const) {
    await must(as('admin-token', 'POST', bindings, { body: bind(user, r) }), 201);
  }
  await must(as('admin-token', 'POST', cms, { body: configMap('owner') }), 201);
  await eventually(async () => (await as('carol-token', 'GET', `${cms}/owner`)).status === 200 && (await as('alice-token', 'GET', `${cms}/owner`)).status === 200, 'bindings to apply');
}, 60_000);

const ownerRef = async (block: boolean) => {
  const owner = (await must(as('admin-token', 'GET', `${cms}/owner`), 200)).json();
  return { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, blockOwnerDeletion: block };
};

test('blockOwnerDeletion needs update on the owner\'s finalizers: allowed for alice, 403 for bob', async () => {
  // The plugin follows RBAC changes: poll until alice's finalizers binding is in its index too.
  await eventually(async () => (await as('alice-token', 'POST', cms, { body: configMap('alice-dep', [await ownerRef(true)]) })).status === 201, 'alice allowed');
  const denied = await as('bob-token', 'POST', cms, { body: configMap('bob-dep', [await ownerRef(true)]) });
  expect(denied.status).toBe(403);
  expect(denied.json()).toMatchObject({
    reason: 'Forbidden',
    message: 'configmaps "bob-dep" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>',
  });
  // A non-blocking reference needs no more than delete on the object; making it blocking later does.
  await must(as('bob-token', 'POST', cms, { body: configMap('bob-dep', [await ownerRef(false)]) }), 201);
  const current = (await must(as('bob-token', 'GET', `${cms}/bob-dep`), 200)).json();
  current.metadata.ownerReferences = [await ownerRef(true)];
  const update = await as('bob-token', 'PUT', `${cms}/bob-dep`, { body: current });
  expect(update.status).toBe(403);
  expect(update.json().message).toContain('can\'t set finalizers on');
});

test('setting any ownerReference needs delete on the object', async () => {
  const denied = await as('carol-token', 'POST', cms, { body: configMap('carol-dep', [await ownerRef(false)]) });
  expect(denied.status).toBe(403);
  expect(denied.json().message).toBe('configmaps "carol-dep" is forbidden: cannot set an ownerRef on a resource you can\'t delete: , <nil>');
  // Without ownerReferences carol may create.
  await must(as('carol-token', 'POST', cms, { body: configMap('carol-plain') }), 201);
});

test('an owner kind the server does not serve cannot be made blocking', async () => {
  const res = await as('alice-token', 'POST', cms, { body: configMap('ghost-dep', [{ apiVersion: 'ghosts.example.com/v1', kind: 'Ghost', name: 'g', uid: 'g-uid', blockOwnerDeletion: true }]) });
  expect(res.status).toBe(403);
  expect(res.json().message).toBe('configmaps "ghost-dep" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ghosts.example.com/v1 Kind Ghost: no matches for kind "Ghost" in version "ghosts.example.com/v1"');
});

test('a Job DELETE without a policy warns and keeps the Job with the orphan finalizer; a Foreground DELETE answers the marked object', async () => {
  const jobs = `/apis/batch/v1/namespaces/${ns}/jobs`;
  const job = {
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j', finalizers: ['example.com/hold'] },
    spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } },
  };
  await must(as('admin-token', 'POST', jobs, { body: job }), 201);
  const del = await must(as('admin-token', 'DELETE', `${jobs}/j`), 200);
  expect(del.warnings()).toEqual([`299 - "${JOB_ORPHAN_WARNING}"`]);
  expect(del.json().metadata.finalizers).toEqual(['example.com/hold', 'orphan']);
  const bg = await must(as('admin-token', 'DELETE', `${jobs}/j`, { query: { propagationPolicy: 'Background' } }), 200);
  expect(bg.warnings()).toEqual([]);

  await must(as('admin-token', 'POST', cms, { body: configMap('fg') }), 201);
  const fg = await must(as('admin-token', 'DELETE', `${cms}/fg`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' } }), 200);
  expect(fg.json().metadata.finalizers).toEqual(['foregroundDeletion']);
  expect(fg.json().metadata.deletionTimestamp).toBeDefined();
  // The server's collector finishes it (no dependents).
  await eventually(async () => (await as('admin-token', 'GET', `${cms}/fg`)).status === 404, 'fg collected');
});
