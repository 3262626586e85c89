/**
 * The local HA cluster as a library: etcd members, API server replicas and haproxy in front, all on
 * loopback, all state under one directory. `make cluster` (deploy/cluster.ts), the e2e chaos suite
 * (test/e2e/cluster/) and `make bench` part `cluster` use it.
 *
 * Layout of `dir` (created on the first start, reused by later ones: same ports, credentials, etcd data):
 *
 *     cluster.json            ports, names and the etcd cluster token, fixed at the first start
 *     shared/                 credentials every replica shares (credentials.ts)
 *     etcd/m<i>/ m<i>.log m<i>.pid        etcd member i
 *     replicas/r<i>/ r<i>.log r<i>.pid    replica i (its --data-dir; it keeps nothing there with etcd)
 *     replicas/r<i>.args                  the flags of its last start (the chart's, see replica-args.ts)
 *     haproxy.cfg haproxy.log haproxy.pid haproxy.sock
 *     admin.kubeconfig        the admin's kubeconfig against the load balancer
 *
 * Processes are detached with pid files (process.ts): they outlive the process that started them, and
 * any later process opening the same directory gets handles to them (`openCluster`). Replica i binds and
 * advertises its own loopback address 127.0.1.<i+1> (Linux routes all of 127/8 to lo), so every replica
 * is a distinct endpoint of the `kubernetes` Service, as pods are.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminKubeconfig, ensureSharedCredentials } from './credentials.js';
import { backendStates, haproxyConfig, type BackendState } from './haproxy.js';
import { managed, type ClusterProcess } from './managed-process.js';
import { renderReplicaTemplate, replicaArgs, type ReplicaTemplate } from './replica-args.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

export interface ClusterOptions {
  /** The cluster's directory (created when missing; an existing one is resumed). */
  readonly dir: string;
  /** Server replicas. Default 3. Must match the directory's first start. */
  readonly replicas?: number;
  /** etcd members (1 or odd). Default 3. Must match the directory's first start. */
  readonly etcdMembers?: number;
  /** The replicas run the build in dist/ (default; `make build` first) or the sources through tsx. */
  readonly serverMode?: 'dist' | 'tsx';
  /**
   * Flags over every replica's list (replica-args.ts), e.g. for a test: each replaces the flag of the same
   * name, or is appended.
   */
  readonly extraReplicaArgs?: readonly string[];
  /** Progress lines (`make cluster` prints them). */
  readonly log?: (line: string) => void;
}

/** A process of the cluster. Handles read the pid file, so they work from any process. */
export type { ClusterProcess };

export interface EtcdMemberProcess extends ClusterProcess {
  readonly clientUrl: string;
  readonly peerUrl: string;
}

export interface ReplicaProcess extends ClusterProcess {
  /** haproxy's server name for it (r0, r1, ...). */
  readonly serverName: string;
  /** 127.0.1.<i+1> */
  readonly address: string;
  readonly port: number;
  /** The replica's own URL, bypassing the load balancer. */
  readonly url: string;
}

export interface HaproxyProcess extends ClusterProcess {
  readonly statsSocket: string;
  /** Each replica's state as haproxy sees it, by server name. */
  backendStates(): Promise<Map<string, BackendState>>;
  /**
   * Resolves once haproxy has checked each named server and marked it UP (`up`) or DOWN (`down`), as
   * its health checks decide (within rise/fall x 1 s); rejects after `timeoutMs` (default 15 s).
   */
  waitBackends(want: { readonly up?: readonly string[]; readonly down?: readonly string[] }, timeoutMs?: number): Promise<void>;
}

export interface Cluster {
  readonly dir: string;
  /** The load balancer: `https://127.0.0.1:<port>`. */
  readonly url: string;
  /** The admin's bearer token (group system:masters). */
  readonly token: string;
  /** The CA that signed the replicas' serving certificate. */
  readonly caPem: string;
  readonly caFile: string;
  /** A kubeconfig for the admin against the load balancer. */
  readonly kubeconfigPath: string;
  readonly etcdEndpoints: readonly string[];
  readonly etcd: readonly EtcdMemberProcess[];
  readonly replicas: readonly ReplicaProcess[];
  readonly haproxy: HaproxyProcess;
  /** Starts whatever is not running (etcd, then replicas, then haproxy) and waits for each to be ready. */
  start(): Promise<void>;
  /** Stops everything: haproxy and the replicas (gracefully, in parallel), then etcd. Idempotent. */
  stop(): Promise<void>;
}

