/**
 * Starts real etcd members (Debian's `etcd-server`) on free loopback ports in a temporary directory, for
 * tests and benchmarks. Every process started here is stopped by `cluster.stop()`; a process-exit hook kills
 * leftovers should a test runner die first.
 *
 * Under CI (`CI` set), a missing or failing etcd is an error, never a skip: `etcdAvailable()` is for
 * local runs only.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpsRequest } from 'node:https';
import { freePorts } from './ports.js';

export interface EtcdMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  /** True while the member's process runs. */
  readonly running: boolean;
  /** Starts the member again (same data dir, same ports) and waits until it answers. */
  start(): Promise<void>;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone. */
  stop(): Promise<void>;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  /**
   * SIGSTOP: the member keeps its sockets but answers nothing (a hung or partitioned member). Resolves once
   * every thread of the process has stopped (a signal is delivered to a running process a little later).
   */
  pause(): Promise<void>;
  /** SIGCONT after `pause()`. */
  resume(): void;
}

export interface EtcdCluster {
  /** Client URLs of all members, for `--etcd-servers`. */
  readonly endpoints: readonly string[];
  readonly members: readonly EtcdMember[];
  /** Stops every member and removes the temporary directory. Idempotent. */
  stop(): Promise<void>;
}

export interface StartEtcdOptions {
  /** Number of members (1 or an odd number). Default 1. */
  readonly members?: number;
  /** Extra etcd flags for every member. */
  readonly extraArgs?: readonly string[];
  /** Serve clients over TLS (`https://` client URLs); peers stay plain. */
  readonly tls?: EtcdTlsOptions;
}

/** PEM files of a TLS etcd (`--cert-file`, `--key-file`, `--trusted-ca-file`, `--client-cert-auth`). */
export interface EtcdTlsOptions {
  readonly certFile: string;
  readonly keyFile: string;
  /** Trusted for client certificates, and by the harness's health probe for the member's certificate. */
  readonly caFile: string;
  /** etcd refuses clients without a certificate signed by `caFile`. */
  readonly clientCertAuth?: boolean;
  /** What the health probe presents when `clientCertAuth` is on. */
  readonly client?: { readonly certFile: string; readonly keyFile: string };
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Resolves once every thread of `pid` is in the stopped state ('T' in /proc/<pid>/task/<tid>/stat). */
async function allThreadsStopped(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  const state = (tid: string): string => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    } catch {
      return 'T'; // the thread ended
    }
  };
  while (!readdirSync(`/proc/${pid}/task`).every((tid) => state(tid) === 'T')) {
    if (Date.now() > deadline) throw new Error(`etcd process ${pid} did not stop after SIGSTOP`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Whether an `etcd` binary is on PATH. */
export function etcdAvailable(): boolean {
  return spawnSync('etcd', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Starts a cluster and waits until every member serves a quorum read. */
export async function startEtcd(options: StartEtcdOptions = {}): Promise<EtcdCluster> {
  const count = options.members ?? 1;
  if (!etcdAvailable()) {
    throw new Error('etcd is not on PATH: install Debian\'s etcd-server (make deps does it)');
  }
  const root = mkdtempSync(join(tmpdir(), 'etcd-test-'));
  const ports = await freePorts(count * 2);
  const specs = Array.from({ length: count }, (_, i) => ({
    name: `m${i}`,
    clientUrl: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${ports[2 * i]}`,
    peerUrl: `http://127.0.0.1:${ports[2 * i + 1]}`,
    dataDir: join(root, `m${i}`),
  }));
  const initialCluster = specs.map((s) => `${s.name}=${s.peerUrl}`).join(',');
  const token = `tok-${process.pid}-${Date.now()}`;

  async function waitHealthy(m: EtcdMember): Promise<void> {
    const deadline = Date.now() + 30_000;
    let last = '';
    while (Date.now() < deadline) {
      if (!m.running) {
        throw new Error(`etcd member ${m.name} exited during start-up: ${tail(`${m.dataDir}.log`)}`);
      }
      try {
        const body = (options.tls === undefined
          ? await (await fetch(`${m.clientUrl}/health`, { signal: AbortSignal.timeout(1000) })).json()
          : JSON.parse(await httpsGet(`${m.clientUrl}/health`, options.tls))) as { health?: string };
        if (body.health === 'true') return;
        last = JSON.stringify(body);
      } catch (err) {
        last = String(err);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`etcd member ${m.name} not healthy after 30 s (${last}): ${tail(`${m.dataDir}.log`)}`);
  }

  const members = specs.map((spec) => {
    let child: ChildProcess | undefined;
    let exited: Promise<void> = Promise.resolve();
    let started = false;
    const args = (): string[] => [
      '--name', spec.name,
      '--data-dir', spec.dataDir,
      '--listen-client-urls', spec.clientUrl,
      '--advertise-client-urls', spec.clientUrl,
      '--listen-peer-urls', spec.peerUrl,
      '--initial-advertise-peer-urls', spec.peerUrl,
      '--initial-cluster', initialCluster,
      '--initial-cluster-state', started ? 'existing' : 'new',
      '--initial-cluster-token', token,
      '--logger', 'zap',
      '--log-outputs', `${spec.dataDir}.log`,
      ...(options.tls === undefined ? [] : [
        '--cert-file', options.tls.certFile,
        '--key-file', options.tls.keyFile,
        '--trusted-ca-file', options.tls.caFile,
        ...(options.tls.clientCertAuth === true ? ['--client-cert-auth'] : []),
      ]),
      ...(options.extraArgs ?? []),
    ];
    const member: EtcdMember = {
      ...spec,
      get running() {
        return child !== undefined && child.exitCode === null && child.signalCode === null;
      },
      async start() {
        if (member.running) return;
        const proc = spawn('etcd', args(), { stdio: 'ignore' });
        child = proc;
        started = true;
        live.add(proc);
        exited = new Promise((resolve) => proc.once('exit', () => {
          live.delete(proc);
          resolve();
        }));
        await waitHealthy(member);
      },
      async stop() {
        if (!member.running) return exited;
        const proc = child!;
        proc.kill('SIGTERM');
        proc.kill('SIGCONT'); // a paused member handles SIGTERM only once continued
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      },
      async kill() {
        if (!member.running) return exited;
        child!.kill('SIGKILL');
        await exited;
      },
      async pause() {
        if (!member.running) return;
        child!.kill('SIGSTOP');
        await allThreadsStopped(child!.pid!);
      },
      resume() {
        if (member.running) child!.kill('SIGCONT');
      },
    };
    return member;
  });

  let stopped = false;
  const cluster: EtcdCluster = {
    endpoints: members.map((m) => m.clientUrl),
    members,
    async stop() {
      if (stopped) return;
      stopped = true;
      await Promise.all(members.map((m) => m.stop()));
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    // Members of a new cluster wait for each other: start all, then wait for all.
    await Promise.all(members.map((m) => m.start()));
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** One GET over TLS trusting `tls.caFile` (and presenting `tls.client`), 1 s bound; the body. */
function httpsGet(url: string, tls: EtcdTlsOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, {
      agent: false,
      ca: readFileSync(tls.caFile),
      ...(tls.client === undefined ? {} : { cert: readFileSync(tls.client.certFile), key: readFileSync(tls.client.keyFile) }),
      signal: AbortSignal.timeout(1000),
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function tail(file: string): string {
  if (!existsSync(file)) return '(no log)';
  return readFileSync(file, 'utf8').split('\n').slice(-5).join('\n');
}
