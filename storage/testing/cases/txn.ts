import { type SuiteContext, enc, valueOf } from '../helpers.js';

export function defineTxnCases(ctx: SuiteContext): void {
  describe('txn', () => {
    test('all ops of a successful txn share one revision', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const res = await s.txn(
        [{ key: `${p}a`, modRevision: 0 }, { key: `${p}b`, modRevision: 0 }],
        [
          { type: 'put', key: `${p}a`, value: enc('A') },
          { type: 'put', key: `${p}b`, value: enc('B') },
        ],
      );
      expect(res.succeeded).toBe(true);
      const list = await s.list(p);
      expect(list.items.map((kv) => kv.modRevision)).toEqual([res.revision, res.revision]);
      expect(await s.currentRevision()).toBeGreaterThanOrEqual(res.revision);
    });

    test('a failed compare applies nothing and returns the current values of the compared keys', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const ra = (await s.create(`${p}a`, enc('A'))).revision;
      const before = await s.currentRevision();
      const res = await s.txn(
        [{ key: `${p}a`, modRevision: ra - 1 }, { key: `${p}missing`, modRevision: 0 }],
        [
          { type: 'put', key: `${p}a`, value: enc('changed') },
          { type: 'put', key: `${p}c`, value: enc('C') },
        ],
      );
      expect(res.succeeded).toBe(false);
      expect(res.current).toHaveLength(2);
      expect(res.current[0]?.modRevision).toBe(ra);
      expect(valueOf(res.current[0])).toBe('A');
      expect(res.current[1]).toBeUndefined();
      expect(await s.currentRevision()).toBe(before);
      expect(valueOf((await s.get(`${p}a`)).kv)).toBe('A');
      expect((await s.get(`${p}c`)).kv).toBeUndefined();
    });

    test('put and delete in one txn, guarded by a compare on another key', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const guard = (await s.create(`${p}guard`, enc('g'))).revision;
      await s.create(`${p}old`, enc('o'));
      const res = await s.txn(
        [{ key: `${p}guard`, modRevision: guard }],
        [
          { type: 'delete', key: `${p}old` },
          { type: 'put', key: `${p}new`, value: enc('n') },
        ],
      );
      expect(res.succeeded).toBe(true);
      expect((await s.get(`${p}old`)).kv).toBeUndefined();
      expect((await s.get(`${p}new`)).kv?.modRevision).toBe(res.revision);
    });

    test('a txn without compares always applies', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const res = await s.txn([], [{ type: 'put', key: `${p}x`, value: enc('1') }]);
      expect(res.succeeded).toBe(true);
      expect(valueOf((await s.get(`${p}x`)).kv)).toBe('1');
    });
  });
}
