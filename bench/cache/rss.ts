/**
 * The server's resident memory with N cached 1 KiB ConfigMaps (issue 20's memory target: at most 2.5x their
 * JSON): a server process on etcd (the cache's copy is the process's only one) or on the embedded store (which
 * keeps every value in the process as well), RSS (/proc/<pid>/status VmRSS) when started and idle, after
 * the creates (the cache holds each object's stored bytes, decoded on first read), and after one list from the
 * cache (every object decoded and its JSON memoized, as a server that serves lists runs). Each figure is read
 * once the RSS has stopped moving for a second, so a garbage collection in progress settles first.
 */
import { readFileSync } from 'node:fs';
import { benchClient } from '../http-client.js';
import { measure } from '../measure.js';
import { startServerProcess, type ServerMode } from '../server-process.js';
import { configMap, sleep } from './shared.js';

const NS = 'bench-rss';

export interface RssResult {
  readonly objects: number;
  /** Bytes of the objects' JSON as the server lists them (the list's items). */
  readonly jsonBytes: number;
  readonly idleRss: number;
  readonly afterCreatesRss: number;
  readonly afterListRss: number;
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** The RSS once it changed by less than 1% over a second (at most 30 s). */
async function settledRss(pid: number): Promise<number> {
  let last = rssOf(pid);
  for (let i = 0; i < 30; i++) {
    await sleep(1000);
    const now = rssOf(pid);
    if (Math.abs(now - last) < last * 0.01) return now;
    last = now;
  }
  return last;
}

/** `etcdServers`: the server's `--etcd-servers` (its cache then holds the only copy in the process); default the embedded store. */
export async function rssBench(mode: ServerMode, objects: number, etcdServers?: string): Promise<RssResult> {
  const server = await startServerProcess({ mode, args: etcdServers === undefined ? [] : [`--etcd-servers=${etcdServers}`] });
  const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: 64 });
  try {
    const idleRss = await settledRss(server.pid);
    await client.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })));
    const value = 'x'.repeat(1024);
    await measure(objects, 64, (i) => client.call('POST', `/api/v1/namespaces/${NS}/configmaps`, 201, configMap(`rss-${i}`, { value })));
    const afterCreatesRss = await settledRss(server.pid);
    const listed = await client.call('GET', `/api/v1/namespaces/${NS}/configmaps?resourceVersion=0`, 200);
    const items = (JSON.parse(listed.body.toString('utf8')) as { items: unknown[] }).items;
    if (items.length !== objects) throw new Error(`the cache listed ${items.length} of ${objects}`);
    const jsonBytes = items.reduce<number>((sum, o) => sum + Buffer.byteLength(JSON.stringify(o)), 0);
    const afterListRss = await settledRss(server.pid);
    return { objects, jsonBytes, idleRss, afterCreatesRss, afterListRss };
  } finally {
    client.close();
    await server.stop();
  }
}
