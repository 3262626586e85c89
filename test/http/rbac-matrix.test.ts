/**
 * The RBAC matrix of issue 10 through HTTP: one in-process server (memory store, `--group-domain=k8s.io`,
 * RBAC as the only mode), static-token users, service-account tokens and anonymous requests, and RBAC
 * objects written by the admin through the API. Every row names a subject, a request and the expected
 * decision: the status of an allowed request (200/201, or 404 where authorization passes and the server
 * has no such object or path) or 403 with Kubernetes' exact Forbidden message.
 *
 * Covered: namespaced against cluster scope (Role, ClusterRole through a RoleBinding, ClusterRole through a
 * ClusterRoleBinding), resourceNames, sub-resources (namespaces/status, nodes/status, serviceaccounts/token),
 * wildcards (`*` verbs, groups, resources, `* /status`), non-resource URLs (exact and `/prefix/*`), watch and
 * list of a forbidden resource, deletecollection, groups (a custom group, system:authenticated,
 * system:unauthenticated, system:serviceaccounts:<ns>), service-account subjects, anonymous, escalation and
 * bind refusals, and aggregation updates (awaited through the decision itself, never a sleep).
 *
 * The authorizer follows the watch caches, so before the table runs every row expected to pass is polled
 * until none is refused any more; mutating rows use `dryRun=All` (or a selector matching nothing) so the
 * rows stay independent of their order.
 */
import { writeFileSync } from 'node:fs';
import { clusterRole, clusterRoleBinding, G, paths, RBAC, role, roleBinding, rule, SA, U, type Rule } from '../harness/rbac-objects.js';
import { join } from 'node:path';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { eventually, startTestServer, stopAll, tempDir } from '../server/helpers.js';
import { apiRequest, type ApiRequestOptions, type ApiResponse } from './helpers.js';

afterAll(stopAll);

const RBAC_V1 = `/apis/${RBAC}/v1`;
const AUTHN = 'authentication.k8s.io';

/** Static-token users: `<name>-token`; dan is in the custom group `devs`. */
const USERS = ['rita', 'rob', 'cleo', 'nina', 'sam', 'wendy', 'gary', 'rex', 'stella', 'una', 'paul', 'nora', 'patty',
  'del', 'dell', 'eve', 'esme', 'bing', 'carl', 'ada', 'vic', 'zed'];
const tokenFile = ['admin-token,admin,admin-uid,"system:masters"', 'dan-token,dan,dan-uid,"devs"', ...USERS.map((u) => `${u}-token,${u},${u}-uid`)].join('\n');

let server: RunningServer;
/** Bearer tokens by subject: static users by name, service accounts as `system:serviceaccount:<ns>:<name>`. */
const tokens = new Map<string, string>();

/** A request as `who` (null: anonymous). */
function send(who: string | null, method: string, path: string, o: ApiRequestOptions = {}): Promise<ApiResponse> {
  const token = who === null ? null : tokens.get(who) ?? `${who}-token`;
  return apiRequest({ url: server.url, ca: server.caPem! }, method, path, { ...o, token });
}
const admin = (method: string, path: string, o: ApiRequestOptions = {}) => send('admin', method, path, o);

