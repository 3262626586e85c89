/**
 * The RBAC matrix through the stock kubectl 1.32 (`auth can-i`) against the BUILT server under
 * `--group-domain=k8s.io`: one server, the RBAC objects applied once by the generated admin, then one
 * `kubectl auth can-i <verb> <resource>[/<name>] [--subresource] [-n ns] --as=<user> [--as-group=<g>]` per row,
 * sequentially (kubectl 1.32 takes a name as `<resource>/<name>`; the admin impersonates the row's subject; kubectl sends a protobuf SelfSubjectAccessReview).
 * The rows mirror test/http/rbac-matrix.test.ts where can-i applies (decisions, not HTTP wording): scope,
 * resourceNames, sub-resources, wildcards, non-resource URLs, deletecollection, watch/list of a forbidden
 * resource, groups and service accounts, and an aggregation update awaited through can-i itself. Anonymous
 * rows do not apply: can-i needs a SelfSubjectAccessReview, which anonymous may not create (asserted once).
 * Escalation and bind refusals are writes, so they are asserted through `kubectl create --dry-run=server`.
 */
import { clusterRole, clusterRoleBinding, G, inNamespace, paths, RBAC, role, roleBinding, rule, SA, U } from '../harness/rbac-objects.js';
import { requireBuild, startApiserver, type KubectlResult, type RunningApiserver } from './kubectl-helpers.js';

beforeAll(() => requireBuild());

const AGG_LABEL = 'matrix.example.com/aggregate-to-parent';

const OBJECTS = [
  ...['a', 'b'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
  clusterRole('cm-reader', [rule(['get', 'list', 'watch'], [''], ['configmaps'])]),
  clusterRole('node-reader', [rule(['get', 'list'], [''], ['nodes'])]),
  clusterRole('cm1-only', [rule(['get', 'update', 'patch', 'delete', 'list', 'watch', 'create', 'deletecollection'], [''], ['configmaps'], ['cm1'])]),
  clusterRole('status-writer', [rule(['get', 'patch', 'update'], [''], ['namespaces/status', 'nodes/status'])]),
  clusterRole('token-maker', [rule(['create'], [''], ['serviceaccounts/token'])]),
  clusterRole('cm-anything', [rule(['*'], [''], ['configmaps'])]),
  clusterRole('events-lister', [rule(['list'], ['*'], ['events'])]),
  clusterRole('core-getter', [rule(['get'], [''], ['*'])]),
  clusterRole('status-anything', [rule(['get', 'patch'], [''], ['*/status'])]),
  clusterRole('superuser', [rule(['*'], ['*'], ['*'])]),
  clusterRole('paths', [paths(['get'], ['/metrics', '/debug/*'])]),
  clusterRole('cm-collection-deleter', [rule(['deletecollection'], [''], ['configmaps'])]),
  clusterRole('podtemplate-lister', [rule(['list'], [''], ['podtemplates'])]),
  clusterRole('secret-reader', [rule(['get'], [''], ['secrets'])]),
  clusterRole('agg-parent', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [AGG_LABEL]: 'true' } }] } }),
  inNamespace('a', role('ns-reader', [rule(['get', 'list', 'watch'], [''], ['configmaps'])])),
  inNamespace('a', role('eve-role', [rule(['create'], [RBAC], ['roles', 'rolebindings']), rule(['get', 'list'], [''], ['configmaps'])])),
  inNamespace('a', role('robot-role', [rule(['list'], [''], ['configmaps'])])),
  inNamespace('a', roleBinding('rita', 'Role', 'ns-reader', [U('rita')])),
  inNamespace('a', roleBinding('rob-cm', 'ClusterRole', 'cm-reader', [U('rob')])),
  inNamespace('a', roleBinding('rob-nodes', 'ClusterRole', 'node-reader', [U('rob')])),
  inNamespace('a', roleBinding('nina', 'ClusterRole', 'cm1-only', [U('nina')])),
  inNamespace('a', roleBinding('sam-token', 'ClusterRole', 'token-maker', [U('sam')])),
  inNamespace('a', roleBinding('wendy', 'ClusterRole', 'cm-anything', [U('wendy')])),
  inNamespace('a', roleBinding('rex', 'ClusterRole', 'core-getter', [U('rex')])),
  inNamespace('b', roleBinding('una', 'ClusterRole', 'superuser', [U('una')])),
  inNamespace('a', roleBinding('nora', 'ClusterRole', 'paths', [U('nora')])),
  inNamespace('a', roleBinding('del', 'ClusterRole', 'cm-collection-deleter', [U('del')])),
  inNamespace('a', roleBinding('devs', 'ClusterRole', 'cm-reader', [G('devs')])),
  inNamespace('b', roleBinding('authenticated', 'ClusterRole', 'podtemplate-lister', [G('system:authenticated')])),
  inNamespace('a', roleBinding('unauthenticated', 'ClusterRole', 'podtemplate-lister', [G('system:unauthenticated')])),
  inNamespace('a', roleBinding('eve', 'Role', 'eve-role', [U('eve')])),
  inNamespace('a', roleBinding('robot', 'Role', 'robot-role', [SA('a', 'robot')])),
  inNamespace('a', roleBinding('b-service-accounts', 'ClusterRole', 'secret-reader', [G('system:serviceaccounts:b')])),
  clusterRoleBinding('cleo-cm', 'cm-reader', [U('cleo')]),
  clusterRoleBinding('cleo-nodes', 'node-reader', [U('cleo')]),
  clusterRoleBinding('sam-status', 'status-writer', [U('sam')]),
  clusterRoleBinding('gary', 'events-lister', [U('gary')]),
  clusterRoleBinding('stella', 'status-anything', [U('stella')]),
  clusterRoleBinding('paul', 'paths', [U('paul')]),
  clusterRoleBinding('ada', 'agg-parent', [U('ada')]),
];

