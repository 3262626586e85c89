/**
 * The protobuf watch fan-out of bench part 5: W watchers x E paced events (part 3's writes: alternating
 * creates and merge patches of small ConfigMaps), every watcher asking for protobuf.
 *
 * - In this process: a watch cache over an embedded store, W cache watchers each encoding its events with the
 *   server's protobuf event encoder (length-prefixed `WatchEvent` frames, as the watch handler writes them).
 *   Every call of the ConfigMap message encoder (`messageCodec(schema).encode`, which `objectProtobuf` reaches
 *   on a memo miss) is counted, and every `JSON.stringify` of a ConfigMap: serializations per event.
 * - Over HTTP: W protobuf watch streams (one TLS connection each) on the server process, the frames parsed
 *   as they arrive; part 3's JSON fan-out runs on the same server for comparison.
 *
 * A delivery is recognized by the `seq` entry of the ConfigMap's `data`, found in each frame as the bytes of
 * its map entry (`0a 03 "seq" 12 <len> <digits>`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../../apiserver/api/object.js';
import { messageCodec } from '../../apiserver/codec/protobuf/message-codec.js';
import { eventEncoder } from '../../apiserver/endpoints/watch/event-encoder.js';
import { configMaps } from '../../apiserver/registry/kinds/core/configmap.js';
import { decodeObject, encodeObject } from '../../apiserver/registry/generic/object-codec.js';
import type { KindStrategy } from '../../apiserver/registry/kind-strategy.js';
import { createWatchCache } from '../../storage/cache/watch-cache.js';
import { isStorageError } from '../../storage/errors.js';
import { openMemoryStore } from '../../storage/memory/memory-store.js';
import type { BenchClient } from '../http-client.js';
import type { ServerProcess } from '../server-process.js';
import { FANOUT_VALUE, fanoutFigures, fanoutWrite, pacedWrites, send, type FanoutResult } from '../cache/fanout.js';
import { sleep } from '../cache/shared.js';

export const MEDIA_FANOUT_NS = 'bench-media-fanout';
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

const SEQ_ENTRY = Buffer.from([0x0a, 0x03, 0x73, 0x65, 0x71, 0x12]);

/** The `seq` of the ConfigMap in one watch frame, or -1 (a bookmark). */
function frameSeq(frame: Buffer): number {
  const i = frame.indexOf(SEQ_ENTRY);
  if (i < 0) return -1;
  const len = frame[i + SEQ_ENTRY.length]!;
  const from = i + SEQ_ENTRY.length + 1;
  return Number(frame.toString('latin1', from, from + len));
}

/**
 * Splits a stream of length-prefixed frames: `push(chunk)` calls `onFrame` for every complete frame and
 * keeps the rest for the next chunk.
 */
function frameReader(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    let buf: Buffer = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (buf.length >= 4) {
      const len = buf.readUInt32BE(0);
      if (buf.length < 4 + len) break;
      onFrame(buf.subarray(4, 4 + len));
      buf = buf.subarray(4 + len);
    }
    pending = buf;
  };
}

/**
 * The fan-out in this process: a cache, W cache watchers with protobuf event encoders, E paced writes of the
 * stored bytes the server would write. Counts serializations of ConfigMaps (protobuf messages, JSON texts).
 */
