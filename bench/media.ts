/**
 * Benchmark part 5 (`--only=media`): media types, each figure next to its JSON baseline from the same run.
 *
 *   codecs   encode and decode of one object per media type (JSON, protobuf, CBOR) in this process, next
 *            to `JSON.stringify` / `JSON.parse` of the same object: a ~1 KiB ConfigMap, a typical
 *            PodTemplate, and parts 2–3's ConfigMap with one 1 KiB value, each created through the server
 *            (defaults, managedFields) and read back as served (bench/media/codec.ts)
 *   get      GET/s of the same objects through the watch cache (`resourceVersion=0`), `Accept` protobuf
 *            against JSON, keep-alive HTTPS at concurrency 64, alternating (server process, embedded store)
 *   fan-out  W protobuf watchers x E paced events: in this process, counting serializations per event;
 *            over HTTP, next to part 3's JSON fan-out on the same server (bench/media/fanout.ts)
 *
 * Targets (issue 9): protobuf encode within 1.5x of `JSON.stringify` for the ConfigMap and the PodTemplate;
 * GET/s with protobuf at least that of JSON; one serialization per event.
 */
import { deepStrictEqual } from 'node:assert';
import type { KubeObject } from '../apiserver/api/object.js';
import { decodeProtobuf } from '../apiserver/codec/protobuf/protobuf-codec.js';
import { configMaps } from '../apiserver/registry/kinds/core/configmap.js';
import { podTemplates } from '../apiserver/registry/kinds/core/podtemplate.js';
import type { Schema } from '../apiserver/schema/schema.js';
import { benchClient, type BenchClient } from './http-client.js';
import { fmt, measure, table, type Measurement } from './measure.js';
import { buildServer, startServerProcess, type ServerMode, type ServerProcess } from './server-process.js';
import { FANOUT_RATE, httpFanout, type FanoutResult } from './cache/fanout.js';
import { codecBench, type CodecRow } from './media/codec.js';
import { PROTOBUF, httpProtobufFanout, inProcessProtobufFanout } from './media/fanout.js';
import { MEDIA_OBJECTS, type MediaObject } from './media/objects.js';

export interface MediaBenchOptions {
  readonly scale?: number;
  readonly server?: ServerMode;
}

const NAMESPACE = 'bench-media';
const ROUNDS = 5;
const CONCURRENCY = 64;
/** What kubectl's typed clients send when they create (the managedFields entry names it). */
const FIELD_MANAGER = 'kubectl-create';

const schemas: Record<MediaObject['resource'], Schema> = { configmaps: configMaps.schema, podtemplates: podTemplates.schema };
const objectPath = (o: MediaObject): string => `/api/v1/namespaces/${NAMESPACE}/${o.resource}/${o.name}?resourceVersion=0`;
const medianBy = (ms: readonly Measurement[]): Measurement => [...ms].sort((a, b) => a.opsPerSecond - b.opsPerSecond)[Math.floor(ms.length / 2)]!;

interface Served {
  readonly object: MediaObject;
  /** The object as the server serves it in JSON. */
  readonly value: KubeObject;
  readonly jsonBytes: number;
  readonly protobufBytes: number;
}

interface GetRow {
  readonly served: Served;
  readonly json: Measurement;
  readonly protobuf: Measurement;
}

