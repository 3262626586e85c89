/**
 * The authenticating proxy (`--requestheader-*`) and anonymous settings (`--anonymous-auth`,
 * `--authentication-config`) through real HTTPS servers: the identity headers count only on a connection
 * whose client certificate verifies against the request-header CA and carries an allowed CN.
 */
import { writeFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { adminTokenPath, adminUser } from '../../apiserver/auth/admin-credentials.js';
import type { Authorizer } from '../../apiserver/authorization/authorizer.js';
import { buildConfig } from '../../apiserver/config/server-config.js';
import { parseFlags } from '../../apiserver/config/parse-flags.js';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import type { Filter } from '../../apiserver/request/request-state.js';
import { memoryLogger, startTestServer, stopAll, tempDir, testConfig } from './helpers.js';
import { startServer } from '../../apiserver/server/start-server.js';
import { generateCa, issueCert, type CertAndKey } from './proxy-certs.js';

interface Reply {
  readonly status: number;
  readonly body: any;
}

function call(server: RunningServer, path: string, o: { headers?: OutgoingHttpHeaders; client?: CertAndKey; token?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), {
      ca: server.caPem,
      agent: false,
      headers: { ...(o.token === undefined ? {} : { Authorization: `Bearer ${o.token}` }), ...o.headers },
      ...(o.client === undefined ? {} : { cert: o.client.certPem, key: o.client.keyPem }),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // plain text (health endpoints)
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Allows everything, so /whoami shows whoever authentication decided on (anonymous included). */
const allowAll: Authorizer = { authorize: () => ({ decision: 'allow', reason: '' }) };

/** Answers /whoami with the user and whatever identity headers reached the endpoints. */
const whoami: Filter = async (ctx, next) => {
  if (ctx.path !== '/whoami') return next();
  ctx.body = {
    user: ctx.state.user,
    leaked: [...Object.keys(ctx.req.headers), ...Object.keys(ctx.req.headersDistinct), ...ctx.req.rawHeaders]
      .filter((h) => /^x-remote-/i.test(h)),
  };
};

describe('authenticating proxy', () => {
  let server: RunningServer;
  let admin: string;
  let proxy: CertAndKey;
  let intruder: CertAndKey;
  let foreign: CertAndKey;
  let expired: CertAndKey;
  let serverAuthOnly: CertAndKey;
  let viaIntermediate: CertAndKey;

  beforeAll(async () => {
    const dir = tempDir();
    const proxyCa = await generateCa('front-proxy-ca');
    const otherCa = await generateCa('other-ca');
    proxy = await issueCert(proxyCa, 'front-proxy-client');
    intruder = await issueCert(proxyCa, 'intruder');
    foreign = await issueCert(otherCa, 'front-proxy-client');
    expired = await issueCert(proxyCa, 'front-proxy-client', { notAfter: new Date(Date.now() - 1000) });
    serverAuthOnly = await issueCert(proxyCa, 'front-proxy-client', { eku: ['1.3.6.1.5.5.7.3.1'] });
    const intermediate = await issueCert(proxyCa, 'front-proxy-intermediate', { ca: true, eku: null });
    const leaf = await issueCert(intermediate, 'front-proxy-client');
    viaIntermediate = { certPem: leaf.certPem + intermediate.certPem, keyPem: leaf.keyPem };
    const caFile = join(dir, 'front-proxy-ca.crt');
    writeFileSync(caFile, proxyCa.certPem);
    // Through the flags, so the defaults of the header flags are the ones under test.
    const config = buildConfig(parseFlags([
      `--data-dir=${dir}`,
      `--requestheader-client-ca-file=${caFile}`,
      '--requestheader-allowed-names=front-proxy-client,other-proxy',
      '--requestheader-uid-headers=X-Remote-Uid',
      '--feature-gates=RemoteRequestHeaderUID=true',
    ]));
    server = await startTestServer({ ...config, bindAddress: '127.0.0.1', securePort: 0, compactionIntervalMs: 0 }, { api: whoami, authorizer: allowAll });
    admin = readFileSync(adminTokenPath(dir), 'utf8').trim();
  });
  afterAll(stopAll);

  const forged = { 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Scopes': 'all' };

  it('honours the headers from a verified proxy: repeated groups, extras (lower-cased, percent-decoded), uid', async () => {
    const res = await call(server, '/whoami', {
      client: proxy,
      headers: {
        'X-Remote-User': 'alice',
        'X-Remote-Uid': 'uid-1',
        // Three header lines; a comma inside one value does not split it (as kube reads them).
        'X-Remote-Group': ['dev', 'ops', 'qa,test'],
        'X-Remote-Extra-Scopes': ['read', 'write'],
        'X-Remote-Extra-Example.com%2fTeam': 'blue',
        'X-Remote-Extra-Bad%zz': 'kept',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({
      name: 'alice',
      uid: 'uid-1',
      groups: ['dev', 'ops', 'qa,test', 'system:authenticated'],
      extra: { scopes: ['read', 'write'], 'example.com/team': ['blue'], 'bad%zz': ['kept'] },
    });
    expect(res.body.leaked).toEqual([]);
  });

  it('accepts a proxy certificate chained through an intermediate it sends', async () => {
    const res = await call(server, '/whoami', { client: viaIntermediate, headers: { 'X-Remote-User': 'bob' } });
    expect(res.status).toBe(200);
    expect(res.body.user.name).toBe('bob');
  });

  it('ignores and strips forged headers on a direct connection: the request is the token\'s user', async () => {
    const res = await call(server, '/whoami', { token: admin, headers: forged });
    expect(res.status).toBe(200);
    expect(res.body.user.name).toBe(adminUser.name);
    expect(res.body.user.extra).toBeUndefined();
    expect(res.body.leaked).toEqual([]);
  });

  it('ignores and strips forged headers without credentials: the request is anonymous', async () => {
    const res = await call(server, '/whoami', { headers: forged });
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual({ name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] });
    expect(res.body.leaked).toEqual([]);
  });

  it.each([
    ['a CN not in the allowed names', () => intruder],
    ['a certificate of another CA', () => foreign],
    ['an expired certificate', () => expired],
    ['a certificate without client-auth usage', () => serverAuthOnly],
  ])('rejects %s (401)', async (_name, client) => {
    const res = await call(server, '/whoami', { client: client(), headers: forged });
    expect(res.status).toBe(401);
    expect(res.body.reason).toBe('Unauthorized');
  });

  it('a rejected proxy certificate does not stop the request\'s own token from authenticating', async () => {
    const res = await call(server, '/whoami', { client: foreign, token: admin, headers: forged });
    expect(res.status).toBe(200);
    expect(res.body.user.name).toBe(adminUser.name);
    expect(res.body.leaked).toEqual([]);
  });

  it('a verified proxy without a user header has no opinion (the token decides)', async () => {
    const res = await call(server, '/whoami', { client: proxy, token: admin, headers: { 'X-Remote-Group': 'system:masters' } });
    expect(res.status).toBe(200);
    expect(res.body.user.name).toBe(adminUser.name);
    expect(res.body.leaked).toEqual([]);
  });
});

describe('request header flags', () => {
  it('have kube\'s suggested defaults and need a CA file', () => {
    expect(buildConfig(parseFlags([])).requestHeader).toBeUndefined();
    expect(buildConfig(parseFlags(['--requestheader-client-ca-file=/ca.crt'])).requestHeader).toEqual({
      clientCaFile: '/ca.crt',
      allowedNames: [],
      usernameHeaders: ['X-Remote-User'],
      groupHeaders: ['X-Remote-Group'],
      extraHeaderPrefixes: ['X-Remote-Extra-'],
      uidHeaders: [],
    });
  });

  it('uid headers need the RemoteRequestHeaderUID gate', () => {
    expect(() => buildConfig(parseFlags(['--requestheader-uid-headers=X-Remote-Uid'])))
      .toThrow('--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled');
  });

  it('--anonymous-auth is recorded only when given', () => {
    expect(buildConfig(parseFlags([])).anonymousAuth).toBeUndefined();
    expect(buildConfig(parseFlags(['--anonymous-auth=false'])).anonymousAuth).toBe(false);
    expect(buildConfig(parseFlags(['--enable-bootstrap-token-auth'])).enableBootstrapTokenAuth).toBe(true);
  });
});

describe('anonymous settings', () => {
  afterEach(stopAll);

  const configFile = (text: string): string => {
    const file = join(tempDir(), 'authn.yaml');
    writeFileSync(file, text);
    return file;
  };

  it('conditions: only the listed paths accept anonymous requests', async () => {
    const file = configFile('apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n  conditions:\n  - path: /livez\n');
    const server = await startTestServer({ authenticationConfigFile: file });
    expect((await call(server, '/livez')).status).toBe(200);
    expect((await call(server, '/readyz')).status).toBe(401);
    expect((await call(server, '/healthz')).status).toBe(401);
    expect((await call(server, '/version')).status).toBe(401);
    // An invalid token is 401 even where anonymous is allowed.
    expect((await call(server, '/livez', { token: 'not-a-token' })).status).toBe(401);
  });

  it('--anonymous-auth=false: no anonymous request anywhere', async () => {
    const server = await startTestServer({ anonymousAuth: false });
    expect((await call(server, '/livez')).status).toBe(401);
    expect((await call(server, '/version')).status).toBe(401);
  });

  it('the default keeps anonymous health and version', async () => {
    const server = await startTestServer();
    expect((await call(server, '/livez')).status).toBe(200);
    expect((await call(server, '/version')).status).toBe(200);
  });

  it('the flag and an anonymous section together fail the start naming both', async () => {
    const file = configFile('apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  enabled: true\n');
    await expect(startServer(testConfig({ authenticationConfigFile: file, anonymousAuth: true }), { logger: memoryLogger().logger }))
      .rejects.toThrow('anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file');
  });

  it('an invalid configuration file fails the start naming the file', async () => {
    const file = configFile('apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\nanonymous:\n  conditions:\n  - path: /livez\n');
    await expect(startServer(testConfig({ authenticationConfigFile: file }), { logger: memoryLogger().logger }))
      .rejects.toThrow(`failed to load authentication configuration from file "${file}"`);
  });
});
