/**
 * Where the server's heap goes with N cached objects (docs/perf/README.md, "Memory per cached object"): a
 * server process (the build in dist/, default flags) on etcd or the embedded store, N 1 KiB ConfigMaps
 * created, then a V8 heap snapshot taken through `--heapsnapshot-signal` after the creates and again after
 * one list from the cache (every object decoded and its JSON memoized). Prints, per snapshot, the self size
 * summed by V8 node type and name (constructor, `system / JSArrayBufferData` for buffers' bytes, strings as
 * one row), largest first, next to the objects' JSON size.
 *
 *   node --import tsx bench/perf/heap-snapshot.ts --objects=20000 --store=etcd --top=25
 *
 * The per-object column divides each row by N: rows that do not grow with N (code, shapes) are the server's
 * own. A snapshot of a heap this size takes seconds and about as much memory again in this process; the
 * event ring still holds the recent creates' events (75 s), which the RSS bench (part `rss`) waits out.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { configMap, sleep } from '../cache/shared.js';
import { benchClient } from '../http-client.js';
import { fmt, measure, table } from '../measure.js';
import { buildServer, startServerProcess } from '../server-process.js';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Self size by "type name" (strings and numbers as one row each), largest first. */
function summarize(file: string, top: number): { total: number; rows: { key: string; count: number; bytes: number }[] } {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const sums = new Map<string, { count: number; bytes: number }>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + iType]!]!;
    // Strings and numbers are one row each; other nodes by type and name (a constructor, a system kind).
    const key = type.includes('string') ? 'string' : type === 'number' ? 'number' : `${type} ${snap.strings[snap.nodes[i + iName]!]!.slice(0, 60)}`.trim();
    const size = snap.nodes[i + iSize]!;
    total += size;
    const s = sums.get(key) ?? { count: 0, bytes: 0 };
    s.count++;
    s.bytes += size;
    sums.set(key, s);
  }
  const rows = [...sums].map(([key, s]) => ({ key, ...s })).sort((a, b) => b.bytes - a.bytes).slice(0, top);
  return { total, rows };
}

/** Sends the signal and waits for the new snapshot file to stop growing. */
async function takeSnapshot(pid: number, dir: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 120_000; waited += 500) {
    await sleep(500);
    const found = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (found === undefined) continue;
    const path = join(dir, found);
    const size = statSync(path).size;
    await sleep(1000);
    if (size > 0 && statSync(path).size === size) return path;
  }
  throw new Error('no heap snapshot within 120 s');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { objects: { type: 'string', default: '20000' }, store: { type: 'string', default: 'etcd' }, top: { type: 'string', default: '25' } },
  });
  const objects = Number(values.objects);
  const top = Number(values.top);
  if (values.store !== 'etcd' && values.store !== 'embedded') throw new Error(`--store: etcd or embedded, not ${values.store}`);
  buildServer();
  const dir = mkdtempSync(join(tmpdir(), 'heap-snapshot-'));
  let etcd: EtcdCluster | undefined;
  try {
    if (values.store === 'etcd') etcd = await startEtcd();
    const server = await startServerProcess({
      mode: 'dist',
      args: etcd === undefined ? [] : [`--etcd-servers=${etcd.endpoints.join(',')}`],
      nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`],
    });
    const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: 64 });
    try {
      await client.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'heap' } })));
      const value = 'x'.repeat(1024);
      await measure(objects, 64, (i) => client.call('POST', '/api/v1/namespaces/heap/configmaps', 201, configMap(`heap-${i}`, { value })));
      const afterCreates = await takeSnapshot(server.pid, dir);
      const listed = await client.call('GET', '/api/v1/namespaces/heap/configmaps?resourceVersion=0', 200);
      const items = (JSON.parse(listed.body.toString('utf8')) as { items: unknown[] }).items;
      const jsonBytes = items.reduce<number>((sum, o) => sum + Buffer.byteLength(JSON.stringify(o)), 0);
      const afterList = await takeSnapshot(server.pid, dir);
      const mib = (b: number): string => fmt(b / 2 ** 20, 1);
      const out = [`### Heap of the server (${values.store}) with ${fmt(objects)} cached ConfigMaps x 1 KiB (${mib(jsonBytes)} MiB of JSON)`];
      for (const [label, file] of [['after the creates', afterCreates], ['after one list from the cache', afterList]] as const) {
        const { total, rows } = summarize(file, top);
        out.push('', `${label}: ${mib(total)} MiB of self size in all`, '');
        out.push(table(['V8 type and name', 'count', 'MiB', 'bytes per cached object'], rows.map((r) => [`\`${r.key}\``, fmt(r.count), mib(r.bytes), fmt(r.bytes / objects)])));
      }
      process.stdout.write(`${out.join('\n')}\n`);
    } finally {
      client.close();
      await server.stop();
    }
  } finally {
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
