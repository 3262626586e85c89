/**
 * Part `workers` (`--only=workers`, issue 20's "scale out on one machine"): N server processes sharing one
 * listening socket through node:cluster (bench/workers/primary.mjs), each with its own watch caches, against
 * one process, on etcd. GETs from the cache and creates at c=64 over keep-alive HTTPS, rounds alternating
 * (1, N, 1, N); the server's CPU per request summed over the primary and its workers (/proc), and their RSS.
 * N: BENCH_WORKERS, default the machine's core count (at least 2).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEtcd } from '../test/harness/etcd.js';
import { benchClient } from './http-client.js';
import { cpuTimes, fmt, measure, table } from './measure.js';
import { buildServer, startServerProcess, type ServerMode } from './server-process.js';

const KIB = 'x'.repeat(1024);
const json = (o: unknown): Buffer => Buffer.from(JSON.stringify(o));
const cm = (name: string): Buffer => json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value: KIB } });
const path = '/api/v1/namespaces/bench-workers/configmaps';

/** The process and its children (the workers), read once they all run. */
function family(pid: number): number[] {
  try {
    return [pid, ...execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').map(Number)];
  } catch {
    return [pid]; // pgrep exits 1 when there are no children
  }
}
const cpuOf = (pids: readonly number[]): number =>
  pids.reduce((s, p) => {
    const t = cpuTimes(p);
    return s + t.user + t.system;
  }, 0);
const rssOf = (pids: readonly number[]): number =>
  pids.reduce((s, p) => s + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) * 1024, 0);

interface Round {
  readonly workers: number;
  readonly gets: number;
  readonly getCpuUs: number;
  readonly creates: number;
  readonly createCpuUs: number;
  readonly rss: number;
}

async function round(mode: ServerMode, workers: number, etcdServers: string, scale: number): Promise<Round> {
  const gets = Math.max(100, Math.round(20_000 * scale));
  const creates = Math.max(100, Math.round(10_000 * scale));
  const server = await startServerProcess({
    mode,
    nodeArgs: ['--import', fileURLToPath(new URL('./workers/primary.mjs', import.meta.url))],
    args: [`--etcd-servers=${etcdServers}`, `--etcd-prefix=/bench-workers-${workers}-${Date.now()}`],
    env: { BENCH_WORKERS: String(workers) },
  });
  const c = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: 64 });
  try {
    const pids = family(server.pid);
    if (pids.length !== (workers > 1 ? workers + 1 : 1)) throw new Error(`expected ${workers} workers, found processes ${pids.join(', ')}`);
    await c.call('POST', '/api/v1/namespaces', 201, json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-workers' } }));
    await c.call('POST', path, 201, cm('probe'));
    // Warm-ups: every keep-alive connection opened (each worker gets its share) and the code paths compiled.
    await measure(Math.min(gets, 4000), 64, () => c.call('GET', `${path}/probe?resourceVersion=0`, 200));
    let cpu0 = cpuOf(pids);
    const g = await measure(gets, 64, () => c.call('GET', `${path}/probe?resourceVersion=0`, 200));
    const getCpuUs = ((cpuOf(pids) - cpu0) * 1e6) / gets;
    await measure(Math.min(creates, 2000), 64, (i) => c.call('POST', path, 201, cm(`warm-${i}`)));
    cpu0 = cpuOf(pids);
    const cr = await measure(creates, 64, (i) => c.call('POST', path, 201, cm(`c-${i}`)));
    const createCpuUs = ((cpuOf(pids) - cpu0) * 1e6) / creates;
    return { workers, gets: g.opsPerSecond, getCpuUs, creates: cr.opsPerSecond, createCpuUs, rss: rssOf(pids) };
  } finally {
    c.close();
    await server.stop();
  }
}

export async function benchWorkers(options: { readonly scale?: number; readonly server?: ServerMode }): Promise<string> {
  const mode = options.server ?? 'dist';
  const n = Number(process.env.BENCH_WORKERS ?? Math.max(2, cpus().length));
  if (!(Number.isInteger(n) && n > 1)) throw new Error(`BENCH_WORKERS must be an integer above 1, got ${process.env.BENCH_WORKERS}`);
  if (mode === 'dist') buildServer();
  const etcd = await startEtcd();
  const rounds: Round[] = [];
  try {
    for (const workers of [1, n, 1, n]) {
      process.stderr.write(`bench: workers, ${workers} process(es)\n`);
      rounds.push(await round(mode, workers, etcd.endpoints.join(','), options.scale ?? 1));
    }
  } finally {
    await etcd.stop();
  }
  const rows = rounds.map((r) => [
    r.workers === 1 ? '1 (no primary)' : `${r.workers} + primary`,
    fmt(r.gets), fmt(r.getCpuUs), fmt(r.creates), fmt(r.createCpuUs), `${fmt(r.rss / 2 ** 20)} MiB`,
  ]);
  return [
    `### Part workers: ${n} server processes sharing one socket (node:cluster) against one, on etcd`,
    '',
    'Rounds alternate. GET of one object from the cache and create of a 1 KiB ConfigMap, c=64 over keep-alive HTTPS; CPU per request summed over every server process (/proc), RSS after the creates. Client, server processes and etcd share the machine.',
    '',
    table(['server processes', 'GET/s', 'server CPU µs/GET', 'creates/s', 'server CPU µs/create', 'RSS'], rows),
  ].join('\n');
}
