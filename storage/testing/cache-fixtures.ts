/**
 * What the watch cache's test files share (storage/cache/watch-cache-*.test.ts): a decoded object type with
 * a decode counter, a background reader of cache watchers, fault injection on a real store, and
 * `describeWatchCache`, which runs a file's cases once per backend — the embedded store and a real etcd
 * started by the harness (`STORE_BACKENDS=memory` or `etcd` narrows the list; under CI a missing etcd
 * fails the run). Every case works under its own key prefix and asserts only on revisions it produced.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyValue, Store, WatchBatch, WatchOptions } from '../interface.js';
import { StorageError } from '../errors.js';
import { openMemoryStore } from '../memory/memory-store.js';
import { openEtcdStore } from '../etcd/etcd-store.js';
import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { createWatchCache } from '../cache/watch-cache.js';
import type { CacheWatchEvent, CacheWatcher, WatchCache, WatchCacheMetrics, WatchCacheOptions } from '../cache/types.js';

export interface Obj {
  readonly name: string;
  readonly color: string;
  readonly n: number;
  readonly rv: number;
}

export const enc = (name: string, color = 'red', n = 0): Uint8Array => Buffer.from(JSON.stringify({ name, color, n }));
let decodes = 0;
/** How many objects `decode` has decoded so far (this process). */
export const decodeCount = (): number => decodes;
export const decode = (kv: KeyValue): Obj => {
  decodes++;
  const o = JSON.parse(Buffer.from(kv.value).toString('utf8')) as Omit<Obj, 'rv'>;
  return { ...o, rv: kv.modRevision };
};

/** Reads a cache watcher in the background so a case can await conditions on what arrived. */
export class Reader {
  readonly events: { ev: CacheWatchEvent<Obj>; at: number }[] = [];
  error: unknown;
  done = false;
  private wakers: (() => void)[] = [];
  readonly finished: Promise<void>;

  constructor(readonly watcher: CacheWatcher<Obj>) {
    this.finished = (async () => {
      try {
        for await (const ev of watcher) {
          this.events.push({ ev, at: Date.now() });
          this.wake();
        }
      } catch (err) {
        this.error = err;
      } finally {
        this.done = true;
        this.wake();
      }
    })();
  }

  get all(): CacheWatchEvent<Obj>[] {
    return this.events.map((e) => e.ev);
  }

  /** Non-bookmark events as `TYPE name@revision`. */
  get summary(): string[] {
    return this.all.flatMap((e) => (e.type === 'BOOKMARK' ? [] : [`${e.type} ${e.object.object.name}@${e.revision}`]));
  }

  async until(predicate: (r: Reader) => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (this.done) throw new Error(`watch ended before ${what}: ${String(this.error ?? 'no error')}; got ${JSON.stringify(this.summary)}`);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.summary)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.wakers.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until an event at revision >= `rev` arrived. */
  untilRevision(rev: number): Promise<void> {
    return this.until((r) => r.all.some((e) => e.type !== 'BOOKMARK' && e.revision >= rev), `revision ${rev}`);
  }

  async stop(): Promise<void> {
    this.watcher.close();
    await this.finished;
  }

  private wake(): void {
    const w = this.wakers;
    this.wakers = [];
    for (const f of w) f();
  }
}

export async function expectCode(p: Promise<unknown>, code: string): Promise<StorageError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  if (!(caught instanceof StorageError)) throw new Error(`expected StorageError ${code}, got ${caught === undefined ? 'success' : String(caught)}`);
  expect(caught.code).toBe(code);
  return caught;
}

/** A real store whose watches of one prefix fail once with `error` after `after` batches (fault injection). */
export function failingOnce(inner: Store, prefix: string, after: number, error: () => StorageError): Store & { readonly failures: number } {
  let failed = false;
  let failures = 0;
  const watch = (p: string, options?: WatchOptions): AsyncIterable<WatchBatch> => {
    const source = inner.watch(p, options);
    if (p !== prefix || failed) return source;
    return (async function* () {
      let n = 0;
      for await (const batch of source) {
        yield batch;
        if (++n >= after && !failed) {
          failed = true;
          failures++;
          throw error();
        }
      }
    })();
  };
  return {
    get: (k, o) => inner.get(k, o),
    list: (k, o) => inner.list(k, o),
    create: (k, v, o) => inner.create(k, v, o),
    update: (k, v, r, o) => inner.update(k, v, r, o),
    delete: (k, r) => inner.delete(k, r),
    txn: (c, o) => inner.txn(c, o),
    watch,
    currentRevision: () => inner.currentRevision(),
    compactedRevision: () => inner.compactedRevision(),
    compact: (r) => inner.compact(r),
    requestProgress: () => inner.requestProgress(),
    check: () => inner.check(),
    close: () => inner.close(),
    get failures() {
      return failures;
    },
  };
}