/** Runs part 5 and returns its markdown section. */
export async function benchMedia(options: MediaBenchOptions = {}): Promise<string> {
  const scale = options.scale ?? 1;
  const mode = options.server ?? 'dist';
  const n = (base: number): number => Math.max(10, Math.round(base * scale));
  const watchers = n(1000);
  const events = n(1000);
  if (mode === 'dist') buildServer();

  let server: ServerProcess | undefined;
  let client: BenchClient | undefined;
  const served: Served[] = [];
  const gets: GetRow[] = [];
  const fanouts: FanoutResult[] = [];
  try {
    process.stderr.write('bench: media, server on the embedded store\n');
    server = await startServerProcess({ mode });
    client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: CONCURRENCY });
    const c = client;
    await c.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })));
    for (const o of MEDIA_OBJECTS) served.push(await createAndRead(c, o));

    // GET/s through the cache, JSON and protobuf alternating which goes first.
    for (const s of served) {
      process.stderr.write(`bench: media GET ${s.object.id}\n`);
      const path = objectPath(s.object);
      const json = (): Promise<unknown> => c.call('GET', path, 200);
      const pb = (): Promise<unknown> => c.call('GET', path, 200, undefined, { Accept: PROTOBUF });
      const targets = [json, pb];
      for (const t of targets) await measure(n(2000), 16, t); // warm-up: connections, JIT, memoized encodings
      const samples: Measurement[][] = [[], []];
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < 2; k++) {
          const t = (k + round) % 2;
          samples[t]!.push(await measure(n(8000), CONCURRENCY, targets[t]!));
        }
      }
      gets.push({ served: s, json: medianBy(samples[0]!), protobuf: medianBy(samples[1]!) });
    }

    process.stderr.write(`bench: media fan-out over HTTP, JSON then protobuf, ${watchers} watchers x ${events} events\n`);
    fanouts.push({ ...(await httpFanout(server, c, watchers, events)), where: 'HTTP, server process, JSON streams (part 3\'s)' });
    fanouts.push(await httpProtobufFanout(server, c, watchers, events));
  } finally {
    client?.close();
    await server?.stop();
  }

  process.stderr.write(`bench: media fan-out in process, ${watchers} protobuf watchers x ${events} events\n`);
  const inProcess = await inProcessProtobufFanout(watchers, events);
  fanouts.push(inProcess);

  // Codecs last, with the server process gone: nothing else of this bench competes for the cores.
  const timing = { rounds: Math.max(5, Math.round(11 * Math.min(1, scale * 2))), batchMs: 40 * Math.min(1, Math.max(0.25, scale)), warmupMs: 300 };
  const codecRows: { served: Served; row: CodecRow }[] = [];
  for (const s of served) {
    process.stderr.write(`bench: media codecs ${s.object.id}\n`);
    for (const row of codecBench(s.value, schemas[s.object.resource], timing).rows) codecRows.push({ served: s, row });
  }

  return report({ served, gets, fanouts, codecRows, inProcess, timing, scale, watchers, events });
}

/** Creates `o` (JSON, as a client would), reads it back in JSON and protobuf, and checks they agree. */
async function createAndRead(c: BenchClient, o: MediaObject): Promise<Served> {
  const collection = `/api/v1/namespaces/${NAMESPACE}/${o.resource}`;
  await c.call('POST', `${collection}?fieldManager=${FIELD_MANAGER}`, 201, Buffer.from(JSON.stringify(o.body)));
  const path = objectPath(o);
  const json = await c.call('GET', path, 200);
  const pb = await c.call('GET', path, 200, undefined, { Accept: PROTOBUF });
  if (!pb.contentType.startsWith(PROTOBUF) || pb.body.readUInt32BE(0) !== 0x6b387300) {
    throw new Error(`GET ${path} with Accept ${PROTOBUF}: Content-Type ${pb.contentType}, body starts ${pb.body.subarray(0, 4).toString('hex')}`);
  }
  const value = JSON.parse(json.body.toString('utf8')) as KubeObject;
  const decoded = decodeProtobuf(pb.body, schemas[o.resource]);
  deepStrictEqual({ apiVersion: decoded.apiVersion, kind: decoded.kind, ...decoded.value }, value, `${o.id}: the protobuf GET differs from the JSON GET`);
  return { object: o, value, jsonBytes: json.body.length, protobufBytes: pb.body.length };
}

interface ReportInput {
  readonly served: readonly Served[];
  readonly gets: readonly GetRow[];
  readonly fanouts: readonly FanoutResult[];
  readonly codecRows: readonly { served: Served; row: CodecRow }[];
  readonly inProcess: FanoutResult & { readonly jsonSerializations: number };
  readonly timing: { readonly rounds: number; readonly batchMs: number; readonly warmupMs: number };
  readonly scale: number;
  readonly watchers: number;
  readonly events: number;
}