async function must(res: Promise<ApiResponse>, status: number): Promise<ApiResponse> {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text()}`);
  return r;
}

// ---- RBAC objects ----------------------------------------------------------------------------------------

const AGG_LABEL = 'matrix.example.com/aggregate-to-parent';

const CLUSTER_ROLES = [
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
  clusterRole('any-path', [paths(['get'], ['*'])]),
  clusterRole('cm-collection-deleter', [rule(['deletecollection'], [''], ['configmaps'])]),
  clusterRole('cm-deleter', [rule(['delete'], [''], ['configmaps'])]),
  clusterRole('podtemplate-lister', [rule(['list'], [''], ['podtemplates'])]),
  clusterRole('secret-reader', [rule(['get'], [''], ['secrets'])]),
  clusterRole('secret-writer', [rule(['update'], [''], ['secrets'])]),
  clusterRole('crb-writer', [rule(['create'], [RBAC], ['clusterrolebindings', 'clusterroles'])]),
  clusterRole('agg-parent', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [AGG_LABEL]: 'true' } }] } }),
];
const ROLES: [string, ReturnType<typeof role>][] = [
  ['a', role('ns-reader', [rule(['get', 'list', 'watch'], [''], ['configmaps'])])],
  ['a', role('eve-role', [rule(['create', 'update'], [RBAC], ['roles', 'rolebindings']), rule(['get', 'list'], [''], ['configmaps'])])],
  ['a', role('eve-held', [rule(['get'], [''], ['configmaps'])])],
  ['a', role('esme-role', [rule(['create', 'escalate'], [RBAC], ['roles'])])],
  ['a', role('bing-role', [rule(['create'], [RBAC], ['rolebindings']), rule(['bind'], [RBAC], ['clusterroles'], ['secret-reader'])])],
  ['a', role('robot-role', [rule(['list'], [''], ['configmaps'])])],
];
const ROLE_BINDINGS: [string, ReturnType<typeof roleBinding>][] = [
  ['a', roleBinding('rita', 'Role', 'ns-reader', [U('rita')])],
  ['a', roleBinding('rob-cm', 'ClusterRole', 'cm-reader', [U('rob')])],
  ['a', roleBinding('rob-nodes', 'ClusterRole', 'node-reader', [U('rob')])],
  ['a', roleBinding('nina', 'ClusterRole', 'cm1-only', [U('nina')])],
  ['a', roleBinding('sam-token', 'ClusterRole', 'token-maker', [U('sam')])],
  ['a', roleBinding('wendy', 'ClusterRole', 'cm-anything', [U('wendy')])],
  ['a', roleBinding('rex', 'ClusterRole', 'core-getter', [U('rex')])],
  ['b', roleBinding('una', 'ClusterRole', 'superuser', [U('una')])],
  ['a', roleBinding('nora', 'ClusterRole', 'paths', [U('nora')])],
  ['a', roleBinding('del', 'ClusterRole', 'cm-collection-deleter', [U('del')])],
  ['a', roleBinding('dell', 'ClusterRole', 'cm-deleter', [U('dell')])],
  ['a', roleBinding('devs', 'ClusterRole', 'cm-reader', [G('devs')])],
  ['b', roleBinding('authenticated', 'ClusterRole', 'podtemplate-lister', [G('system:authenticated')])],
  ['a', roleBinding('unauthenticated', 'ClusterRole', 'podtemplate-lister', [G('system:unauthenticated')])],
  ['b', roleBinding('anonymous', 'ClusterRole', 'cm1-only', [U('system:anonymous')])],
  ['a', roleBinding('eve', 'Role', 'eve-role', [U('eve')])],
  ['a', roleBinding('esme', 'Role', 'esme-role', [U('esme')])],
  ['a', roleBinding('bing', 'Role', 'bing-role', [U('bing')])],
  ['a', roleBinding('robot', 'Role', 'robot-role', [SA('a', 'robot')])],
  ['a', roleBinding('b-service-accounts', 'ClusterRole', 'secret-reader', [G('system:serviceaccounts:b')])],
  ['a', roleBinding('vic', 'ClusterRole', 'view', [U('vic')])],
];
const CLUSTER_ROLE_BINDINGS = [
  clusterRoleBinding('cleo-cm', 'cm-reader', [U('cleo')]),
  clusterRoleBinding('cleo-nodes', 'node-reader', [U('cleo')]),
  clusterRoleBinding('sam-status', 'status-writer', [U('sam')]),
  clusterRoleBinding('gary', 'events-lister', [U('gary')]),
  clusterRoleBinding('stella', 'status-anything', [U('stella')]),
  clusterRoleBinding('paul', 'paths', [U('paul')]),
  clusterRoleBinding('patty', 'any-path', [U('patty')]),
  clusterRoleBinding('carl', 'crb-writer', [U('carl')]),
  clusterRoleBinding('ada', 'agg-parent', [U('ada')]),
];

// ---- expected messages -----------------------------------------------------------------------------------

interface Target { readonly group?: string; readonly ns?: string; readonly name?: string; readonly sub?: string }
/** Kubernetes' Forbidden message of a resource request. */
function denied(user: string, verb: string, resource: string, t: Target = {}): string {
  const group = t.group ?? '';
  const what = `${group === '' ? resource : `${resource}.${group}`}${t.name === undefined ? '' : ` "${t.name}"`}`;
  const scope = t.ns === undefined ? 'at the cluster scope' : `in the namespace "${t.ns}"`;
  return `${what} is forbidden: User "${user}" cannot ${verb} resource "${t.sub === undefined ? resource : `${resource}/${t.sub}`}" in API group "${group}" ${scope}`;
}
const deniedPath = (user: string, verb: string, path: string) => `forbidden: User "${user}" cannot ${verb} path "${path}"`;
/** Kubernetes' escalation refusal on an RBAC write. */
const notHeld = (resource: string, name: string, user: string, groups: string[], lines: string[]) =>
  `${resource}.${RBAC} "${name}" is forbidden: user "${user}" (groups=[${groups.map((g) => JSON.stringify(g)).join(' ')}]) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
const AUTH = ['system:authenticated'];

// ---- the table -------------------------------------------------------------------------------------------

/** One row: who asks, what request, and the expected status (plus the Forbidden message when 403). */
interface Row {
  readonly title: string;
  readonly who: string | null;
  readonly method: string;
  readonly path: string;
  readonly options?: ApiRequestOptions;
  readonly status: number;
  readonly message?: string;
}