export type Backend = { store: Store; cluster?: EtcdCluster; cleanup(): Promise<void> };

const backends: Record<string, () => Promise<Backend>> = {
  memory: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'watch-cache-'));
    const store = await openMemoryStore({ dataDir: dir });
    return { store, cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    } };
  },
  etcd: async () => {
    const cluster = await startEtcd();
    const store = await openEtcdStore({ endpoints: cluster.endpoints });
    return { store, cluster, cleanup: async () => {
      await store.close();
      await cluster.stop();
    } };
  },
};

const selected = (process.env.STORE_BACKENDS ?? Object.keys(backends).join(',')).split(',');

export interface CacheHarness {
  /** `memory` or `etcd`. */
  readonly name: string;
  /** The backend's store and etcd cluster; set once the suite's beforeAll ran (use them inside cases). */
  readonly backend: Backend;
  readonly store: Store;
  /** A fresh key prefix for one case. */
  prefix(): string;
  /** A loaded cache over `over` (default the backend's store), stopped after the case. */
  cache(p: string, options?: Partial<WatchCacheOptions<Obj>>, over?: Store): Promise<WatchCache<Obj>>;
  /** Reads `w` in the background; stopped after the case. */
  read(w: CacheWatcher<Obj>): Reader;
  /** Creates or updates `key` with a value; returns the write's revision. */
  put(key: string, color?: string, n?: number): Promise<number>;
}

/** `describe(\`watch cache on <backend>: <topic>\`)` once per selected backend, with a fresh harness. */
export function describeWatchCache(topic: string, body: (h: CacheHarness) => void): void {
  for (const name of selected) {
    const open = backends[name];
    if (open === undefined) throw new Error(`unknown backend in STORE_BACKENDS: ${name}`);
    describe(`watch cache on ${name}: ${topic}`, () => {
      let backend: Backend;
      let store: Store;
      let caseNo = 0;
      const caches: WatchCache<Obj>[] = [];
      const readers: Reader[] = [];
      const prefix = (): string => `/cache/${Date.now().toString(36)}-${++caseNo}/`;
      const cache = async (p: string, options: Partial<WatchCacheOptions<Obj>> = {}, over: Store = store): Promise<WatchCache<Obj>> => {
        const c = createWatchCache<Obj>(over, p, { decode, ...options });
        caches.push(c);
        await c.ready();
        return c;
      };
      const read = (w: CacheWatcher<Obj>): Reader => {
        const r = new Reader(w);
        readers.push(r);
        return r;
      };
      const put = async (key: string, color = 'red', n = 0): Promise<number> => {
        const cur = await store.get(key);
        const name = key.slice(key.lastIndexOf('/') + 1);
        if (cur.kv === undefined) return (await store.create(key, enc(name, color, n))).revision;
        return (await store.update(key, enc(name, color, n), cur.kv.modRevision)).revision;
      };

      beforeAll(async () => {
        backend = await open();
        store = backend.store;
      });
      afterEach(async () => {
        await Promise.all(readers.splice(0).map((r) => r.stop()));
        for (const c of caches.splice(0)) c.stop();
      });
      afterAll(async () => {
        await backend?.cleanup();
      });
      body({
        name,
        get backend() {
          return backend;
        },
        get store() {
          return store;
        },
        prefix,
        cache,
        read,
        put,
      });
    });
  }
}

/** Metrics callbacks that record nothing (cases override the ones they watch). */
export function noMetrics(): WatchCacheMetrics {
  const nothing = (): void => undefined;
  return {
    watcherAdded: nothing,
    watcherRemoved: nothing,
    eventsDispatched: nothing,
    slowWatcherTerminated: nothing,
    cacheSize: nothing,
    freshnessWait: nothing,
  };
}
