/**
 * Impersonation (issue 10): the real filter chain of an in-process server (static tokens, the impersonation
 * filter) with a small table-driven Authorizer of the test's own, standing in for RBAC until it is wired:
 * each grant allows `impersonate` on one resource for one caller, optionally only for some names (as
 * `resourceNames`). The server's API handler is an echo of who the request acts as, so every row sees the
 * resulting user; the kubectl part also runs against the real API in k8s.io mode.
 *
 * Matrix: allowed and denied per kind of value (user, group, uid, extra), resourceNames, service-account
 * users (namespace-scoped check, their groups), anonymous, system:authenticated handling, the 400 for
 * groups/extras/uid without a user, header removal, kube's Forbidden wording and Status details, and the
 * stock kubectl's `--as` / `--as-group`.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { AuthorizationAttributes, Authorizer } from '../../apiserver/authorization/authorizer.js';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import type { Filter } from '../../apiserver/request/request-state.js';
import { isImpersonationHeader } from '../../apiserver/auth/impersonation.js';
import { startTestServer, stopAll, tempDir } from '../server/helpers.js';

afterAll(stopAll);

/** One `impersonate` grant: `names` undefined is any name (no resourceNames); `deny` refuses with that reason. */
interface Grant {
  readonly user: string;
  readonly resource: string;
  readonly subresource?: string;
  /** 'auth' stands for the server's `authentication.<domain>`. */
  readonly group?: '' | 'auth';
  readonly namespace?: string;
  readonly names?: readonly string[];
  readonly deny?: string;
}

/**
 * The table-driven authorizer: every request other than an impersonation check is allowed (it also stands
 * in for the authorization filter's authorizer); for `impersonate` the first matching grant decides, none is
 * no opinion. Records every impersonation check.
 */
function tableAuthorizer(grants: readonly Grant[], authGroup: string): Authorizer & { readonly seen: AuthorizationAttributes[] } {
  const seen: AuthorizationAttributes[] = [];
  return {
    seen,
    authorize(a) {
      if (a.verb !== 'impersonate') return { decision: 'allow', reason: '' };
      seen.push(a);
      for (const g of grants) {
        if (a.user.name !== g.user || a.resource !== g.resource) continue;
        if (a.subresource !== (g.subresource ?? '') || a.apiGroup !== (g.group === 'auth' ? authGroup : '')) continue;
        if (a.namespace !== (g.namespace ?? '')) continue;
        if (g.names !== undefined && !g.names.includes(a.name)) continue;
        return g.deny === undefined ? { decision: 'allow', reason: '' } : { decision: 'deny', reason: g.deny };
      }
      return { decision: 'no-opinion', reason: '' };
    },
  };
}

const grants: readonly Grant[] = [
  { user: 'alice', resource: 'users', names: ['bob', 'carol', 'system:anonymous', 'jürgen'] },
  { user: 'alice', resource: 'users', names: ['denied-with-reason'], deny: 'policy says no' },
  { user: 'alice', resource: 'groups', names: ['devs', 'ops', 'system:authenticated', 'system:unauthenticated'] },
  { user: 'alice', resource: 'serviceaccounts', namespace: 'ns1', names: ['robot'] },
  { user: 'alice', resource: 'userextras', subresource: 'scopes', group: 'auth', names: ['view'] },
  { user: 'alice', resource: 'userextras', subresource: 'example.com/project', group: 'auth' },
  { user: 'alice', resource: 'uids', group: 'auth', names: ['u-1'] },
  // No resourceNames: any user, group, service account (any namespace).
  { user: 'root', resource: 'users' },
  { user: 'root', resource: 'groups' },
];

const tokens = ['alice-token,alice,alice-uid,"team-a"', 'mallory-token,mallory,m-uid', 'root-token,root,r-uid'].join('\n');

