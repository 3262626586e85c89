/**
 * The command as users run it: `bin/platform-apiserver` over the build in dist/ (built by jest's global set-up).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { connect } from 'node:tls';
import { get as httpsGet } from 'node:https';
import { stopAll, tempDir } from './helpers.js';

const root = resolve(__dirname, '..', '..');
const bin = join(root, 'bin', 'platform-apiserver');
const children = new Set<ChildProcess>();

// dist/ is built once by jest's global set-up (test/harness/build-dist.cjs), never here.
beforeAll(() => {
  if (!existsSync(join(root, 'dist', 'apiserver', 'main.js'))) throw new Error('dist/ is missing: jest global set-up builds it');
});

afterEach(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
  await stopAll();
});

function run(args: string[]) {
  return spawnSync(bin, args, { cwd: root, encoding: 'utf8', timeout: 30_000 });
}

/** A running server process with its output so far and helpers to await lines. */
function startProcess(args: string[]) {
  const child = spawn(bin, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  const notify = (): void => waiters.splice(0).forEach((w) => w());
  child.stdout!.setEncoding('utf8').on('data', (c: string) => { stdout += c; notify(); });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; notify(); });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => { notify(); r(code); }));
  async function waitFor(pattern: RegExp, stream: () => string): Promise<RegExpMatchArray> {
    for (;;) {
      const m = stream().match(pattern);
      if (m !== null) return m;
      if (child.exitCode !== null) throw new Error(`process exited (${child.exitCode}) before ${pattern}: ${stderr}`);
      await new Promise<void>((r) => waiters.push(r));
    }
  }
  return {
    child,
    exited,
    stdoutLine: (p: RegExp) => waitFor(p, () => stdout),
    stderrLine: (p: RegExp) => waitFor(p, () => stderr),
    stderr: () => stderr,
  };
}

describe('bin/platform-apiserver', () => {
  it('--help lists every flag with its default and exits 0', () => {
    const res = run(['--help']);
    expect(res.status).toBe(0);
    for (const flag of ['bind-address', 'secure-port', 'tls-cert-file', 'tls-private-key-file', 'tls-sans', 'token-auth-file',
      'etcd-servers', 'etcd-prefix', 'etcd-compaction-interval', 'storage', 'data-dir', 'group-domain', 'log-level',
      'shutdown-delay-duration', 'shutdown-send-retry-after', 'shutdown-timeout', 'max-requests-inflight', 'max-mutating-requests-inflight', 'request-timeout']) {
      expect(res.stdout).toContain(`--${flag}`);
    }
    expect(res.stdout).toMatch(/--secure-port port .*\(default 6443\)/);
    expect(res.stdout).toMatch(/--etcd-compaction-interval duration .*\(default 5m\)/);
    expect(res.stdout).toMatch(/--shutdown-delay-duration duration .*\(default 20s\)/);
  });

  it.each([
    [['--nope'], 'platform-apiserver: unknown flag: --nope (see --help)\n'],
    [['--secure-port=https'], 'platform-apiserver: invalid value "https" for flag --secure-port: not an integer\n'],
    [['--etcd-compaction-interval', '5 minutes'], 'platform-apiserver: invalid value "5 minutes" for flag --etcd-compaction-interval: not a duration (e.g. 30s, 5m, 1h30m)\n'],
  ])('%j exits 2 with one line on stderr', (args, message) => {
    const res = run(args);
    expect(res.status).toBe(2);
    expect(res.stderr).toBe(message);
    expect(res.stdout).toBe('');
  });

  it('serves kubectl through the generated kubeconfig, and drains an in-flight request on SIGTERM before exiting 0', async () => {
    const dataDir = tempDir();
    // A delay long enough for the checks made during it on a loaded machine, short for the test.
    const proc = startProcess(['--data-dir', dataDir, '--secure-port=0', '--bind-address=127.0.0.1', '--etcd-compaction-interval=0', '--shutdown-delay-duration=3s']);
    const [, kubeconfig] = await proc.stdoutLine(/export KUBECONFIG=(\S+)/) as unknown as [string, string];
    expect(kubeconfig).toBe(join(dataDir, 'admin.kubeconfig'));
    const [, port] = await proc.stdoutLine(/Serving on https:\/\/127\.0\.0\.1:(\d+)/) as unknown as [string, string];

    const kubectl = spawnSync('kubectl', ['--kubeconfig', kubeconfig, 'version', '-o', 'json'], { encoding: 'utf8', timeout: 30_000 });
    expect(kubectl.stderr).toBe('');
    expect(kubectl.status).toBe(0);
    const version = JSON.parse(kubectl.stdout);
    expect(version.serverVersion).toMatchObject({ major: '1', minor: '32', compiler: 'tsc' });
    expect(version.serverVersion.gitVersion).toMatch(/^v1\.32\./);

    // An in-flight request: headers half sent when SIGTERM arrives, finished afterwards.
    const token = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
    const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca, servername: 'localhost' });
    await new Promise<void>((r, j) => socket.once('secureConnect', () => r()).once('error', j));
    let response = '';
    socket.setEncoding('utf8').on('data', (c: string) => { response += c; });
    const socketEnded = new Promise<void>((r) => socket.once('end', () => r()));
    socket.write(`GET /api/v1/namespaces HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n`);

    proc.child.kill('SIGTERM');
    await proc.stderrLine(/"msg":"shutting down"/);
    // During the delay /readyz fails at once (load balancers take the replica out) while it still serves.
    const ready = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      httpsGet(`https://127.0.0.1:${port}/readyz`, { ca, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers['connection'] }));
      }).on('error', reject);
    });
    expect(ready).toEqual({ status: 503, connection: 'close' });
    socket.write('\r\n');
    await socketEnded;
    // The request that was in flight when SIGTERM arrived is served in full (the store is still open).
    expect(response).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(response).toMatch(/\r\nConnection: close\r\n/i);
    expect(response).toContain('"kind":"NamespaceList"');
    expect(response).toContain('"name":"default"');

    expect(await proc.exited).toBe(0);
    expect(proc.stderr()).toContain('"msg":"stopped"');
    expect(proc.stderr()).not.toContain(token);
  });

  it('exits at once on a second signal while draining', async () => {
    const dataDir = tempDir();
    const proc = startProcess(['--data-dir', dataDir, '--secure-port=0', '--bind-address=127.0.0.1', '--shutdown-timeout=10m']);
    const [, port] = await proc.stdoutLine(/Serving on https:\/\/127\.0\.0\.1:(\d+)/) as unknown as [string, string];
    const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    // A request that never completes keeps the drain waiting.
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca, servername: 'localhost' });
    await new Promise<void>((r, j) => socket.once('secureConnect', () => r()).once('error', j));
    socket.on('error', () => undefined);
    socket.write('GET /version HTTP/1.1\r\nHost: localhost\r\n');
    proc.child.kill('SIGTERM');
    await proc.stderrLine(/"msg":"shutting down"/);
    proc.child.kill('SIGINT');
    expect(await proc.exited).toBe(1);
    expect(proc.stderr()).toContain('second signal: exiting now');
    socket.destroy();
  });

  it('exits 1 with the line number when the token file is malformed', async () => {
    const dir = tempDir();
    const file = join(dir, 'tokens.csv');
    writeFileSync(file, 'a,b,c\nnope\n');
    const res = run(['--data-dir', dir, '--secure-port=0', '--bind-address=127.0.0.1', `--token-auth-file=${file}`]);
    expect(res.status).toBe(1);
    expect(res.stderr).toContain(`platform-apiserver: start-up failed: token file ${file}, line 2: must have at least 3 columns`);
  });
});