export async function inProcessProtobufFanout(watchers: number, events: number): Promise<FanoutResult & { readonly jsonSerializations: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-media-fanout-'));
  const store = await openMemoryStore({ dataDir: dir });
  const prefix = '/registry/configmaps/';
  const cache = createWatchCache<KubeObject>(store, prefix, { decode: decodeObject, resource: 'configmaps' });
  const codec = messageCodec(configMaps.schema);
  const originalEncode = codec.encode;
  const originalStringify = JSON.stringify;
  try {
    await cache.ready();
    const created = new Date().toISOString();
    const values = Array.from({ length: events }, (_, i) => {
      const k = i % 2 === 0 ? i / 2 : (i - 1) / 2;
      return encodeObject({
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: `fan-${k}`, namespace: MEDIA_FANOUT_NS, uid: `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`, creationTimestamp: created },
        data: { seq: String(i), value: FANOUT_VALUE },
      });
    });
    const recv = new Float64Array(watchers * events);
    let delivered = 0;
    let ended = 0;
    let allIn: () => void = () => undefined;
    const done = new Promise<void>((r) => { allIn = r; });
    const consumers: Promise<void>[] = [];
    const handles: { close(): void }[] = [];
    let objectBytes = 0;
    let failure: unknown;
    for (let w = 0; w < watchers; w++) {
      const watcher = cache.watch({ keyPrefix: `${prefix}${MEDIA_FANOUT_NS}/`, start: { kind: 'state', revision: 0 } });
      handles.push(watcher);
      await watcher.started;
      const encode = eventEncoder({ strategy: configMaps as unknown as KindStrategy, apiVersion: 'v1', format: 'protobuf' });
      consumers.push((async () => {
        try {
          for await (const ev of watcher) {
            const frame = encode(ev);
            if (typeof frame === 'string') throw new Error('the protobuf event encoder wrote text');
            const now = performance.now();
            const seq = frameSeq(frame.subarray(4));
            if (seq < 0) continue;
            if (objectBytes === 0) objectBytes = frame.length;
            recv[w * events + seq] = now;
            if (++delivered === watchers * events) allIn();
          }
        } catch (err) {
          // Lagging is counted as ended; anything else is a broken bench.
          if (!isStorageError(err, 'Lagging')) failure ??= err;
        }
        ended++;
      })());
    }
    let serializations = 0;
    let jsonSerializations = 0;
    codec.encode = (wr, obj) => {
      serializations++;
      originalEncode(wr, obj);
    };
    (JSON as { stringify: typeof JSON.stringify }).stringify = function (this: unknown, value: unknown, ...rest: unknown[]) {
      if (typeof value === 'object' && value !== null && (value as KubeObject).kind === 'ConfigMap') jsonSerializations++;
      return (originalStringify as (...a: unknown[]) => string).call(JSON, value, ...rest);
    } as typeof JSON.stringify;
    const revisions: number[] = [];
    const t0 = performance.now();
    const { sentAt, ackAt } = await pacedWrites(events, async (i) => {
      const key = `${prefix}${MEDIA_FANOUT_NS}/fan-${i % 2 === 0 ? i / 2 : (i - 1) / 2}`;
      const res = i % 2 === 0 ? await store.create(key, values[i]!) : await store.update(key, values[i]!, revisions[i - 1]!);
      revisions[i] = res.revision;
    });
    await Promise.race([done, sleep(30_000)]);
    const seconds = (performance.now() - t0) / 1000;
    codec.encode = originalEncode;
    (JSON as { stringify: typeof JSON.stringify }).stringify = originalStringify;
    for (const h of handles) h.close();
    await Promise.all(consumers);
    if (failure !== undefined) throw failure;
    return {
      where: 'in process: cache + protobuf event encoder, no HTTP', watchers, events, ended: ended - watchers, seconds, objectBytes,
      serializations: serializations / events, jsonSerializations: jsonSerializations / events, ...fanoutFigures(recv, sentAt, ackAt, events),
    };
  } finally {
    codec.encode = originalEncode;
    (JSON as { stringify: typeof JSON.stringify }).stringify = originalStringify;
    cache.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** W protobuf watch streams (one TLS connection each) on the server, then E paced writes; every delivery timed. */
export async function httpProtobufFanout(server: ServerProcess, client: BenchClient, watchers: number, events: number): Promise<FanoutResult> {
  await client.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: MEDIA_FANOUT_NS } })));
  const base = new URL(server.url);
  const recv = new Float64Array(watchers * events);
  let delivered = 0;
  let ended = 0;
  let frameBytes = 0;
  let allIn: () => void = () => undefined;
  const done = new Promise<void>((r) => { allIn = r; });
  const responses: IncomingMessage[] = [];
  const open = (w: number): Promise<void> => new Promise((res, rej) => {
    const req = request({
      host: base.hostname, port: base.port, method: 'GET', agent: false, ca: server.caPem,
      path: `/api/v1/namespaces/${MEDIA_FANOUT_NS}/configmaps?watch=true&timeoutSeconds=900`,
      headers: { Authorization: `Bearer ${server.token}`, Accept: PROTOBUF },
    }, (r) => {
      const type = r.headers['content-type'] ?? '';
      if (r.statusCode !== 200 || !type.startsWith(PROTOBUF) || !type.includes('stream=watch')) {
        rej(new Error(`protobuf watch ${w}: HTTP ${r.statusCode}, Content-Type ${type}`));
        r.resume();
        return;
      }
      responses.push(r);
      r.on('data', frameReader((frame) => {
        const now = performance.now();
        const seq = frameSeq(frame);
        if (seq < 0) return;
        if (frameBytes === 0) frameBytes = frame.length + 4;
        if (recv[w * events + seq] === 0) {
          recv[w * events + seq] = now;
          if (++delivered === watchers * events) allIn();
        }
      }));
      r.on('end', () => { ended++; });
      r.on('error', () => undefined);
      res();
    });
    req.on('error', rej);
    req.end();
  });
  try {
    let next = 0;
    await Promise.all(Array.from({ length: 32 }, async () => {
      for (let w = next++; w < watchers; w = next++) await open(w);
    }));
    await sleep(500);
    const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.caPem });
    const path = `/api/v1/namespaces/${MEDIA_FANOUT_NS}/configmaps`;
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
    return { where: 'HTTP, server process, protobuf streams', watchers, events, ended, seconds, objectBytes: frameBytes, ...fanoutFigures(recv, sentAt, ackAt, events) };
  } finally {
    for (const r of responses) r.destroy();
  }
}
