/** The memory figure of bench part 3: heap per cached object against its JSON size, after GC. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { KubeObject } from '../../apiserver/api/object.js';
import { listJsonBuffer, shareEncodings } from '../../apiserver/codec/shared-json.js';
import { decodeObject, encodeObject } from '../../apiserver/registry/generic/object-codec.js';
import { createWatchCache } from '../../storage/cache/watch-cache.js';
import { openMemoryStore } from '../../storage/memory/memory-store.js';
import { measure } from '../measure.js';
import { LIST_NS, sleep } from './shared.js';

/** Heap per cached object: a cache over an embedded store holding `items` (as the server stores them). */
export async function memoryBench(items: readonly KubeObject[]): Promise<{ label: string; perObject: number; objects: number; jsonBytes: number }[]> {
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

