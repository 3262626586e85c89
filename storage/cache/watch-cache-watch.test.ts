/**
 * Watches on the watch cache: where they start (ring, store catch-up, state, 410, waiting), filters and selector transitions, bookmarks; on both backends.
 */
import type { Store } from '../interface.js';
import { describeWatchCache, expectCode } from '../testing/cache-fixtures.js';

describeWatchCache('watches', (h) => {
  const { prefix, cache, read, put } = h;
  let store: Store;
  beforeAll(() => {
    store = h.store;
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
});
