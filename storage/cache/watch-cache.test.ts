/**
 * The watch cache over both real backends: the embedded store and a real etcd started by the harness
 * (`STORE_BACKENDS=memory` or `etcd` narrows the list; under CI a missing etcd fails the run). Every case
 * works under its own key prefix and asserts only on revisions it produced itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyValue, Store, WatchBatch, WatchOptions } from '../interface.js';
import { StorageError, compacted, lagging, unavailable } from '../errors.js';
import { openMemoryStore } from '../memory/memory-store.js';
import { openEtcdStore } from '../etcd/etcd-store.js';
import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { createWatchCache } from './watch-cache.js';
import type { CacheWatchEvent, CacheWatcher, WatchCache, WatchCacheMetrics, WatchCacheOptions } from './types.js';

interface Obj {
  readonly name: string;
  readonly color: string;
  readonly n: number;
  readonly rv: number;
}

const enc = (name: string, color = 'red', n = 0): Uint8Array => Buffer.from(JSON.stringify({ name, color, n }));
let decodes = 0;
const decode = (kv: KeyValue): Obj => {
  decodes++;
  const o = JSON.parse(Buffer.from(kv.value).toString('utf8')) as Omit<Obj, 'rv'>;
  return { ...o, rv: kv.modRevision };
};

/** Reads a cache watcher in the background so a case can await conditions on what arrived. */
class Reader {
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

async function expectCode(p: Promise<unknown>, code: string): Promise<StorageError> {
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
function failingOnce(inner: Store, prefix: string, after: number, error: () => StorageError): Store & { readonly failures: number } {
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
    create: (k, v) => inner.create(k, v),
    update: (k, v, r) => inner.update(k, v, r),
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

type Backend = { store: Store; cluster?: EtcdCluster; cleanup(): Promise<void> };

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

for (const name of selected) {
  const open = backends[name];
  if (open === undefined) throw new Error(`unknown backend in STORE_BACKENDS: ${name}`);

  describe(`watch cache on ${name}`, () => {
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

    describe('state and reads', () => {
      test('loads the prefix with a list, then follows live events; list is in key order', async () => {
        const p = prefix();
        await put(`${p}b`);
        await put(`${p}a`);
        await store.create(`${p.slice(0, -1)}x/outside`, enc('outside')); // a sibling prefix is not ours
        const c = await cache(p);
        let l = await c.list({ keyPrefix: p, minRevision: 0 });
        expect(l.items.map((o) => o.object.name)).toEqual(['a', 'b']);
        const r3 = await put(`${p}c`);
        const r4 = (await store.delete(`${p}a`)).revision;
        await c.waitUntilFresh(r4);
        l = await c.list({ keyPrefix: p, minRevision: r4 });
        expect(l.items.map((o) => `${o.object.name}@${o.revision}`)).toEqual([`b@${l.items[0]!.revision}`, `c@${r3}`]);
        expect(l.revision).toBeGreaterThanOrEqual(r4);
        const got = await c.get(`${p}c`, r3);
        expect(got.object?.object).toEqual({ name: 'c', color: 'red', n: 0, rv: r3 });
        expect((await c.get(`${p}a`, r4)).object).toBeUndefined();
      });

      test('a consistent read (minRevision = the store current revision) sees a write made just before', async () => {
        const p = prefix();
        const c = await cache(p);
        const r = await put(`${p}a`, 'blue');
        const l = await c.list({ keyPrefix: p, minRevision: await store.currentRevision() });
        expect(l.items.map((o) => o.object.color)).toEqual(['blue']);
        expect(l.revision).toBeGreaterThanOrEqual(r);
      });

      test('list filters by namespace prefix, exact key and selector', async () => {
        const p = prefix();
        await put(`${p}ns1/x`, 'red');
        await put(`${p}ns1/y`, 'blue');
        await put(`${p}ns10/z`, 'red');
        await put(`${p}ns2/w`, 'red');
        const c = await cache(p);
        const names = async (f: { keyPrefix: string; key?: string; matches?: (o: Obj) => boolean }): Promise<string[]> =>
          (await c.list({ ...f, minRevision: 0 })).items.map((o) => o.object.name);
        expect(await names({ keyPrefix: `${p}ns1/` })).toEqual(['x', 'y']);
        expect(await names({ keyPrefix: p, matches: (o) => o.color === 'red' })).toEqual(['x', 'z', 'w']);
        expect(await names({ keyPrefix: `${p}ns1/`, key: `${p}ns1/y` })).toEqual(['y']);
        expect(await names({ keyPrefix: `${p}ns2/`, key: `${p}ns1/y` })).toEqual([]);
      });

      test('waitUntilFresh resolves once the cache reaches the revision; beyond it, FutureRevision after the timeout', async () => {
        const p = prefix();
        const c = await cache(p, { freshnessTimeoutMs: 300 });
        const target = (await store.currentRevision()) + 1;
        const waiting = c.waitUntilFresh(target);
        await put(`${p}a`);
        await waiting;
        expect(c.revision).toBeGreaterThanOrEqual(target);

        const far = c.revision + 1_000_000;
        const err = await expectCode(c.waitUntilFresh(far), 'FutureRevision');
        expect(err.requestedRevision).toBe(far);
        expect(err.currentRevision).toBeGreaterThanOrEqual(target);
        await expectCode(c.list({ keyPrefix: p, minRevision: far }), 'FutureRevision');
        await expectCode(c.get(`${p}a`, far), 'FutureRevision');
      });

      test('a quiet prefix catches up with writes elsewhere through progress, well within the freshness timeout', async () => {
        const p = prefix();
        const observed: string[] = [];
        const metrics = { ...noMetrics(), freshnessWait: (_r: string, _s: number, outcome: string) => void observed.push(outcome) };
        // Idle progress off: only the freshness wait's own progress requests can move the revision.
        const c = await cache(p, { freshnessTimeoutMs: 20_000, idleProgressMs: 3_600_000, metrics });
        const before = c.revision;
        const other = prefix();
        for (let i = 0; i < 5; i++) await put(`${other}k${i}`);
        const current = await store.currentRevision();
        expect(current).toBeGreaterThan(before);
        const l = await c.list({ keyPrefix: p, minRevision: current });
        expect(l.revision).toBeGreaterThanOrEqual(current);
        expect(l.items).toEqual([]);
        expect(observed).toEqual(['fresh']);
      });
    });

    describe('watch starts', () => {
      test('resume from the ring at an exact revision: every later event once, in order, then live', async () => {
        const p = prefix();
        const c = await cache(p);
        const revs: number[] = [];
        for (const n of ['a', 'b', 'c', 'd']) revs.push(await put(`${p}${n}`));
        revs.push(await put(`${p}a`, 'blue'));
        await c.waitUntilFresh(revs[4]!);
        const r = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: revs[1]! } }));
        await r.watcher.started;
        const r6 = (await store.delete(`${p}b`)).revision;
        await r.untilRevision(r6);
        expect(r.summary).toEqual([`ADDED c@${revs[2]}`, `ADDED d@${revs[3]}`, `MODIFIED a@${revs[4]}`, `DELETED b@${r6}`]);
        const deleted = r.all[3]!;
        expect(deleted.type === 'DELETED' && deleted.object.revision).toBe(r6);
      });

      test('resume older than the ring but not compacted is served by the store, then the ring and live', async () => {
        const p = prefix();
        const c = await cache(p, { historyMinEvents: 1, historyMaxEvents: 3 });
        const revs: number[] = [];
        for (let i = 0; i < 10; i++) revs.push(await put(`${p}k${i}`, 'red', i));
        await c.waitUntilFresh(revs[9]!);
        const r = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: revs[0]! } }));
        await r.watcher.started;
        // Writes while the watcher catches up, then after.
        const more: number[] = [];
        for (let i = 10; i < 15; i++) more.push(await put(`${p}k${i}`, 'red', i));
        await r.untilRevision(more[4]!);
        expect(r.summary).toEqual([...revs.slice(1), ...more].map((rev, i) => `ADDED k${i + 1}@${rev}`));
      });

      test('a start at a compacted revision is 410 even while the ring still holds it; at the compacted revision it works', async () => {
        const p = prefix();
        const c = await cache(p);
        const r1 = await put(`${p}a`);
        const r2 = await put(`${p}b`);
        const r3 = await put(`${p}c`);
        await c.waitUntilFresh(r3);
        await store.compact(r2);
        const w = c.watch({ keyPrefix: p, start: { kind: 'from', revision: r1 } });
        const err = await expectCode(w.started, 'Compacted');
        expect(err.message).toMatch(new RegExp(`^too old resource version: ${r1} \\(\\d+\\)$`));
        expect(err.compactedRevision).toBeGreaterThanOrEqual(r2);
        await expectCode(w[Symbol.asyncIterator]().next(), 'Compacted');

        const ok = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: r2 } }));
        await ok.watcher.started;
        await ok.untilRevision(r3);
        expect(ok.summary).toEqual([`ADDED c@${r3}`]);
      });

      test('state start: one ADDED per object, the initial-events-end bookmark, then live events', async () => {
        const p = prefix();
        await put(`${p}b`);
        await put(`${p}a`);
        const c = await cache(p);
        const at = await store.currentRevision();
        const r = read(c.watch({ keyPrefix: p, start: { kind: 'state', revision: at }, initialEventsEndBookmark: true }));
        await r.watcher.started;
        const r3 = await put(`${p}a`, 'blue');
        await r.untilRevision(r3);
        const all = r.all;
        expect(all.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'BOOKMARK', 'MODIFIED']);
        expect(all.slice(0, 2).map((e) => (e.type === 'BOOKMARK' ? '' : e.object.object.name))).toEqual(['a', 'b']);
        const bookmark = all[2]!;
        expect(bookmark).toEqual({ type: 'BOOKMARK', revision: expect.any(Number), initialEventsEnd: true });
        expect(bookmark.revision).toBeGreaterThanOrEqual(at);
        expect(bookmark.revision).toBeLessThan(r3);
        // Without the option: no bookmark.
        const plain = read(c.watch({ keyPrefix: p, start: { kind: 'state', revision: 0 } }));
        await plain.until((x) => x.all.length === 2, 'two ADDED');
        const r4 = await put(`${p}c`);
        await plain.untilRevision(r4);
        expect(plain.all.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED']);
      });

      test('a start beyond the cache waits for it; too far is FutureRevision', async () => {
        const p = prefix();
        const c = await cache(p, { freshnessTimeoutMs: 300 });
        const next = (await store.currentRevision()) + 1;
        const r = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: next } }));
        const r1 = await put(`${p}a`);
        const r2 = await put(`${p}b`);
        await r.untilRevision(r2);
        expect(r.summary).toEqual(r1 === next ? [`ADDED b@${r2}`] : [`ADDED a@${r1}`, `ADDED b@${r2}`]);
        const far = c.watch({ keyPrefix: p, start: { kind: 'from', revision: r2 + 1_000_000 } });
        await expectCode(far.started, 'FutureRevision');
      });
    });

    describe('filters', () => {
      test('selector transitions: stops matching is DELETED with the new state, starts matching is ADDED', async () => {
        const p = prefix();
        const r0 = await put(`${p}0red`, 'red');
        await put(`${p}0blue`, 'blue');
        const c = await cache(p);
        const r = read(c.watch({ keyPrefix: p, start: { kind: 'state', revision: 0 }, matches: (o) => o.color === 'red' }));
        await r.watcher.started;
        const ra = await put(`${p}a`, 'red');
        const rb = await put(`${p}a`, 'blue');
        await put(`${p}a`, 'blue', 1); // neither: nothing
        await put(`${p}x`, 'blue'); // never matches
        const rc = await put(`${p}a`, 'red');
        const rd = await put(`${p}a`, 'red', 2);
        const re = (await store.delete(`${p}a`)).revision;
        const rz = await put(`${p}z`, 'red');
        await r.untilRevision(rz);
        expect(r.summary).toEqual([`ADDED 0red@${r0}`, `ADDED a@${ra}`, `DELETED a@${rb}`, `ADDED a@${rc}`, `MODIFIED a@${rd}`, `DELETED a@${re}`, `ADDED z@${rz}`]);
        const gone = r.all[2]!;
        expect(gone.type === 'DELETED' && gone.object.object.color).toBe('blue');
      });

      test('an exact-key watcher sees only its key; a namespace watcher only its namespace', async () => {
        const p = prefix();
        const c = await cache(p);
        const one = read(c.watch({ keyPrefix: `${p}ns1/`, key: `${p}ns1/a`, start: { kind: 'state', revision: 0 } }));
        const ns = read(c.watch({ keyPrefix: `${p}ns1/`, start: { kind: 'state', revision: 0 } }));
        const odd = read(c.watch({ keyPrefix: `${p}ns1/a`, start: { kind: 'state', revision: 0 } })); // not a "/" prefix
        await Promise.all([one, ns, odd].map((x) => x.watcher.started));
        const r1 = await put(`${p}ns1/a`);
        const r2 = await put(`${p}ns1/b`);
        await put(`${p}ns10/a`);
        await put(`${p}ns2/a`);
        const r5 = await put(`${p}ns1/ab`);
        const r6 = await put(`${p}ns1/a`, 'blue');
        await Promise.all([one, ns, odd].map((x) => x.untilRevision(r6)));
        expect(one.summary).toEqual([`ADDED a@${r1}`, `MODIFIED a@${r6}`]);
        expect(ns.summary).toEqual([`ADDED a@${r1}`, `ADDED b@${r2}`, `ADDED ab@${r5}`, `MODIFIED a@${r6}`]);
        expect(odd.summary).toEqual([`ADDED a@${r1}`, `ADDED ab@${r5}`, `MODIFIED a@${r6}`]);
      });
    });

    describe('bookmarks', () => {
      test('periodic bookmarks come in order with the events; one arrives ~2 s before the deadline', async () => {
        const p = prefix();
        const c = await cache(p, { tickMs: 20, bookmarkIntervalMs: 60 });
        const r = read(c.watch({ keyPrefix: p, start: { kind: 'state', revision: 0 }, bookmarks: true }));
        await r.watcher.started;
        let last = 0;
        for (let i = 0; i < 10; i++) {
          last = await put(`${p}k${i % 3}`, 'red', i);
          await r.until((x) => x.all.filter((e) => e.type === 'BOOKMARK' && e.revision >= last).length > 0, `a bookmark at ${last}`);
        }
        // In order: a bookmark never claims a revision whose event comes after it, nor goes back.
        let seen = 0;
        for (const e of r.all) {
          expect(e.revision).toBeGreaterThanOrEqual(seen);
          if (e.type !== 'BOOKMARK') expect(e.revision).toBeGreaterThan(seen);
          seen = e.revision;
        }
        expect(r.summary).toHaveLength(10);

        const q = prefix();
        const quiet = await cache(q, { tickMs: 20 }); // default interval (60 s): only the pre-deadline one
        const deadline = Date.now() + 2_600;
        const d = read(quiet.watch({ keyPrefix: q, start: { kind: 'state', revision: 0 }, bookmarks: true, deadline }));
        await d.until((x) => x.all.some((e) => e.type === 'BOOKMARK'), 'the pre-deadline bookmark', 5_000);
        const at = d.events.find((e) => e.ev.type === 'BOOKMARK')!.at;
        expect(at).toBeLessThan(deadline);
        expect(at).toBeGreaterThanOrEqual(deadline - 2_000 - 5);
        // Without `bookmarks` none come.
        const none = read(c.watch({ keyPrefix: p, start: { kind: 'state', revision: 0 } }));
        const rz = await put(`${p}z`);
        await none.untilRevision(rz);
        await new Promise((res) => setTimeout(res, 150)); // > 2 bookmark periods of the cache
        expect(none.all.some((e) => e.type === 'BOOKMARK')).toBe(false);
      });
    });

    describe('quiet resources and replicas', () => {
      test('a quiet prefix keeps advancing through idle progress, so a watch resumes from its last bookmark after compaction', async () => {
        const p = prefix();
        const c = await cache(p, { tickMs: 20, idleProgressMs: 100, bookmarkIntervalMs: 50 });
        const r = read(c.watch({ keyPrefix: p, start: { kind: 'state', revision: 0 }, bookmarks: true }));
        await r.watcher.started;
        const other = prefix();
        for (let i = 0; i < 3; i++) await put(`${other}k${i}`);
        const current = await store.currentRevision();
        await r.until((x) => x.all.some((e) => e.type === 'BOOKMARK' && e.revision >= current), `a bookmark at ${current}`);
        const resumeAt = r.all.filter((e) => e.type === 'BOOKMARK').at(-1)!.revision;
        await store.compact(current);
        const resumed = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: resumeAt } }));
        await resumed.watcher.started;
        const rz = await put(`${p}z`);
        await resumed.untilRevision(rz);
        expect(resumed.summary).toEqual([`ADDED z@${rz}`]);
      });

      test('two replicas: a write is visible to a consistent read on the other at once; list at R on one, watch from R on the other', async () => {
        const second = name === 'etcd' ? await openEtcdStore({ endpoints: backend.cluster!.endpoints }) : store;
        try {
          const p = prefix();
          const a = await cache(p);
          const b = await cache(p, {}, second);
          const r1 = await put(`${p}a`);
          const onB = await b.list({ keyPrefix: p, minRevision: await second.currentRevision() });
          expect(onB.items.map((o) => `${o.object.name}@${o.revision}`)).toEqual([`a@${r1}`]);

          const listed = await a.list({ keyPrefix: p, minRevision: await store.currentRevision() });
          const writes = Promise.all([put(`${p}b`), put(`${p}c`), put(`${p}d`)]);
          const w = read(b.watch({ keyPrefix: p, start: { kind: 'from', revision: listed.revision } }));
          const revs = (await writes).sort((x, y) => x - y);
          await w.untilRevision(revs[2]!);
          expect(w.all.filter((e) => e.type !== 'BOOKMARK').map((e) => e.revision)).toEqual(revs);
        } finally {
          if (second !== store) await second.close();
        }
      });
    });

    describe('fan-out and slow watchers', () => {
      test('hundreds of watchers get the same CachedObject instance per event; lists hand out the same instances; one decode per event', async () => {
        const p = prefix();
        const c = await cache(p);
        const from = c.revision;
        const rs = Array.from({ length: 300 }, (_, i) =>
          read(c.watch({ keyPrefix: i % 2 === 0 ? p : `${p}ns/`, start: { kind: 'from', revision: from }, ...(i % 3 === 0 ? { matches: () => true } : {}) })),
        );
        await Promise.all(rs.map((x) => x.watcher.started));
        const before = decodes;
        let last = 0;
        for (let i = 0; i < 5; i++) last = await put(`${p}ns/k${i % 2}`, 'red', i);
        await Promise.all(rs.map((x) => x.untilRevision(last)));
        expect(decodes - before).toBe(5);
        const first = rs[0]!.all;
        expect(first).toHaveLength(5);
        for (const x of rs) {
          expect(x.all).toHaveLength(5);
          x.all.forEach((e, i) => {
            const f = first[i]!;
            expect(e.type !== 'BOOKMARK' && f.type !== 'BOOKMARK' && e.object === f.object).toBe(true);
          });
        }
        const l = await c.list({ keyPrefix: p, minRevision: last });
        const lastEvent = first[4]!;
        expect(l.items.some((o) => lastEvent.type !== 'BOOKMARK' && o === lastEvent.object)).toBe(true);
        const again = await c.list({ keyPrefix: p, minRevision: 0 });
        again.items.forEach((o, i) => expect(o).toBe(l.items[i]));
      });

      test('a slow watcher is ended with Lagging while a fast one and the writer go on', async () => {
        const p = prefix();
        const slowCount: string[] = [];
        const added: string[] = [];
        const removed: string[] = [];
        const metrics: WatchCacheMetrics = {
          ...noMetrics(),
          slowWatcherTerminated: (r) => void slowCount.push(r),
          watcherAdded: (r) => void added.push(r),
          watcherRemoved: (r) => void removed.push(r),
        };
        const c = await cache(p, { watcherQueueEvents: 10, resource: 'things', metrics });
        const slow = c.watch({ keyPrefix: p, start: { kind: 'from', revision: c.revision } });
        await slow.started;
        const fast = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: c.revision } }));
        await fast.watcher.started;
        let last = 0;
        for (let i = 0; i < 60; i++) last = await put(`${p}k${i}`);
        await fast.untilRevision(last);
        expect(fast.summary).toHaveLength(60);
        expect(slowCount).toEqual(['things']);
        const it = slow[Symbol.asyncIterator]();
        await expectCode(it.next(), 'Lagging');
        expect(await it.next()).toEqual({ value: undefined, done: true });
        expect(added).toEqual(['things', 'things']);
        expect(removed).toEqual(['things']);
      });

      test('a watcher over its queue limit for longer than its time budget is ended, below twice the limit too', async () => {
        const p = prefix();
        let terminated!: () => void;
        const ended = new Promise<void>((resolve) => (terminated = resolve));
        const c = await cache(p, { watcherQueueEvents: 10, metrics: { ...noMetrics(), slowWatcherTerminated: () => terminated() } });
        const slow = c.watch({ keyPrefix: p, start: { kind: 'from', revision: c.revision } });
        await slow.started;
        const startedAt = Date.now();
        for (let i = 0; i < 15; i++) await put(`${p}k${i}`);
        await ended;
        expect(Date.now() - startedAt).toBeGreaterThanOrEqual(90); // the budget (100 ms), not the hard cap
        await expectCode(slow[Symbol.asyncIterator]().next(), 'Lagging');
      });

      test('one transaction larger than the queue limit does not end a watcher that keeps up', async () => {
        const p = prefix();
        const c = await cache(p, { watcherQueueEvents: 5 });
        const r = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: c.revision } }));
        await r.watcher.started;
        const ops = Array.from({ length: 12 }, (_, i) => ({ type: 'put' as const, key: `${p}k${String(i).padStart(2, '0')}`, value: enc(`k${i}`) }));
        const { revision } = await store.txn([], ops);
        await r.until((x) => x.summary.length === 12, 'the 12 events of the transaction');
        expect(r.summary).toEqual(ops.map((_, i) => `ADDED k${i}@${revision}`));
        expect(r.done).toBe(false);
      });
    });

    describe('life cycle and store trouble', () => {
      test('stop ends every watcher and pending wait; later watches end at once', async () => {
        const p = prefix();
        const c = await cache(p);
        const r = read(c.watch({ keyPrefix: p, start: { kind: 'state', revision: 0 } }));
        await r.watcher.started;
        const waiting = c.waitUntilFresh(c.revision + 1_000_000);
        c.stop();
        await r.finished;
        expect(r.error).toBeUndefined();
        await expectCode(waiting, 'Unavailable');
        const after = read(c.watch({ keyPrefix: p, start: { kind: 'state', revision: 0 } }));
        await after.finished;
        expect(after.all).toEqual([]);
      });

      test('a cache that cannot load answers reads with Unavailable after the timeout, and recovers nothing from a closed store', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'watch-cache-closed-'));
        const closed = await openMemoryStore({ dataDir: dir });
        await closed.close();
        const c = createWatchCache<Obj>(closed, '/x/', { decode, freshnessTimeoutMs: 200 });
        caches.push(c);
        const err = await expectCode(c.list({ keyPrefix: '/x/', minRevision: 0 }), 'Unavailable');
        expect(err.message).toMatch(/not loaded/);
        await expectCode(c.watch({ keyPrefix: '/x/', start: { kind: 'state', revision: 0 } }).started, 'Unavailable');
        rmSync(dir, { recursive: true, force: true });
      });

      test('a selector that throws ends its own watcher only', async () => {
        const p = prefix();
        const c = await cache(p);
        const bad = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: c.revision }, matches: (o) => {
          if (o.name === 'boom') throw new Error('selector bug');
          return true;
        } }));
        const good = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: c.revision } }));
        await Promise.all([bad.watcher.started, good.watcher.started]);
        const r1 = await put(`${p}a`);
        const r2 = await put(`${p}boom`);
        const r3 = await put(`${p}c`);
        await good.untilRevision(r3);
        await bad.finished;
        expect(good.summary).toEqual([`ADDED a@${r1}`, `ADDED boom@${r2}`, `ADDED c@${r3}`]);
        expect(bad.error).toMatchObject({ code: 'Unavailable' });
      });

      test('the store watch failing with Lagging or a transient error is resumed without gap or repeat', async () => {
        for (const error of [() => lagging(), () => unavailable('injected')]) {
          const p = prefix();
          const flaky = failingOnce(store, p, 3, error);
          const c = await cache(p, {}, flaky);
          const r = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: c.revision } }));
          await r.watcher.started;
          const revs: number[] = [];
          for (let i = 0; i < 10; i++) revs.push(await put(`${p}k${i}`));
          await r.untilRevision(revs[9]!);
          expect(flaky.failures).toBe(1);
          expect(r.summary).toEqual(revs.map((rev, i) => `ADDED k${i}@${rev}`));
          expect((await c.list({ keyPrefix: p, minRevision: revs[9]! })).items).toHaveLength(10);
        }
      });

      test('a compacted store watch makes the cache re-list: live watchers end with Compacted, new ones work', async () => {
        const p = prefix();
        const flaky = failingOnce(store, p, 2, () => compacted(1, 7));
        const c = await cache(p, {}, flaky);
        const r = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: c.revision } }));
        await r.watcher.started;
        const r1 = await put(`${p}a`);
        await put(`${p}b`);
        await r.until((x) => x.done, 'the end of the watch');
        expect(r.error).toMatchObject({ code: 'Compacted', compactedRevision: 7 });
        expect((r.error as StorageError).requestedRevision).toBeGreaterThanOrEqual(r1);
        expect(r.summary).toEqual(expect.arrayContaining([`ADDED a@${r1}`]));
        const r3 = await put(`${p}c`);
        const l = await c.list({ keyPrefix: p, minRevision: r3 });
        expect(l.items.map((o) => o.object.name)).toEqual(['a', 'b', 'c']);
        const again = read(c.watch({ keyPrefix: p, start: { kind: 'state', revision: r3 } }));
        const r4 = await put(`${p}d`);
        await again.untilRevision(r4);
        expect(again.summary.map((s) => s.split('@')[0])).toEqual(['ADDED a', 'ADDED b', 'ADDED c', 'ADDED d']);
      });

      if (name === 'etcd') {
        test('an etcd restart under a running cache loses and repeats nothing', async () => {
          const p = prefix();
          const c = await cache(p);
          const r = read(c.watch({ keyPrefix: p, start: { kind: 'from', revision: c.revision } }));
          await r.watcher.started;
          const revs: number[] = [];
          for (let i = 0; i < 5; i++) revs.push(await put(`${p}k${i}`));
          const member = backend.cluster!.members[0]!;
          await member.stop();
          await member.start();
          for (let i = 5; i < 10; i++) revs.push(await put(`${p}k${i}`));
          await r.untilRevision(revs[9]!);
          expect(r.summary).toEqual(revs.map((rev, i) => `ADDED k${i}@${rev}`));
          const l = await c.list({ keyPrefix: p, minRevision: await store.currentRevision() });
          expect(l.items).toHaveLength(10);
        });
      }
    });
  });
}

function noMetrics(): WatchCacheMetrics {
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