/** Echoes who the request acts as, who authenticated it, and any impersonation header still present. */
const echo: Filter = async function echo(ctx) {
  ctx.body = {
    user: ctx.state.user,
    impersonatedBy: ctx.state.impersonatedBy ?? null,
    headers: Object.keys(ctx.req.headers).filter(isImpersonationHeader),
    rawHeaders: ctx.req.rawHeaders.filter((_, i) => i % 2 === 0 && isImpersonationHeader(ctx.req.rawHeaders[i]!)),
    distinct: Object.keys(ctx.req.headersDistinct).filter(isImpersonationHeader),
  };
};

interface Started {
  readonly server: RunningServer;
  readonly authorizer: ReturnType<typeof tableAuthorizer>;
  readonly dataDir: string;
}

async function start(groupDomain: string, api?: Filter): Promise<Started> {
  const dataDir = tempDir('impersonation-');
  const tokenFile = join(dataDir, 'tokens.csv');
  writeFileSync(tokenFile, tokens);
  const authorizer = tableAuthorizer(grants, `authentication.${groupDomain}`);
  const server = await startTestServer({ dataDir, tokenAuthFile: tokenFile, groupDomain }, { authorizer, ...(api === undefined ? {} : { api }) });
  return { server, authorizer, dataDir };
}

interface Reply {
  readonly status: number;
  readonly body: any;
}

/**
 * GET `path` with `token` and the headers as raw [name, value] pairs (repeated names stay separate lines).
 * Values are sent as their UTF-8 bytes.
 */
function get(server: RunningServer, token: string, headers: readonly (readonly [string, string])[], path = '/echo'): Promise<Reply> {
  const url = new URL(path, server.url);
  // Raw header lists get no Host from Node.
  const raw = ['Host', url.host, 'Authorization', `Bearer ${token}`];
  for (const [n, v] of headers) raw.push(n, Buffer.from(v, 'utf8').toString('latin1'));
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'GET', ca: server.caPem, agent: false, headers: raw }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parseBody(Buffer.concat(chunks)) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** JSON, or the text itself when the server answered something else (so a wrong answer fails an expect). */
function parseBody(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return raw.toString('utf8');
  }
}

const authed = 'system:authenticated';
const forbiddenUsers = (name: string, caller = 'alice'): string =>
  `users "${name}" is forbidden: User "${caller}" cannot impersonate resource "users" in API group "" at the cluster scope`;

