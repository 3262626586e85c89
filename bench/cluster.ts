/**
 * `make bench` part `cluster`: throughput through haproxy (deploy/cluster, TCP passthrough) with 1, 2 and
 * 3 replicas on one etcd member, next to one replica without the load balancer, in one run. Workloads at
 * c=64 over 64 keep-alive connections (haproxy balances connections, `leastconn`): a GET served from the
 * watch cache (`resourceVersion=0`, no etcd), a quorum GET (one etcd range each), and a create of a 1 KiB
 * ConfigMap (one etcd txn each).
 *
 * Beside each figure, the CPU every process used while it ran (user + system from /proc, in % of one core):
 * etcd, haproxy, the replicas together, and the load generator (this process). The machine has 2 cores
 * shared by all of them, so where throughput stops scaling is read from those columns: a process near
 * 100% (one core: etcd's and Node's main work are mostly single-threaded per process) or the sum near 200%.
 * The whole machine's busy time (/proc/stat) is printed beside the sum: on a shared machine, the rest is
 * other work, and a row is only comparable with rows of similar outside load.
 *
 * Rows run in rounds (direct, LB x1, LB x2, LB x3, then the extra replicas stopped again); figures are
 * the median over rounds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type Cluster } from '../deploy/cluster/index.js';
import { benchClient, type BenchClient } from './http-client.js';
import { cpuSeconds, fmt, measure, table, type Measurement } from './measure.js';
import { buildServer, type ServerMode } from './server-process.js';

export interface ClusterBenchOptions {
  readonly scale?: number;
  readonly server?: ServerMode;
  readonly rounds?: number;
}

const CONCURRENCY = 64;
const NAMESPACE = 'bench-cluster';

interface Workload {
  readonly name: string;
  readonly n: number;
  readonly run: (client: BenchClient, n: number, tag: string) => Promise<Measurement>;
}

interface Sample {
  readonly opsPerSecond: number;
  readonly p99Ms: number;
  /** % of one core over the measurement, by process group. */
  readonly cpu: { readonly etcd: number; readonly haproxy: number; readonly replicas: number; readonly client: number; readonly machine: number };
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const configMap = (name: string): Buffer => json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v'.repeat(1024) } });
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchCluster(o: ClusterBenchOptions = {}): Promise<string> {
  const scale = o.scale ?? 1;
  const mode = o.server ?? 'dist';
  const rounds = o.rounds ?? 2;
  if (mode === 'dist') buildServer();
  const n = (x: number): number => Math.max(300, Math.round(x * scale));
  const workloads: Workload[] = [
    { name: 'GET (watch cache)', n: n(20_000), run: (c, k) => measure(k, CONCURRENCY, () => c.call('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/read-me?resourceVersion=0`, 200)) },
    { name: 'GET (quorum read)', n: n(10_000), run: (c, k) => measure(k, CONCURRENCY, () => c.call('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/read-me`, 200)) },
    { name: 'create', n: n(6_000), run: (c, k, tag) => measure(k, CONCURRENCY, (i) => c.call('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, 201, configMap(`${tag}-${i}`))) },
  ];
  const rows = ['1 replica, direct', 'haproxy -> 1 replica', 'haproxy -> 2 replicas', 'haproxy -> 3 replicas'];
  const samples = new Map<string, Sample[]>();
  const dir = mkdtempSync(join(tmpdir(), 'bench-cluster-'));
  let cluster: Cluster | undefined;
  try {
    cluster = await startCluster({ dir, replicas: 3, etcdMembers: 1, serverMode: mode });
    const c = cluster;
    const admin = benchClient({ url: c.url, token: c.token, caPem: c.caPem, maxSockets: 4 });
    await admin.call('POST', '/api/v1/namespaces', 201, json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }));
    await admin.call('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, 201, configMap('read-me'));
    admin.close();

    let tags = 0;
    const row = async (label: string, url: string, replicaCount: number): Promise<void> => {
      const client = benchClient({ url, token: c.token, caPem: c.caPem, maxSockets: CONCURRENCY });
      try {
        // Warm-up: every connection opened (and so spread over the replicas), JIT and caches warm.
        for (const w of workloads) await w.run(client, Math.max(200, Math.round(w.n / 10)), `warm${tags++}`);
        const pids = {
          etcd: c.etcd.map((m) => m.pid!),
          haproxy: [c.haproxy.pid!],
          replicas: c.replicas.slice(0, replicaCount).map((r) => r.pid!),
        };
        for (const w of workloads) {
          const cpu0 = { etcd: sum(pids.etcd), haproxy: sum(pids.haproxy), replicas: sum(pids.replicas), client: clientCpu(), machine: machineJiffies() };
          const m = await w.run(client, w.n, `w${tags++}`);
          const pct = (now: number, before: number): number => ((now - before) / m.seconds) * 100;
          const s: Sample = {
            opsPerSecond: m.opsPerSecond,
            p99Ms: m.p99Ms,
            cpu: {
              etcd: pct(sum(pids.etcd), cpu0.etcd),
              // The direct row has haproxy idle: shown as measured (its health checks only).
              haproxy: pct(sum(pids.haproxy), cpu0.haproxy),
              replicas: pct(sum(pids.replicas), cpu0.replicas),
              client: pct(clientCpu(), cpu0.client),
              machine: machineBusy(cpu0.machine, machineJiffies()),
            },
          };
          const key = `${label}\0${w.name}`;
          samples.set(key, [...(samples.get(key) ?? []), s]);
        }
      } finally {
        client.close();
      }
    };

    for (let round = 0; round < rounds; round++) {
      process.stderr.write(`bench cluster: round ${round + 1}/${rounds}\n`);
      await Promise.all([c.replicas[1]!.stop(), c.replicas[2]!.stop()]);
      await c.haproxy.waitBackends({ up: ['r0'], down: ['r1', 'r2'] });
      await row(rows[0]!, c.replicas[0]!.url, 1);
      await row(rows[1]!, c.url, 1);
      await c.replicas[1]!.start();
      await c.haproxy.waitBackends({ up: ['r0', 'r1'] });
      await row(rows[2]!, c.url, 2);
      await c.replicas[2]!.start();
      await c.haproxy.waitBackends({ up: ['r0', 'r1', 'r2'] });
      await row(rows[3]!, c.url, 3);
    }
  } finally {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  const throughput = table(
    ['topology', ...workloads.map((w) => `${w.name} /s (p99 ms)`)],
    rows.map((r) => [r, ...workloads.map((w) => {
      const s = samples.get(`${r}\0${w.name}`) ?? [];
      return `${fmt(median(s.map((x) => x.opsPerSecond)))} (${fmt(median(s.map((x) => x.p99Ms)), 1)})`;
    })]),
  );
  const cpu = table(
    ['topology', ...workloads.map((w) => `${w.name}: etcd / haproxy / replicas / client = total`)],
    rows.map((r) => [r, ...workloads.map((w) => {
      const s = samples.get(`${r}\0${w.name}`) ?? [];
      const m = (f: (x: Sample) => number): string => fmt(median(s.map(f)));
      const total = m((x) => x.cpu.etcd + x.cpu.haproxy + x.cpu.replicas + x.cpu.client);
      return `${m((x) => x.cpu.etcd)} / ${m((x) => x.cpu.haproxy)} / ${m((x) => x.cpu.replicas)} / ${m((x) => x.cpu.client)} = ${total} (${m((x) => x.cpu.machine)})`;
    })]),
  );
  return [
    '### Part 12: cluster (haproxy and replicas)',
    '',
    `One etcd member, up to 3 replicas of ${mode === 'dist' ? 'dist/' : 'the sources (tsx)'} behind haproxy (TCP passthrough, leastconn, /readyz checks every 1 s), `
      + `the load generator at c=${CONCURRENCY} over ${CONCURRENCY} keep-alive connections; median of ${rounds} rounds. `
      + 'GET (watch cache) is `?resourceVersion=0`, GET (quorum read) reads etcd, create writes a 1 KiB ConfigMap.',
    '',
    throughput,
    '',
    'CPU while each workload ran, in % of one core (2 cores = 200%); in parentheses the whole machine\'s, other work included (/proc/stat):',
    '',
    cpu,
  ].join('\n');
}

function sum(pids: readonly number[]): number {
  return pids.reduce((acc, pid) => acc + cpuSeconds(pid), 0);
}

/** The machine's busy and total jiffies so far, all cores (/proc/stat's first line). */
function machineJiffies(): { readonly busy: number; readonly total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  // idle and iowait are the 4th and 5th fields.
  return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
}

/** The machine's busy time between two readings, in % of one core. */
function machineBusy(a: { readonly busy: number; readonly total: number }, b: { readonly busy: number; readonly total: number }): number {
  return b.total === a.total ? 0 : ((b.busy - a.busy) / (b.total - a.total)) * cpus().length * 100;
}

function clientCpu(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}
