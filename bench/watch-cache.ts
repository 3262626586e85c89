/**
 * Benchmark part 3 (`--only=cache`): the watch cache, each figure next to its limit measured in the same run.
 *
 *   list     10,000 x 1 KiB ConfigMaps over HTTP (server process, embedded store and etcd): from the cache
 *            (`resourceVersion=0`; Most Recent, a consistent read: the store's revision, then the cache), from
 *            the store (`resourceVersionMatch=Exact`), next to `JSON.stringify` of the same list in this process
 *            and a bare Koa handler sending the same bytes over the same TLS (the transport floor)
 *   get      one ConfigMap through the cache (`resourceVersion=0`) against the bare Koa handler returning the
 *            same bytes (bench/bare-koa.ts, its own process, same certificate type and TLS settings)
 *   fan-out  W watchers x E events (creates and merge patches of small ConfigMaps, paced): over HTTP, one TLS
 *            connection per watch stream against the server process; and in this process, the cache plus the
 *            server's event encoder with no HTTP, where every `JSON.stringify` of a ConfigMap is counted
 *            (serializations per event)
 *   memory   heap per cached object (a cache over an embedded store loaded with the list's objects), after
 *            GC, against the object's JSON size; and again once every object's JSON is memoized (the
 *            server process's RSS with 100,000 cached objects is part `rss`: bench/rss.ts)
 *
 * The fan-out, memory and bare-Koa pieces live in bench/cache/.
 */
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../apiserver/api/object.js';
import { startEtcd, type EtcdCluster } from '../test/harness/etcd.js';
import { benchClient, type BenchClient } from './http-client.js';
import { fmt, measure, table, type Measurement } from './measure.js';
import { buildServer, startServerProcess, type ServerMode, type ServerProcess } from './server-process.js';
import { startBareKoa } from './cache/bare-koa-process.js';
import { FANOUT_RATE, httpFanout, inProcessFanout, type FanoutResult } from './cache/fanout.js';
import { memoryBench } from './cache/memory.js';
import { LIST_NS, configMap } from './cache/shared.js';

export interface CacheBenchOptions {
  readonly scale?: number;
  readonly server?: ServerMode;
}

const GET_NS = 'bench-cache-get';
const LIST_RUNS = 9;
/** Untimed runs before each block (the first of a block pays for the previous block's garbage). */
const LIST_WARMUP = 3;
const ROUNDS = 3;

const listName = (i: number): string => `item-${String(i).padStart(6, '0')}`;
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface ListRows {
  readonly backend: string;
  readonly rows: { readonly label: string; readonly ms: number }[];
  readonly listBytes: number;
}