describe('impersonation (platform.io)', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start('platform.io', echo);
  });

  /** Rows that succeed: headers in, the user the request acts as out. */
  const allowed: readonly { name: string; caller?: string; headers: [string, string][]; user: object }[] = [
    { name: 'a user', headers: [['Impersonate-User', 'bob']], user: { name: 'bob', uid: '', groups: [authed] } },
    {
      name: 'a user and two groups (repeated header)',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Group', 'devs'], ['Impersonate-Group', 'ops']],
      user: { name: 'bob', uid: '', groups: ['devs', 'ops', authed] },
    },
    {
      name: 'system:authenticated asked for is not repeated',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Group', authed], ['Impersonate-Group', 'devs']],
      user: { name: 'bob', uid: '', groups: [authed, 'devs'] },
    },
    {
      name: 'system:unauthenticated keeps system:authenticated out',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Group', 'system:unauthenticated']],
      user: { name: 'bob', uid: '', groups: ['system:unauthenticated'] },
    },
    { name: 'system:anonymous', headers: [['Impersonate-User', 'system:anonymous']], user: { name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] } },
    {
      name: 'a uid',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Uid', 'u-1']],
      user: { name: 'bob', uid: 'u-1', groups: [authed] },
    },
    {
      name: 'extras: the key lower-cased and percent-decoded, values repeated',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Extra-Scopes', 'view'], ['Impersonate-Extra-Example.com%2fProject', 'p1'], ['impersonate-extra-example.com%2Fproject', 'p2']],
      user: { name: 'bob', uid: '', groups: [authed], extra: { scopes: ['view'], 'example.com/project': ['p1', 'p2'] } },
    },
    {
      name: 'a service account user gets its groups',
      headers: [['Impersonate-User', 'system:serviceaccount:ns1:robot']],
      user: { name: 'system:serviceaccount:ns1:robot', uid: '', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', authed] },
    },
    {
      name: 'a service account with groups given gets only those',
      headers: [['Impersonate-User', 'system:serviceaccount:ns1:robot'], ['Impersonate-Group', 'devs']],
      user: { name: 'system:serviceaccount:ns1:robot', uid: '', groups: ['devs', authed] },
    },
    { name: 'a UTF-8 user name', headers: [['Impersonate-User', 'jürgen']], user: { name: 'jürgen', uid: '', groups: [authed] } },
    { name: 'no resourceNames: any user', caller: 'root', headers: [['Impersonate-User', 'anyone-at-all']], user: { name: 'anyone-at-all', uid: '', groups: [authed] } },
    {
      name: 'no resourceNames: any group',
      caller: 'root',
      headers: [['Impersonate-User', 'x'], ['Impersonate-Group', 'system:masters']],
      user: { name: 'x', uid: '', groups: ['system:masters', authed] },
    },
  ];

  it.each(allowed)('allowed: $name', async ({ caller, headers, user }) => {
    const r = await get(s.server, `${caller ?? 'alice'}-token`, headers);
    expect(r.status).toBe(200);
    expect(r.body.user).toEqual(user);
    // The caller is kept for audit; the impersonation headers are gone from every view of the request.
    expect(r.body.impersonatedBy.name).toBe(caller ?? 'alice');
    expect(r.body.headers).toEqual([]);
    expect(r.body.rawHeaders).toEqual([]);
    expect(r.body.distinct).toEqual([]);
  });

  /** Rows refused with 403: the exact message and the Status details (name, group, kind = resource). */
  const denied: readonly { name: string; caller?: string; headers: [string, string][]; message: string; details: object }[] = [
    { name: 'a user not in resourceNames', headers: [['Impersonate-User', 'eve']], message: forbiddenUsers('eve'), details: { name: 'eve', kind: 'users' } },
    { name: 'a caller with no grant', caller: 'mallory', headers: [['Impersonate-User', 'bob']], message: forbiddenUsers('bob', 'mallory'), details: { name: 'bob', kind: 'users' } },
    {
      name: 'a group (the second of two)',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Group', 'devs'], ['Impersonate-Group', 'admins']],
      message: 'groups "admins" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
      details: { name: 'admins', kind: 'groups' },
    },
    {
      name: 'system:masters',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Group', 'system:masters']],
      message: 'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
      details: { name: 'system:masters', kind: 'groups' },
    },
    {
      name: 'a uid',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Uid', 'u-2']],
      message: 'uids.authentication.platform.io "u-2" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.platform.io" at the cluster scope',
      details: { name: 'u-2', group: 'authentication.platform.io', kind: 'uids' },
    },
    {
      name: 'an extra value',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Extra-Scopes', 'view'], ['Impersonate-Extra-Scopes', 'edit']],
      message: 'userextras.authentication.platform.io "edit" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.platform.io" at the cluster scope',
      details: { name: 'edit', group: 'authentication.platform.io', kind: 'userextras' },
    },
    {
      name: 'an extra key with no grant',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Extra-Other%20Key', 'v']],
      message: 'userextras.authentication.platform.io "v" is forbidden: User "alice" cannot impersonate resource "userextras/other key" in API group "authentication.platform.io" at the cluster scope',
      details: { name: 'v', group: 'authentication.platform.io', kind: 'userextras' },
    },
    {
      name: 'a service account in another namespace',
      headers: [['Impersonate-User', 'system:serviceaccount:ns2:robot']],
      message: 'serviceaccounts "robot" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns2"',
      details: { name: 'robot', kind: 'serviceaccounts' },
    },
    {
      name: 'a malformed service account name is an ordinary user',
      headers: [['Impersonate-User', 'system:serviceaccount:NS1:robot']],
      message: forbiddenUsers('system:serviceaccount:NS1:robot'),
      details: { name: 'system:serviceaccount:NS1:robot', kind: 'users' },
    },
    {
      name: 'the authorizer\'s reason is appended',
      headers: [['Impersonate-User', 'denied-with-reason']],
      message: `${forbiddenUsers('denied-with-reason')}: policy says no`,
      details: { name: 'denied-with-reason', kind: 'users' },
    },
    {
      name: 'an empty group value is checked (kube reads every value)',
      headers: [['Impersonate-User', 'bob'], ['Impersonate-Group', '']],
      message: 'groups is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
      details: { kind: 'groups' },
    },
  ];

  it.each(denied)('denied: $name', async ({ caller, headers, message, details }) => {
    const r = await get(s.server, `${caller ?? 'alice'}-token`, headers);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
  });

  it.each([
    ['a group', [['Impersonate-Group', 'devs']], '[{Group  devs    }]'],
    ['a uid', [['Impersonate-Uid', 'u-1']], '[{UID  u-1  authentication.platform.io/v1  }]'],
    ['an extra', [['Impersonate-Extra-Scopes', 'view']], '[{UserExtra  view  authentication.platform.io/v1  scopes}]'],
    ['a group with an empty user', [['Impersonate-User', ''], ['Impersonate-Group', 'devs']], '[{Group  devs    }]'],
  ] as [string, [string, string][], string][])('400 for %s without a user, before any check', async (_, headers, list) => {
    const before = s.authorizer.seen.length;
    const r = await get(s.server, 'alice-token', headers);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ reason: 'BadRequest', code: 400, message: `requested ${list} without impersonating a user` });
    expect(s.authorizer.seen.length).toBe(before);
  });

  it('checks each value once, in order, as the caller, with kube\'s attributes', async () => {
    const before = s.authorizer.seen.length;
    const r = await get(s.server, 'alice-token', [
      ['Impersonate-Uid', 'u-1'], ['Impersonate-Extra-Scopes', 'view'], ['Impersonate-Group', 'devs'], ['Impersonate-User', 'system:serviceaccount:ns1:robot'],
    ]);
    expect(r.status).toBe(200);
    const checks = s.authorizer.seen.slice(before);
    const common = { verb: 'impersonate', isResourceRequest: true, path: '' };
    expect(checks).toEqual([
      { ...common, user: { name: 'alice', uid: 'alice-uid', groups: ['team-a', authed] }, namespace: 'ns1', apiGroup: '', apiVersion: '', resource: 'serviceaccounts', subresource: '', name: 'robot' },
      expect.objectContaining({ namespace: '', apiGroup: '', resource: 'groups', subresource: '', name: 'devs' }),
      expect.objectContaining({ apiGroup: 'authentication.platform.io', apiVersion: 'v1', resource: 'userextras', subresource: 'scopes', name: 'view' }),
      expect.objectContaining({ apiGroup: 'authentication.platform.io', apiVersion: 'v1', resource: 'uids', subresource: '', name: 'u-1' }),
    ]);
    expect(r.body.user).toEqual({ name: 'system:serviceaccount:ns1:robot', uid: 'u-1', groups: ['devs', authed], extra: { scopes: ['view'] } });
  });

  it('stops at the first refusal (later values are not checked)', async () => {
    const before = s.authorizer.seen.length;
    const r = await get(s.server, 'alice-token', [['Impersonate-User', 'eve'], ['Impersonate-Group', 'devs']]);
    expect(r.status).toBe(403);
    expect(s.authorizer.seen.slice(before).map((a) => a.resource)).toEqual(['users']);
  });

  it('without impersonation headers the caller is unchanged and no check is made', async () => {
    const before = s.authorizer.seen.length;
    const r = await get(s.server, 'alice-token', [['X-Other', 'y']]);
    expect(r.status).toBe(200);
    expect(r.body.user).toEqual({ name: 'alice', uid: 'alice-uid', groups: ['team-a', authed] });
    expect(r.body.impersonatedBy).toBeNull();
    expect(s.authorizer.seen.length).toBe(before);
  });

  it('invalid credentials are 401 before impersonation is looked at', async () => {
    const r = await get(s.server, 'wrong-token', [['Impersonate-User', 'bob']]);
    expect(r.status).toBe(401);
  });

  it('uses the first Impersonate-User value, as kube', async () => {
    const r = await get(s.server, 'alice-token', [['Impersonate-User', 'bob'], ['Impersonate-User', 'eve']]);
    expect(r.status).toBe(200);
    expect(r.body.user.name).toBe('bob');
  });
});

