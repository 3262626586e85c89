import { type SuiteContext, enc, dec, watchFrom, summary } from '../helpers.js';

export function defineWatchCases(ctx: SuiteContext): void {
  describe('watch', () => {
    test('put events carry the new value and the previous one', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const w = watchFrom(s, p);
      try {
        // A watch from "now" may attach after this call returns: anchor on the first event's revision.
        const r1 = (await s.create(`${p}a`, enc('v1'))).revision;
        const r2 = (await s.update(`${p}a`, enc('v2'), r1)).revision;
        await w.until((r) => r.events.some((e) => e.kv.modRevision === r2), undefined, 'the update');
        const update = w.events.find((e) => e.kv.modRevision === r2)!;
        expect(update.type).toBe('put');
        expect(dec(update.kv.value)).toBe('v2');
        expect(update.kv.createRevision).toBe(r1);
        expect(dec(update.prev?.value)).toBe('v1');
        expect(update.prev?.modRevision).toBe(r1);
      } finally {
        await w.stop();
      }
    });

    test('a create has no previous value; a delete carries the previous value', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const start = (await s.currentRevision()) + 1;
      const w = watchFrom(s, p, start);
      try {
        const r1 = (await s.create(`${p}a`, enc('v1'))).revision;
        const r2 = (await s.delete(`${p}a`)).revision;
        await w.untilEvents(2);
        const [created, deleted] = w.events;
        expect(created!.type).toBe('put');
        expect(created!.prev).toBeUndefined();
        expect(created!.kv.modRevision).toBe(r1);
        expect(deleted!.type).toBe('delete');
        expect(deleted!.kv.key).toBe(`${p}a`);
        expect(deleted!.kv.modRevision).toBe(r2);
        expect(dec(deleted!.prev?.value)).toBe('v1');
        expect(deleted!.prev?.modRevision).toBe(r1);
      } finally {
        await w.stop();
      }
    });

    test('a watch from an old revision replays history in revision order', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const revs: number[] = [];
      revs.push((await s.create(`${p}b`, enc('1'))).revision);
      revs.push((await s.create(`${p}a`, enc('2'))).revision);
      revs.push((await s.update(`${p}b`, enc('3'), revs[0]!)).revision);
      revs.push((await s.delete(`${p}a`)).revision);
      const w = watchFrom(s, p, revs[1]);
      try {
        await w.untilEvents(3);
        expect(w.events.map(summary)).toEqual([
          `put ${p}a@${revs[1]}`,
          `put ${p}b@${revs[2]}`,
          `delete ${p}a@${revs[3]}`,
        ]);
      } finally {
        await w.stop();
      }
    });

    test('events of one txn arrive in one batch; batches are in revision order', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const start = (await s.currentRevision()) + 1;
      const w = watchFrom(s, p, start);
      try {
        const t = await s.txn([], [
          { type: 'put', key: `${p}x`, value: enc('1') },
          { type: 'put', key: `${p}y`, value: enc('2') },
        ]);
        const after = (await s.create(`${p}z`, enc('3'))).revision;
        await w.untilEvents(3);
        const txnBatch = w.batches.find((b) => b.events.some((e) => e.kv.modRevision === t.revision))!;
        expect(txnBatch.events.filter((e) => e.kv.modRevision === t.revision)).toHaveLength(2);
        expect(txnBatch.revision).toBeGreaterThanOrEqual(t.revision);
        const revisions = w.events.map((e) => e.kv.modRevision);
        expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
        expect(revisions.at(-1)).toBe(after);
      } finally {
        await w.stop();
      }
    });

    test('a watch sees only its prefix', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const start = (await s.currentRevision()) + 1;
      const w = watchFrom(s, `${p}in/`, start);
      try {
        await s.create(`${p}out/a`, enc('x'));
        await s.create(`${p}inside`, enc('x'));
        const r = (await s.create(`${p}in/a`, enc('x'))).revision;
        await w.untilEvents(1);
        await s.create(`${p}in/b`, enc('x'));
        await w.untilEvents(2);
        expect(w.events.map((e) => e.kv.key)).toEqual([`${p}in/a`, `${p}in/b`]);
        expect(w.events[0]!.kv.modRevision).toBe(r);
      } finally {
        await w.stop();
      }
    });

    test('a watch without a start revision sees only later writes', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      await s.create(`${p}before`, enc('x'));
      const w = watchFrom(s, p);
      try {
        // Keep writing until the watch reports one; everything it reports must be after `before`.
        let i = 0;
        while (w.events.length === 0) {
          await s.create(`${p}after-${i++}`, enc('x'));
          await w.until((r) => r.events.length > 0, 200).catch(() => undefined);
        }
        expect(w.events.every((e) => e.kv.key !== `${p}before`)).toBe(true);
      } finally {
        await w.stop();
      }
    });

    test('a watch from a future revision starts delivering at that revision', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const current = await s.currentRevision();
      const w = watchFrom(s, p, current + 3);
      try {
        const revs: number[] = [];
        for (let i = 0; i < 4; i++) revs.push((await s.create(`${p}${i}`, enc('x'))).revision);
        await w.until((r) => r.events.some((e) => e.kv.modRevision === revs[3]), undefined, 'the last write');
        expect(w.events.every((e) => e.kv.modRevision >= current + 3)).toBe(true);
      } finally {
        await w.stop();
      }
    });

    test('aborting the signal ends the watch without an error', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const w = watchFrom(s, p);
      await w.stop();
      expect(w.done).toBe(true);
      expect(w.error).toBeUndefined();
    });

    test('breaking out of the loop ends the watch and the store keeps working', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const start = (await s.currentRevision()) + 1;
      await s.create(`${p}a`, enc('1'));
      await s.create(`${p}b`, enc('2'));
      let seen = 0;
      for await (const batch of s.watch(p, { fromRevision: start })) {
        seen += batch.events.length;
        if (seen >= 1) break;
      }
      expect(seen).toBeGreaterThanOrEqual(1);
      const r = (await s.create(`${p}c`, enc('3'))).revision;
      expect(r).toBeGreaterThan(start);
    });

    test('hundreds of watchers each receive every event', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const start = (await s.currentRevision()) + 1;
      const watchers = Array.from({ length: 200 }, () => watchFrom(s, p, start));
      try {
        const revs: number[] = [];
        for (let i = 0; i < 20; i++) revs.push((await s.create(`${p}${i}`, enc(`v${i}`))).revision);
        await Promise.all(watchers.map((w) => w.untilEvents(20, 30_000)));
        for (const w of watchers) expect(w.events.map((e) => e.kv.modRevision)).toEqual(revs);
      } finally {
        await Promise.all(watchers.map((w) => w.stop()));
      }
    });

    test('requestProgress yields an empty batch at or above the last write', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const start = (await s.currentRevision()) + 1;
      const w = watchFrom(s, p, start, () => true);
      try {
        const r = (await s.create(`${p}a`, enc('1'))).revision;
        await w.untilEvents(1);
        // Writes elsewhere move the store on; progress tells this watcher, which wants it, that it has seen
        // everything up to there.
        const other = (await s.create(`${ctx.prefix()}elsewhere`, enc('1'))).revision;
        await s.requestProgress();
        await w.until((rd) => rd.batches.some((b) => b.events.length === 0 && b.revision >= other), 20_000, 'progress');
        const progress = w.batches.find((b) => b.events.length === 0)!;
        expect(progress.revision).toBeGreaterThanOrEqual(r);
      } finally {
        await w.stop();
      }
    });
  });
}