/** Runs part 3 and returns its markdown section. */
export async function benchCache(options: CacheBenchOptions = {}): Promise<string> {
  const scale = options.scale ?? 1;
  const mode = options.server ?? 'dist';
  const n = (base: number): number => Math.max(10, Math.round(base * scale));
  const listSize = n(10_000);
  const watchers = n(1000);
  const events = n(1000);
  if (mode === 'dist') buildServer();

  const bare = await startBareKoa();
  const bareClient = benchClient({ url: bare.url, token: 'none', caPem: bare.caPem, maxSockets: 64 });
  const lists: ListRows[] = [];
  const getRows: string[][] = [];
  const fanouts: FanoutResult[] = [];
  let listItems: KubeObject[] = [];
  let stringifyMs = 0;
  let bareListMs = 0;
  let getBytes = 0;
  let cluster: EtcdCluster | undefined;
  try {
    // --- embedded store: lists, gets, HTTP fan-out
    process.stderr.write('bench: cache on embedded\n');
    const embedded = await withServer(mode, [], async (server, client) => {
      const listed = await listBench('embedded', client, listSize);
      // The same list in this process (JSON.stringify) and from the bare handler (same bytes, same TLS).
      const body = listed.body;
      const parsed = JSON.parse(body.toString('utf8')) as { items: KubeObject[] };
      listItems = parsed.items;
      await bareClient.call('PUT', '/', 204, body);
      const strTimes: number[] = [];
      const bareTimes: number[] = [];
      // In blocks, as the server's lists (listBench).
      for (let run = 1 - LIST_WARMUP; run <= LIST_RUNS; run++) {
        const t0 = performance.now();
        const text = JSON.stringify(parsed);
        const strMs = performance.now() - t0;
        if (Buffer.byteLength(text) !== body.length) throw new Error(`JSON.stringify gave ${Buffer.byteLength(text)} bytes, the server ${body.length}`);
        if (run > 0) strTimes.push(strMs);
      }
      for (let run = 1 - LIST_WARMUP; run <= LIST_RUNS; run++) {
        const t0 = performance.now();
        const got = await bareClient.call('GET', '/', 200);
        const bareMs = performance.now() - t0;
        if (got.body.length !== body.length) throw new Error('bare Koa returned other bytes');
        if (run > 0) bareTimes.push(bareMs);
      }
      stringifyMs = median(strTimes);
      bareListMs = median(bareTimes);
      lists.push(listed.rows);

      // GET of one object: the cache (resourceVersion=0) against the bare handler returning its bytes.
      await client.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: GET_NS } })));
      await client.call('POST', `/api/v1/namespaces/${GET_NS}/configmaps`, 201, configMap('probe', { value: 'x'.repeat(1024) }));
      const getPath = `/api/v1/namespaces/${GET_NS}/configmaps/probe?resourceVersion=0`;
      const probe = await client.call('GET', getPath, 200);
      getBytes = probe.body.length;
      await bareClient.call('PUT', '/', 204, probe.body);
      const targets = [
        { name: 'cache', get: () => client.call('GET', getPath, 200) },
        { name: 'bare', get: () => bareClient.call('GET', '/', 200) },
      ];
      for (const t of targets) await measure(n(2000), 16, t.get); // warm-up
      for (const [concurrency, count] of [[1, n(2000)], [64, n(8000)]] as const) {
        const samples: Measurement[][] = [[], []];
        for (let round = 0; round < ROUNDS; round++) {
          for (let k = 0; k < 2; k++) {
            const t = (k + round) % 2;
            samples[t]!.push(await measure(count, concurrency, targets[t]!.get));
          }
        }
        const [cache, bareM] = samples.map((s) => [...s].sort((a, b) => a.opsPerSecond - b.opsPerSecond)[1]!) as [Measurement, Measurement];
        getRows.push([
          `c=${concurrency}`,
          `${fmt(cache.opsPerSecond)} gets/s`, `${fmt(bareM.opsPerSecond)} gets/s`, `${fmt((cache.opsPerSecond / bareM.opsPerSecond) * 100, 1)}%`,
          `${fmt(cache.p50Ms, 2)} / ${fmt(cache.p99Ms, 2)} ms`, `${fmt(bareM.p50Ms, 2)} / ${fmt(bareM.p99Ms, 2)} ms`,
        ]);
      }

      process.stderr.write(`bench: cache fan-out over HTTP, ${watchers} watchers x ${events} events\n`);
      return httpFanout(server, client, watchers, events);
    });
    fanouts.push(embedded);

    // --- etcd: lists
    cluster = await startEtcd();
    process.stderr.write('bench: cache on etcd\n');
    await withServer(mode, [`--etcd-servers=${cluster.endpoints.join(',')}`], async (_server, client) => {
      lists.push((await listBench('etcd', client, listSize)).rows);
    });
  } finally {
    bareClient.close();
    await bare.stop();
    await cluster?.stop();
  }

  process.stderr.write(`bench: cache fan-out in process, ${watchers} watchers x ${events} events\n`);
  fanouts.push(await inProcessFanout(watchers, events));
  process.stderr.write('bench: cache memory\n');
  const memory = await memoryBench(listItems);
  // --- report
  const listBytes = lists[0]!.listBytes;
  const listRows: string[][] = [];
  for (const l of lists) {
    for (const r of l.rows) listRows.push([l.backend, r.label, `${fmt(r.ms, 1)} ms`, `${fmt(r.ms / stringifyMs, 2)}x`, `${fmt(r.ms / bareListMs, 2)}x`]);
  }
  listRows.push(['bench process', '`JSON.stringify` of the same list', `${fmt(stringifyMs, 1)} ms`, '1.00x', '']);
  listRows.push(['bare Koa process', 'the same bytes, same TLS and client', `${fmt(bareListMs, 1)} ms`, `${fmt(bareListMs / stringifyMs, 2)}x`, '1.00x']);
  const fanRows = fanouts.map((f) => [
    f.where, `${fmt(f.watchers)} x ${fmt(f.events)}`, `${fmt(f.delivered)} / ${fmt(f.watchers * f.events)}${f.ended > 0 ? ` (${f.ended} streams ended)` : ''}`,
    `${fmt(f.writes.rate, 1)}/s, ${fmt(f.writes.p50, 1)} / ${fmt(f.writes.p99, 1)} ms`, `${fmt(f.delivered / f.seconds)}/s`,
    `${fmt(f.fromAck.p50, 1)} / ${fmt(f.fromAck.p99, 1)} ms`, `${fmt(f.fromSent.p50, 1)} / ${fmt(f.fromSent.p99, 1)} / ${fmt(f.fromSent.max, 1)} ms`,
    `${fmt(f.beforeAck * 100, 1)}%`, f.serializations === undefined ? 'same encoder' : fmt(f.serializations, 3),
  ]);
  return [
    '### Part 3: watch cache',
    '',
    `Server: a separate process as in part 2 (embedded store, then etcd); the bare Koa handler is its own process (bench/bare-koa.ts) with the same kind of generated certificate and TLS settings. Lists: median of ${LIST_RUNS} after ${LIST_WARMUP} untimed runs, each row's runs in a block (alternating rows put a list from the store's garbage into the next list's time); gets: median of ${ROUNDS} rounds, cache and bare alternating.`,
    '',
    `#### List of ${fmt(listSize)} ConfigMaps x 1 KiB (${fmt(listBytes / 2 ** 20, 2)} MiB of JSON)`,
    '',
    table(['where', 'list', 'median time', 'vs JSON.stringify', 'vs bare Koa'], listRows),
    '',
    `#### GET of one ConfigMap (${fmt(getBytes)} bytes)`,
    '',
    table(['concurrency', 'through the cache (`resourceVersion=0`)', 'bare Koa, same bytes', 'cache / bare', 'cache p50 / p99', 'bare p50 / p99'], getRows),
    '',
    `#### Watch fan-out (writes paced at up to ${FANOUT_RATE} events/s, one in flight, alternating creates and merge patches of ConfigMaps of ${fmt(fanouts[0]!.objectBytes)} bytes of JSON)`,
    '',
    table(['where', 'watchers x events', 'delivered', 'events written (rate, write p50 / p99)', 'deliveries/s', 'write acked → received p50 / p99', 'write sent → received p50 / p99 / max', 'received before the ack', 'serializations per event'], fanRows),
    '',
    '#### Memory of the cache (in process, embedded store, after GC)',
    '',
    table(['', 'per object', 'objects', 'JSON per object'], memory.map((m) => [m.label, `${fmt(m.perObject)} B`, fmt(m.objects), `${fmt(m.jsonBytes)} B`])),
  ].join('\n');
}