/** `kubectl auth can-i` arguments after `auth can-i`, the impersonation flags, and the expected answer. */
type Row = readonly [title: string, args: readonly string[], as: readonly string[], answer: 'yes' | 'no'];
const as = (user: string, ...groups: string[]) => [`--as=${user}`, ...groups.map((g) => `--as-group=${g}`)];
const ROBOT = 'system:serviceaccount:a:robot';

const ROWS: readonly Row[] = [
  ['Role: get in its namespace', ['get', 'configmaps', '-n', 'a'], as('rita'), 'yes'],
  ['Role: watch in its namespace', ['watch', 'configmaps', '-n', 'a'], as('rita'), 'yes'],
  ['Role: list elsewhere', ['list', 'configmaps', '-n', 'b'], as('rita'), 'no'],
  ['Role: list across namespaces', ['list', 'configmaps', '--all-namespaces'], as('rita'), 'no'],
  ['Role: a verb it lacks', ['create', 'configmaps', '-n', 'a'], as('rita'), 'no'],
  ['Role: list of a forbidden resource', ['list', 'secrets', '-n', 'a'], as('rita'), 'no'],
  ['Role: watch of a forbidden resource', ['watch', 'secrets', '-n', 'a'], as('rita'), 'no'],
  ['ClusterRole via RoleBinding: its namespace', ['list', 'configmaps', '-n', 'a'], as('rob'), 'yes'],
  ['ClusterRole via RoleBinding: elsewhere', ['list', 'configmaps', '-n', 'b'], as('rob'), 'no'],
  ['ClusterRole via RoleBinding: cluster-scoped', ['list', 'nodes'], as('rob'), 'no'],
  ['ClusterRoleBinding: any namespace', ['list', 'configmaps', '-n', 'b'], as('cleo'), 'yes'],
  ['ClusterRoleBinding: across namespaces', ['watch', 'configmaps', '--all-namespaces'], as('cleo'), 'yes'],
  ['ClusterRoleBinding: cluster-scoped', ['get', 'nodes/n1'], as('cleo'), 'yes'],
  ['ClusterRoleBinding: a verb it lacks', ['delete', 'nodes'], as('cleo'), 'no'],
  ['resourceNames: get the name', ['get', 'configmaps/cm1', '-n', 'a'], as('nina'), 'yes'],
  ['resourceNames: update the name', ['update', 'configmaps/cm1', '-n', 'a'], as('nina'), 'yes'],
  ['resourceNames: delete the name', ['delete', 'configmaps/cm1', '-n', 'a'], as('nina'), 'yes'],
  ['resourceNames: get another name', ['get', 'configmaps/cm2', '-n', 'a'], as('nina'), 'no'],
  ['resourceNames: list', ['list', 'configmaps', '-n', 'a'], as('nina'), 'no'],
  ['resourceNames: watch', ['watch', 'configmaps', '-n', 'a'], as('nina'), 'no'],
  ['resourceNames: create', ['create', 'configmaps', '-n', 'a'], as('nina'), 'no'],
  ['resourceNames: deletecollection', ['deletecollection', 'configmaps', '-n', 'a'], as('nina'), 'no'],
  ['namespaces/status', ['patch', 'namespaces/a', '--subresource=status'], as('sam'), 'yes'],
  ['namespaces/status is not the namespace', ['patch', 'namespaces/a'], as('sam'), 'no'],
  ['nodes/status', ['get', 'nodes/n1', '--subresource=status'], as('sam'), 'yes'],
  ['nodes/status is not the node', ['get', 'nodes/n1'], as('sam'), 'no'],
  ['serviceaccounts/token in the binding namespace', ['create', 'serviceaccounts/robot', '--subresource=token', '-n', 'a'], as('sam'), 'yes'],
  ['serviceaccounts/token elsewhere', ['create', 'serviceaccounts/bot', '--subresource=token', '-n', 'b'], as('sam'), 'no'],
  ['a resource does not grant its sub-resource', ['get', 'nodes/n1', '--subresource=status'], as('cleo'), 'no'],
  ['* verbs: deletecollection', ['deletecollection', 'configmaps', '-n', 'a'], as('wendy'), 'yes'],
  ['* verbs: escalate (any verb)', ['escalate', 'configmaps', '-n', 'a'], as('wendy'), 'yes'],
  ['* verbs: not other resources', ['get', 'secrets', '-n', 'a'], as('wendy'), 'no'],
  ['* groups: core events', ['list', 'events', '-n', 'a'], as('gary'), 'yes'],
  ['* groups: events.k8s.io', ['list', 'events.events.k8s.io', '-n', 'a'], as('gary'), 'yes'],
  ['* groups: not other verbs', ['get', 'events.events.k8s.io', '-n', 'a'], as('gary'), 'no'],
  ['* resources: secrets', ['get', 'secrets', '-n', 'a'], as('rex'), 'yes'],
  ['* resources: a sub-resource', ['get', 'pods/p', '--subresource=log', '-n', 'a'], as('rex'), 'yes'],
  ['* resources: not other groups', ['get', `roles.${RBAC}`, '-n', 'a'], as('rex'), 'no'],
  ['*/status: nodes', ['patch', 'nodes/n1', '--subresource=status'], as('stella'), 'yes'],
  ['*/status: namespaces', ['get', 'namespaces/b', '--subresource=status'], as('stella'), 'yes'],
  ['*/status: not the resource', ['get', 'nodes/n1'], as('stella'), 'no'],
  ['*/status: not another sub-resource', ['get', 'pods/p', '--subresource=log', '-n', 'a'], as('stella'), 'no'],
  ['superuser in its namespace', ['create', `roles.${RBAC}`, '-n', 'b'], as('una'), 'yes'],
  ['superuser: not elsewhere', ['get', 'secrets', '-n', 'a'], as('una'), 'no'],
  ['superuser: not cluster-scoped', ['list', 'nodes'], as('una'), 'no'],
  ['path: exact', ['get', '/metrics'], as('paul'), 'yes'],
  ['path: prefix/*', ['get', '/debug/pprof'], as('paul'), 'yes'],
  ['path: exact is not a prefix', ['get', '/metrics/slis'], as('paul'), 'no'],
  ['path: prefix/* is not the bare prefix', ['get', '/debug'], as('paul'), 'no'],
  ['path: another verb', ['post', '/metrics'], as('paul'), 'no'],
  ['path: not through a RoleBinding', ['get', '/metrics'], as('nora'), 'no'],
  ['deletecollection granted', ['deletecollection', 'configmaps', '-n', 'a'], as('del'), 'yes'],
  ['deletecollection is not delete', ['delete', 'configmaps', '-n', 'a'], as('del'), 'no'],
  ['custom group', ['list', 'configmaps', '-n', 'a'], as('dan', 'devs'), 'yes'],
  ['custom group: elsewhere', ['list', 'configmaps', '-n', 'b'], as('dan', 'devs'), 'no'],
  ['custom group: without it', ['list', 'configmaps', '-n', 'a'], as('dan'), 'no'],
  ['system:authenticated', ['list', 'podtemplates', '-n', 'b'], as('zed'), 'yes'],
  ['system:unauthenticated is not authenticated users', ['list', 'podtemplates', '-n', 'a'], as('zed'), 'no'],
  ['service account subject', ['list', 'configmaps', '-n', 'a'], as(ROBOT), 'yes'],
  ['service account subject: elsewhere', ['list', 'configmaps', '-n', 'b'], as(ROBOT), 'no'],
  ['service account: another account', ['list', 'configmaps', '-n', 'a'], as('system:serviceaccount:a:other'), 'no'],
  ['system:serviceaccounts:<ns> group', ['get', 'secrets', '-n', 'a'], as('system:serviceaccount:b:bot'), 'yes'],
  ['system:serviceaccounts:<ns> group: another namespace', ['get', 'secrets', '-n', 'a'], as(ROBOT), 'no'],
  ['escalation: eve may create roles', ['create', 'roles', '-n', 'a'], as('eve'), 'yes'],
  ['escalation: eve may not escalate', ['escalate', 'roles', '-n', 'a'], as('eve'), 'no'],
  ['bind: eve may not bind', ['bind', 'clusterroles', '-n', 'a'], as('eve'), 'no'],
];

