/**
 * Benchmark part 2: HTTP throughput of the REST machinery, on the embedded store and on etcd. The server
 * runs as a separate process (the build in dist/, as `bin/platform-apiserver` runs it); the load generator
 * runs here over keep-alive HTTPS. Next to each HTTP figure, the same operation straight on a Store of the
 * same backend (part 1's operations, with values the size of the stored ConfigMap), measured in the same
 * run with the two targets alternating, so the ratio shows what the HTTP layer costs.
 *
 *   create  POST a ConfigMap with 1 KiB of data (unique names) at concurrency 1 / 16 / 64
 *   get     GET one existing ConfigMap at concurrency 64
 *   list    GET all 10,000 ConfigMaps (x 1 KiB) of a namespace, JSON, no limit: median of 5
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Store } from '../storage/interface.js';
import { openEtcdStore } from '../storage/etcd/etcd-store.js';
import { openMemoryStore } from '../storage/memory/memory-store.js';
import { startEtcd, type EtcdCluster } from '../test/harness/etcd.js';
import { benchClient, type BenchClient } from './http-client.js';
import { fmt, measure, table, type Measurement } from './measure.js';
import { buildServer, startServerProcess, type ServerMode, type ServerProcess } from './server-process.js';

export interface HttpBenchOptions {
  readonly scale?: number;
  /** How the server process runs. Default `dist` (built first). */
  readonly server?: ServerMode;
  /** Wall-clock budget of the whole part; past it, the next request fails the bench. Default 30 min. */
  readonly budgetMs?: number;
}

/** One side of the comparison: HTTP against the server, or the Store in this process. */
interface Target {
  readonly name: string;
  create(namespace: string, name: string): Promise<unknown>;
  get(namespace: string, name: string): Promise<unknown>;
  /**
   * Lists a namespace: the bytes received (HTTP body, or the values' sum) and the item count, computed
   * on demand so that decoding the HTTP body stays out of the timed request.
   */
  list(namespace: string): Promise<{ readonly bytes: number; count(): number }>;
}

const NAMESPACE = 'bench';
const LIST_NAMESPACE = 'bench-list';
const STORE_PREFIX = '/bench-store/configmaps';
const MAX_CONCURRENCY = 64;
const ROUNDS = 3;
const LIST_RUNS = 5;

const configMapBody = (name: string): Buffer =>
  Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value: 'x'.repeat(1024) } }));

function httpTarget(client: BenchClient): Target {
  const path = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;
  return {
    name: 'HTTP',
    create: (ns, name) => client.call('POST', path(ns), 201, configMapBody(name)),
    get: (ns, name) => client.call('GET', `${path(ns)}/${name}`, 200),
    list: async (ns) => {
      const { body } = await client.call('GET', path(ns), 200);
      return { bytes: body.length, count: () => httpListItems(body) };
    },
  };
}

function storeTarget(store: Store, value: Buffer): Target {
  const key = (ns: string, name: string): string => `${STORE_PREFIX}/${ns}/${name}`;
  return {
    name: 'Store',
    create: (ns, name) => store.create(key(ns, name), value),
    get: async (ns, name) => {
      const got = await store.get(key(ns, name));
      if (got.kv === undefined) throw new Error(`Store get ${key(ns, name)}: not found`);
      return got;
    },
    list: async (ns) => {
      const { items } = await store.list(`${STORE_PREFIX}/${ns}/`);
      return { bytes: items.reduce((sum, kv) => sum + kv.value.length, 0), count: () => items.length };
    },
  };
}

interface Row {
  readonly operation: string;
  readonly store: number;
  readonly http: Measurement | number;
  readonly unit: string;
}

interface BackendResult {
  readonly backend: string;
  readonly rows: Row[];
  readonly objectBytes: number;
  readonly listBytes: { readonly http: number; readonly store: number };
}

/** Runs part 2 and returns its markdown section. */
export async function benchHttp(options: HttpBenchOptions = {}): Promise<string> {
  const scale = options.scale ?? 1;
  const mode = options.server ?? 'dist';
  const deadline = Date.now() + (options.budgetMs ?? 30 * 60_000);
  const n = (base: number): number => Math.max(10, Math.round(base * scale));
  if (mode === 'dist') buildServer();

  const results: BackendResult[] = [];
  let cluster: EtcdCluster | undefined;
  try {
    results.push(await benchBackend('embedded', mode, [], n, deadline, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'bench-http-memory-'));
      const store = await openMemoryStore({ dataDir: dir });
      return { store, close: async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); } };
    }));
    cluster = await startEtcd();
    const endpoints = cluster.endpoints;
    results.push(await benchBackend('etcd', mode, [`--etcd-servers=${endpoints.join(',')}`], n, deadline, async () => {
      const store = await openEtcdStore({ endpoints });
      return { store, close: () => store.close() };
    }));
  } finally {
    await cluster?.stop();
  }

  const rows = results.flatMap((r) => r.rows.map((row) => {
    const http = typeof row.http === 'number' ? row.http : row.http.opsPerSecond;
    // A list row's latency is the median time of one list (p99 of 5 runs would say nothing).
    const lat = typeof row.http === 'number' ? [`${fmt(1000 / http)} ms (median)`, ''] : [`${fmt(row.http.p50Ms, 2)} ms`, `${fmt(row.http.p99Ms, 2)} ms`];
    const rate = (x: number): string => `${fmt(x, x < 100 ? 1 : 0)} ${row.unit}`;
    return [r.backend, row.operation, rate(row.store), rate(http), `${fmt((http / row.store) * 100, 1)}%`, ...lat];
  }));
  const listSize = n(10_000);
  return [
    '### Part 2: HTTP throughput',
    '',
    `Server: a separate process (\`${mode === 'dist' ? 'node dist/apiserver/main.js' : 'node --import tsx apiserver/main.ts'}\`, default flags but`
    + ' `--bind-address=127.0.0.1 --secure-port=0 --etcd-compaction-interval=0`, log level info to a file); the load generator'
    + ' (node:https, keep-alive, one TLS connection per concurrent request) runs in the bench process. "Store" is the same'
    + ' operation on a Store of that backend opened in the bench process, values the size of the stored ConfigMap;'
    + ` the two alternate, median of ${ROUNDS} rounds (list: median of ${LIST_RUNS} runs each). p50/p99 are the HTTP latencies.`,
    '',
    table(['backend', 'operation', 'Store', 'HTTP', 'HTTP / Store', 'HTTP p50', 'HTTP p99'], rows),
    '',
    ...results.map((r) => `- ${r.backend}: a stored ConfigMap is ${fmt(r.objectBytes)} bytes of JSON; the list of ${fmt(listSize)} is`
      + ` ${fmt(r.listBytes.http / 2 ** 20, 2)} MiB of JSON over HTTP (${fmt(r.listBytes.store / 2 ** 20, 2)} MiB of values from the Store).`),
  ].join('\n');
}