function report(r: ReportInput): string {
  const us = (ns: number): string => (ns < 10_000 ? `${fmt(ns / 1000, 2)} µs` : `${fmt(ns / 1000, 1)} µs`);
  const codecTable = (op: 'encode' | 'decode'): string => table(
    ['object', 'codec', 'per object (median)', `vs \`JSON.${op === 'encode' ? 'stringify' : 'parse'}\` (median of per-round ratios)`, 'rounds min – max', 'bytes'],
    r.codecRows.filter((c) => c.row.op === op).map(({ served, row }) => [
      served.object.id, row.timing.name, us(row.timing.ns), `${fmt(row.ratio, 2)}x`,
      `${us(row.timing.min)} – ${us(row.timing.max)}`, fmt(row.bytes),
    ]),
  );
  const getRows = r.gets.map((g) => [
    g.served.object.id, `${fmt(g.served.jsonBytes)} / ${fmt(g.served.protobufBytes)}`,
    `${fmt(g.json.opsPerSecond)} gets/s`, `${fmt(g.protobuf.opsPerSecond)} gets/s`, `${fmt((g.protobuf.opsPerSecond / g.json.opsPerSecond) * 100, 1)}%`,
    `${fmt(g.json.p50Ms, 2)} / ${fmt(g.json.p99Ms, 2)} ms`, `${fmt(g.protobuf.p50Ms, 2)} / ${fmt(g.protobuf.p99Ms, 2)} ms`,
  ]);
  const fanRows = r.fanouts.map((f) => [
    f.where, `${fmt(f.watchers)} x ${fmt(f.events)}`, `${fmt(f.delivered)} / ${fmt(f.watchers * f.events)}${f.ended > 0 ? ` (${f.ended} streams ended)` : ''}`,
    `${fmt(f.writes.rate, 1)}/s, ${fmt(f.writes.p50, 1)} / ${fmt(f.writes.p99, 1)} ms`, `${fmt(f.delivered / f.seconds)}/s`,
    `${fmt(f.fromAck.p50, 1)} / ${fmt(f.fromAck.p99, 1)} ms`, `${fmt(f.fromSent.p50, 1)} / ${fmt(f.fromSent.p99, 1)} / ${fmt(f.fromSent.max, 1)} ms`,
    f.serializations === undefined ? 'same encoder' : fmt(f.serializations, 3),
  ]);
  const objects = r.served.map((s) => `\`${s.object.id}\`: ${s.object.label}, ${fmt(s.jsonBytes)} bytes of JSON, ${fmt(s.protobufBytes)} of protobuf`);
  return [
    '### Part 5: media types',
    '',
    `Objects (created through the server with \`fieldManager=${FIELD_MANAGER}\`, read back at \`resourceVersion=0\`): ${objects.join('; ')}.`,
    '',
    `#### Encode and decode per object (in the bench process, server stopped; median of ${r.timing.rounds} rounds of ~${fmt(r.timing.batchMs)} ms per codec after ${r.timing.warmupMs} ms of warm-up, codecs rotating within each round)`,
    '',
    codecTable('encode'),
    '',
    codecTable('decode'),
    '',
    `#### GET of one object through the cache (\`resourceVersion=0\`), JSON vs \`Accept: ${PROTOBUF}\` (c=${CONCURRENCY}, keep-alive HTTPS, median of ${ROUNDS} rounds, alternating)`,
    '',
    table(['object', 'bytes JSON / protobuf', 'JSON', 'protobuf', 'protobuf / JSON', 'JSON p50 / p99', 'protobuf p50 / p99'], getRows),
    '',
    `#### Watch fan-out, protobuf (writes paced at up to ${FANOUT_RATE} events/s, one in flight, part 3's ConfigMaps; a protobuf frame is ${fmt(r.inProcess.objectBytes)} bytes)`,
    '',
    table(['where', 'watchers x events', 'delivered', 'events written (rate, write p50 / p99)', 'deliveries/s', 'write acked → received p50 / p99', 'write sent → received p50 / p99 / max', 'protobuf serializations per event'], fanRows),
    '',
    `In process, \`JSON.stringify\` of a ConfigMap ran ${fmt(r.inProcess.jsonSerializations, 3)} times per event (protobuf watchers need no JSON).`,
  ].join('\n');
}