const cm = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name === '' ? '' : `/${name}`}`;
const DRY = { dryRun: 'All' };
const WATCH = { watch: 'true', timeoutSeconds: '1' };
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
const NOTHING = { labelSelector: 'matrix=none' };

function allow(title: string, who: string | null, method: string, path: string, status: number, options: ApiRequestOptions = {}): Row {
  return { title, who, method, path, status, options };
}
function deny(title: string, who: string | null, method: string, path: string, message: string, options: ApiRequestOptions = {}): Row {
  return { title, who, method, path, status: 403, message, options };
}

const SA_ROBOT = 'system:serviceaccount:a:robot';
const SA_OTHER = 'system:serviceaccount:a:other';
const SA_BOT = 'system:serviceaccount:b:bot';

const ROWS: Row[] = [
  // Role in a namespace: that namespace only.
  allow('Role: get in its namespace', 'rita', 'GET', cm('a', 'cm1'), 200),
  allow('Role: list in its namespace', 'rita', 'GET', cm('a'), 200),
  allow('Role: watch in its namespace', 'rita', 'GET', cm('a'), 200, { query: WATCH }),
  deny('Role: list in another namespace', 'rita', 'GET', cm('b'), denied('rita', 'list', 'configmaps', { ns: 'b' })),
  deny('Role: get in another namespace', 'rita', 'GET', cm('b', 'cm1'), denied('rita', 'get', 'configmaps', { ns: 'b', name: 'cm1' })),
  deny('Role: watch in another namespace', 'rita', 'GET', cm('b'), denied('rita', 'watch', 'configmaps', { ns: 'b' }), { query: { watch: 'true' } }),
  deny('Role: list across namespaces', 'rita', 'GET', '/api/v1/configmaps', denied('rita', 'list', 'configmaps')),
  deny('Role: watch across namespaces', 'rita', 'GET', '/api/v1/watch/configmaps', denied('rita', 'watch', 'configmaps')),
  deny('Role: a verb it lacks', 'rita', 'POST', cm('a'), denied('rita', 'create', 'configmaps', { ns: 'a' }), { body: configMap('x'), query: DRY }),
  deny('Role: delete it lacks', 'rita', 'DELETE', cm('a', 'cm1'), denied('rita', 'delete', 'configmaps', { ns: 'a', name: 'cm1' }), { query: DRY }),
  deny('Role: another resource (list of a forbidden resource)', 'rita', 'GET', '/api/v1/namespaces/a/secrets', denied('rita', 'list', 'secrets', { ns: 'a' })),
  deny('Role: watch of a forbidden resource', 'rita', 'GET', '/api/v1/namespaces/a/secrets', denied('rita', 'watch', 'secrets', { ns: 'a' }), { query: { watch: 'true' } }),
  deny('Role: watch of a forbidden resource through /watch/', 'rita', 'GET', '/api/v1/watch/namespaces/a/secrets', denied('rita', 'watch', 'secrets', { ns: 'a' })),
  deny('Role: get of a forbidden resource', 'rita', 'GET', '/api/v1/namespaces/a/secrets/s1', denied('rita', 'get', 'secrets', { ns: 'a', name: 's1' })),

  // ClusterRole through a RoleBinding: the binding's namespace only, never cluster-scoped resources.
  allow('ClusterRole via RoleBinding: list in the binding namespace', 'rob', 'GET', cm('a'), 200),
  allow('ClusterRole via RoleBinding: get in the binding namespace', 'rob', 'GET', cm('a', 'cm2'), 200),
  deny('ClusterRole via RoleBinding: list elsewhere', 'rob', 'GET', cm('b'), denied('rob', 'list', 'configmaps', { ns: 'b' })),
  deny('ClusterRole via RoleBinding: list across namespaces', 'rob', 'GET', '/api/v1/configmaps', denied('rob', 'list', 'configmaps')),
  deny('ClusterRole via RoleBinding: cluster-scoped list', 'rob', 'GET', '/api/v1/nodes', denied('rob', 'list', 'nodes')),
  deny('ClusterRole via RoleBinding: cluster-scoped get', 'rob', 'GET', '/api/v1/nodes/n1', denied('rob', 'get', 'nodes', { name: 'n1' })),

  // ClusterRole through a ClusterRoleBinding: every namespace and the cluster scope.
  allow('ClusterRoleBinding: list in a', 'cleo', 'GET', cm('a'), 200),
  allow('ClusterRoleBinding: list in b', 'cleo', 'GET', cm('b'), 200),
  allow('ClusterRoleBinding: list across namespaces', 'cleo', 'GET', '/api/v1/configmaps', 200),
  allow('ClusterRoleBinding: watch across namespaces', 'cleo', 'GET', '/api/v1/configmaps', 200, { query: WATCH }),
  allow('ClusterRoleBinding: cluster-scoped list', 'cleo', 'GET', '/api/v1/nodes', 200),
  allow('ClusterRoleBinding: cluster-scoped get', 'cleo', 'GET', '/api/v1/nodes/n1', 200),
  deny('ClusterRoleBinding: a verb it lacks (cluster scope)', 'cleo', 'DELETE', '/api/v1/nodes/n1', denied('cleo', 'delete', 'nodes', { name: 'n1' }), { query: DRY }),
  deny('ClusterRoleBinding: a verb it lacks (namespaced)', 'cleo', 'POST', cm('b'), denied('cleo', 'create', 'configmaps', { ns: 'b' }), { body: configMap('x'), query: DRY }),
  deny('ClusterRoleBinding: watch of an unbound cluster resource', 'cleo', 'GET', '/api/v1/namespaces', denied('cleo', 'watch', 'namespaces'), { query: { watch: 'true' } }),

  // resourceNames: get/update/patch/delete by name; list/watch/create/deletecollection name nothing.
  allow('resourceNames: get the named object', 'nina', 'GET', cm('a', 'cm1'), 200),
  allow('resourceNames: update the named object', 'nina', 'PUT', cm('a', 'cm1'), 200, { body: { ...configMap('cm1'), data: { k: 'v' } }, query: DRY }),
  allow('resourceNames: patch the named object', 'nina', 'PATCH', cm('a', 'cm1'), 200, { body: { data: { p: 'q' } }, query: DRY }),
  allow('resourceNames: delete the named object', 'nina', 'DELETE', cm('a', 'cm1'), 200, { query: DRY }),
  allow('resourceNames: list pinned to the name by a field selector', 'nina', 'GET', cm('a'), 200, { query: { fieldSelector: 'metadata.name=cm1' } }),
  allow('resourceNames: watch pinned to the name by a field selector', 'nina', 'GET', cm('a'), 200, { query: { ...WATCH, fieldSelector: 'metadata.name=cm1' } }),
  deny('resourceNames: get another name', 'nina', 'GET', cm('a', 'cm2'), denied('nina', 'get', 'configmaps', { ns: 'a', name: 'cm2' })),
  deny('resourceNames: update another name', 'nina', 'PUT', cm('a', 'cm2'), denied('nina', 'update', 'configmaps', { ns: 'a', name: 'cm2' }), { body: configMap('cm2'), query: DRY }),
  deny('resourceNames: delete another name', 'nina', 'DELETE', cm('a', 'cm2'), denied('nina', 'delete', 'configmaps', { ns: 'a', name: 'cm2' }), { query: DRY }),
  deny('resourceNames: list', 'nina', 'GET', cm('a'), denied('nina', 'list', 'configmaps', { ns: 'a' })),
  deny('resourceNames: watch', 'nina', 'GET', cm('a'), denied('nina', 'watch', 'configmaps', { ns: 'a' }), { query: { watch: 'true' } }),
  deny('resourceNames: watch pinned to another name', 'nina', 'GET', cm('a'), denied('nina', 'watch', 'configmaps', { ns: 'a', name: 'cm2' }), { query: { watch: 'true', fieldSelector: 'metadata.name=cm2' } }),
  deny('resourceNames: create (even of the named object)', 'nina', 'POST', cm('a'), denied('nina', 'create', 'configmaps', { ns: 'a' }), { body: configMap('cm1'), query: DRY }),
  deny('resourceNames: deletecollection', 'nina', 'DELETE', cm('a'), denied('nina', 'deletecollection', 'configmaps', { ns: 'a' }), { query: NOTHING }),
  deny('resourceNames: the named object in another namespace', 'nina', 'GET', cm('b', 'cm1'), denied('nina', 'get', 'configmaps', { ns: 'b', name: 'cm1' })),

  // Sub-resources.
  allow('namespaces/status: get', 'sam', 'GET', '/api/v1/namespaces/a/status', 200),
  allow('namespaces/status: patch', 'sam', 'PATCH', '/api/v1/namespaces/a/status', 200, { body: {}, query: DRY }),
  deny('namespaces/status does not grant the namespace', 'sam', 'GET', '/api/v1/namespaces/a', denied('sam', 'get', 'namespaces', { ns: 'a', name: 'a' })),
  deny('namespaces/status: a verb it lacks', 'sam', 'DELETE', '/api/v1/namespaces/a', denied('sam', 'delete', 'namespaces', { ns: 'a', name: 'a' }), { query: DRY }),
  allow('nodes/status: get', 'sam', 'GET', '/api/v1/nodes/n1/status', 200),
  allow('nodes/status: patch', 'sam', 'PATCH', '/api/v1/nodes/n1/status', 200, { body: {}, query: DRY }),
  deny('nodes/status does not grant the node', 'sam', 'GET', '/api/v1/nodes/n1', denied('sam', 'get', 'nodes', { name: 'n1' })),
  deny('nodes/status does not grant patching the node', 'sam', 'PATCH', '/api/v1/nodes/n1', denied('sam', 'patch', 'nodes', { name: 'n1' }), { body: {}, query: DRY }),
  allow('serviceaccounts/token: create in the binding namespace', 'sam', 'POST', '/api/v1/namespaces/a/serviceaccounts/robot/token', 201,
    { body: { apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest', spec: {} } }),
  deny('serviceaccounts/token: create elsewhere', 'sam', 'POST', '/api/v1/namespaces/b/serviceaccounts/bot/token',
    denied('sam', 'create', 'serviceaccounts', { ns: 'b', name: 'bot', sub: 'token' }), { body: { apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest', spec: {} } }),
  deny('serviceaccounts/token does not grant the service account', 'sam', 'GET', '/api/v1/namespaces/a/serviceaccounts/robot',
    denied('sam', 'get', 'serviceaccounts', { ns: 'a', name: 'robot' })),
  deny('serviceaccounts/token: get is another verb', 'sam', 'GET', '/api/v1/namespaces/a/serviceaccounts/robot/token',
    denied('sam', 'get', 'serviceaccounts', { ns: 'a', name: 'robot', sub: 'token' })),
  deny('a resource does not grant its sub-resources', 'cleo', 'GET', '/api/v1/nodes/n1/status', denied('cleo', 'get', 'nodes', { name: 'n1', sub: 'status' })),
  deny('a resource does not grant its sub-resources (namespaces)', 'rita', 'GET', '/api/v1/namespaces/a/status', denied('rita', 'get', 'namespaces', { ns: 'a', name: 'a', sub: 'status' })),

  // Wildcards: `*` verbs.
  allow('* verbs: get', 'wendy', 'GET', cm('a', 'cm1'), 200),
  allow('* verbs: list', 'wendy', 'GET', cm('a'), 200),
  allow('* verbs: watch', 'wendy', 'GET', cm('a'), 200, { query: WATCH }),
  allow('* verbs: create', 'wendy', 'POST', cm('a'), 201, { body: configMap('new'), query: DRY }),
  allow('* verbs: patch', 'wendy', 'PATCH', cm('a', 'cm2'), 200, { body: { data: { x: 'y' } }, query: DRY }),
  allow('* verbs: delete', 'wendy', 'DELETE', cm('a', 'cm2'), 200, { query: DRY }),
  allow('* verbs: deletecollection', 'wendy', 'DELETE', cm('a'), 200, { query: NOTHING }),
  deny('* verbs: only the rule\'s resources', 'wendy', 'GET', '/api/v1/namespaces/a/secrets', denied('wendy', 'list', 'secrets', { ns: 'a' })),
  deny('* verbs: only the binding namespace', 'wendy', 'GET', cm('b'), denied('wendy', 'list', 'configmaps', { ns: 'b' })),
  // `*` API groups.
  allow('* groups: core events', 'gary', 'GET', '/api/v1/namespaces/a/events', 200),
  allow('* groups: events.k8s.io events', 'gary', 'GET', '/apis/events.k8s.io/v1/namespaces/a/events', 200),
  allow('* groups: events across namespaces', 'gary', 'GET', '/apis/events.k8s.io/v1/events', 200),
  deny('* groups: only the rule\'s verbs', 'gary', 'GET', '/apis/events.k8s.io/v1/namespaces/a/events/e1',
    denied('gary', 'get', 'events', { group: 'events.k8s.io', ns: 'a', name: 'e1' })),
  deny('* groups: only the rule\'s resources', 'gary', 'GET', `${RBAC_V1}/namespaces/a/roles`, denied('gary', 'list', 'roles', { group: RBAC, ns: 'a' })),
  // `*` resources (in one group), which includes sub-resources.
  allow('* resources: configmaps', 'rex', 'GET', cm('a', 'cm1'), 200),
  allow('* resources: secrets', 'rex', 'GET', '/api/v1/namespaces/a/secrets/s1', 200),
  allow('* resources: a sub-resource', 'rex', 'GET', '/api/v1/namespaces/a/pods/p/log', 404),
  allow('* resources: a missing object is a 404, not a 403', 'rex', 'GET', '/api/v1/namespaces/a/serviceaccounts/ghost', 404),
  deny('* resources: only the rule\'s verbs', 'rex', 'GET', '/api/v1/namespaces/a/secrets', denied('rex', 'list', 'secrets', { ns: 'a' })),
  deny('* resources: only the rule\'s groups', 'rex', 'GET', `${RBAC_V1}/namespaces/a/roles/ns-reader`, denied('rex', 'get', 'roles', { group: RBAC, ns: 'a', name: 'ns-reader' })),
  deny('* resources through a RoleBinding: not cluster-scoped ones', 'rex', 'GET', '/api/v1/nodes/n1', denied('rex', 'get', 'nodes', { name: 'n1' })),
  // `*/status`.
  allow('*/status: nodes/status', 'stella', 'GET', '/api/v1/nodes/n1/status', 200),
  allow('*/status: namespaces/status', 'stella', 'GET', '/api/v1/namespaces/b/status', 200),
  allow('*/status: patch nodes/status', 'stella', 'PATCH', '/api/v1/nodes/n1/status', 200, { body: {}, query: DRY }),
  deny('*/status: not the resource itself', 'stella', 'GET', '/api/v1/nodes/n1', denied('stella', 'get', 'nodes', { name: 'n1' })),
  deny('*/status: not another sub-resource', 'stella', 'GET', '/api/v1/namespaces/a/pods/p/log', denied('stella', 'get', 'pods', { ns: 'a', name: 'p', sub: 'log' })),
  deny('*/status: only the rule\'s groups', 'stella', 'GET', `/apis/${RBAC}/v1/clusterroles/x/status`, denied('stella', 'get', 'clusterroles', { group: RBAC, name: 'x', sub: 'status' })),
  // Everything (`*` verbs, groups, resources) in one namespace.
  allow('superuser in its namespace: secrets', 'una', 'GET', '/api/v1/namespaces/b/secrets', 200),
  allow('superuser in its namespace: another group', 'una', 'GET', `${RBAC_V1}/namespaces/b/roles`, 200),
  allow('superuser in its namespace: a sub-resource', 'una', 'POST', '/api/v1/namespaces/b/serviceaccounts/bot/token', 201,
    { body: { apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest', spec: {} } }),
  allow('superuser in its namespace: deletecollection', 'una', 'DELETE', cm('b'), 200, { query: NOTHING }),
  allow('superuser in its namespace: binds what it holds', 'una', 'POST', `${RBAC_V1}/namespaces/b/rolebindings`, 201,
    { body: roleBinding('una-admin', 'ClusterRole', 'admin', [U('zed')]), query: DRY }),
  deny('superuser in its namespace: not another namespace', 'una', 'GET', '/api/v1/namespaces/a/secrets', denied('una', 'list', 'secrets', { ns: 'a' })),
  deny('superuser in its namespace: not the cluster scope', 'una', 'GET', '/api/v1/nodes', denied('una', 'list', 'nodes')),
  deny('superuser in its namespace: not across namespaces', 'una', 'GET', '/api/v1/secrets', denied('una', 'list', 'secrets')),
  deny('superuser in its namespace: no non-resource URLs', 'una', 'GET', '/metrics', deniedPath('una', 'get', '/metrics')),
  // `*` verbs include bind: a RoleBinding to cluster-admin passes though its non-resource rule is not held (as in kube).
  allow('superuser in its namespace: * verbs include bind, even of cluster-admin', 'una', 'POST', `${RBAC_V1}/namespaces/b/rolebindings`, 201,
    { body: roleBinding('una-cluster-admin', 'ClusterRole', 'cluster-admin', [U('zed')]), query: DRY }),

  // Non-resource URLs.
  allow('path: exact', 'paul', 'GET', '/metrics', 200),
  allow('path: HEAD is get', 'paul', 'HEAD', '/metrics', 200),
  allow('path: prefix/* below the prefix', 'paul', 'GET', '/debug/pprof', 404),
  allow('path: prefix/* deeper', 'paul', 'GET', '/debug/pprof/heap', 404),
  deny('path: exact is not a prefix', 'paul', 'GET', '/metrics/slis', deniedPath('paul', 'get', '/metrics/slis')),
  deny('path: prefix/* is not the bare prefix', 'paul', 'GET', '/debug', deniedPath('paul', 'get', '/debug')),
  deny('path: another verb', 'paul', 'POST', '/metrics', deniedPath('paul', 'post', '/metrics')),
  deny('path: another verb under a prefix', 'paul', 'PUT', '/debug/flags/v', deniedPath('paul', 'put', '/debug/flags/v')),
  deny('path: rules through a RoleBinding grant no paths', 'nora', 'GET', '/metrics', deniedPath('nora', 'get', '/metrics')),
  allow('path: * matches any path (a single health check)', 'patty', 'GET', '/readyz/etcd', 200),
  allow('path: * matches unknown paths', 'patty', 'GET', '/no/such/path', 404),
  deny('path: * with get only', 'patty', 'DELETE', '/metrics', deniedPath('patty', 'delete', '/metrics')),
  deny('path: * is no resource grant', 'patty', 'GET', cm('a'), denied('patty', 'list', 'configmaps', { ns: 'a' })),

  // deletecollection is its own verb.
  allow('deletecollection: granted', 'del', 'DELETE', cm('a'), 200, { query: NOTHING }),
  deny('deletecollection: does not grant delete', 'del', 'DELETE', cm('a', 'cm2'), denied('del', 'delete', 'configmaps', { ns: 'a', name: 'cm2' }), { query: DRY }),
  deny('deletecollection: only the binding namespace', 'del', 'DELETE', cm('b'), denied('del', 'deletecollection', 'configmaps', { ns: 'b' }), { query: NOTHING }),
  deny('deletecollection: not across namespaces (no such endpoint, still authorized first)', 'del', 'DELETE', '/api/v1/configmaps', denied('del', 'deletecollection', 'configmaps')),
  allow('delete: granted', 'dell', 'DELETE', cm('a', 'cm2'), 200, { query: DRY }),
  deny('delete: does not grant deletecollection', 'dell', 'DELETE', cm('a'), denied('dell', 'deletecollection', 'configmaps', { ns: 'a' }), { query: NOTHING }),

  // Groups.
  allow('custom group: list', 'dan', 'GET', cm('a'), 200),
  allow('custom group: watch', 'dan', 'GET', cm('a'), 200, { query: WATCH }),
  deny('custom group: elsewhere', 'dan', 'GET', cm('b'), denied('dan', 'list', 'configmaps', { ns: 'b' })),
  deny('not in the group', 'zed', 'GET', cm('a'), denied('zed', 'list', 'configmaps', { ns: 'a' })),
  allow('system:authenticated: any user', 'zed', 'GET', '/api/v1/namespaces/b/podtemplates', 200),
  allow('system:authenticated: a service account', SA_OTHER, 'GET', '/api/v1/namespaces/b/podtemplates', 200),
  deny('system:authenticated: not anonymous', null, 'GET', '/api/v1/namespaces/b/podtemplates', denied('system:anonymous', 'list', 'podtemplates', { ns: 'b' })),
  deny('system:unauthenticated: not an authenticated user', 'zed', 'GET', '/api/v1/namespaces/a/podtemplates', denied('zed', 'list', 'podtemplates', { ns: 'a' })),
  allow('system:unauthenticated: anonymous', null, 'GET', '/api/v1/namespaces/a/podtemplates', 200),
  allow('system:authenticated: bootstrap system:basic-user (self reviews)', 'zed', 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', 201,
    { body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } } }),
  allow('system:authenticated: bootstrap system:discovery', 'zed', 'GET', '/apis', 200),
  deny('system:authenticated: no SubjectAccessReview', 'zed', 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    denied('zed', 'create', 'subjectaccessreviews', { group: 'authorization.k8s.io' }), { body: {} }),

  // Service accounts.
  allow('service account subject: list', SA_ROBOT, 'GET', cm('a'), 200),
  deny('service account subject: a verb it lacks', SA_ROBOT, 'GET', cm('a', 'cm1'), denied(SA_ROBOT, 'get', 'configmaps', { ns: 'a', name: 'cm1' })),
  deny('service account subject: elsewhere', SA_ROBOT, 'GET', cm('b'), denied(SA_ROBOT, 'list', 'configmaps', { ns: 'b' })),
  deny('service account subject: another account', SA_OTHER, 'GET', cm('a'), denied(SA_OTHER, 'list', 'configmaps', { ns: 'a' })),
  allow('system:serviceaccounts:<ns> group', SA_BOT, 'GET', '/api/v1/namespaces/a/secrets/s1', 200),
  deny('system:serviceaccounts:<ns> group: another namespace\'s account', SA_ROBOT, 'GET', '/api/v1/namespaces/a/secrets/s1',
    denied(SA_ROBOT, 'get', 'secrets', { ns: 'a', name: 's1' })),
  deny('system:serviceaccounts:<ns> group: not a user outside it', 'zed', 'GET', '/api/v1/namespaces/a/secrets/s1', denied('zed', 'get', 'secrets', { ns: 'a', name: 's1' })),

  // Anonymous.
  allow('anonymous: User system:anonymous binding, the named object', null, 'GET', cm('b', 'cm1'), 200),
  deny('anonymous: the binding\'s resourceNames', null, 'GET', cm('b', 'cm2'), denied('system:anonymous', 'get', 'configmaps', { ns: 'b', name: 'cm2' })),
  deny('anonymous: list', null, 'GET', cm('b'), denied('system:anonymous', 'list', 'configmaps', { ns: 'b' })),
  deny('anonymous: watch', null, 'GET', cm('b'), denied('system:anonymous', 'watch', 'configmaps', { ns: 'b' }), { query: { watch: 'true' } }),
  allow('anonymous: /version (system:public-info-viewer)', null, 'GET', '/version', 200),
  allow('anonymous: /readyz', null, 'GET', '/readyz', 200),
  deny('anonymous: discovery', null, 'GET', '/apis', deniedPath('system:anonymous', 'get', '/apis')),
  deny('anonymous: metrics', null, 'GET', '/metrics', deniedPath('system:anonymous', 'get', '/metrics')),
  deny('anonymous: cluster scope', null, 'GET', '/api/v1/nodes', denied('system:anonymous', 'list', 'nodes')),

  // Escalation and bind prevention (authorized writes, refused by the RBAC kinds).
  allow('escalation: a Role with held rules', 'eve', 'POST', `${RBAC_V1}/namespaces/a/roles`, 201,
    { body: role('eve-sub', [rule(['get'], [''], ['configmaps'])]), query: DRY }),
  deny('escalation: a Role with a rule not held', 'eve', 'POST', `${RBAC_V1}/namespaces/a/roles`,
    notHeld('roles', 'eve-esc', 'eve', AUTH, ['{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}']),
    { body: role('eve-esc', [rule(['get'], [''], ['secrets'])]), query: DRY }),
  deny('escalation: only the missing rules are named', 'eve', 'POST', `${RBAC_V1}/namespaces/a/roles`,
    notHeld('roles', 'eve-mix', 'eve', AUTH, ['{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}', '{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}']),
    { body: role('eve-mix', [rule(['get', 'list', 'delete'], [''], ['configmaps']), rule(['list'], [''], ['secrets'])]), query: DRY }),
  deny('escalation: an update adding a rule not held', 'eve', 'PUT', `${RBAC_V1}/namespaces/a/roles/eve-held`,
    notHeld('roles', 'eve-held', 'eve', AUTH, ['{APIGroups:[""], Resources:["configmaps"], Verbs:["watch"]}']),
    { body: role('eve-held', [rule(['get', 'watch'], [''], ['configmaps'])]), query: DRY }),
  allow('bind: a RoleBinding to a Role whose rules are held', 'eve', 'POST', `${RBAC_V1}/namespaces/a/rolebindings`, 201,
    { body: roleBinding('eve-to-zed', 'Role', 'eve-held', [U('zed')]), query: DRY }),
  deny('bind: a RoleBinding to a role not held', 'eve', 'POST', `${RBAC_V1}/namespaces/a/rolebindings`,
    notHeld('rolebindings', 'eve-secrets', 'eve', AUTH, ['{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}']),
    { body: roleBinding('eve-secrets', 'ClusterRole', 'secret-reader', [U('zed')]), query: DRY }),
  deny('bind: a RoleBinding to cluster-admin', 'eve', 'POST', `${RBAC_V1}/namespaces/a/rolebindings`,
    notHeld('rolebindings', 'eve-admin', 'eve', AUTH, ['{APIGroups:["*"], Resources:["*"], Verbs:["*"]}', '{NonResourceURLs:["*"], Verbs:["*"]}']),
    { body: roleBinding('eve-admin', 'ClusterRole', 'cluster-admin', [U('zed')]), query: DRY }),
  deny('bind: a RoleBinding to a missing role', 'eve', 'POST', `${RBAC_V1}/namespaces/a/rolebindings`,
    `rolebindings.${RBAC} "eve-none" is forbidden: role.${RBAC} "none" not found`,
    { body: roleBinding('eve-none', 'Role', 'none', [U('zed')]), query: DRY }),
  deny('escalation: writing roles elsewhere is not authorized at all', 'eve', 'POST', `${RBAC_V1}/namespaces/b/roles`,
    denied('eve', 'create', 'roles', { group: RBAC, ns: 'b' }), { body: role('eve-b', []), query: DRY }),
  allow('escalate verb: a Role with rules not held', 'esme', 'POST', `${RBAC_V1}/namespaces/a/roles`, 201,
    { body: role('esme-any', [rule(['*'], ['*'], ['*'])]), query: DRY }),
  deny('escalate verb: in its namespace only', 'esme', 'POST', `${RBAC_V1}/namespaces/b/roles`,
    denied('esme', 'create', 'roles', { group: RBAC, ns: 'b' }), { body: role('esme-b', []), query: DRY }),
  allow('bind verb: a RoleBinding to the named ClusterRole', 'bing', 'POST', `${RBAC_V1}/namespaces/a/rolebindings`, 201,
    { body: roleBinding('bing-reader', 'ClusterRole', 'secret-reader', [U('zed')]), query: DRY }),
  deny('bind verb: another ClusterRole', 'bing', 'POST', `${RBAC_V1}/namespaces/a/rolebindings`,
    notHeld('rolebindings', 'bing-writer', 'bing', AUTH, ['{APIGroups:[""], Resources:["secrets"], Verbs:["update"]}']),
    { body: roleBinding('bing-writer', 'ClusterRole', 'secret-writer', [U('zed')]), query: DRY }),
  deny('bind (cluster): a ClusterRoleBinding to a role not held', 'carl', 'POST', `${RBAC_V1}/clusterrolebindings`,
    notHeld('clusterrolebindings', 'carl-secrets', 'carl', AUTH, ['{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}']),
    { body: clusterRoleBinding('carl-secrets', 'secret-reader', [U('zed')]), query: DRY }),
  allow('bind (cluster): a ClusterRoleBinding to a role held', 'carl', 'POST', `${RBAC_V1}/clusterrolebindings`, 201,
    { body: clusterRoleBinding('carl-self', 'crb-writer', [U('zed')]), query: DRY }),
  deny('escalation (cluster): a ClusterRole with a rule not held', 'carl', 'POST', `${RBAC_V1}/clusterroles`,
    notHeld('clusterroles', 'carl-nodes', 'carl', AUTH, ['{APIGroups:[""], Resources:["nodes"], Verbs:["list"]}']),
    { body: clusterRole('carl-nodes', [rule(['list'], [''], ['nodes'])]), query: DRY }),
  deny('escalation (cluster): aggregationRule needs cluster-admin', 'carl', 'POST', `${RBAC_V1}/clusterroles`,
    `clusterroles.${RBAC} "carl-agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`,
    { body: clusterRole('carl-agg', [], { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } }), query: DRY }),
  allow('escalation (cluster): a ClusterRole with held rules', 'carl', 'POST', `${RBAC_V1}/clusterroles`, 201,
    { body: clusterRole('carl-sub', [rule(['create'], [RBAC], ['clusterroles'])]), query: DRY }),
];