async function benchBackend(
  backend: string,
  mode: ServerMode,
  args: readonly string[],
  n: (base: number) => number,
  deadline: number,
  openStore: () => Promise<{ store: Store; close: () => Promise<void> }>,
): Promise<BackendResult> {
  process.stderr.write(`bench: http on ${backend}\n`);
  let server: ServerProcess | undefined;
  let client: BenchClient | undefined;
  let local: { store: Store; close: () => Promise<void> } | undefined;
  try {
    server = await startServerProcess({ mode, args });
    client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: MAX_CONCURRENCY });
    const c = client;
    const inBudget = <T>(op: (i: number) => Promise<T>) => (i: number): Promise<T> => {
      if (Date.now() > deadline) throw new Error('the http bench ran past its time budget');
      return op(i);
    };

    for (const ns of [NAMESPACE, LIST_NAMESPACE]) {
      await c.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })));
    }
    const probe = await c.call('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, 201, configMapBody('probe'));
    const objectBytes = probe.body.length;
    local = await openStore();
    const targets: Target[] = [storeTarget(local.store, Buffer.alloc(objectBytes, 'x')), httpTarget(c)];
    await targets[0]!.create(NAMESPACE, 'probe');

    // Warm-up: TLS connections, JIT on both sides, first allocations of the stores.
    for (const t of targets) await measure(n(2000), 16, inBudget((i) => t.create(NAMESPACE, `warm-${i}`)));

    const rows: Row[] = [];
    const median = (ms: Measurement[]): Measurement => [...ms].sort((a, b) => a.opsPerSecond - b.opsPerSecond)[Math.floor(ms.length / 2)]!;
    /** ROUNDS rounds, Store and HTTP alternating which goes first; the median round of each counts. */
    const workload = async (operation: string, run: (t: Target, round: number) => Promise<Measurement>): Promise<void> => {
      const samples: Measurement[][] = targets.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < targets.length; k++) {
          const t = (k + round) % targets.length;
          samples[t]!.push(await run(targets[t]!, round));
        }
      }
      rows.push({ operation, store: median(samples[0]!).opsPerSecond, http: median(samples[1]!), unit: 'ops/s' });
    };

    for (const [concurrency, count] of [[1, n(1000)], [16, n(4000)], [64, n(4000)]] as const) {
      await workload(`create, c=${concurrency}`, (t, round) =>
        measure(count, concurrency, inBudget((i) => t.create(NAMESPACE, `c${concurrency}-r${round}-${i}`))));
    }
    await workload('get, c=64', (t) => measure(n(8000), 64, inBudget(() => t.get(NAMESPACE, 'probe'))));

    const listSize = n(10_000);
    const listName = (i: number): string => `item-${String(i).padStart(6, '0')}`;
    for (const t of targets) await measure(listSize, 64, inBudget((i) => t.create(LIST_NAMESPACE, listName(i))));
    const listTimes: number[][] = targets.map(() => []);
    const listBytes = [0, 0];
    for (let run = 0; run <= LIST_RUNS; run++) { // run 0 warms up
      for (const [t, target] of targets.entries()) {
        if (Date.now() > deadline) throw new Error('the http bench ran past its time budget');
        const t0 = performance.now();
        const got = await target.list(LIST_NAMESPACE);
        const ms = performance.now() - t0;
        const items = got.count();
        if (items !== listSize) throw new Error(`${backend} ${target.name} listed ${items} of ${listSize} ConfigMaps`);
        listBytes[t] = got.bytes;
        if (run > 0) listTimes[t]!.push(ms);
      }
    }
    const medianMs = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    rows.push({ operation: `list ${fmt(listSize)} x 1 KiB`, store: 1000 / medianMs(listTimes[0]!), http: 1000 / medianMs(listTimes[1]!), unit: 'lists/s' });
    return { backend, rows, objectBytes, listBytes: { store: listBytes[0]!, http: listBytes[1]! } };
  } finally {
    client?.close();
    await server?.stop();
    await local?.close();
  }
}

/** Items of a ConfigMapList response body (checked after the timed request, not during it). */
function httpListItems(body: Buffer): number {
  const list = JSON.parse(body.toString('utf8')) as { kind?: string; items?: unknown[]; metadata?: { continue?: string } };
  if (list.kind !== 'ConfigMapList') throw new Error(`list returned kind ${String(list.kind)}`);
  if (list.metadata?.continue) throw new Error('list without limit returned a continue token');
  return list.items?.length ?? 0;
}
