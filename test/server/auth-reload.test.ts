/**
 * Reloads of authentication files while the server runs, through real files and real TLS connections:
 * `--client-ca-file` and `--requestheader-client-ca-file` replaced (rename over the file, as rotation
 * tools do) switch which client certificates authenticate, also on a kept-alive connection, and the CA
 * names the TLS server offers in its CertificateRequest (read with `openssl s_client`, what a Go client
 * picks its certificate from); a broken replacement keeps the bundle in use. `--authentication-config`:
 * a change of the anonymous section is refused as kube 1.32 refuses it, a compatible change is reloaded.
 * Every reload is awaited through its log line, never a sleep.
 */
import { execFile } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import { Agent, request } from 'node:https';
import { join } from 'node:path';
import type { Authorizer } from '../../apiserver/authorization/authorizer.js';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import type { Filter } from '../../apiserver/request/request-state.js';
import { eventually, memoryLogger, startTestServer, stopAll, tempDir } from './helpers.js';
import { generateCa, issueCert, type CertAndKey } from './proxy-certs.js';

const allowAll: Authorizer = { authorize: () => ({ decision: 'allow', reason: '' }) };
/** Answers /whoami with the user authentication decided on. */
const whoami: Filter = async (ctx, next) => {
  if (ctx.path !== '/whoami' && ctx.path !== '/open') return next();
  ctx.body = { user: ctx.state.user };
};

interface Reply {
  readonly status: number;
  readonly user?: string;
}

function call(server: RunningServer, path: string, o: { client?: CertAndKey; headers?: OutgoingHttpHeaders; agent?: Agent } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), {
      ca: server.caPem,
      agent: o.agent ?? false,
      headers: o.headers ?? {},
      ...(o.client === undefined ? {} : { cert: o.client.certPem, key: o.client.keyPem }),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        let user: string | undefined;
        try {
          user = JSON.parse(Buffer.concat(chunks).toString('utf8')).user?.name;
        } catch {
          // a Status or plain text
        }
        resolve({ status: res.statusCode ?? 0, ...(user === undefined ? {} : { user }) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Replaces `file` the way cert rotation tools do: a new file renamed over it. */
function replaceFile(file: string, content: string): void {
  writeFileSync(`${file}.next`, content);
  renameSync(`${file}.next`, file);
}

/** The CA subjects the server names in its CertificateRequest, as `openssl s_client` prints them. */
function acceptableCaNames(server: RunningServer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('openssl', ['s_client', '-connect', `127.0.0.1:${server.port}`, '-servername', 'localhost'], { timeout: 20_000 }, (err, stdout) => {
      const m = /Acceptable client certificate CA names\n([\s\S]*?)\n(?:Requested|Client Certificate Types|---|Server Temp Key|SSL handshake)/.exec(stdout);
      if (m === null) reject(new Error(`no CA names in openssl's output (${err?.message ?? 'exit 0'}):\n${stdout}`));
      else resolve(m[1]!);
    });
    child.stdin?.end();
  });
}

/** Waits for the `count`-th log line (1-based, counting from `from`) matching `msg` and returns it. */
async function logLine(lines: () => string[], from: number, msg: string): Promise<Record<string, unknown>> {
  let found: Record<string, unknown> | undefined;
  await eventually(async () => {
    found = lines().slice(from).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === msg);
    return found !== undefined;
  }, `log line "${msg}"`, 20_000);
  return found!;
}

afterAll(stopAll);

