/**
 * End to end: the RBAC kinds with stock kubectl 1.32 (the dispatcher on PATH) against the BUILT server
 * under `--group-domain=k8s.io`, where kubectl's RBAC commands hard-code `rbac.authorization.k8s.io`:
 *
 * - `kubectl get clusterroles` lists the bootstrap roles with kubectl's NAME / CREATED AT columns, and
 *   `kubectl get clusterrolebindings -o wide` the bootstrap bindings with ROLE and their subjects;
 * - `kubectl create role|clusterrole|rolebinding|clusterrolebinding` create what they say (with
 *   `--resource-name`, `--non-resource-url`, `--aggregation-rule`, users, groups and service accounts),
 *   and `kubectl get` prints them; refusals come back as kube's validation messages;
 * - a ClusterRole created with `kubectl create clusterrole` and labelled `aggregate-to-view` has its rules
 *   aggregated into `view` by the controller.
 *
 * `auth can-i` is tested with the authorizer (kubectl-rbac-matrix.test.ts), `auth reconcile` in kubectl-auth-reconcile.test.ts.
 */
import { requireBuild, headerLine, parseTable, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

const GROUP = 'rbac.authorization.k8s.io';

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

describe('kubectl and the RBAC kinds (--group-domain=k8s.io)', () => {
  let server: RunningApiserver;
  const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);

  beforeAll(async () => {
    server = await startApiserver(['--group-domain=k8s.io']);
    ok(await kubectl('create', 'namespace', 'team'));
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('api-resources lists the four kinds in rbac.authorization.k8s.io/v1', async () => {
    const rows = parseTable(ok(await kubectl('api-resources', `--api-group=${GROUP}`)));
    expect(rows.map((r) => `${r.NAME} ${r.APIVERSION} ${r.NAMESPACED} ${r.KIND}`).sort()).toEqual([
      `clusterrolebindings ${GROUP}/v1 false ClusterRoleBinding`,
      `clusterroles ${GROUP}/v1 false ClusterRole`,
      `rolebindings ${GROUP}/v1 true RoleBinding`,
      `roles ${GROUP}/v1 true Role`,
    ]);
  });

  it('get clusterroles shows the bootstrap roles with NAME and CREATED AT', async () => {
    const out = ok(await kubectl('get', 'clusterroles'));
    expect(headerLine(out)).toMatch(/^NAME\s+CREATED AT$/);
    const rows = parseTable(out);
    const names = rows.map((r) => r.NAME);
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:monitoring']) {
      expect(names).toContain(name);
    }
    expect(rows.find((r) => r.NAME === 'cluster-admin')!['CREATED AT']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const admin = JSON.parse(ok(await kubectl('get', 'clusterrole', 'cluster-admin', '-o', 'json'))) as { metadata: { labels: Record<string, string>; annotations: Record<string, string> } };
    expect(admin.metadata.labels['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
    expect(admin.metadata.annotations['rbac.authorization.kubernetes.io/autoupdate']).toBe('true');
  });

  it('get clusterrolebindings -o wide shows ROLE and the subjects', async () => {
    const out = ok(await kubectl('get', 'clusterrolebindings', '-o', 'wide'));
    expect(headerLine(out)).toMatch(/^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/);
    const rows = parseTable(out);
    expect(rows.find((r) => r.NAME === 'cluster-admin')).toMatchObject({ ROLE: 'ClusterRole/cluster-admin', GROUPS: 'system:masters' });
    expect(rows.find((r) => r.NAME === 'system:public-info-viewer')).toMatchObject({ GROUPS: 'system:authenticated, system:unauthenticated' });
  });

  it('create role, then get and describe it', async () => {
    expect(ok(await kubectl('create', 'role', 'cm-reader', '-n', 'team', '--verb=get,list,watch', '--resource=configmaps', '--resource-name=app'))).toBe(
      `role.${GROUP}/cm-reader created\n`,
    );
    const role = JSON.parse(ok(await kubectl('get', 'role', 'cm-reader', '-n', 'team', '-o', 'json'))) as { rules: unknown[] };
    expect(role.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['app'], verbs: ['get', 'list', 'watch'] }]);
    const rows = parseTable(ok(await kubectl('get', 'roles', '-n', 'team')));
    expect(rows.map((r) => r.NAME)).toEqual(['cm-reader']);
    expect(ok(await kubectl('describe', 'role', 'cm-reader', '-n', 'team'))).toMatch(/configmaps\s+\[\]\s+\[app\]\s+\[get list watch\]/);
  });

  it('create clusterrole with resources and with non-resource URLs', async () => {
    expect(ok(await kubectl('create', 'clusterrole', 'secret-writer', '--verb=create,update', '--resource=secrets,serviceaccounts'))).toBe(
      `clusterrole.${GROUP}/secret-writer created\n`,
    );
    ok(await kubectl('create', 'clusterrole', 'log-reader', '--verb=get', '--non-resource-url=/logs/*,/healthz'));
    const role = JSON.parse(ok(await kubectl('get', 'clusterrole', 'log-reader', '-o', 'json'))) as { rules: unknown[] };
    expect(role.rules).toEqual([{ nonResourceURLs: ['/logs/*', '/healthz'], verbs: ['get'] }]);
  });

  it('create rolebinding and clusterrolebinding with users, groups and service accounts', async () => {
    expect(ok(await kubectl('create', 'rolebinding', 'read-app', '-n', 'team', '--role=cm-reader', '--user=alice', '--group=devs', '--serviceaccount=team:builder'))).toBe(
      `rolebinding.${GROUP}/read-app created\n`,
    );
    const rows = parseTable(ok(await kubectl('get', 'rolebindings', '-n', 'team', '-o', 'wide')));
    expect(rows).toEqual([{ NAME: 'read-app', ROLE: 'Role/cm-reader', AGE: expect.stringMatching(/^\d+s$/), USERS: 'alice', GROUPS: 'devs', SERVICEACCOUNTS: 'team/builder' }]);

    expect(ok(await kubectl('create', 'clusterrolebinding', 'writers', '--clusterrole=secret-writer', '--user=bob', '--user=carol'))).toBe(
      `clusterrolebinding.${GROUP}/writers created\n`,
    );
    const crb = JSON.parse(ok(await kubectl('get', 'clusterrolebinding', 'writers', '-o', 'json'))) as { roleRef: unknown; subjects: unknown[] };
    expect(crb.roleRef).toEqual({ apiGroup: GROUP, kind: 'ClusterRole', name: 'secret-writer' });
    expect(crb.subjects).toEqual([
      { apiGroup: GROUP, kind: 'User', name: 'bob' },
      { apiGroup: GROUP, kind: 'User', name: 'carol' },
    ]);
    // A RoleBinding may refer to a ClusterRole too, limited to its namespace.
    ok(await kubectl('create', 'rolebinding', 'view-team', '-n', 'team', '--clusterrole=view', '--group=auditors'));
    expect(parseTable(ok(await kubectl('get', 'rolebinding', 'view-team', '-n', 'team')))[0]).toMatchObject({ ROLE: 'ClusterRole/view' });
  });

  it('refusals carry kube\'s validation messages', async () => {
    const patched = await kubectl('patch', 'clusterrolebinding', 'writers', '--type=merge', '-p', '{"roleRef":{"name":"view"}}');
    expect(patched.status).not.toBe(0);
    expect(patched.stderr).toContain(`roleRef: Invalid value: rbac.RoleRef{APIGroup:"${GROUP}", Kind:"ClusterRole", Name:"view"}: cannot change roleRef`);
    const urlRole = await kubectl('create', '-f', server.file('bad-role.yaml', `apiVersion: ${GROUP}/v1
kind: Role
metadata:
  name: bad
  namespace: team
rules:
- verbs: ["get"]
  nonResourceURLs: ["/healthz"]
`));
    expect(urlRole.status).not.toBe(0);
    expect(urlRole.stderr).toContain('rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs');
  });

  it('a ClusterRole labelled aggregate-to-view is aggregated into view', async () => {
    ok(await kubectl('create', 'clusterrole', 'podtemplate-viewer', '--verb=get,list', '--resource=podtemplates'));
    ok(await kubectl('label', 'clusterrole', 'podtemplate-viewer', `${GROUP}/aggregate-to-view=true`));
    // The controller reacts to the label's watch event; poll kubectl until view carries the rule.
    const deadline = Date.now() + 20_000;
    for (;;) {
      const view = JSON.parse(ok(await kubectl('get', 'clusterrole', 'view', '-o', 'json'))) as { rules?: { resources?: string[] }[] };
      if ((view.rules ?? []).some((r) => r.resources?.includes('podtemplates'))) break;
      if (Date.now() > deadline) throw new Error(`view never gained the podtemplates rule: ${JSON.stringify(view.rules)}`);
    }
    // An aggregated role made with kubectl: its selector is the label.
    ok(await kubectl('create', 'clusterrole', 'team-view', `--aggregation-rule=${GROUP}/aggregate-to-view=true`));
    const agg = JSON.parse(ok(await kubectl('get', 'clusterrole', 'team-view', '-o', 'json'))) as { aggregationRule: unknown };
    expect(agg.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { [`${GROUP}/aggregate-to-view`]: 'true' } }] });
  }, 40_000);
});
