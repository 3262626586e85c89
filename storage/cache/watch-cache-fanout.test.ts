/**
 * The watch cache under load and trouble: fan-out of shared objects, slow watchers, stop, store failures and re-lists, an etcd restart; on both backends.
 */
import type { Store } from '../interface.js';
import { decode, decodeCount, describeWatchCache, enc, expectCode, failingOnce, noMetrics, type Backend, type Obj } from '../testing/cache-fixtures.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StorageError, compacted, lagging, unavailable } from '../errors.js';
import { openMemoryStore } from '../memory/memory-store.js';
import { createWatchCache } from './watch-cache.js';
import type { WatchCacheMetrics } from './types.js';

describeWatchCache('fan-out and failures', (h) => {
  const { name, prefix, cache, read, put } = h;
  let store: Store;
  let backend: Backend;
  beforeAll(() => {
    store = h.store;
    backend = h.backend;
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
      const before = decodeCount();
      let last = 0;
      for (let i = 0; i < 5; i++) last = await put(`${p}ns/k${i % 2}`, 'red', i);
      await Promise.all(rs.map((x) => x.untilRevision(last)));
      expect(decodeCount() - before).toBe(5);
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
      try {
        const err = await expectCode(c.list({ keyPrefix: '/x/', minRevision: 0 }), 'Unavailable');
        expect(err.message).toMatch(/not loaded/);
        await expectCode(c.watch({ keyPrefix: '/x/', start: { kind: 'state', revision: 0 } }).started, 'Unavailable');
      } finally {
        c.stop();
        rmSync(dir, { recursive: true, force: true });
      }
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
