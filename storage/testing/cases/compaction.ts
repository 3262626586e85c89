import { type SuiteContext, enc, dec, expectStorageError, watchFrom, valueOf } from '../helpers.js';

export function defineCompactionCases(ctx: SuiteContext): void {
  describe('compaction', () => {
    test('reads below the compacted revision are Compacted; the compacted revision itself stays readable', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const r1 = (await s.create(`${p}a`, enc('v1'))).revision;
      const r2 = (await s.update(`${p}a`, enc('v2'), r1)).revision;
      const r3 = (await s.update(`${p}a`, enc('v3'), r2)).revision;
      await s.compact(r2);
      expect(await s.compactedRevision()).toBeGreaterThanOrEqual(r2);
      const err = await expectStorageError(s.get(`${p}a`, { revision: r1 }), 'Compacted');
      expect(err.compactedRevision).toBeGreaterThanOrEqual(r2);
      expect(valueOf((await s.get(`${p}a`, { revision: r2 })).kv)).toBe('v2');
      expect(valueOf((await s.get(`${p}a`, { revision: r3 })).kv)).toBe('v3');
      expect(valueOf((await s.get(`${p}a`)).kv)).toBe('v3');
    });

    test('a list at a compacted revision is Compacted; at a retained one it works', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const r1 = (await s.create(`${p}a`, enc('1'))).revision;
      const r2 = (await s.create(`${p}b`, enc('2'))).revision;
      await s.compact(r2);
      await expectStorageError(s.list(p, { revision: r1 }), 'Compacted');
      const atR2 = await s.list(p, { revision: r2 });
      expect(atR2.items.map((kv) => dec(kv.value))).toEqual(['1', '2']);
    });

    test('a key deleted before the compacted revision is gone at that revision', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      await s.create(`${p}gone`, enc('x'));
      const rd = (await s.delete(`${p}gone`)).revision;
      const rk = (await s.create(`${p}kept`, enc('y'))).revision;
      await s.compact(rk);
      expect((await s.get(`${p}gone`, { revision: rk })).kv).toBeUndefined();
      expect((await s.list(p)).items.map((kv) => kv.key)).toEqual([`${p}kept`]);
      await expectStorageError(s.get(`${p}gone`, { revision: rd }), 'Compacted');
    });

    test('a watch from a compacted revision fails with Compacted and the compacted revision', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const r1 = (await s.create(`${p}a`, enc('1'))).revision;
      const r2 = (await s.create(`${p}b`, enc('2'))).revision;
      await s.compact(r2);
      const w = watchFrom(s, p, r1);
      try {
        await w.untilDone();
        expect(w.events).toEqual([]);
        expect(w.error).toMatchObject({ name: 'StorageError', code: 'Compacted' });
        expect((w.error as { compactedRevision: number }).compactedRevision).toBeGreaterThanOrEqual(r2);
      } finally {
        await w.stop();
      }
    });

    test('a watch from exactly the compacted revision works and continues live', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      await s.create(`${p}a`, enc('1'));
      const r2 = (await s.create(`${p}b`, enc('2'))).revision;
      await s.compact(r2);
      const w = watchFrom(s, p, r2);
      try {
        const r3 = (await s.create(`${p}c`, enc('3'))).revision;
        await w.until((r) => r.events.some((e) => e.kv.modRevision === r3), undefined, 'the live event');
        expect(w.error).toBeUndefined();
        expect(w.events.map((e) => e.kv.modRevision)).toEqual([r2, r3]);
      } finally {
        await w.stop();
      }
    });

    test('compacting at or below the compacted revision is a no-op', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const r = (await s.create(`${p}a`, enc('1'))).revision;
      await s.compact(r);
      const compactedBefore = await s.compactedRevision();
      await expect(s.compact(r)).resolves.toBeUndefined();
      await expect(s.compact(r - 1)).resolves.toBeUndefined();
      expect(await s.compactedRevision()).toBe(compactedBefore);
      expect(valueOf((await s.get(`${p}a`, { revision: r })).kv)).toBe('1');
    });

    test('compacting beyond the current revision is FutureRevision', async () => {
      const s = ctx.store();
      const current = await s.currentRevision();
      await expectStorageError(s.compact(current + 1000), 'FutureRevision');
      expect(await s.compactedRevision()).toBeLessThanOrEqual(current);
    });

    test('history after the compacted revision is intact', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const r1 = (await s.create(`${p}a`, enc('v1'))).revision;
      await s.compact(r1);
      const r2 = (await s.update(`${p}a`, enc('v2'), r1)).revision;
      const r3 = (await s.update(`${p}a`, enc('v3'), r2)).revision;
      expect(valueOf((await s.get(`${p}a`, { revision: r2 })).kv)).toBe('v2');
      const w = watchFrom(s, p, r2);
      try {
        await w.untilEvents(2);
        expect(w.events.map((e) => e.kv.modRevision)).toEqual([r2, r3]);
        expect(dec(w.events[1]!.prev?.value)).toBe('v2');
      } finally {
        await w.stop();
      }
    });
  });
}
