/**
 * The server's resident memory with N cached 1 KiB ConfigMaps (issue 20's memory target: at most 2.5x their
 * JSON): a server process on etcd (the cache's copy is the process's only one) or on the embedded store (which
 * keeps every value in the process as well), RSS (/proc/<pid>/status VmRSS) when started and idle, after
 * the creates (the cache holds each object undecoded), after one list from the cache (as a server that
 * serves lists runs: whatever a list keeps for the next one is counted), and after one protobuf list. Each figure is read
 * once the RSS has stopped moving for 70 s (V8's memory reducer gives back the pages a burst grew the heap by),
 * with the peak on the way.
 */
import { readFileSync } from 'node:fs';
import { benchClient } from '../http-client.js';
import { measure } from '../measure.js';
import { startServerProcess, type ServerMode } from '../server-process.js';
import { configMap, sleep } from './shared.js';

const NS = 'bench-rss';
/** RSS steady this long counts as settled: longer than V8's memory reducer takes to start (~50 s here). */
const QUIET_MS = 70_000;

export interface RssResult {
  readonly objects: number;
  /** Bytes of the objects' JSON as the server lists them (the list's items). */
  readonly jsonBytes: number;
  readonly idleRss: number;
  /** Settled after the creates (the memory reducer done), and the highest RSS seen on the way. */
  readonly afterCreates: { readonly settled: number; readonly peak: number };
  /** Settled after one list from the cache, and the highest RSS seen on the way. */
  readonly afterList: { readonly settled: number; readonly peak: number };
  /** Settled after one protobuf list from the cache (what client-go informers of built-in kinds ask for). */
  readonly afterProtobufList: { readonly settled: number; readonly peak: number };
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/**
 * The RSS once it has changed by less than 1% for `quietMs` (sampled every second, at most `maxMs`), and the
 * highest RSS seen meanwhile. V8 keeps the pages a burst of allocation grew its heap by until its memory
 * reducer runs, ~50 s after allocation slows down here: a window shorter than that reads the burst's peak.
 */
async function settledRss(pid: number, quietMs: number, maxMs = 240_000): Promise<{ settled: number; peak: number }> {
  const samples: number[] = [rssOf(pid)];
  for (let waited = 0; waited < maxMs; waited += 1000) {
    await sleep(1000);
    samples.push(rssOf(pid));
    const window = samples.slice(-Math.max(2, Math.round(quietMs / 1000) + 1));
    if (window.length * 1000 > quietMs && Math.max(...window) - Math.min(...window) < window[0]! * 0.01) break;
  }
  return { settled: samples[samples.length - 1]!, peak: Math.max(...samples) };
}

/** `etcdServers`: the server's `--etcd-servers` (its cache then holds the only copy in the process); default the embedded store. */
export async function rssBench(mode: ServerMode, objects: number, etcdServers?: string): Promise<RssResult> {
  const server = await startServerProcess({ mode, args: etcdServers === undefined ? [] : [`--etcd-servers=${etcdServers}`] });
  const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: 64 });
  try {
    const idleRss = (await settledRss(server.pid, 3000)).settled;
    await client.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })));
    const value = 'x'.repeat(1024);
    await measure(objects, 64, (i) => client.call('POST', `/api/v1/namespaces/${NS}/configmaps`, 201, configMap(`rss-${i}`, { value })));
    const afterCreates = await settledRss(server.pid, QUIET_MS);
    const listed = await client.call('GET', `/api/v1/namespaces/${NS}/configmaps?resourceVersion=0`, 200);
    const items = (JSON.parse(listed.body.toString('utf8')) as { items: unknown[] }).items;
    if (items.length !== objects) throw new Error(`the cache listed ${items.length} of ${objects}`);
    const jsonBytes = items.reduce<number>((sum, o) => sum + Buffer.byteLength(JSON.stringify(o)), 0);
    const afterList = await settledRss(server.pid, QUIET_MS);
    const pb = await client.call('GET', `/api/v1/namespaces/${NS}/configmaps?resourceVersion=0`, 200, undefined, { Accept: 'application/vnd.kubernetes.protobuf' });
    if (pb.body.length < objects * 1024) throw new Error(`the protobuf list has ${pb.body.length} bytes for ${objects} objects`);
    const afterProtobufList = await settledRss(server.pid, QUIET_MS);
    return { objects, jsonBytes, idleRss, afterCreates, afterList, afterProtobufList };
  } finally {
    client.close();
    await server.stop();
  }
}
