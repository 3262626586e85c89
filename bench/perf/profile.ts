/**
 * `make profile` (bench/perf/profile.ts): CPU profiles of the server under load, one per workload, with the
 * request path as `make run` sets it (authentication, authorization, admission, audit, metrics and tracing
 * as configured by default). For each workload the server runs with `--cpu-prof`, a warm-up runs, the load
 * runs, the server stops (writing its profile), and this writes `<out>/<store>-<workload>.svg` (a flame
 * graph) and prints a markdown table of the server's CPU per request by stage.
 *
 *   --workloads=get,list,create,update,update-spread,patch,apply,watch
 *                                                           (default: all; update-spread: over 2,000 objects,
 *                                                           not 64; watch: 200 watchers, each create
 *                                                           delivered to all, so its CPU is per event x 200)
 *   --store=etcd|embedded                                   (default: etcd)
 *   --out=<dir>                                             (default: docs/perf/current)
 *   --scale=<x>                                             multiplies the request counts (default 1)
 *   --skip-build                                            use dist/ as it is (A/B runs of two builds)
 *   --sampler=both|v8|perf                                  V8's profiler (flame graph, JavaScript stages),
 *                                                           Linux perf (every thread, native code, kernel), or
 *                                                           both; each one's own overhead shows in the other's
 *                                                           figures (V8's signals raise the kernel share)
 */
import { mkdirSync, readdirSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { benchClient, type BenchClient } from '../http-client.js';
import { cpuTimes, fmt, measure, table } from '../measure.js';
import { buildServer, startServerProcess } from '../server-process.js';
import { flameGraphSvg, readProfile } from './cpu-profile.js';
import { startPerf } from './perf-sampler.js';

const NS = 'bench-prof';
const LIST_NS = 'bench-prof-list';
const cm = (name: string, value: string): Buffer =>
  Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value } }));
const KIB = 'x'.repeat(1024);

/** Server details the watch workload needs to open its own streams. */
interface Conn {
  readonly url: string;
  readonly token: string;
  readonly caPem: string;
}

interface Workload {
  /** Requests measured. */
  readonly n: number;
  readonly concurrency: number;
  /** Objects it needs first (not profiled apart: the warm-up is in the profile too, and small). */
  prepare(client: BenchClient, n: number, conn: Conn): Promise<void>;
  op(client: BenchClient, i: number): Promise<unknown>;
}

const path = `/api/v1/namespaces/${NS}/configmaps`;
const json = (o: unknown): Buffer => Buffer.from(JSON.stringify(o));

const SPREAD = 2_000;
const WATCH_NS = 'bench-prof-watch';
const WATCHERS = 200;
const watchAgents: Agent[] = [];

/** Opens `count` watches of WATCH_NS over their own TLS connections, read and dropped as they come. */
async function openWatchers(conn: Conn, count: number): Promise<void> {
  const agent = new Agent({ keepAlive: false, maxSockets: count, ca: conn.caPem });
  watchAgents.push(agent);
  const u = new URL(conn.url);
  await Promise.all(Array.from({ length: count }, () => new Promise<void>((resolveOpen, reject) => {
    const req = request({
      host: u.hostname, port: u.port, method: 'GET', agent,
      path: `/api/v1/namespaces/${WATCH_NS}/configmaps?watch=1&allowWatchBookmarks=true`,
      headers: { Authorization: `Bearer ${conn.token}`, Accept: 'application/json' },
    }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`watch: HTTP ${res.statusCode}`));
      res.on('data', () => undefined);
      res.on('error', () => undefined);
      resolveOpen();
    });
    req.on('error', () => undefined);
    req.end();
  })));
}

const applyOp = (c: BenchClient, i: number, status: number): Promise<unknown> =>
  c.call('PATCH', `${path}/a-${i % 64}?fieldManager=bench&force=true`, status, cm(`a-${i % 64}`, `${i}${KIB}`), { 'Content-Type': 'application/apply-patch+yaml' });