/** Starts the server process with `args`, a client, runs `fn`, stops both. */
async function withServer<T>(mode: ServerMode, args: readonly string[], fn: (server: ServerProcess, client: BenchClient) => Promise<T>): Promise<T> {
  let server: ServerProcess | undefined;
  let client: BenchClient | undefined;
  try {
    server = await startServerProcess({ mode, args });
    client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: 64 });
    return await fn(server, client);
  } finally {
    client?.close();
    await server?.stop();
  }
}

/** Creates `listSize` ConfigMaps and times the cache and Exact lists, each in a block of runs. */
async function listBench(backend: string, client: BenchClient, listSize: number): Promise<{ rows: ListRows; body: Buffer }> {
  await client.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: LIST_NS } })));
  const value = 'x'.repeat(1024);
  await measure(listSize, 64, (i) => client.call('POST', `/api/v1/namespaces/${LIST_NS}/configmaps`, 201, configMap(listName(i), { value })));
  const path = `/api/v1/namespaces/${LIST_NS}/configmaps`;
  const tFirst = performance.now();
  const first = await client.call('GET', `${path}?resourceVersion=0`, 200);
  const firstMs = performance.now() - tFirst;
  const list = JSON.parse(first.body.toString('utf8')) as { items: unknown[]; metadata: { resourceVersion: string } };
  if (list.items.length !== listSize) throw new Error(`${backend}: the cache listed ${list.items.length} of ${listSize}`);
  const rv = list.metadata.resourceVersion;
  const variants = [
    { label: 'from the cache, `resourceVersion=0`', path: `${path}?resourceVersion=0` },
    { label: 'from the cache, Most Recent (no resourceVersion)', path },
    { label: `from the ${backend === 'etcd' ? 'etcd' : 'embedded'} store, \`resourceVersionMatch=Exact\``, path: `${path}?resourceVersion=${rv}&resourceVersionMatch=Exact` },
  ];
  // Each variant's runs in a block of their own: alternating them put the garbage of a list from the store
  // (every object decoded) into the collection pauses of the next list from the cache. The untimed runs that
  // start each block take the collection of what came before (for the first block, the first list's decoded
  // and memoized objects, which the server's next major collections go through).
  const times: number[][] = variants.map(() => []);
  for (let v = 0; v < variants.length; v++) {
    for (let run = 1 - LIST_WARMUP; run <= LIST_RUNS; run++) {
      const t0 = performance.now();
      const got = await client.call('GET', variants[v]!.path, 200);
      const ms = performance.now() - t0;
      if (got.body.length !== first.body.length) throw new Error(`${backend}: ${variants[v]!.label} returned ${got.body.length} bytes, not ${first.body.length}`);
      if (run > 0) times[v]!.push(ms);
    }
  }
  return {
    rows: {
      backend,
      rows: [
        { label: 'from the cache, `resourceVersion=0`, the first list after the writes (one run: no JSON memoized yet)', ms: firstMs },
        ...variants.map((v, i) => ({ label: v.label, ms: median(times[i]!) })),
      ],
      listBytes: first.body.length,
    },
    body: first.body,
  };
}
