/**
 * Part `rss` (`--only=rss`, issue 20): the API server's resident memory with 100,000 cached 1 KiB ConfigMaps,
 * on etcd (the watch cache's copy is the only one in the process) and on the embedded store (which keeps every
 * value in the process too), against the objects' JSON (bench/cache/rss.ts).
 */
import { startEtcd } from '../test/harness/etcd.js';
import { rssBench, type RssResult } from './cache/rss.js';
import { fmt, table } from './measure.js';
import { buildServer, type ServerMode } from './server-process.js';

export async function benchRss(options: { readonly scale?: number; readonly server?: ServerMode }): Promise<string> {
  const mode = options.server ?? 'dist';
  const objects = Math.max(100, Math.round(100_000 * (options.scale ?? 1)));
  if (mode === 'dist') buildServer();
  const results: { backend: string; r: RssResult }[] = [];
  const etcd = await startEtcd();
  try {
    process.stderr.write(`bench: rss on etcd, ${objects} objects\n`);
    results.push({ backend: 'etcd', r: await rssBench(mode, objects, etcd.endpoints.join(',')) });
  } finally {
    await etcd.stop();
  }
  process.stderr.write(`bench: rss on the embedded store, ${objects} objects\n`);
  results.push({ backend: 'embedded', r: await rssBench(mode, objects) });
  const mib = (b: number): string => `${fmt(b / 2 ** 20, 1)} MiB`;
  const rows: string[][] = [];
  for (const { backend, r } of results) {
    const over = (b: number): string => `${mib(b - r.idleRss)} (${fmt((b - r.idleRss) / r.jsonBytes, 2)}x)`;
    rows.push([backend, mib(r.jsonBytes), mib(r.idleRss), over(r.afterCreates.settled), over(r.afterCreates.peak), over(r.afterList.settled), over(r.afterList.peak), over(r.afterProtobufList.settled), over(r.afterProtobufList.peak)]);
  }
  return [
    `### Part rss: server RSS with ${fmt(objects)} cached ConfigMaps x 1 KiB`,
    '',
    'A server process per backend (default flags); RSS from /proc once it stayed within 1% for 70 s (V8\'s memory reducer gives back what a burst grew the heap by ~50 s after it), and the peak on the way. "After the creates": the cache holds each object undecoded: on etcd as its served JSON (the stored bytes with the resourceVersion in, made as the value enters the cache), on the embedded store as the store\'s own bytes, shared with it; the garbage collector keeps a graph node per object and no copy. "After one list" (JSON, resourceVersion=0): on the embedded store each object\'s served JSON is kept beside the store\'s bytes from then on; on etcd the list adds nothing. "After a protobuf list" (after that, `resourceVersion=0`): each object\'s protobuf message is kept beside its JSON, the object itself stays undecoded. Ratios are RSS above the idle server over the objects\' JSON.',
    '',
    table(['backend', 'JSON of the objects', 'idle server', 'after the creates, settled', 'peak', 'after one list, settled', 'peak', 'after a protobuf list, settled', 'peak'], rows),
  ].join('\n');
}
