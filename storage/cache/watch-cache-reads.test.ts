/**
 * The watch cache's state and reads, quiet prefixes and replicas, on both backends (storage/testing/cache-fixtures.ts).
 */
import type { Store } from '../interface.js';
import { describeWatchCache, enc, expectCode, noMetrics, type Backend, type Obj } from '../testing/cache-fixtures.js';
import { openEtcdStore } from '../etcd/etcd-store.js';

describeWatchCache('reads', (h) => {
  const { name, prefix, cache, read, put } = h;
  let store: Store;
  let backend: Backend;
  beforeAll(() => {
    store = h.store;
    backend = h.backend;
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

    test('peek: the object as held now, nothing for a key while behind this process\'s write of it, nothing once stopped', async () => {
      const p = prefix();
      const r1 = await put(`${p}a`, 'blue');
      const c = await cache(p);
      await c.waitUntilFresh(r1);
      expect(c.peek(`${p}a`)?.object).toMatchObject({ name: 'a', color: 'blue', rv: r1 });
      expect(c.peek(`${p}b`)).toBeUndefined();
      // A write of the key noted at a revision the cache has not reached: its copy is held back until it has.
      c.noteWrite(`${p}a`, c.revision + 1);
      expect(c.peek(`${p}a`)).toBeUndefined();
      const r2 = await put(`${p}a`, 'green');
      await c.waitUntilFresh(r2);
      expect(c.peek(`${p}a`)?.object).toMatchObject({ color: 'green', rv: r2 });
      // Only the key written is held back.
      const rb = await put(`${p}b`);
      await c.waitUntilFresh(rb);
      c.noteWrite(`${p}a`, rb + 1_000_000);
      expect(c.peek(`${p}a`)).toBeUndefined();
      expect(c.peek(`${p}b`)?.object).toMatchObject({ name: 'b', rv: rb });
      c.stop();
      expect(c.peek(`${p}a`)).toBeUndefined();
    });

    test('ownWrite: the value this process wrote while the cache is behind it, newest note wins, none for a delete or once caught up', async () => {
      const p = prefix();
      const r1 = await put(`${p}a`, 'blue');
      const c = await cache(p);
      await c.waitUntilFresh(r1);
      expect(c.ownWrite(`${p}a`)).toBeUndefined();
      const ahead = c.revision + 1_000;
      c.noteWrite(`${p}a`, ahead, enc('mine'));
      expect(c.ownWrite(`${p}a`)).toEqual({ value: enc('mine'), revision: ahead });
      // The reply to an earlier write arriving late does not replace the newer note.
      c.noteWrite(`${p}a`, ahead - 1, enc('older'));
      expect(c.ownWrite(`${p}a`)).toEqual({ value: enc('mine'), revision: ahead });
      // A delete's note holds the copy back and offers no value.
      c.noteWrite(`${p}b`, ahead);
      expect(c.ownWrite(`${p}b`)).toBeUndefined();
      expect(c.peek(`${p}b`)).toBeUndefined();
      // Once the cache has the key at the noted revision, the note goes and the cache answers.
      const p2 = prefix();
      const c2 = await cache(p2);
      const rNext = (await store.currentRevision()) + 1;
      c2.noteWrite(`${p2}k`, rNext, enc('k'));
      expect(c2.ownWrite(`${p2}k`)?.revision).toBe(rNext);
      const rk = await put(`${p2}k`, 'red');
      await c2.waitUntilFresh(rk);
      expect(c2.ownWrite(`${p2}k`)).toBeUndefined();
      expect(c2.peek(`${p2}k`)?.object).toMatchObject({ color: 'red', rv: rk });
      c.stop();
      expect(c.ownWrite(`${p}a`)).toBeUndefined();
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
});