function ok(res: KubectlResult): string {
  if (res.status !== 0) throw new Error(`kubectl exited ${res.status}: ${res.stderr}${res.stdout}`);
  return res.stdout;
}

describe('the RBAC matrix through kubectl auth can-i (--group-domain=k8s.io)', () => {
  let server: RunningApiserver;
  const kubectl = (...args: string[]): Promise<KubectlResult> => server.kubectl(args);
  const canI = async (args: readonly string[], who: readonly string[]): Promise<string> => {
    const res = await kubectl('auth', 'can-i', ...args, ...who);
    // can-i exits 0 for yes and 1 for no; anything else (or other output) is a failure.
    if (res.status !== 0 && res.status !== 1) throw new Error(`kubectl exited ${res.status}: ${res.stderr}`);
    return `${res.stdout.trim()} (exit ${res.status})`;
  };
  const answer = (a: 'yes' | 'no') => `${a} (exit ${a === 'yes' ? 0 : 1})`;

  beforeAll(async () => {
    server = await startApiserver(['--group-domain=k8s.io']);
    ok(await kubectl('apply', '-f', server.file('rbac.json', JSON.stringify({ apiVersion: 'v1', kind: 'List', items: OBJECTS }))));
    // Await the authorizer's index (it follows the watch caches): the last binding of each kind answers yes.
    for (const [args, who] of [[['list', 'configmaps', '-n', 'a'], as(ROBOT)], [['get', '/metrics'], as('paul')], [['list', 'podtemplates', '-n', 'b'], as('zed')]] as const) {
      const deadline = Date.now() + 30_000;
      while ((await canI(args, who)) !== answer('yes')) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${args.join(' ')} to be allowed`);
      }
    }
  }, 90_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('has the rows', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(ROWS.map((r) => r[0])).size).toBe(ROWS.length);
  });

  it.each(ROWS)('%s', async (_title, args, who, expected) => {
    expect(await canI(args, who)).toBe(answer(expected));
  });

  it('an aggregated ClusterRole grants through the aggregate once the controller catches up', async () => {
    expect(await canI(['list', 'secrets', '-n', 'a'], as('ada'))).toBe(answer('no'));
    ok(await kubectl('create', 'clusterrole', 'agg-child', '--verb=list', '--resource=secrets'));
    ok(await kubectl('label', 'clusterrole', 'agg-child', `${AGG_LABEL}=true`));
    const deadline = Date.now() + 30_000;
    while ((await canI(['list', 'secrets', '-n', 'a'], as('ada'))) !== answer('yes')) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the aggregated rule');
    }
    expect(await canI(['list', 'secrets', '--all-namespaces'], as('ada'))).toBe(answer('yes'));
    expect(await canI(['get', 'secrets', '-n', 'a'], as('ada'))).toBe(answer('no'));
  }, 60_000);

  it('anonymous cannot ask: can-i needs a SelfSubjectAccessReview, which only authenticated users may create', async () => {
    const res = await kubectl('auth', 'can-i', 'get', '/version', ...as('system:anonymous'));
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "system:anonymous" cannot create resource "selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope');
  });

  it('escalation and bind refusals through kubectl create (server dry run)', async () => {
    const esc = await kubectl('create', 'role', 'eve-esc', '-n', 'a', '--verb=get', '--resource=secrets', '--dry-run=server', ...as('eve'));
    expect(esc.status).toBe(1);
    expect(esc.stderr).toContain(`roles.${RBAC} "eve-esc" is forbidden: user "eve" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`);
    const bind = await kubectl('create', 'rolebinding', 'eve-bind', '-n', 'a', '--clusterrole=secret-reader', '--user=zed', '--dry-run=server', ...as('eve'));
    expect(bind.status).toBe(1);
    expect(bind.stderr).toContain(`rolebindings.${RBAC} "eve-bind" is forbidden: user "eve" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`);
    // What eve holds she may grant.
    expect(ok(await kubectl('create', 'role', 'eve-ok', '-n', 'a', '--verb=get', '--resource=configmaps', '--dry-run=server', ...as('eve'))))
      .toBe(`role.${RBAC}/eve-ok created (server dry run)\n`);
  });
});
