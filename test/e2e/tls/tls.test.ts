/**
 * The HTTPS listener's TLS promises, checked from outside with `openssl s_client` (and Node clients for
 * open connections): the minimum version, the cipher list in kube's names, SNI certificates, serving
 * certificates rotated on disk without a restart and without dropping open connections, and wrong flag
 * values refused at start.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import { join, resolve } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { adminTokenPath } from '../../../apiserver/auth/admin-credentials.js';
import type { RunningServer } from '../../../apiserver/server/start-server.js';
import type { ServerConfig } from '../../../apiserver/config/server-config.js';
import type { TlsServingConfig } from '../../../apiserver/config/tls-serving-flags.js';
import { eventually, memoryLogger, startTestServer, stopAll, tempDir } from '../../server/helpers.js';
import { makePki, replaceFile, type Pki } from './tls-pki.js';

const root = resolve(__dirname, '..', '..', '..');

interface SClient {
  readonly ok: boolean;
  readonly code: number | null;
  readonly protocol: string | undefined;
  readonly cipher: string | undefined;
  /** The peer certificate's subject CN. */
  readonly cn: string | undefined;
  readonly output: string;
}

/** One `openssl s_client` handshake (stdin at EOF: it ends right after the handshake). */
function sClient(port: number, args: readonly string[]): Promise<SClient> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => { output += c; });
    child.stderr.setEncoding('utf8').on('data', (c: string) => { output += c; });
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /New, (\S+), Cipher is (\S+)/.exec(output);
      const cipher = m?.[2] === '(NONE)' ? undefined : m?.[2];
      resolvePromise({
        // The handshake's outcome: s_client prints the negotiated suite only after a completed handshake
        // (`Cipher is (NONE)` otherwise). Its exit code also reflects how the connection ended after it
        // (a reset under load), which is not what these tests are about.
        ok: cipher !== undefined,
        code,
        protocol: m?.[1],
        cipher,
        cn: /subject=.*?CN\s?=\s?([^,\n/]+)/.exec(output)?.[1]?.trim(),
        output,
      });
    });
  });
}

/** TLS 1.0/1.1 clients need OpenSSL's security level 0 on the client side too. */
const legacy = (cipher = 'DEFAULT') => ['-cipher', `${cipher}:@SECLEVEL=0`];

let pki: Pki;
let dir: string;
/** A certificate/key pair written to `<dir>/<name>.crt|.key`. */
async function pair(name: string, cn: string, sans: readonly string[]): Promise<{ certFile: string; keyFile: string }> {
  const { certPem, keyPem } = await pki.issue(cn, sans);
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  await writeFile(certFile, certPem);
  await writeFile(keyFile, keyPem);
  return { certFile, keyFile };
}

async function start(tlsServing: Partial<TlsServingConfig>, files?: { certFile: string; keyFile: string }, more: Partial<ServerConfig> = {}) {
  const log = memoryLogger('info');
  const server = await startTestServer({
    ...more,
    tls: files ?? (await pair(`default-${Math.random().toString(36).slice(2)}`, 'default.test', ['DNS:localhost', 'IP:127.0.0.1'])),
    tlsServing: { minVersion: 'VersionTLS12', cipherSuites: [], sniCertKeys: [], ...tlsServing },
  }, { logger: log.logger });
  return { server, log };
}

beforeAll(async () => {
  dir = tempDir('tls-e2e-');
  pki = await makePki(dir);
});
afterAll(stopAll);

describe('--tls-min-version', () => {
  it('default VersionTLS12: TLS 1.1 and 1.0 are refused, 1.2 and 1.3 connect', async () => {
    const { server } = await start({});
    const tls11 = await sClient(server.port, ['-tls1_1', ...legacy()]);
    expect(tls11.ok).toBe(false);
    expect(tls11.output).toMatch(/alert protocol version|unsupported protocol|wrong version number/);
    expect((await sClient(server.port, ['-tls1', ...legacy()])).ok).toBe(false);
    expect(await sClient(server.port, ['-tls1_2'])).toMatchObject({ ok: true, protocol: 'TLSv1.2' });
    expect(await sClient(server.port, ['-tls1_3'])).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
  });

  it('VersionTLS11 serves TLS 1.1 (the same client, so the refusal above is the server\'s) and still refuses 1.0', async () => {
    const { server } = await start({ minVersion: 'VersionTLS11' });
    const tls11 = await sClient(server.port, ['-tls1_1', ...legacy()]);
    expect(tls11.ok).toBe(true);
    expect((await sClient(server.port, ['-tls1', ...legacy()])).ok).toBe(false);
  });

  it('VersionTLS13 refuses TLS 1.2', async () => {
    const { server } = await start({ minVersion: 'VersionTLS13' });
    expect((await sClient(server.port, ['-tls1_2'])).ok).toBe(false);
    expect(await sClient(server.port, ['-tls1_3'])).toMatchObject({ ok: true, protocol: 'TLSv1.3' });
  });
});