describe('--client-ca-file reload', () => {
  let server: RunningServer;
  let lines: () => string[];
  let caFile: string;
  let caA: CertAndKey;
  let caB: CertAndKey;
  let alice: CertAndKey;
  let bob: CertAndKey;

  beforeAll(async () => {
    const dir = tempDir();
    caA = await generateCa('client-ca-a');
    caB = await generateCa('client-ca-b');
    alice = await issueCert(caA, 'alice');
    bob = await issueCert(caB, 'bob');
    caFile = join(dir, 'client-ca.crt');
    writeFileSync(caFile, caA.certPem);
    const log = memoryLogger('info');
    lines = log.lines;
    server = await startTestServer({ dataDir: dir, clientCaFile: caFile }, { api: whoami, authorizer: allowAll, logger: log.logger });
  });

  it('switches which client certificates authenticate, for new and kept-alive connections, and the offered CA names', async () => {
    expect(await call(server, '/whoami', { client: alice })).toEqual({ status: 200, user: 'alice' });
    expect((await call(server, '/whoami', { client: bob })).status).toBe(401);
    const before = await acceptableCaNames(server);
    expect(before).toContain('client-ca-a');
    expect(before).not.toContain('client-ca-b');

    // A connection authenticated before the reload, kept open across it.
    const kept = new Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem, cert: alice.certPem, key: alice.keyPem });
    let connections = 0;
    const created = kept.createConnection.bind(kept);
    kept.createConnection = ((...args: Parameters<typeof created>) => {
      connections++;
      return created(...args);
    }) as typeof created;
    expect(await call(server, '/whoami', { agent: kept })).toEqual({ status: 200, user: 'alice' });
    expect(connections).toBe(1);

    const from = lines().length;
    replaceFile(caFile, caB.certPem);
    const loaded = await logLine(lines, from, 'loaded a new CA bundle');
    expect(loaded).toMatchObject({ level: 'info', name: `client-ca-bundle::${caFile}`, certificates: 1 });

    expect(await call(server, '/whoami', { client: bob })).toEqual({ status: 200, user: 'bob' });
    expect((await call(server, '/whoami', { client: alice })).status).toBe(401);
    // The connection opened before the reload (no second one was made), now refused.
    expect((await call(server, '/whoami', { agent: kept })).status).toBe(401);
    expect(connections).toBe(1);
    kept.destroy();
    const after = await acceptableCaNames(server);
    expect(after).toContain('client-ca-b');
    expect(after).not.toContain('client-ca-a');
  });

  it('keeps the bundle in use when the replacement is broken, and takes a fixed one afterwards', async () => {
    for (const broken of ['', 'not a certificate\n']) {
      const from = lines().length;
      replaceFile(caFile, broken);
      const refused = await logLine(lines, from, 'CA bundle not reloaded, the previous one stays in use');
      expect(refused).toMatchObject({ level: 'warn', name: `client-ca-bundle::${caFile}` });
      expect(await call(server, '/whoami', { client: bob })).toEqual({ status: 200, user: 'bob' });
      expect((await call(server, '/whoami', { client: alice })).status).toBe(401);
    }
    expect(await acceptableCaNames(server)).toContain('client-ca-b');

    // Both CAs: both users.
    const from = lines().length;
    replaceFile(caFile, caA.certPem + caB.certPem);
    expect(await logLine(lines, from, 'loaded a new CA bundle')).toMatchObject({ certificates: 2 });
    expect(await call(server, '/whoami', { client: alice })).toEqual({ status: 200, user: 'alice' });
    expect(await call(server, '/whoami', { client: bob })).toEqual({ status: 200, user: 'bob' });
  });
});

