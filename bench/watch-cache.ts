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
 *            GC, against the object's JSON size; and again once every object's JSON is memoized
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { KubeObject } from '../apiserver/api/object.js';
import { eventEncoder } from '../apiserver/endpoints/watch/event-encoder.js';
import { configMaps } from '../apiserver/registry/kinds/core/configmap.js';
import { listJsonBuffer, shareEncodings } from '../apiserver/codec/shared-json.js';
import { decodeObject, encodeObject } from '../apiserver/registry/generic/object-codec.js';
import type { KindStrategy } from '../apiserver/registry/kind-strategy.js';
import { createWatchCache } from '../storage/cache/watch-cache.js';
import { openMemoryStore } from '../storage/memory/memory-store.js';
import { startEtcd, type EtcdCluster } from '../test/harness/etcd.js';
import { benchClient, type BenchClient } from './http-client.js';
import { fmt, measure, table, type Measurement } from './measure.js';
import { buildServer, startServerProcess, type ServerMode, type ServerProcess } from './server-process.js';

export interface CacheBenchOptions {
  readonly scale?: number;
  readonly server?: ServerMode;
}

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
const LIST_NS = 'bench-cache-list';
const GET_NS = 'bench-cache-get';
const FANOUT_NS = 'bench-cache-fanout';
const LIST_RUNS = 9;
const ROUNDS = 3;
/** Events per second the fan-out writer sends (paced; one write in flight). */
const FANOUT_RATE = 50;
const SEQ = '"seq":"';

const configMap = (name: string, data: Record<string, string>): Buffer =>
  Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }));
const listName = (i: number): string => `item-${String(i).padStart(6, '0')}`;
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The bare Koa handler as a child process. */
interface BareServer {
  readonly url: string;
  readonly caPem: string;
  stop(): Promise<void>;
}