const workloads: Record<string, Workload> = {
  get: {
    n: 20_000,
    concurrency: 64,
    prepare: async (c) => void (await c.call('POST', path, 201, cm('probe', KIB))),
    op: (c) => c.call('GET', `${path}/probe?resourceVersion=0`, 200),
  },
  list: {
    n: 30,
    concurrency: 1,
    prepare: async (c) => {
      await c.call('POST', '/api/v1/namespaces', 201, json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: LIST_NS } }));
      await measure(10_000, 64, (i) => c.call('POST', `/api/v1/namespaces/${LIST_NS}/configmaps`, 201, cm(`item-${i}`, KIB)));
    },
    op: (c) => c.call('GET', `/api/v1/namespaces/${LIST_NS}/configmaps?resourceVersion=0`, 200),
  },
  create: {
    n: 10_000,
    concurrency: 64,
    prepare: async () => undefined,
    op: (c, i) => c.call('POST', path, 201, cm(`c-${i}`, KIB)),
  },
  update: {
    n: 10_000,
    concurrency: 64,
    prepare: async (c) => void (await measure(64, 64, (i) => c.call('POST', path, 201, cm(`u-${i}`, KIB)))),
    // Unconditional (no resourceVersion): ConfigMaps allow it, and 64 writers on 64 objects never conflict.
    op: (c, i) => c.call('PUT', `${path}/u-${i % 64}`, 200, cm(`u-${i % 64}`, `${i}${KIB}`)),
  },
  'update-spread': {
    // As update, over 2,000 objects: each is written again long after its last write (a cold key).
    n: 10_000,
    concurrency: 64,
    prepare: async (c) => void (await measure(SPREAD, 64, (i) => c.call('POST', path, 201, cm(`s-${i}`, KIB)))),
    op: (c, i) => c.call('PUT', `${path}/s-${i % SPREAD}`, 200, cm(`s-${i % SPREAD}`, `${i}${KIB}`)),
  },
  patch: {
    n: 10_000,
    concurrency: 64,
    prepare: async (c) => void (await measure(64, 64, (i) => c.call('POST', path, 201, cm(`p-${i}`, KIB)))),
    op: (c, i) => c.call('PATCH', `${path}/p-${i % 64}`, 200, json({ data: { value: `${i}${KIB}` } }), { 'Content-Type': 'application/merge-patch+json' }),
  },
  watch: {
    // Each create is delivered to every watcher: the profile is mostly the watch dispatch.
    n: 1_000,
    concurrency: 4,
    prepare: (_c, _n, conn) => openWatchers(conn, WATCHERS),
    op: (c, i) => c.call('POST', `/api/v1/namespaces/${WATCH_NS}/configmaps`, 201, cm(`w-${i}`, 'x'.repeat(256))),
  },
  apply: {
    n: 10_000,
    concurrency: 64,
    prepare: async (c) => void (await measure(64, 64, (i) => applyOp(c, i, 201))),
    op: (c, i) => applyOp(c, i, 200),
  },
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workloads: { type: 'string', default: Object.keys(workloads).join(',') },
      store: { type: 'string', default: 'etcd' },
      out: { type: 'string', default: 'docs/perf/current' },
      scale: { type: 'string', default: '1' },
      sampler: { type: 'string', default: 'both' },
      'skip-build': { type: 'boolean', default: false },
    },
    strict: true,
  });
  const scale = Number(values.scale);
  const v8 = values.sampler !== 'perf';
  const usePerf = values.sampler !== 'v8';
  if (!['both', 'v8', 'perf'].includes(values.sampler)) throw new Error(`--sampler must be both, v8 or perf, not ${values.sampler}`);
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  if (!values['skip-build']) buildServer();
  let etcd: EtcdCluster | undefined;
  const rows: string[][] = [];
  const details: string[] = [];
  try {
    if (values.store === 'etcd') etcd = await startEtcd();
    for (const name of values.workloads.split(',')) {
      const w = workloads[name];
      if (w === undefined) throw new Error(`unknown workload ${name}`);
      const n = Math.max(10, Math.round(w.n * scale));
      const profDir = mkdtempSync(join(tmpdir(), 'bench-prof-'));
      const server = await startServerProcess({
        mode: 'dist',
        nodeArgs: [
          ...(v8 ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval=250'] : []),
          ...(usePerf ? ['--perf-basic-prof-only-functions'] : []),
        ],
        args: etcd === undefined ? [] : [`--etcd-servers=${etcd.endpoints.join(',')}`, `--etcd-prefix=/prof-${name}-${Date.now()}`],
      });
      const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: 64 });
      let cpu = 0;
      let user = 0;
      let rate = 0;
      let fromUs = 0;
      let native: { readonly category: string; readonly share: number }[] = [];
      let toUs = 0;
      try {
        for (const ns of [NS, WATCH_NS]) await client.call('POST', '/api/v1/namespaces', 201, json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
        await w.prepare(client, n, server);
        await measure(Math.min(n, 2000), w.concurrency, (i) => w.op(client, n + i)); // warm-up
        const cpu0 = cpuTimes(server.pid);
        const perf = usePerf ? startPerf(server.pid, join(profDir, 'perf.data')) : undefined;
        fromUs = Number(process.hrtime.bigint() / 1000n);
        const m = await measure(n, w.concurrency, (i) => w.op(client, i));
        toUs = Number(process.hrtime.bigint() / 1000n);
        native = (await perf?.stop()) ?? [];
        const cpu1 = cpuTimes(server.pid);
        user = cpu1.user - cpu0.user;
        cpu = user + cpu1.system - cpu0.system;
        rate = m.opsPerSecond;
      } finally {
        client.close();
        await server.stop();
        for (const a of watchAgents.splice(0)) a.destroy();
      }
      const label = `${values.store}-${name}`;
      const perRequest = (share: number): string => fmt((share * cpu * 1e6) / n, 1);
      const parts = [`#### ${label}`];
      let mainThread = '';
      if (v8) {
        const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
        if (file === undefined) throw new Error(`no profile written in ${profDir}`);
        const summary = readProfile(join(profDir, file), { fromUs, toUs });
        writeFileSync(join(out, `${label}.svg`), flameGraphSvg(summary.tree, `${label}: the server's JavaScript thread, ${n} requests at c=${w.concurrency}`));
        mainThread = fmt(summary.totalUs / n);
        // The profile's shares of the CPU the server used in the window (/proc), per request.
        const share = (us: number): number => us / summary.totalUs;
        parts.push(`JavaScript thread by stage (V8's profiler):\n\n${table(['stage', 'µs/request', 'share'], summary.stages.slice(0, 18).map((x) => [x.stage, perRequest(share(x.us)), `${(100 * share(x.us)).toFixed(1)}%`]))}`);
        parts.push(`Top functions (self):\n\n${table(['function', 'stage', 'µs/request'], summary.functions.slice(0, 15).map((f) => [`\`${f.name}\``, f.stage, perRequest(share(f.us))]))}`);
      }
      if (native.length > 0) {
        parts.push(`Every thread and native code (Linux perf):\n\n${table(['category', 'µs/request', 'share'], native.slice(0, 16).map((x) => [x.category, perRequest(x.share), `${(100 * x.share).toFixed(1)}%`]))}`);
      }
      // Every thread of node is named `node` (V8's and libuv's helpers too): only user and system split.
      parts.push(`CPU (/proc): user ${fmt((user * 1e6) / n, 1)} µs/request, system ${fmt(((cpu - user) * 1e6) / n, 1)} µs/request.`);
      if (process.env.KEEP_PROFILE === undefined) rmSync(profDir, { recursive: true, force: true });
      else process.stderr.write(`profile kept in ${profDir}\n`);
      rows.push([name, fmt(rate), fmt((cpu * 1e6) / n), mainThread]);
      details.push(parts.join('\n\n'));
    }
  } finally {
    await etcd?.stop();
  }
  process.stdout.write(`### CPU per request (${values.store})\n\n${table(['workload', 'requests/s', 'server CPU µs/request (all threads)', 'main thread µs/request (profiled)'], rows)}\n\n${details.join('\n\n')}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
