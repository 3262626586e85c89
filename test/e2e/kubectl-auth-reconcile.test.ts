/**
 * End to end: `kubectl auth reconcile -f` (kubectl 1.32 through the dispatcher) against the BUILT server
 * under `--group-domain=k8s.io`. Reconcile reads each RBAC object, then creates it, adds what is missing
 * (rules, subjects) with an update, removes extras only when asked, recreates a binding whose roleRef
 * changed (roleRef is immutable), and creates a missing namespace first. The tests read the result back
 * and check that the server enforces it (`auth can-i --as`), and that a user without the permissions
 * cannot reconcile them into existence (escalation prevention).
 */
import { requireBuild, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

const GROUP = 'rbac.authorization.k8s.io';

/** A ClusterRole, a Role, a RoleBinding (User `user`) and a ClusterRoleBinding (Group readers -> `clusterRole`). */
function manifest(o: { verbs: string; user: string; namespace: string; clusterRole: string }): string {
  return `apiVersion: ${GROUP}/v1
kind: ClusterRole
metadata:
  name: widget-reader
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ${o.verbs}
---
apiVersion: ${GROUP}/v1
kind: Role
metadata:
  name: cm-editor
  namespace: ${o.namespace}
rules:
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["get", "update"]
---
apiVersion: ${GROUP}/v1
kind: RoleBinding
metadata:
  name: cm-editors
  namespace: ${o.namespace}
roleRef:
  apiGroup: ${GROUP}
  kind: Role
  name: cm-editor
subjects:
- kind: User
  name: ${o.user}
  apiGroup: ${GROUP}
---
apiVersion: ${GROUP}/v1
kind: ClusterRoleBinding
metadata:
  name: widget-readers
roleRef:
  apiGroup: ${GROUP}
  kind: ClusterRole
  name: ${o.clusterRole}
subjects:
- kind: Group
  name: readers
  apiGroup: ${GROUP}
`;
}

const base = { verbs: '["get", "list"]', user: 'alice', namespace: 'default', clusterRole: 'widget-reader' };

describe('kubectl auth reconcile -f (--group-domain=k8s.io)', () => {
  let server: RunningApiserver;
  const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
  const reconcile = async (o: typeof base, ...flags: string[]): Promise<string> =>
    ok(await kubectl('auth', 'reconcile', '-f', server.file('rbac.yaml', manifest(o)), ...flags));
  const jsonOf = async (...args: string[]): Promise<any> => JSON.parse(ok(await kubectl('get', ...args, '-o', 'json')));
  const canI = async (...args: string[]): Promise<string> => (await kubectl('auth', 'can-i', ...args)).stdout.trim();

  beforeAll(async () => {
    server = await startApiserver(['--group-domain=k8s.io']);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('creates what is missing, and the server enforces it', async () => {
    expect(await reconcile(base)).toBe([
      `clusterrole.${GROUP}/widget-reader reconciled`,
      `role.${GROUP}/cm-editor reconciled`,
      `rolebinding.${GROUP}/cm-editors reconciled`,
      `clusterrolebinding.${GROUP}/widget-readers reconciled`,
      '',
    ].join('\n'));
    expect((await jsonOf('clusterrole', 'widget-reader')).rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }]);
    expect(await canI('update', 'configmaps', '-n', 'default', '--as=alice')).toBe('yes');
    expect(await canI('delete', 'configmaps', '-n', 'default', '--as=alice')).toBe('no');
    expect(await canI('list', 'configmaps', '-A', '--as=carol', '--as-group=readers')).toBe('yes');
  });

  it('a second run changes nothing (same resourceVersions)', async () => {
    const before = (await jsonOf('clusterrole', 'widget-reader')).metadata.resourceVersion;
    const binding = (await jsonOf('rolebinding', 'cm-editors', '-n', 'default')).metadata.resourceVersion;
    await reconcile(base);
    expect((await jsonOf('clusterrole', 'widget-reader')).metadata.resourceVersion).toBe(before);
    expect((await jsonOf('rolebinding', 'cm-editors', '-n', 'default')).metadata.resourceVersion).toBe(binding);
  });

  it('adds missing rules and subjects, keeping extras unless --remove-extra-permissions / --remove-extra-subjects', async () => {
    await reconcile({ ...base, verbs: '["watch"]', user: 'bob' });
    expect((await jsonOf('clusterrole', 'widget-reader')).rules).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] },
    ]);
    expect((await jsonOf('rolebinding', 'cm-editors', '-n', 'default')).subjects.map((s: { name: string }) => s.name)).toEqual(['alice', 'bob']);

    await reconcile({ ...base, verbs: '["watch"]', user: 'bob' }, '--remove-extra-permissions', '--remove-extra-subjects');
    expect((await jsonOf('clusterrole', 'widget-reader')).rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] }]);
    expect((await jsonOf('rolebinding', 'cm-editors', '-n', 'default')).subjects.map((s: { name: string }) => s.name)).toEqual(['bob']);
    expect(await canI('update', 'configmaps', '-n', 'default', '--as=alice')).toBe('no');
    expect(await canI('update', 'configmaps', '-n', 'default', '--as=bob')).toBe('yes');
  });

  it('recreates a binding whose roleRef changed, and creates a missing namespace first', async () => {
    const old = await jsonOf('clusterrolebinding', 'widget-readers');
    await reconcile({ ...base, clusterRole: 'view', namespace: 'fresh' });
    const now = await jsonOf('clusterrolebinding', 'widget-readers');
    expect(now.roleRef).toEqual({ apiGroup: GROUP, kind: 'ClusterRole', name: 'view' });
    expect(now.metadata.uid).not.toBe(old.metadata.uid);
    expect((await jsonOf('namespace', 'fresh')).status.phase).toBe('Active');
    expect((await jsonOf('rolebinding', 'cm-editors', '-n', 'fresh')).roleRef.name).toBe('cm-editor');
  });

  it('a user who does not hold the permissions cannot reconcile them into a role (escalation is refused)', async () => {
    // mallory may manage roles in `default` (not `escalate`, which `*` would include) but holds nothing else there.
    ok(await kubectl('create', 'role', 'role-manager', '-n', 'default', '--verb=get,list,create,update,patch', `--resource=roles.${GROUP}`));
    ok(await kubectl('create', 'rolebinding', 'role-managers', '-n', 'default', '--role=role-manager', '--user=mallory'));
    const file = server.file('escalate.yaml', `apiVersion: ${GROUP}/v1
kind: Role
metadata:
  name: secret-reader
  namespace: default
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get"]
`);
    const res = await kubectl('auth', 'reconcile', '-f', file, '--as=mallory');
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('is attempting to grant RBAC permissions not currently held');
    expect((await kubectl('get', 'role', 'secret-reader', '-n', 'default')).status).not.toBe(0);
  });
});