/** Runs a kubectl (asynchronously: the server answers in this process) with `kubeconfig`. */
function kubectl(kubeconfig: string, home: string, args: readonly string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn('kubectl', ['--kubeconfig', kubeconfig, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
    proc.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    proc.once('error', reject);
    proc.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** A kubeconfig for `token` against `server`. */
function kubeconfigFor(dir: string, server: RunningServer, token: string): string {
  const path = join(dir, `kubeconfig-${token}`);
  writeFileSync(path, [
    'apiVersion: v1', 'kind: Config', 'current-context: c', 'preferences: {}',
    'clusters:', '- name: c', '  cluster:', `    server: ${server.url}`, `    certificate-authority-data: ${Buffer.from(server.caPem!).toString('base64')}`,
    'users:', '- name: u', '  user:', `    token: ${token}`,
    'contexts:', '- name: c', '  context:', '    cluster: c', '    user: u',
  ].join('\n'));
  return path;
}

/** The RBAC policy of the kubectl part, applied by the admin: what alice may impersonate, what devs may do. */
const rbacPolicy = `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: impersonator}
rules:
- {apiGroups: [""], resources: [users], verbs: [impersonate], resourceNames: [bob]}
- {apiGroups: [""], resources: [groups], verbs: [impersonate], resourceNames: [devs]}
- {apiGroups: [""], resources: [serviceaccounts], verbs: [impersonate], resourceNames: [robot]}
- {apiGroups: [authentication.k8s.io], resources: [uids], verbs: [impersonate], resourceNames: [u-1]}
- {apiGroups: [authentication.k8s.io], resources: [userextras/scopes], verbs: [impersonate], resourceNames: [view]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice-impersonates}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: impersonator}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: devs-view}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: devs}
`;

/** POSTs a SelfSubjectReview as `token` with impersonation headers; returns status and the review's user. */
async function selfReview(server: RunningServer, token: string, headers: [string, string][]): Promise<Reply> {
  const url = new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server.url);
  const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  const raw = ['Host', url.host, 'Authorization', `Bearer ${token}`, 'Content-Type', 'application/json'];
  for (const [n, v] of headers) raw.push(n, v);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', ca: server.caPem, agent: false, headers: raw }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: parseBody(Buffer.concat(chunks)) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('impersonation with RBAC and the stock kubectl (k8s.io mode)', () => {
  let server: RunningServer;
  let home: string;
  let alice: string;
  beforeAll(async () => {
    const dataDir = tempDir('impersonation-rbac-');
    const tokenFile = join(dataDir, 'tokens.csv');
    writeFileSync(tokenFile, `${tokens}\nadmin-token,admin,admin-uid,"system:masters"`);
    // The real authorizer: --authorization-mode's default (RBAC) over the bootstrap policy plus the above.
    server = await startTestServer({ dataDir, tokenAuthFile: tokenFile, groupDomain: 'k8s.io' });
    home = tempDir('impersonation-kubectl-');
    const admin = kubeconfigFor(home, server, 'admin-token');
    const applied = await kubectl(admin, home, ['apply', '-f', writePolicy(home)]);
    expect(applied.stderr).toBe('');
    expect(applied.status).toBe(0);
    alice = kubeconfigFor(home, server, 'alice-token');
  });

  it('alice may not read configmaps herself; as bob in devs she may (authorized as the impersonated user)', async () => {
    const own = await kubectl(alice, home, ['get', 'configmaps', '-A']);
    expect(own.status).not.toBe(0);
    expect(own.stderr).toContain('Error from server (Forbidden): configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope');

    const asBob = await kubectl(alice, home, ['get', 'configmaps', '-A', '--as', 'bob']);
    expect(asBob.status).not.toBe(0);
    expect(asBob.stderr).toContain('Error from server (Forbidden): configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" at the cluster scope');

    const asDev = await kubectl(alice, home, ['get', 'configmaps', '-A', '-o', 'name', '--as', 'bob', '--as-group', 'devs']);
    expect(asDev.stderr).toBe('');
    expect(asDev.status).toBe(0);
  });

  it('kubectl auth whoami and can-i see the impersonated user', async () => {
    const who = await kubectl(alice, home, ['auth', 'whoami', '-o', 'json', '--as', 'bob', '--as-group', 'devs']);
    expect(who.stderr).toBe('');
    expect(JSON.parse(who.stdout).status.userInfo).toEqual({ username: 'bob', groups: ['devs', authed] });

    const sa = await kubectl(alice, home, ['auth', 'whoami', '-o', 'json', '--as', 'system:serviceaccount:ns1:robot']);
    expect(sa.stderr).toBe('');
    expect(JSON.parse(sa.stdout).status.userInfo).toEqual({
      username: 'system:serviceaccount:ns1:robot',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', authed],
    });

    const yes = await kubectl(alice, home, ['auth', 'can-i', 'list', 'configmaps', '--as', 'bob', '--as-group', 'devs']);
    expect(yes.stdout.trim()).toBe('yes');
    const no = await kubectl(alice, home, ['auth', 'can-i', 'list', 'configmaps', '--as', 'bob']);
    expect(no.stdout.trim()).toBe('no');
  });

  it.each([
    ['a user outside resourceNames', ['--as', 'eve'], forbiddenUsers('eve')],
    ['a group outside resourceNames', ['--as', 'bob', '--as-group', 'system:masters'],
      'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope'],
    ['a service account outside resourceNames', ['--as', 'system:serviceaccount:kube-system:default'],
      'serviceaccounts "default" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube-system"'],
  ])('refused: %s, in kube\'s words', async (_, flags, message) => {
    const r = await kubectl(alice, home, ['get', 'namespaces', ...flags]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`Error from server (Forbidden): ${message}`);
  });

  it('a user with no impersonate grant is refused', async () => {
    const mallory = kubeconfigFor(home, server, 'mallory-token');
    const r = await kubectl(mallory, home, ['get', 'namespaces', '--as', 'bob']);
    expect(r.stderr).toContain(`Error from server (Forbidden): ${forbiddenUsers('bob', 'mallory')}`);
  });

  it('uid and extras (not in kubectl) over HTTP: granted through authentication.k8s.io, refused by name', async () => {
    const ok = await selfReview(server, 'alice-token', [['Impersonate-User', 'bob'], ['Impersonate-Uid', 'u-1'], ['Impersonate-Extra-Scopes', 'view']]);
    expect(ok.status).toBe(201);
    expect(ok.body.status.userInfo).toEqual({ username: 'bob', uid: 'u-1', groups: [authed], extra: { scopes: ['view'] } });

    const uid = await selfReview(server, 'alice-token', [['Impersonate-User', 'bob'], ['Impersonate-Uid', 'u-9']]);
    expect(uid.status).toBe(403);
    expect(uid.body.message).toBe('uids.authentication.k8s.io "u-9" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope');

    const extra = await selfReview(server, 'alice-token', [['Impersonate-User', 'bob'], ['Impersonate-Extra-Scopes', 'edit']]);
    expect(extra.status).toBe(403);
    expect(extra.body.message).toBe('userextras.authentication.k8s.io "edit" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope');
  });
});

function writePolicy(dir: string): string {
  const path = join(dir, 'policy.yaml');
  writeFileSync(path, rbacPolicy);
  return path;
}