interface ClusterState {
  readonly version: 1;
  readonly etcdToken: string;
  readonly lbPort: number;
  readonly etcd: readonly { readonly name: string; readonly clientPort: number; readonly peerPort: number }[];
  readonly replicas: readonly { readonly name: string; readonly address: string; readonly port: number }[];
}

/** Whether `dir` holds a cluster (its state file). */
export function clusterExists(dir: string): boolean {
  return existsSync(join(resolve(dir), 'cluster.json'));
}

/** Handles to the cluster in `dir` (state and credentials created on first use); starts nothing. */
export async function openCluster(options: ClusterOptions): Promise<Cluster> {
  const dir = resolve(options.dir);
  const log = options.log ?? ((): void => undefined);
  mkdirSync(dir, { recursive: true });
  const state = await ensureState(dir, options.replicas ?? 3, options.etcdMembers ?? 3);
  const creds = await ensureSharedCredentials(dir, state.replicas.map((r) => r.address));
  const etcdEndpoints = state.etcd.map((m) => `http://127.0.0.1:${m.clientPort}`);
  const url = `https://127.0.0.1:${state.lbPort}`;
  const kubeconfigPath = join(dir, 'admin.kubeconfig');
  writeFileSync(kubeconfigPath, adminKubeconfig(url, creds), { mode: 0o600 });

  const initialCluster = state.etcd.map((m) => `${m.name}=http://127.0.0.1:${m.peerPort}`).join(',');
  const etcd = state.etcd.map((m): EtcdMemberProcess => {
    const dataDir = join(dir, 'etcd', m.name);
    const clientUrl = `http://127.0.0.1:${m.clientPort}`;
    const peerUrl = `http://127.0.0.1:${m.peerPort}`;
    const base = managed({
      name: `etcd-${m.name}`,
      pidFile: join(dir, 'etcd', `${m.name}.pid`),
      logFile: join(dir, 'etcd', `${m.name}.log`),
      marker: `${dataDir}\0`,
      command: 'etcd',
      args: () => [
        '--name', m.name,
        '--data-dir', dataDir,
        '--listen-client-urls', clientUrl,
        '--advertise-client-urls', clientUrl,
        '--listen-peer-urls', peerUrl,
        '--initial-advertise-peer-urls', peerUrl,
        '--initial-cluster', initialCluster,
        // Ignored once the data dir exists: a restarted member rejoins with what it stored.
        '--initial-cluster-state', 'new',
        '--initial-cluster-token', state.etcdToken,
      ],
      ready: async () => etcdHealthy(clientUrl),
      readyTimeoutMs: 30_000,
      log,
    });
    return Object.assign(base, { clientUrl, peerUrl });
  });

  const entry = serverEntry(options.serverMode ?? 'dist');
  // The chart's rendered flags, rendered when the first replica starts (stopping needs none).
  let template: Promise<ReplicaTemplate> | undefined;
  const replicaTemplate = (): Promise<ReplicaTemplate> => (template ??= renderReplicaTemplate(repoRoot, creds));
  const replicas = state.replicas.map((r): ReplicaProcess => {
    const dataDir = join(dir, 'replicas', r.name);
    const replicaUrl = `https://${r.address}:${r.port}`;
    const base = managed({
      name: `replica-${r.name}`,
      pidFile: join(dir, 'replicas', `${r.name}.pid`),
      logFile: join(dir, 'replicas', `${r.name}.log`),
      marker: `--data-dir=${dataDir}\0`,
      command: process.execPath,
      args: async () => {
        const t = await replicaTemplate();
        const flags = replicaArgs(t, { address: r.address, port: r.port, dataDir, etcdServers: etcdEndpoints }, options.extraReplicaArgs);
        // For people: the flags this start used, one a line.
        mkdirSync(join(dir, 'replicas'), { recursive: true });
        writeFileSync(join(dir, 'replicas', `${r.name}.args`), `${flags.join('\n')}\n`);
        return [...t.nodeOptions, ...entry, ...flags];
      },
      ready: async () => (await httpsStatus(`${replicaUrl}/readyz`, creds.caPem)) === 200,
      readyTimeoutMs: 60_000,
      log,
    });
    return Object.assign(base, { serverName: r.name, address: r.address, port: r.port, url: replicaUrl });
  });

  const cfgFile = join(dir, 'haproxy.cfg');
  const statsSocket = join(dir, 'haproxy.sock');
  writeFileSync(cfgFile, haproxyConfig({
    lbPort: state.lbPort,
    statsSocket,
    backends: state.replicas.map((r) => ({ name: r.name, address: r.address, port: r.port })),
  }));
  const haproxyBase = managed({
    name: 'haproxy',
    pidFile: join(dir, 'haproxy.pid'),
    logFile: join(dir, 'haproxy.log'),
    marker: `${cfgFile}\0`,
    command: haproxyBinary(),
    // -db: stay in the foreground (it is detached here, with its pid kept).
    args: () => ['-db', '-f', cfgFile],
    ready: async () => {
      if (!existsSync(statsSocket)) return false;
      try {
        await backendStates(statsSocket);
        return true;
      } catch {
        return false;
      }
    },
    readyTimeoutMs: 15_000,
    log,
  });
  const haproxy: HaproxyProcess = Object.assign(haproxyBase, {
    statsSocket,
    backendStates: () => backendStates(statsSocket),
    async waitBackends(want: { readonly up?: readonly string[]; readonly down?: readonly string[] }, timeoutMs = 15_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      let last = new Map<string, BackendState>();
      for (;;) {
        try {
          last = await backendStates(statsSocket);
        } catch {
          // Not listening yet (starting): try again.
        }
        const ok = (name: string, status: string): boolean => {
          const s = last.get(name);
          // INI: no check done yet (haproxy starts servers UP before checking them).
          return s !== undefined && s.status === status && !s.check.startsWith('INI') && s.check !== '';
        };
        if ((want.up ?? []).every((n) => ok(n, 'UP')) && (want.down ?? []).every((n) => ok(n, 'DOWN'))) return;
        if (Date.now() >= deadline) {
          const seen = [...last].map(([n, s]) => `${n}=${s.status}/${s.check}`).join(' ');
          throw new Error(`haproxy backends not as wanted (up ${want.up?.join(',') ?? '-'}, down ${want.down?.join(',') ?? '-'}) after ${timeoutMs} ms: ${seen}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  });

  const cluster: Cluster = {
    dir,
    url,
    token: creds.token,
    caPem: creds.caPem,
    caFile: creds.caFile,
    kubeconfigPath,
    etcdEndpoints,
    etcd,
    replicas,
    haproxy,
    async start() {
      // The chart renders (and its renderer builds, the first time) while etcd starts.
      if (replicas.some((r) => !r.running)) replicaTemplate().catch(() => undefined);
      // Members of a new etcd cluster wait for each other: start all, then wait for all.
      await Promise.all(etcd.map((m) => m.start()));
      await Promise.all(replicas.map((r) => r.start()));
      await haproxy.start();
      await haproxy.waitBackends({ up: replicas.filter((r) => r.running).map((r) => r.serverName) });
    },
    async stop() {
      await Promise.all([haproxy.stop(), ...replicas.map((r) => r.stop())]);
      // The followers first: a leader stopped while its peers run hands its leadership over, and waits
      // ~7 s when the peer it picked is stopping too; a leader without connected peers just stops.
      const leaders = await Promise.all(etcd.map(async (m) => m.running && (await etcdIsLeader(m.clientUrl))));
      await Promise.all(etcd.filter((_, i) => !leaders[i]).map((m) => m.stop()));
      await Promise.all(etcd.map((m) => m.stop()));
    },
  };
  return cluster;
}

/** `openCluster` then `start()`: the cluster in `dir`, running and ready. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const cluster = await openCluster(options);
  try {
    await cluster.start();
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

/** Stops the cluster in `dir` if there is one (`make cluster-down`); false when `dir` holds none. */
export async function stopClusterDir(dir: string, log?: (line: string) => void): Promise<boolean> {
  if (!clusterExists(dir)) return false;
  const state = JSON.parse(readFileSync(join(resolve(dir), 'cluster.json'), 'utf8')) as ClusterState;
  const cluster = await openCluster({ dir, replicas: state.replicas.length, etcdMembers: state.etcd.length, ...(log === undefined ? {} : { log }) });
  await cluster.stop();
  return true;
}

async function ensureState(dir: string, replicas: number, members: number): Promise<ClusterState> {
  const file = join(dir, 'cluster.json');
  if (existsSync(file)) {
    const state = JSON.parse(readFileSync(file, 'utf8')) as ClusterState;
    if (state.replicas.length !== replicas || state.etcd.length !== members) {
      throw new Error(`${dir} holds a cluster of ${state.etcd.length} etcd members and ${state.replicas.length} replicas, `
        + `not ${members} and ${replicas}: use the same counts, or remove the directory (make cluster-down; rm -r ${dir})`);
    }
    return state;
  }
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 250) throw new Error(`replicas must be 1..250, got ${replicas}`);
  if (!Number.isInteger(members) || members < 1 || members % 2 === 0) throw new Error(`etcd members must be 1 or odd, got ${members}`);
  const ports = await freePorts(Array.from({ length: 1 + 2 * members }, () => '127.0.0.1'));
  const addresses = Array.from({ length: replicas }, (_, i) => `127.0.1.${i + 1}`);
  // Each replica's port is free on its own address (another cluster's replicas may hold it there).
  const replicaPorts = await freePorts(addresses);
  const state: ClusterState = {
    version: 1,
    etcdToken: `local-ha-${randomBytes(6).toString('hex')}`,
    lbPort: ports[0]!,
    etcd: Array.from({ length: members }, (_, i) => ({ name: `m${i}`, clientPort: ports[1 + 2 * i]!, peerPort: ports[2 + 2 * i]! })),
    replicas: addresses.map((address, i) => ({ name: `r${i}`, address, port: replicaPorts[i]! })),
  };
  writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
  return state;
}

/** One free port on each of `hosts` (all bound together, so distinct, then released). */
async function freePorts(hosts: readonly string[]): Promise<number[]> {
  const servers = await Promise.all(hosts.map((host) => new Promise<ReturnType<typeof createServer>>((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, host, () => res(s));
  })));
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  return ports;
}

/** node's arguments before the server's flags (node's own options come from the chart's NODE_OPTIONS). */
function serverEntry(mode: 'dist' | 'tsx'): string[] {
  if (mode === 'tsx') return ['--import', 'tsx', join(repoRoot, 'apiserver', 'main.ts')];
  const main = join(repoRoot, 'dist', 'apiserver', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`make build\` first`);
  return [main];
}

function haproxyBinary(): string {
  for (const p of ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy']) if (existsSync(p)) return p;
  if (spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0) return 'haproxy';
  throw new Error('haproxy is not installed: install Debian\'s haproxy (make deps does it)');
}

async function etcdHealthy(clientUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
    return ((await res.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

/** Whether the member leads its cluster (its `etcd_server_is_leader` metric); false when unreachable. */
async function etcdIsLeader(clientUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${clientUrl}/metrics`, { signal: AbortSignal.timeout(1000) });
    return /^etcd_server_is_leader 1$/m.test(await res.text());
  } catch {
    return false;
  }
}

/** The status of an anonymous HTTPS GET trusting `caPem`, or 0 when it failed. */
function httpsStatus(url: string, caPem: string): Promise<number> {
  return new Promise((res) => {
    const req = request(url, { ca: caPem, timeout: 2000, agent: false }, (r) => {
      r.resume();
      r.on('end', () => res(r.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => res(0));
    req.end();
  });
}
