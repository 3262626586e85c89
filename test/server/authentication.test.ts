import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import { staticTokenAuthenticator } from '../../apiserver/auth/token-authenticator.js';
import { parseTokenFile, TokenFileError } from '../../apiserver/auth/token-file.js';
import { bearerToken } from '../../apiserver/server/filters/authentication.js';
import type { Filter } from '../../apiserver/request/request-state.js';
import { buildAuthorizer } from '../../apiserver/authorization/authorization-modes.js';
import { RbacIndex } from '../../apiserver/authorization/rbac-index.js';
import { seedIndex } from '../../apiserver/authorization/rbac-sources.js';
import { naming } from '../../apiserver/naming/naming.js';
import { bootstrapPolicy } from '../../apiserver/registry/kinds/rbac/bootstrap-policy.js';
import { httpsRequest, memoryLogger, startTestServer, stopAll, tempDir } from './helpers.js';

afterEach(stopAll);

const unauthorizedBody = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}';

describe('token file parsing', () => {
  it('reads users, uids and quoted group lists; skips blank lines', () => {
    const entries = parseTokenFile([
      'tok1,alice,uid-1,"dev,ops"',
      '',
      ' tok2 , bob , uid-2',
      'tok3,carol,uid-3,single',
      'tok4,dave,,"a ""quoted"" group, b"',
    ].join('\n'), 'tokens.csv');
    expect(entries.map((e) => [e.token, e.user.name, e.user.uid, e.user.groups, e.line])).toEqual([
      ['tok1', 'alice', 'uid-1', ['dev', 'ops'], 1],
      ['tok2', 'bob', 'uid-2', [], 3],
      ['tok3', 'carol', 'uid-3', ['single'], 4],
      ['tok4', 'dave', '', ['a "quoted" group', 'b'], 5],
    ]);
  });

  it.each([
    ['ok,u,1\nonly,two', 'token file t.csv, line 2: must have at least 3 columns (token, user name, user uid), found 2'],
    [',u,1', 'token file t.csv, line 1: empty token'],
    ['t,,1', 'token file t.csv, line 1: empty user name'],
    ['t,u,1,"open', 'token file t.csv, line 1: unterminated quoted field'],
    ['t,u,1\nt,v,2', 'token file t.csv, line 2: duplicate token (first on line 1)'],
  ])('rejects %j naming the line', (text, message) => {
    expect(() => parseTokenFile(text, 't.csv')).toThrow(new TokenFileError(message));
  });

  it('authenticates known tokens only, adding system:authenticated', () => {
    const auth = staticTokenAuthenticator(parseTokenFile('secret-1,alice,u1,"dev"', 'x'));
    expect(auth.authenticateToken('secret-1')).toEqual({ name: 'alice', uid: 'u1', groups: ['dev', 'system:authenticated'] });
    expect(auth.authenticateToken('secret-')).toBeUndefined();
    expect(auth.authenticateToken('secret-10')).toBeUndefined();
    expect(auth.authenticateToken('')).toBeUndefined();
  });

  it('extracts bearer tokens like Kubernetes', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc ')).toBe('abc');
    expect(bearerToken('Basic YTpi')).toBeUndefined();
    expect(bearerToken('Bearer ')).toBeUndefined();
    // kube splits on single spaces (at most three parts) and takes the second.
    expect(bearerToken('Bearer abc def')).toBe('abc');
    expect(bearerToken('Bearer  abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

/** An API handler that echoes what the filters attached, to see the authenticated user. */
const whoami: Filter = async function whoami(ctx, next) {
  if (ctx.path !== '/whoami') return next();
  ctx.body = { user: ctx.state.user, authorizationHeader: ctx.get('Authorization') };
};

/** RBAC over the bootstrap policy plus a grant of `/whoami` to every authenticated user. */
function rbacWithWhoami() {
  const names = naming('platform.io');
  const index = new RbacIndex(names.group('rbac'));
  seedIndex(index, bootstrapPolicy(names));
  index.setClusterRole('whoami', [{ verbs: ['get'], nonResourceURLs: ['/whoami'] }]);
  index.setBinding('ClusterRoleBinding', '', {
    metadata: { name: 'whoami' },
    roleRef: { apiGroup: names.group('rbac'), kind: 'ClusterRole', name: 'whoami' },
    subjects: [{ kind: 'Group', name: 'system:authenticated' }],
  });
  return buildAuthorizer(['RBAC'], index);
}

describe('with --token-auth-file', () => {
  it('answers 401 without or with a wrong token, and passes the user on with the right one', async () => {
    const dir = tempDir();
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 'alice-token-0123456789,alice,uid-a,"dev,ops"\nbob-token-0123456789,bob,uid-b\n');
    const server = await startTestServer({ tokenAuthFile: file }, { api: whoami, authorizer: rbacWithWhoami() });
    const ca = server.caPem!;
    expect(server.kubeconfigPath).toBeUndefined();

    // No credentials: system:anonymous, whom authorization then refuses (403, as kube-apiserver with RBAC).
    const anonymous = await httpsRequest(`${server.url}/api/v1/namespaces`, { ca });
    expect([anonymous.status, JSON.parse(anonymous.body).message]).toEqual([
      403, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    ]);
    for (const token of ['nope', 'alice-token-012345678']) {
      const res = await httpsRequest(`${server.url}/api/v1/namespaces`, { ca, token });
      expect(res.status).toBe(401);
      expect(res.body).toBe(unauthorizedBody);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    }
    // Non-bearer credentials are "no credentials": anonymous, allowed only the public paths.
    expect((await httpsRequest(`${server.url}/api`, { ca, headers: { Authorization: 'Basic YTpi' } })).status).toBe(403);
    expect((await httpsRequest(`${server.url}/version`, { ca, headers: { Authorization: 'Basic YTpi' } })).status).toBe(200);
    // An invalid token is refused even on public paths (authentication fails before anonymous access is considered).
    expect((await httpsRequest(`${server.url}/version`, { ca, token: 'nope' })).status).toBe(401);
    expect((await httpsRequest(`${server.url}/readyz`, { ca, token: 'nope' })).status).toBe(401);

    const me = await httpsRequest(`${server.url}/whoami`, { ca, token: 'alice-token-0123456789' });
    expect(me.status).toBe(200);
    expect(JSON.parse(me.body)).toEqual({
      user: { name: 'alice', uid: 'uid-a', groups: ['dev', 'ops', 'system:authenticated'] },
      // Removed once used: nothing downstream sees the credential.
      authorizationHeader: '',
    });
    const bob = JSON.parse((await httpsRequest(`${server.url}/whoami`, { ca, token: 'bob-token-0123456789' })).body);
    expect(bob.user.groups).toEqual(['system:authenticated']);

    // bob holds no role: authorization refuses before any handler runs.
    const refused = await httpsRequest(`${server.url}/api/v1/namespaces`, { ca, token: 'bob-token-0123456789' });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" at the cluster scope',
      reason: 'Forbidden', details: { kind: 'namespaces' }, code: 403,
    });
  });

  it('refuses to start with a malformed token file, naming the line, and leaves nothing behind', async () => {
    const dir = tempDir();
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 'good,alice,1\nbad-line\n');
    const dataDir = tempDir();
    await expect(startTestServer({ tokenAuthFile: file, dataDir })).rejects.toThrow(`token file ${file}, line 2: must have at least 3 columns`);
    // The data dir (store lock included) is free again.
    writeFileSync(file, 'good,alice,1\n');
    const server = await startTestServer({ tokenAuthFile: file, dataDir });
    expect((await httpsRequest(`${server.url}/livez`, { ca: server.caPem! })).status).toBe(200);
  });
});

describe('without an authentication flag', () => {
  it('generates an admin token and a kubeconfig once, and reuses the token on restart', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir }, { api: whoami });
    const token = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(statSync(adminTokenPath(dataDir)).mode & 0o777).toBe(0o600);
    expect(first.kubeconfigPath).toBe(join(dataDir, 'admin.kubeconfig'));
    expect(statSync(first.kubeconfigPath!).mode & 0o777).toBe(0o600);

    const kc = parse(readFileSync(first.kubeconfigPath!, 'utf8'));
    expect(kc).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'platform-apiserver', cluster: {
        server: `https://127.0.0.1:${first.port}`,
        'certificate-authority-data': Buffer.from(first.caPem!).toString('base64'),
      } }],
      users: [{ name: 'admin', user: { token } }],
      contexts: [{ name: 'platform-apiserver', context: { cluster: 'platform-apiserver', user: 'admin' } }],
      'current-context': 'platform-apiserver',
      preferences: {},
    });

    const me = await httpsRequest(`${first.url}/whoami`, { ca: first.caPem!, token });
    expect(JSON.parse(me.body).user).toEqual({ name: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] });
    expect((await httpsRequest(`${first.url}/api/v1/pods`, { ca: first.caPem!, token })).status).toBe(404);
    expect((await httpsRequest(`${first.url}/api/v1/pods`, { ca: first.caPem! })).status).toBe(403);
    await first.close();

    const second = await startTestServer({ dataDir });
    expect(readFileSync(adminTokenPath(dataDir), 'utf8').trim()).toBe(token);
    const kc2 = parse(readFileSync(second.kubeconfigPath!, 'utf8'));
    expect(kc2.users[0].user.token).toBe(token);
    expect(kc2.clusters[0].cluster.server).toBe(`https://127.0.0.1:${second.port}`);
    expect((await httpsRequest(`${second.url}/api/v1/limitranges`, { ca: second.caPem!, token })).status).toBe(404);
  });

  it('logs one line per request with user and status, and never a token', async () => {
    const { logger, lines } = memoryLogger('debug');
    const dataDir = tempDir();
    const server = await startTestServer({ dataDir }, { logger });
    const token = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
    await httpsRequest(`${server.url}/api/v1/limitranges?limit=5&token=query-secret-123`, { ca: server.caPem!, token });
    await httpsRequest(`${server.url}/api/v1/limitranges`, { ca: server.caPem!, token: 'wrong-secret-456' });
    await server.close();

    const all = lines();
    const text = all.join('\n');
    expect(text).not.toContain(token);
    expect(text).not.toContain('query-secret-123');
    expect(text).not.toContain('wrong-secret-456');
    const requests = all.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request');
    expect(requests).toEqual([
      expect.objectContaining({ level: 'info', method: 'GET', path: '/api/v1/limitranges', query: 'limit=5&token=[REDACTED]', status: 404, user: 'admin' }),
      expect.objectContaining({ level: 'info', method: 'GET', path: '/api/v1/limitranges', status: 401 }),
    ]);
    expect(typeof requests[0].durationMs).toBe('number');
    expect(requests[0].requestId).toMatch(/^[0-9a-f-]{36}$/);
    const msgs = all.map((l) => JSON.parse(l).msg);
    expect(msgs).toEqual(expect.arrayContaining(['serving', 'shutting down', 'stopped']));
  });
});
