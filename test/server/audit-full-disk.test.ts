/**
 * The audit log on a full disk (issue 16): the server process runs under a file-size limit
 * (`prlimit --fsize`, no root needed; Node ignores SIGXFSZ, so writes past the limit fail with EFBIG as
 * they would with ENOSPC on a full filesystem). Requests keep succeeding, the lost events are counted in
 * `apiserver_audit_error_total{plugin="log"}`, the file holds only whole events (plus at most one cut
 * line), and once there is room again (the limit lifted) events are written again.
 *
 * The store is etcd (its own process), so only the audit log meets the limit.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { describeEtcd } from '../harness/describe-etcd.js';
import { apiRequest } from '../http/helpers.js';
import { eventually, tempDir, stopAll } from './helpers.js';

const root = resolve(__dirname, '..', '..');
const bin = join(root, 'bin', 'platform-apiserver');
const limitBytes = 64 * 1024;
const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;

let etcd: EtcdCluster | undefined;
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await etcd?.stop();
  await stopAll();
});

/** The value of one sample of the exposition, 0 when absent. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/**
 * A server process (on the shared etcd, its own key prefix) whose files may not grow past `limitBytes`:
 * a soft limit only (the hard one stays unlimited), so the test can lift it again without privileges.
 */
async function startLimited(extraArgs: readonly string[]) {
  if (!existsSync(join(root, 'dist', 'apiserver', 'main.js'))) throw new Error('dist/ is missing: jest global set-up builds it');
  etcd ??= await startEtcd();
  const dir = tempDir();
  const dataDir = join(dir, 'data');
  const logPath = join(dir, 'log', 'audit.log');
  writeFileSync(join(dir, 'policy.yaml'), [
    'apiVersion: audit.platform.io/v1',
    'kind: Policy',
    'rules:',
    '- level: None',
    '  nonResourceURLs: ["/metrics", "/readyz*", "/healthz*", "/livez*"]',
    '- level: RequestResponse',
    '  resources: [{group: "", resources: [configmaps]}]',
    '- level: Metadata',
  ].join('\n'));
  const child = spawn('prlimit', [`--fsize=${limitBytes}:unlimited`, '--', bin,
    '--data-dir', dataDir, '--secure-port=0', '--bind-address=127.0.0.1', '--etcd-compaction-interval=0', '--shutdown-delay-duration=0s',
    `--etcd-servers=${etcd.endpoints.join(',')}`, `--etcd-prefix=/audit-${children.length}`,
    `--audit-policy-file=${join(dir, 'policy.yaml')}`, `--audit-log-path=${logPath}`, ...extraArgs,
  ], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Build facts given, so the server runs no `git` under the file-size limit (git would leave a cut
    // index.lock behind in the repository).
    env: { ...process.env, PLATFORM_GIT_COMMIT: 'audit-test', PLATFORM_GIT_TREE_STATE: 'clean' },
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => { stdout += c; });
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { stderr += c; });
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    return /Serving on https:\/\/127\.0\.0\.1:\d+/.test(stdout);
  }, 'the server serving', 60_000);
  const port = /Serving on https:\/\/127\.0\.0\.1:(\d+)/.exec(stdout)![1];
  const api = {
    url: `https://127.0.0.1:${port}`,
    ca: readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8'),
    token: readFileSync(join(dataDir, 'admin.token'), 'utf8').trim(),
  };
  return {
    api,
    child,
    logPath,
    stderr: () => stderr,
    liftLimit: () => expect(spawnSync('prlimit', ['--pid', String(child.pid), '--fsize=unlimited:unlimited']).status).toBe(0),
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

(hasPrlimit ? describeEtcd : describe.skip)('audit log under a file-size limit', () => {
  it('keeps serving, counts the dropped events, and writes again once there is room', async () => {
    const { api, logPath, stderr, liftLimit, stop } = await startLimited([]);
    // ~4 KiB per event at RequestResponse: the 64 KiB limit is reached after a few creates.
    const data = { blob: 'x'.repeat(2048) };
    for (let i = 0; i < 60; i++) {
      const res = await apiRequest(api, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `cm-${i}` }, data } });
      expect(res.status).toBe(201);
    }
    let metrics = '';
    await eventually(async () => {
      metrics = (await apiRequest(api, 'GET', '/metrics')).text();
      return sample(metrics, 'apiserver_audit_error_total{plugin="log"}') > 0;
    }, 'dropped audit events counted', 15_000);
    expect(sample(metrics, 'apiserver_audit_event_total')).toBeGreaterThanOrEqual(120);
    expect(statSync(logPath).size).toBeLessThanOrEqual(limitBytes);
    // Whole events, except at most one line cut by the limit.
    const lines = readFileSync(logPath, 'utf8').split('\n').filter((l) => l !== '');
    const broken = lines.filter((l) => {
      try {
        return JSON.parse(l).kind !== 'Event';
      } catch {
        return true;
      }
    });
    expect(broken.length).toBeLessThanOrEqual(1);
    expect(lines.length - broken.length).toBeGreaterThan(5);
    expect(stderr()).toContain('audit log write failed');

    // Room again (the limit lifted, as when space is freed): the writer retries after its back-off, and the
    // buffered events and new ones land.
    liftLimit();
    const after = await apiRequest(api, 'GET', '/api/v1/namespaces/default/configmaps/cm-1');
    expect(after.status).toBe(200);
    const id = String(after.headers['audit-id']);
    await eventually(async () => readFileSync(logPath, 'utf8').split('\n').some((l) => l.includes(id) && l.includes('"stage":"ResponseComplete"')),
      'events written after the file had room again', 40_000);
    // The server says so once the write has completed, after the file shows it, through another pipe.
    await eventually(async () => stderr().includes('audit log writes resumed'), 'the server reporting that writes resumed', 10_000);
    // Only the line cut at the limit is broken; it was ended by one newline, and writes since are whole lines.
    const parts = readFileSync(logPath, 'utf8').split('\n');
    expect(parts.pop()).toBe('');
    expect(parts.filter((l) => l === '').length).toBeLessThanOrEqual(1);
    const unparsable = parts.filter((l) => {
      try {
        return JSON.parse(l).kind !== 'Event';
      } catch {
        return l !== '';
      }
    });
    expect(unparsable.length).toBeLessThanOrEqual(1);
    await stop();
  });

  it('refuses requests while events cannot be logged with --audit-log-mode=blocking-strict, and serves again after', async () => {
    const { api, stderr, liftLimit, stop } = await startLimited(['--audit-log-mode=blocking-strict']);
    const data = { blob: 'x'.repeat(2048) };
    let refused: Awaited<ReturnType<typeof apiRequest>> | undefined;
    for (let i = 0; i < 200 && refused === undefined; i++) {
      const res = await apiRequest(api, 'POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: `s-${i}` }, data } });
      if (res.status === 500) refused = res;
      else expect(res.status).toBe(201);
    }
    expect(refused?.json()).toMatchObject({ kind: 'Status', reason: 'InternalError', message: 'Internal error occurred: failed to store audit event' });
    const metrics = (await apiRequest(api, 'GET', '/metrics')).text();
    expect(sample(metrics, 'apiserver_audit_requests_rejected_total')).toBeGreaterThan(0);
    expect(stderr()).toContain('audit log write failed');
    liftLimit();
    // After the writer's back-off, a write succeeds and requests are served again.
    await eventually(async () => (await apiRequest(api, 'GET', '/api/v1/namespaces/default/configmaps/s-0')).status === 200,
      'requests served once the log is writable', 40_000);
    await stop();
  });
});