// ---- setup -----------------------------------------------------------------------------------------------

async function serviceAccountToken(ns: string, name: string): Promise<string> {
  const res = await must(admin('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`,
    { body: { apiVersion: `${AUTHN}/v1`, kind: 'TokenRequest', spec: {} } }), 201);
  return res.json().status.token;
}

/** The rows expected to pass, with watches left out (they hold the connection for a second). */
const readinessRows = (): Row[] => ROWS.filter((r) => r.status !== 403 && r.options?.query?.watch === undefined);

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'tokens.csv');
  writeFileSync(file, `${tokenFile}\n`);
  server = await startTestServer({ tokenAuthFile: file, authorizationModes: ['RBAC'], groupDomain: 'k8s.io' });
  for (const name of ['a', 'b']) await must(admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }), 201);
  for (const [ns, name] of [['a', 'cm1'], ['a', 'cm2'], ['b', 'cm1'], ['b', 'cm2']] as const) await must(admin('POST', cm(ns), { body: configMap(name) }), 201);
  await must(admin('POST', '/api/v1/namespaces/a/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } } }), 201);
  await must(admin('POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } }), 201);
  for (const [ns, name] of [['a', 'robot'], ['a', 'other'], ['b', 'bot']] as const) {
    await must(admin('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } } }), 201);
    tokens.set(`system:serviceaccount:${ns}:${name}`, await serviceAccountToken(ns, name));
  }
  for (const o of CLUSTER_ROLES) await must(admin('POST', `${RBAC_V1}/clusterroles`, { body: o }), 201);
  for (const [ns, o] of ROLES) await must(admin('POST', `${RBAC_V1}/namespaces/${ns}/roles`, { body: o }), 201);
  for (const [ns, o] of ROLE_BINDINGS) await must(admin('POST', `${RBAC_V1}/namespaces/${ns}/rolebindings`, { body: o }), 201);
  for (const o of CLUSTER_ROLE_BINDINGS) await must(admin('POST', `${RBAC_V1}/clusterrolebindings`, { body: o }), 201);
  // The authorizer's index follows four watch caches: wait until no row expected to pass is refused.
  await eventually(async () => {
    const results = await Promise.all(readinessRows().map((r) => send(r.who, r.method, r.path, r.options)));
    return results.every((res) => res.status !== 403);
  }, 'every RBAC object to reach the authorizer');
}, 60_000);

describe('the RBAC matrix through HTTP', () => {
  it('has at least 100 rows', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(100);
    expect(new Set(ROWS.map((r) => r.title)).size).toBe(ROWS.length);
  });

  it.each(ROWS.map((r) => [r.title, r] as const))('%s', async (_title, row) => {
    const res = await send(row.who, row.method, row.path, row.options);
    const message = res.status === 403 ? String(res.json().message) : undefined;
    expect({ status: res.status, message }).toEqual({ status: row.status, message: row.message });
    if (res.status === 403) {
      // The Status of a refusal is kube's Forbidden Status.
      expect(res.json()).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403 });
    }
  });
});

describe('aggregation updates reach the aggregate\'s subjects', () => {
  const secretsInA = '/api/v1/namespaces/a/secrets';
  const accountsInB = '/api/v1/namespaces/b/serviceaccounts';
  const labelled = (name: string, labels: Record<string, string>, rules: Rule[]) =>
    ({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name, labels }, rules });
  const status = async (who: string, path: string) => (await send(who, 'GET', path)).status;

  it('a ClusterRole labelled for the aggregate grants through it once the controller catches up', async () => {
    expect(await send('ada', 'GET', secretsInA).then((r) => [r.status, r.json().message])).toEqual([403, denied('ada', 'list', 'secrets', { ns: 'a' })]);
    await must(admin('POST', `${RBAC_V1}/clusterroles`, { body: labelled('agg-child', { [AGG_LABEL]: 'true' }, [rule(['list'], [''], ['secrets'])]) }), 201);
    await eventually(async () => (await status('ada', secretsInA)) === 200, 'the aggregated rule to reach ada');
    // The aggregate stores the child's rules.
    const parent = (await must(admin('GET', `${RBAC_V1}/clusterroles/agg-parent`), 200)).json();
    expect(parent.rules).toEqual([{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }]);
    // The child's own subjects are unaffected (it is bound to nobody), and the grant is cluster-wide through the ClusterRoleBinding.
    expect(await status('ada', '/api/v1/secrets')).toBe(200);
    expect(await status('ada', '/api/v1/namespaces/a/configmaps')).toBe(403);
  });

  it('an update of the labelled role updates the grant', async () => {
    const child = (await must(admin('GET', `${RBAC_V1}/clusterroles/agg-child`), 200)).json();
    await must(admin('PUT', `${RBAC_V1}/clusterroles/agg-child`, { body: { ...child, rules: [rule(['list'], [''], ['serviceaccounts'])] } }), 200);
    await eventually(async () => (await status('ada', accountsInB)) === 200, 'the updated rule to reach ada');
    expect(await send('ada', 'GET', secretsInA).then((r) => [r.status, r.json().message])).toEqual([403, denied('ada', 'list', 'secrets', { ns: 'a' })]);
  });

  it('removing the label withdraws the grant', async () => {
    const child = (await must(admin('GET', `${RBAC_V1}/clusterroles/agg-child`), 200)).json();
    await must(admin('PUT', `${RBAC_V1}/clusterroles/agg-child`, { body: { ...child, metadata: { ...child.metadata, labels: {} } } }), 200);
    await eventually(async () => (await status('ada', accountsInB)) === 403, 'the grant to be withdrawn');
    expect((await must(admin('GET', `${RBAC_V1}/clusterroles/agg-parent`), 200)).json().rules ?? []).toEqual([]);
  });

  it('a role labelled aggregate-to-view extends the bootstrap view role through a RoleBinding', async () => {
    const path = '/api/v1/namespaces/a/configmaps';
    expect(await send('vic', 'GET', `${RBAC_V1}/namespaces/a/roles`).then((r) => [r.status, r.json().message])).toEqual([403, denied('vic', 'list', 'roles', { group: RBAC, ns: 'a' })]);
    expect(await status('vic', path)).toBe(200); // view already reads configmaps
    await must(admin('POST', `${RBAC_V1}/clusterroles`, { body: labelled('view-roles', { [`${RBAC}/aggregate-to-view`]: 'true' }, [rule(['list'], [RBAC], ['roles'])]) }), 201);
    await eventually(async () => (await status('vic', `${RBAC_V1}/namespaces/a/roles`)) === 200, 'view to aggregate the new rule');
    // Through the RoleBinding only: still nothing in b.
    expect(await send('vic', 'GET', `${RBAC_V1}/namespaces/b/roles`).then((r) => [r.status, r.json().message])).toEqual([403, denied('vic', 'list', 'roles', { group: RBAC, ns: 'b' })]);
    await must(admin('DELETE', `${RBAC_V1}/clusterroles/view-roles`), 200);
    await eventually(async () => (await status('vic', `${RBAC_V1}/namespaces/a/roles`)) === 403, 'the deleted role to leave view');
  });
});
