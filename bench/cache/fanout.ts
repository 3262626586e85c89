/**
 * The fan-out figures of bench part 3: W watchers x E paced events, over HTTP against the server process
 * (one TLS connection per watch stream) and in this process (the cache plus the server's event encoder, no
 * HTTP, every `JSON.stringify` of a ConfigMap counted: serializations per event).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request, type RequestOptions } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../../apiserver/api/object.js';
import { eventEncoder } from '../../apiserver/endpoints/watch/event-encoder.js';
import { configMaps } from '../../apiserver/registry/kinds/core/configmap.js';
import { decodeObject, encodeObject } from '../../apiserver/registry/generic/object-codec.js';
import type { KindStrategy } from '../../apiserver/registry/kind-strategy.js';
import { createWatchCache } from '../../storage/cache/watch-cache.js';
import { openMemoryStore } from '../../storage/memory/memory-store.js';
import type { BenchClient } from '../http-client.js';
import type { ServerProcess } from '../server-process.js';
import { FANOUT_NS, configMap, sleep } from './shared.js';

/** Events per second the fan-out writer sends (paced; one write in flight). */
export const FANOUT_RATE = 50;
const SEQ = '"seq":"';

export interface FanoutResult {
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

/** One request with an explicit content type (merge patches), on `agent`. */
export function send(base: URL, agent: Agent | false, token: string, caPem: string, method: string, path: string, contentType: string, body: Buffer): Promise<number> {
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

function percentile(sorted: Float64Array, q: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;
}

/** Latency figures from receive times (`recv[w * events + seq]`, 0 = not received) and per-event send/ack times. */
export function fanoutFigures(recv: Float64Array, sentAt: Float64Array, ackAt: Float64Array, events: number): Pick<FanoutResult, 'fromSent' | 'fromAck' | 'beforeAck' | 'delivered' | 'writes'> {
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

export const FANOUT_VALUE = 'v'.repeat(100);

/** The write of event `i`: even ones create `fan-<i/2>`, odd ones merge-patch the object just created. */
export const fanoutWrite = (i: number): { method: string; name: string; body: Buffer } =>
  i % 2 === 0
    ? { method: 'POST', name: `fan-${i / 2}`, body: configMap(`fan-${i / 2}`, { seq: String(i), value: FANOUT_VALUE }) }
    : { method: 'PATCH', name: `fan-${(i - 1) / 2}`, body: Buffer.from(JSON.stringify({ data: { seq: String(i) } })) };

/** Paces `events` writes at FANOUT_RATE, one in flight, recording send and acknowledgement times. */
export async function pacedWrites(events: number, write: (i: number) => Promise<void>): Promise<{ sentAt: Float64Array; ackAt: Float64Array }> {
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
export async function inProcessFanout(watchers: number, events: number): Promise<FanoutResult> {
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
            const line = encode(ev) as string;
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