describe('--tls-cipher-suites', () => {
  it('without the flag: Go\'s default suites (an OpenSSL-default CBC-SHA256 or DHE suite is refused)', async () => {
    const { server } = await start({});
    expect(await sClient(server.port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-AES128-GCM-SHA256'])).toMatchObject({ ok: true, cipher: 'ECDHE-ECDSA-AES128-GCM-SHA256' });
    expect(await sClient(server.port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-AES128-SHA'])).toMatchObject({ ok: true });
    // Node's own default list has this suite; Go's (kube's) does not.
    expect((await sClient(server.port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-AES128-SHA256'])).ok).toBe(false);
  });

  it('only the named TLS 1.2 suites connect, TLS 1.3 is untouched, and an insecure name is warned about as kube does', async () => {
    const { server, log } = await start({
      cipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256'],
    });
    expect((await sClient(server.port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-AES128-GCM-SHA256'])).ok).toBe(false);
    expect(await sClient(server.port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-AES256-GCM-SHA384'])).toMatchObject({ ok: true, cipher: 'ECDHE-ECDSA-AES256-GCM-SHA384' });
    expect(await sClient(server.port, ['-tls1_2', '-cipher', 'ECDHE-ECDSA-AES128-SHA256'])).toMatchObject({ ok: true, cipher: 'ECDHE-ECDSA-AES128-SHA256' });
    expect(await sClient(server.port, ['-tls1_3', '-ciphersuites', 'TLS_CHACHA20_POLY1305_SHA256'])).toMatchObject({ ok: true, cipher: 'TLS_CHACHA20_POLY1305_SHA256' });
    const warnings = log.lines().map((l) => JSON.parse(l) as { level: string; msg: string }).filter((l) => l.level === 'warn').map((l) => l.msg);
    expect(warnings).toContain("Use of insecure cipher 'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256' detected.");
    expect(warnings.some((w) => w.includes('TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'))).toBe(false);
  });
});

describe('--tls-sni-cert-key', () => {
  it('picks the certificate by server name: explicit names over extracted ones, exact over wildcard, earlier pair first, else the default', async () => {
    const foo = await pair('foo', 'foo-cert', ['DNS:foo.test', 'DNS:*.foo.test', 'DNS:shared.test']);
    const bar = await pair('bar', 'bar-cert', ['DNS:ignored.test']);
    const baz = await pair('baz', 'baz-cert', ['DNS:shared.test', 'DNS:exact.foo.test']);
    const { server } = await start({
      sniCertKeys: [
        { ...foo, names: [] },
        { ...bar, names: ['bar.example', '*.wild.example', 'exact.foo.test'] },
        { ...baz, names: [] },
      ],
    });
    const cn = async (servername?: string) => (await sClient(server.port, servername === undefined ? ['-noservername'] : ['-servername', servername])).cn;
    expect(await cn('foo.test')).toBe('foo-cert');
    expect(await cn('a.foo.test')).toBe('foo-cert');
    expect(await cn('A.FOO.TEST')).toBe('foo-cert');
    // Explicit beats the certificate's own names (baz has exact.foo.test in its SANs), exact beats *.foo.test.
    expect(await cn('exact.foo.test')).toBe('bar-cert');
    // Both foo and baz carry shared.test: the earlier flag wins.
    expect(await cn('shared.test')).toBe('foo-cert');
    expect(await cn('bar.example')).toBe('bar-cert');
    expect(await cn('x.wild.example')).toBe('bar-cert');
    // A wildcard is one label; names given explicitly replace the certificate's.
    expect(await cn('b.a.foo.test')).toBe('default.test');
    expect(await cn('wild.example')).toBe('default.test');
    expect(await cn('ignored.test')).toBe('default.test');
    expect(await cn('other.test')).toBe('default.test');
    expect(await cn()).toBe('default.test');
  });

  it('a handshake on an SNI certificate still names the client CAs (x509 client authentication keeps working)', async () => {
    const sni = await pair('sni-ca', 'sni-ca-cert', ['DNS:sni-ca.test']);
    const { server } = await start({ sniCertKeys: [{ ...sni, names: [] }] }, undefined, { clientCaFile: pki.caFile });
    for (const args of [['-servername', 'sni-ca.test'], ['-noservername']]) {
      const r = await sClient(server.port, args);
      expect(r.ok).toBe(true);
      expect(r.output).toMatch(/Acceptable client certificate CA names\n.*CN\s?=\s?tls-test-ca/);
    }
    expect((await sClient(server.port, ['-servername', 'sni-ca.test'])).cn).toBe('sni-ca-cert');
  });
});

describe('dynamic serving certificates', () => {
  it('a rotated certificate is served to new connections without a restart; an open keep-alive connection and a watch keep working; a broken pair keeps the old one', async () => {
    const files = await pair('rotating', 'first', ['DNS:localhost', 'IP:127.0.0.1']);
    const sni = await pair('rotating-sni', 'sni-first', ['DNS:sni.test']);
    const { server, log } = await start({ sniCertKeys: [{ ...sni, names: [] }] }, files);
    const ca = readFileSync(pki.caFile, 'utf8');
    const token = readFileSync(adminTokenPath(dataDirOf(server)), 'utf8').trim();

    // An open keep-alive connection and a watch, both from before the rotation.
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca });
    const first = await get(server, agent, '/livez');
    expect(first.status).toBe(200);
    expect(first.cn).toBe('first');
    const watch = openWatch(server, ca, token);
    await watch.started;

    // A key that does not match the certificate: refused, logged, the old pair stays.
    const stray = await pki.issue('stray', ['DNS:localhost']);
    await replaceFile(files.keyFile, stray.keyPem);
    await eventually(async () => log.lines().some((l) => l.includes('TLS certificate not reloaded') && l.includes('private key does not match')), 'the refused pair logged', 10_000);
    expect((await sClient(server.port, [])).cn).toBe('first');

    // The rotation proper: certificate then key, each replaced by rename.
    const second = await pki.issue('second', ['DNS:localhost', 'IP:127.0.0.1']);
    await replaceFile(files.certFile, second.certPem);
    await replaceFile(files.keyFile, second.keyPem);
    await eventually(async () => (await sClient(server.port, [])).cn === 'second', 'new connections served the rotated certificate', 10_000);
    const loaded = log.lines().map((l) => JSON.parse(l) as { msg: string; reload?: boolean; certDetail?: string }).filter((l) => l.msg === 'Loaded serving cert' && l.reload === true);
    expect(loaded.at(-1)?.certDetail).toMatch(/^"second" \[serving\] validServingFor=\[second,localhost,127\.0\.0\.1\]/);

    // The open keep-alive connection is the same socket and still speaks with the old certificate.
    const again = await get(server, agent, '/livez');
    expect(again).toMatchObject({ status: 200, reused: true, cn: 'first' });
    expect(again.socket).toBe(first.socket);
    // The watch opened before the rotation still delivers events.
    await httpsJson(server, ca, token, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'after-rotation' } });
    await eventually(async () => watch.events().some((e) => e.includes('"after-rotation"')), 'the old watch saw the new namespace', 10_000);
    // A new Node connection verifies the rotated certificate against the CA.
    const fresh = await get(server, new Agent({ keepAlive: false, ca }), '/livez');
    expect(fresh).toMatchObject({ status: 200, reused: false, cn: 'second' });

    // SNI pairs rotate the same way.
    expect((await sClient(server.port, ['-servername', 'sni.test'])).cn).toBe('sni-first');
    const sni2 = await pki.issue('sni-second', ['DNS:sni.test']);
    await replaceFile(sni.keyFile, sni2.keyPem);
    await replaceFile(sni.certFile, sni2.certPem);
    await eventually(async () => (await sClient(server.port, ['-servername', 'sni.test'])).cn === 'sni-second', 'the rotated SNI certificate', 10_000);
    expect(log.lines().some((l) => l.includes('"msg":"Loaded SNI cert"') && l.includes('"reload":true'))).toBe(true);

    // Counted: at least one refused serving pair, and successful serving and SNI reloads.
    const metrics = await metricsText(server, ca, token);
    const count = (labels: string) => Number(new RegExp(`apiserver_tls_serving_certificate_reloads_total\\{${labels}\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
    expect(count('certificate="serving",status="failure"')).toBeGreaterThanOrEqual(1);
    expect(count('certificate="serving",status="success"')).toBeGreaterThanOrEqual(1);
    expect(count('certificate="sni",status="success"')).toBeGreaterThanOrEqual(1);

    watch.close();
    agent.destroy();
  });
});

describe('wrong values refused at start', () => {
  const bin = join(root, 'bin', 'platform-apiserver');
  beforeAll(() => {
    if (!existsSync(join(root, 'dist', 'apiserver', 'main.js'))) throw new Error('dist/ is missing: jest global set-up builds it');
  });
  const runBin = (args: string[]) => new Promise<{ code: number | null; stderr: string }>((resolvePromise) => {
    const child = spawn(bin, ['--bind-address=127.0.0.1', '--secure-port=0', `--data-dir=${join(dir, `bin-${Math.random().toString(36).slice(2)}`)}`, ...args],
      { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code) => { clearTimeout(timer); resolvePromise({ code, stderr }); });
  });

  it.each([
    [['--tls-min-version=VersionTLS14'], 2, '--tls-min-version: unknown tls version "VersionTLS14"'],
    [['--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,ECDHE-RSA-AES128-SHA'], 2, "--tls-cipher-suites: Cipher suite ECDHE-RSA-AES128-SHA not supported or doesn't exist"],
    [['--tls-sni-cert-key=only-one-path'], 2, 'invalid argument "only-one-path" for "--tls-sni-cert-key" flag: expected comma separated certificate and key file paths'],
    [['--tls-sni-cert-key=/nonexistent/a.crt,/nonexistent/a.key'], 1, 'failed to load SNI cert and key: ENOENT'],
  ])('%j exits %i with a clear message', async (args, code, message) => {
    const r = await runBin(args);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(message);
  });
});

// --- helpers -------------------------------------------------------------------------------------------

function dataDirOf(server: RunningServer): string {
  // The admin kubeconfig is written into the data dir.
  return resolve(server.kubeconfigPath!, '..');
}

function get(server: RunningServer, agent: Agent, path: string) {
  return new Promise<{ status: number; reused: boolean; cn: string | undefined; socket: TLSSocket }>((resolvePromise, reject) => {
    const req = request(`${server.url}${path}`, { agent }, (res: IncomingMessage) => {
      const socket = res.socket as TLSSocket;
      const cn = socket.getPeerCertificate().subject?.CN;
      res.resume();
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, reused: req.reusedSocket, cn: Array.isArray(cn) ? cn[0] : cn, socket }));
    });
    req.on('error', reject);
    req.end();
  });
}

function httpsJson(server: RunningServer, ca: string, token: string, method: string, path: string, body: unknown) {
  return new Promise<number>((resolvePromise, reject) => {
    const req = request(`${server.url}${path}`, { method, ca, agent: false, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 201 ? resolvePromise(201) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function metricsText(server: RunningServer, ca: string, token: string) {
  return new Promise<string>((resolvePromise, reject) => {
    const req = request(`${server.url}/metrics`, { ca, agent: false, headers: { Authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => { text += c; });
      res.on('end', () => resolvePromise(text));
    });
    req.on('error', reject);
    req.end();
  });
}

function openWatch(server: RunningServer, ca: string, token: string) {
  let text = '';
  let onStart!: () => void;
  let onFail!: (err: Error) => void;
  const started = new Promise<void>((res, rej) => { onStart = res; onFail = rej; });
  const req = request(`${server.url}/api/v1/namespaces?watch=1`, { ca, agent: false, headers: { Authorization: `Bearer ${token}` } }, (res) => {
    if (res.statusCode !== 200) return onFail(new Error(`watch status ${res.statusCode}`));
    onStart();
    res.setEncoding('utf8').on('data', (c: string) => { text += c; });
    res.on('error', () => {});
  });
  req.on('error', (err) => onFail(err));
  req.end();
  return { started, events: () => text.split('\n').filter((l) => l !== ''), close: () => req.destroy() };
}