describe('--requestheader-client-ca-file reload', () => {
  let server: RunningServer;
  let lines: () => string[];
  let caFile: string;
  let caB: CertAndKey;
  let proxyA: CertAndKey;
  let proxyB: CertAndKey;
  const asCarol = { 'X-Remote-User': 'carol', 'X-Remote-Group': 'dev' };

  beforeAll(async () => {
    const dir = tempDir();
    const caA = await generateCa('front-proxy-ca-a');
    caB = await generateCa('front-proxy-ca-b');
    proxyA = await issueCert(caA, 'front-proxy-client');
    proxyB = await issueCert(caB, 'front-proxy-client');
    caFile = join(dir, 'front-proxy-ca.crt');
    writeFileSync(caFile, caA.certPem);
    const log = memoryLogger('info');
    lines = log.lines;
    server = await startTestServer({
      dataDir: dir,
      requestHeader: {
        clientCaFile: caFile,
        allowedNames: ['front-proxy-client'],
        usernameHeaders: ['X-Remote-User'],
        groupHeaders: ['X-Remote-Group'],
        extraHeaderPrefixes: ['X-Remote-Extra-'],
        uidHeaders: [],
      },
    }, { api: whoami, authorizer: allowAll, logger: log.logger });
  });

  it('trusts the proxies of the new CA only; a broken replacement changes nothing', async () => {
    expect(await call(server, '/whoami', { client: proxyA, headers: asCarol })).toEqual({ status: 200, user: 'carol' });
    expect((await call(server, '/whoami', { client: proxyB, headers: asCarol })).status).toBe(401);

    // A certificate whose base64 was damaged: it does not parse.
    let from = lines().length;
    replaceFile(caFile, caB.certPem.replace(/\n[A-Za-z0-9+/]{16}/, '\n!!!!!!!!!!!!!!!!'));
    expect(await logLine(lines, from, 'CA bundle not reloaded, the previous one stays in use')).toMatchObject({ name: `request-header::${caFile}` });
    expect(await call(server, '/whoami', { client: proxyA, headers: asCarol })).toEqual({ status: 200, user: 'carol' });
    expect((await call(server, '/whoami', { client: proxyB, headers: asCarol })).status).toBe(401);

    // Written in place this time (not renamed).
    from = lines().length;
    writeFileSync(caFile, caB.certPem);
    expect(await logLine(lines, from, 'loaded a new CA bundle')).toMatchObject({ name: `request-header::${caFile}` });
    expect(await call(server, '/whoami', { client: proxyB, headers: asCarol })).toEqual({ status: 200, user: 'carol' });
    expect((await call(server, '/whoami', { client: proxyA, headers: asCarol })).status).toBe(401);
    const names = await acceptableCaNames(server);
    expect(names).toContain('front-proxy-ca-b');
    expect(names).not.toContain('front-proxy-ca-a');
  });
});

describe('--authentication-config reload', () => {
  let server: RunningServer;
  let lines: () => string[];
  let file: string;
  const doc = (anonymous: string) => `apiVersion: apiserver.config.platform.io/v1beta1\nkind: AuthenticationConfiguration\n${anonymous}`;
  const openOnly = doc('anonymous:\n  enabled: true\n  conditions:\n  - path: /open\n');

  beforeAll(async () => {
    const dir = tempDir();
    file = join(dir, 'authn.yaml');
    writeFileSync(file, openOnly);
    const log = memoryLogger('info');
    lines = log.lines;
    server = await startTestServer({ dataDir: dir, authenticationConfigFile: file }, { api: whoami, authorizer: allowAll, logger: log.logger });
  });

  const anonymousIsAsStarted = async () => {
    expect(await call(server, '/open')).toEqual({ status: 200, user: 'system:anonymous' });
    expect((await call(server, '/whoami')).status).toBe(401);
  };

  it('refuses a change of the anonymous section (kube 1.32: only at a restart) and keeps the one in use', async () => {
    await anonymousIsAsStarted();
    for (const changed of [doc('anonymous:\n  enabled: false\n'), doc('anonymous:\n  enabled: true\n')]) {
      const from = lines().length;
      replaceFile(file, changed);
      expect(await logLine(lines, from, 'failed to validate authentication config')).toMatchObject({
        level: 'error',
        file,
        err: 'anonymous: Forbidden: changed from initial configuration file',
      });
      await anonymousIsAsStarted();
    }
  });

  it('logs a broken file and keeps the configuration; reloads a compatible one', async () => {
    let from = lines().length;
    writeFileSync(file, doc('anonymous:\n  enabled: true\n  conditions:\n  - path: /open\n    verb: get\n'));
    expect(await logLine(lines, from, 'failed to load authentication config')).toMatchObject({ level: 'error', err: expect.stringContaining('unknown field "anonymous.conditions[0].verb"') });
    await anonymousIsAsStarted();

    from = lines().length;
    replaceFile(file, `# reformatted\n${openOnly}jwt: []\n`);
    expect(await logLine(lines, from, 'reloaded authentication config')).toMatchObject({ level: 'info', file });
    await anonymousIsAsStarted();
  });
});