async function startBareKoa(): Promise<BareServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bench', 'bare-koa.ts')], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  process.once('exit', () => child.kill('SIGKILL'));
  const first = await new Promise<string>((res, rej) => {
    let out = '';
    const timer = setTimeout(() => rej(new Error('bare Koa server did not start in 30 s')), 30_000);
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        res(out.slice(0, nl));
      }
    });
    child.once('exit', (code) => rej(new Error(`bare Koa server exited (${code})`)));
  });
  const { port, caFile } = JSON.parse(first) as { port: number; caFile: string };
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: readFileSync(caFile, 'utf8'),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One request with an explicit content type (merge patches), on `agent`. */
function send(base: URL, agent: Agent | false, token: string, caPem: string, method: string, path: string, contentType: string, body: Buffer): Promise<number> {
  return new Promise((res, rej) => {
    const options: RequestOptions = {
      host: base.hostname, port: base.port, method, path, agent, ca: caPem, timeout: 60_000,
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', 'Content-Type': contentType, 'Content-Length': body.length },
    };
    const req = request(options, (r) => {
      r.resume();
      r.on('end', () => res(r.statusCode ?? 0));
      r.on('error', rej);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timeout`)));
    req.on('error', rej);
    req.end(body);
  });
}

interface ListRows {
  readonly backend: string;
  readonly rows: { readonly label: string; readonly ms: number }[];
  readonly listBytes: number;
}

interface FanoutResult {
  readonly where: string;
  readonly watchers: number;
  readonly events: number;
  readonly delivered: number;
  readonly ended: number;
  readonly seconds: number;
  readonly fromSent: { p50: number; p99: number; max: number };
  readonly fromAck: { p50: number; p99: number };
  readonly beforeAck: number;
  readonly serializations?: number;
  readonly objectBytes: number;
  /** Events per second the writer achieved, and its write latency p50 / p99 (ms). */
  readonly writes: { readonly rate: number; readonly p50: number; readonly p99: number };
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
      for (let run = 0; run <= LIST_RUNS; run++) {
        let t0 = performance.now();
        const text = JSON.stringify(parsed);
        const strMs = performance.now() - t0;
        if (Buffer.byteLength(text) !== body.length) throw new Error(`JSON.stringify gave ${Buffer.byteLength(text)} bytes, the server ${body.length}`);
        t0 = performance.now();
        const got = await bareClient.call('GET', '/', 200);
        const bareMs = performance.now() - t0;
        if (got.body.length !== body.length) throw new Error('bare Koa returned other bytes');
        if (run > 0) {
          strTimes.push(strMs);
          bareTimes.push(bareMs);
        }
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
    `Server: a separate process as in part 2 (embedded store, then etcd); the bare Koa handler is its own process (bench/bare-koa.ts) with the same kind of generated certificate and TLS settings. Lists: median of ${LIST_RUNS} after one warm-up, the rows alternating; gets: median of ${ROUNDS} rounds, cache and bare alternating.`,
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

/** Creates `listSize` ConfigMaps and times the cache and Exact lists, alternating. */
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
  const times: number[][] = variants.map(() => []);
  for (let run = 0; run <= LIST_RUNS; run++) {
    for (let k = 0; k < variants.length; k++) {
      const v = (k + run) % variants.length;
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

function percentile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
}

/** Latency figures from receive times (`recv[w * events + seq]`, 0 = not received) and per-event send/ack times. */
function fanoutFigures(recv: Float64Array, sentAt: Float64Array, ackAt: Float64Array, events: number): Pick<FanoutResult, 'fromSent' | 'fromAck' | 'beforeAck' | 'delivered' | 'writes'> {
  const w = Float64Array.from(sentAt, (t, i) => ackAt[i]! - t).sort();
  const fromSent: number[] = [];
  const fromAck: number[] = [];
  let beforeAck = 0;
  for (let i = 0; i < recv.length; i++) {
    const r = recv[i]!;
    if (r === 0) continue;
    const seq = i % events;
    fromSent.push(r - sentAt[seq]!);
    const a = r - ackAt[seq]!;
    if (a < 0) beforeAck++;
    fromAck.push(Math.max(0, a));
  }
  const s = Float64Array.from(fromSent).sort();
  const a = Float64Array.from(fromAck).sort();
  return {
    delivered: s.length,
    fromSent: { p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s[s.length - 1] ?? NaN },
    fromAck: { p50: percentile(a, 0.5), p99: percentile(a, 0.99) },
    beforeAck: s.length === 0 ? 0 : beforeAck / s.length,
    writes: { rate: events / ((ackAt[events - 1]! - sentAt[0]!) / 1000), p50: percentile(w, 0.5), p99: percentile(w, 0.99) },
  };
}

/** Parses the `seq` of every complete line of `text` from `start`; returns the index after the last line. */
function scanLines(text: string, onSeq: (seq: number) => void): number {
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return start;
    const i = text.indexOf(SEQ, start);
    if (i >= 0 && i < nl) {
      const from = i + SEQ.length;
      onSeq(Number(text.slice(from, text.indexOf('"', from))));
    }
    start = nl + 1;
  }
}

const FANOUT_VALUE = 'v'.repeat(100);

/** The write of event `i`: even ones create `fan-<i/2>`, odd ones merge-patch the object just created. */
const fanoutWrite = (i: number): { method: string; name: string; body: Buffer } =>
  i % 2 === 0
    ? { method: 'POST', name: `fan-${i / 2}`, body: configMap(`fan-${i / 2}`, { seq: String(i), value: FANOUT_VALUE }) }
    : { method: 'PATCH', name: `fan-${(i - 1) / 2}`, body: Buffer.from(JSON.stringify({ data: { seq: String(i) } })) };

/** Paces `events` writes at FANOUT_RATE, one in flight, recording send and acknowledgement times. */
async function pacedWrites(events: number, write: (i: number) => Promise<void>): Promise<{ sentAt: Float64Array; ackAt: Float64Array }> {
  const sentAt = new Float64Array(events);
  const ackAt = new Float64Array(events).fill(Infinity);
  const t0 = performance.now();
  for (let i = 0; i < events; i++) {
    const wait = t0 + (i * 1000) / FANOUT_RATE - performance.now();
    if (wait > 0) await sleep(wait);
    sentAt[i] = performance.now();
    await write(i);
    ackAt[i] = performance.now();
  }
  return { sentAt, ackAt };
}

/** W watch streams (one TLS connection each) on the server, then E paced writes; every delivery timed. */
export async function httpFanout(server: ServerProcess, client: BenchClient, watchers: number, events: number): Promise<FanoutResult> {
  await client.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: FANOUT_NS } })));
  const base = new URL(server.url);
  const recv = new Float64Array(watchers * events);
  let delivered = 0;
  let ended = 0;
  let allIn: () => void = () => undefined;
  const done = new Promise<void>((r) => { allIn = r; });
  const responses: IncomingMessage[] = [];
  const open = (w: number): Promise<void> => new Promise((res, rej) => {
    const req = request({
      host: base.hostname, port: base.port, method: 'GET', agent: false, ca: server.caPem,
      path: `/api/v1/namespaces/${FANOUT_NS}/configmaps?watch=true&timeoutSeconds=900`,
      headers: { Authorization: `Bearer ${server.token}`, Accept: 'application/json' },
    }, (r) => {
      if (r.statusCode !== 200) {
        rej(new Error(`watch ${w}: HTTP ${r.statusCode}`));
        r.resume();
        return;
      }
      responses.push(r);
      let pending = '';
      r.on('data', (chunk: Buffer) => {
        const now = performance.now();
        const text = pending + chunk.toString('latin1');
        pending = text.slice(scanLines(text, (seq) => {
          if (recv[w * events + seq] === 0) {
            recv[w * events + seq] = now;
            if (++delivered === watchers * events) allIn();
          }
        }));
      });
      r.on('end', () => { ended++; });
      r.on('error', () => undefined);
      res();
    });
    req.on('error', rej);
    req.end();
  });
  try {
    // Open the streams a few at a time (TLS handshakes), each established once its headers arrived.
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      for (let w = next++; w < watchers; w = next++) await open(w);
    }));
    await sleep(500);
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem });
    const path = `/api/v1/namespaces/${FANOUT_NS}/configmaps`;
    const t0 = performance.now();
    const { sentAt, ackAt } = await pacedWrites(events, async (i) => {
      const w = fanoutWrite(i);
      const status = w.method === 'POST'
        ? await send(base, agent, server.token, server.caPem, 'POST', path, 'application/json', w.body)
        : await send(base, agent, server.token, server.caPem, 'PATCH', `${path}/${w.name}`, 'application/merge-patch+json', w.body);
      if (status !== (w.method === 'POST' ? 201 : 200)) throw new Error(`fan-out write ${i}: HTTP ${status}`);
    });
    agent.destroy();
    await Promise.race([done, sleep(30_000)]);
    const seconds = (performance.now() - t0) / 1000;
    const probe = await client.call('GET', `${path}/fan-0`, 200);
    return { where: 'HTTP, server process (embedded store)', watchers, events, ended, seconds, objectBytes: probe.body.length, ...fanoutFigures(recv, sentAt, ackAt, events) };
  } finally {
    for (const r of responses) r.destroy();
  }
}

/**
 * The same fan-out in this process: a cache over an embedded store, W cache watchers each encoding its events
 * with the server's event encoder (as the watch handler does), E paced writes of the stored bytes the server
 * would write. Every `JSON.stringify` of a ConfigMap during the run is counted.
 */
async function inProcessFanout(watchers: number, events: number): Promise<FanoutResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-cache-fanout-'));
  const store = await openMemoryStore({ dataDir: dir });
  const prefix = '/registry/configmaps/';
  const cache = createWatchCache<KubeObject>(store, prefix, { decode: decodeObject, resource: 'configmaps' });
  const originalStringify = JSON.stringify;
  try {
    await cache.ready();
    // Stored values as the server writes them (no resourceVersion), built before counting starts.
    const created = new Date().toISOString();
    const values = Array.from({ length: events }, (_, i) => {
      const k = i % 2 === 0 ? i / 2 : (i - 1) / 2;
      return encodeObject({
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: `fan-${k}`, namespace: FANOUT_NS, uid: `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`, creationTimestamp: created },
        data: { seq: String(i), value: FANOUT_VALUE },
      });
    });
    const objectBytes = values[0]!.length + `,"resourceVersion":"${events}"`.length;
    const recv = new Float64Array(watchers * events);
    let delivered = 0;
    let ended = 0;
    let allIn: () => void = () => undefined;
    const done = new Promise<void>((r) => { allIn = r; });
    const consumers: Promise<void>[] = [];
    const handles: { close(): void }[] = [];
    for (let w = 0; w < watchers; w++) {
      const watcher = cache.watch({ keyPrefix: `${prefix}${FANOUT_NS}/`, start: { kind: 'state', revision: 0 } });
      handles.push(watcher);
      await watcher.started;
      const encode = eventEncoder({ strategy: configMaps as unknown as KindStrategy, apiVersion: 'v1' });
      consumers.push((async () => {
        try {
          for await (const ev of watcher) {
            const line = encode(ev);
            const now = performance.now();
            scanLines(line, (seq) => {
              recv[w * events + seq] = now;
              if (++delivered === watchers * events) allIn();
            });
          }
        } catch {
          // Lagging: counted as ended.
        }
        ended++;
      })());
    }
    let serializations = 0;
    (JSON as { stringify: typeof JSON.stringify }).stringify = function (this: unknown, value: unknown, ...rest: unknown[]) {
      if (typeof value === 'object' && value !== null && (value as KubeObject).kind === 'ConfigMap') serializations++;
      return (originalStringify as (...a: unknown[]) => string).call(JSON, value, ...rest);
    } as typeof JSON.stringify;
    const revisions: number[] = [];
    const t0 = performance.now();
    const { sentAt, ackAt } = await pacedWrites(events, async (i) => {
      const key = `${prefix}${FANOUT_NS}/fan-${i % 2 === 0 ? i / 2 : (i - 1) / 2}`;
      const res = i % 2 === 0 ? await store.create(key, values[i]!) : await store.update(key, values[i]!, revisions[i - 1]!);
      revisions[i] = res.revision;
    });
    await Promise.race([done, sleep(30_000)]);
    const seconds = (performance.now() - t0) / 1000;
    (JSON as { stringify: typeof JSON.stringify }).stringify = originalStringify;
    for (const h of handles) h.close();
    await Promise.all(consumers);
    return {
      where: 'in process: cache + event encoder, no HTTP', watchers, events, ended: ended - watchers, seconds, objectBytes,
      serializations: serializations / events, ...fanoutFigures(recv, sentAt, ackAt, events),
    };
  } finally {
    (JSON as { stringify: typeof JSON.stringify }).stringify = originalStringify;
    cache.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Heap per cached object: a cache over an embedded store holding `items` (as the server stores them). */
async function memoryBench(items: readonly KubeObject[]): Promise<{ label: string; perObject: number; objects: number; jsonBytes: number }[]> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heap = async (): Promise<number> => {
    for (let i = 0; i < 3; i++) {
      gc();
      await sleep(10);
    }
    return process.memoryUsage().heapUsed;
  };
  const dir = mkdtempSync(join(tmpdir(), 'bench-cache-memory-'));
  const store = await openMemoryStore({ dataDir: dir });
  const prefix = '/registry/configmaps/';
  try {
    const jsonBytes = items.reduce((sum, o) => sum + Buffer.byteLength(JSON.stringify(o)), 0) / items.length;
    await measure(items.length, 64, (i) => store.create(`${prefix}${LIST_NS}/${items[i]!.metadata.name}`, encodeObject(items[i]!)));
    const before = await heap();
    const cache = createWatchCache<KubeObject>(store, prefix, { decode: decodeObject, resource: 'configmaps' });
    await cache.ready();
    const loaded = await heap();
    const { items: cached } = await cache.list({ keyPrefix: `${prefix}${LIST_NS}/`, minRevision: 0 });
    if (cached.length !== items.length) throw new Error(`memory: the cache holds ${cached.length} of ${items.length}`);
    // What a list from the cache leaves behind in the server (registry/generic/list.ts + respond.ts).
    for (const c of cached) shareEncodings(c.object, c.memo);
    if (listJsonBuffer({ items: cached.map((c) => c.object) }).length === 0) throw new Error('memory: empty list');
    const memoized = await heap();
    cache.stop();
    return [
      { label: 'decoded objects (state only)', perObject: (loaded - before) / items.length, objects: items.length, jsonBytes },
      { label: 'after one list: plus each object\'s memoized JSON (`memo` json and its byte length)', perObject: (memoized - before) / items.length, objects: items.length, jsonBytes },
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
