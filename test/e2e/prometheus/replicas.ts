/**
 * Server replicas as separate processes on one etcd, as a production deployment runs them: the built
 * server (`dist/apiserver/main.js`, what `bin/platform-apiserver` runs) on 127.0.0.1 and free ports, one
 * storage prefix, one bearer token file (`--token-auth-file`, the admin in `system:masters`) and one
 * serving certificate: the first replica generates its `pki/` and the others start with a copy, so a
 * scraper verifies every replica against one CA. Each replica's JSON log goes to a file in its data dir
 * (quoted when start-up fails). With `audit`, every replica writes an audit log at Metadata level (the
 * `/metrics` scrapes left out, as a deployment's policy would), so the audit metrics move.
 *
 * `repoRoot` is passed in, not derived here: the module is loaded both by jest (CommonJS) and by
 * `scripts/render-dashboard.ts` (ESM through tsx).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Replica {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** `127.0.0.1:<port>`: the scrape target, and the `instance` label Prometheus gives it. */
  readonly hostPort: string;
  readonly pid: number;
  /** The replica's log so far. */
  log(): string;
}

export interface ReplicaSet {
  readonly replicas: readonly Replica[];
  /** The admin's bearer token (every replica accepts it). */
  readonly token: string;
  /** PEM of the CA every replica's serving certificate is signed by. */
  readonly caPem: string;
  /** SIGTERM every replica (SIGKILL after 10 s), then removes their data dirs. Idempotent. */
  stop(): Promise<void>;
}

export interface StartReplicasOptions {
  /** The repository root (holds dist/). */
  readonly repoRoot: string;
  readonly count: number;
  /** etcd client URLs. */
  readonly etcdServers: readonly string[];
  /** `--etcd-prefix`, shared by the replicas. */
  readonly etcdPrefix: string;
  /** Extra flags for every replica. */
  readonly args?: readonly string[];
  /** Audit every request but the scrapes at Metadata level into a log per replica. Default false. */
  readonly audit?: boolean;
  /** Start-up deadline per replica. Default 60 s. */
  readonly timeoutMs?: number;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

const ADMIN = 'metrics-admin';

export async function startReplicas(options: StartReplicasOptions): Promise<ReplicaSet> {
  const entry = join(options.repoRoot, 'dist', 'apiserver', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: build the server first (jest's global set-up does)`);
  const shared = mkdtempSync(join(tmpdir(), 'replicas-'));
  const token = randomBytes(24).toString('hex');
  const tokenFile = join(shared, 'tokens.csv');
  writeFileSync(tokenFile, `${token},${ADMIN},uid-${ADMIN},"system:masters"\n`, { mode: 0o600 });
  const policyFile = join(shared, 'audit-policy.yaml');
  writeFileSync(policyFile, [
    'apiVersion: audit.k8s.io/v1',
    'kind: Policy',
    'omitStages: [RequestReceived]',
    'rules:',
    '- level: None',
    '  nonResourceURLs: [/metrics]',
    '- level: Metadata',
    '',
  ].join('\n'));

  const stops: (() => Promise<void>)[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await Promise.all(stops.map((s) => s()));
      rmSync(shared, { recursive: true, force: true });
    })();
    return stopping;
  };

  const startOne = async (index: number): Promise<Replica> => {
    const dataDir = join(shared, `replica-${index}`);
    if (index > 0) cpSync(join(shared, 'replica-0', 'pki'), join(dataDir, 'pki'), { recursive: true });
    const logFile = join(shared, `replica-${index}.log`);
    const logFd = openSync(logFile, 'a');
    const child = spawn(process.execPath, [
      '--max-semi-space-size=32',
      entry,
      `--data-dir=${dataDir}`,
      '--bind-address=127.0.0.1',
      '--secure-port=0',
      '--shutdown-delay-duration=0s', // stopped with SIGTERM: no load balancer to wait for
      `--token-auth-file=${tokenFile}`,
      `--etcd-servers=${options.etcdServers.join(',')}`,
      `--etcd-prefix=${options.etcdPrefix}`,
      ...(options.audit === true ? [`--audit-policy-file=${policyFile}`, `--audit-log-path=${join(shared, `audit-${index}.log`)}`] : []),
      ...(options.args ?? []),
    ], { cwd: options.repoRoot, stdio: ['ignore', 'ignore', logFd] });
    closeSync(logFd);
    live.add(child);
    const exited = new Promise<void>((r) => child.once('exit', () => {
      live.delete(child);
      r();
    }));
    stops.push(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    });
    const log = (): string => {
      try {
        return readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    };
    // With a token file the server prints no kubeconfig hint: its URL is in the "serving" log line.
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    let url: string | undefined;
    while (url === undefined) {
      const m = /"url":"(https:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"serving"/.exec(log());
      if (m !== null) {
        url = m[1]!;
        break;
      }
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`replica ${index} exited during start-up (${child.exitCode ?? child.signalCode}):\n${log().split('\n').slice(-15).join('\n')}`);
      }
      if (Date.now() > deadline) throw new Error(`replica ${index} did not serve in time:\n${log().split('\n').slice(-15).join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return { url, hostPort: new URL(url).host, pid: child.pid!, log };
  };

  try {
    const first = await startOne(0);
    const rest = await Promise.all(Array.from({ length: options.count - 1 }, (_, i) => startOne(i + 1)));
    const caPem = readFileSync(join(shared, 'replica-0', 'pki', 'ca.crt'), 'utf8');
    return { replicas: [first, ...rest], token, caPem, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
