import type { Store } from '../../interface.js';
import { type SuiteContext, enc, dec, expectStorageError } from '../helpers.js';

export function defineListCases(ctx: SuiteContext): void {
  describe('list', () => {
    const fill = async (s: Store, p: string, n: number): Promise<number> => {
      let last = 0;
      for (let i = 0; i < n; i++) last = (await s.create(`${p}k${String(i).padStart(3, '0')}`, enc(`v${i}`))).revision;
      return last;
    };

    test('lists keys under the prefix in ascending order, and only those', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      await s.create(`${p}b/2`, enc('x'));
      await s.create(`${p}a/1`, enc('x'));
      await s.create(`${p}ab/1`, enc('x'));
      await s.create(`${p}a/0`, enc('x'));
      const res = await s.list(`${p}a/`);
      expect(res.items.map((kv) => kv.key)).toEqual([`${p}a/0`, `${p}a/1`]);
      expect(res.count).toBe(2);
      expect(res.more).toBe(false);
    });

    test('an empty prefix range returns no items, count 0 and the current revision', async () => {
      const s = ctx.store();
      const before = await s.currentRevision();
      const res = await s.list(ctx.prefix());
      expect(res.items).toEqual([]);
      expect(res.count).toBe(0);
      expect(res.more).toBe(false);
      expect(res.revision).toBeGreaterThanOrEqual(before);
    });

    test('limit returns the first items, more and the total count', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      await fill(s, p, 10);
      const res = await s.list(p, { limit: 3 });
      expect(res.items.map((kv) => dec(kv.value))).toEqual(['v0', 'v1', 'v2']);
      expect(res.more).toBe(true);
      expect(res.count).toBe(10);
      const all = await s.list(p, { limit: 10 });
      expect(all.items).toHaveLength(10);
      expect(all.more).toBe(false);
    });

    test('countOnly returns the count and no items', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      await fill(s, p, 7);
      await s.delete(`${p}k003`);
      const res = await s.list(p, { countOnly: true });
      expect(res.items).toEqual([]);
      expect(res.count).toBe(6);
    });

    test('startKey continues after the last key; count covers the rest', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      await fill(s, p, 5);
      const res = await s.list(p, { startKey: `${p}k001\x00` });
      expect(res.items.map((kv) => dec(kv.value))).toEqual(['v2', 'v3', 'v4']);
      expect(res.count).toBe(3);
      const past = await s.list(p, { startKey: `${p}zzz` });
      expect(past.items).toEqual([]);
      expect(past.more).toBe(false);
    });

    test('a list at an old revision returns that snapshot and reports the requested revision', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const r1 = (await s.create(`${p}a`, enc('a1'))).revision;
      const r2 = (await s.create(`${p}b`, enc('b1'))).revision;
      await s.update(`${p}a`, enc('a2'), r1);
      await s.delete(`${p}b`);
      await s.create(`${p}c`, enc('c1'));
      const old = await s.list(p, { revision: r2 });
      expect(old.revision).toBe(r2);
      expect(old.items.map((kv) => `${kv.key.slice(p.length)}=${dec(kv.value)}@${kv.modRevision}`)).toEqual([
        `a=a1@${r1}`,
        `b=b1@${r2}`,
      ]);
      const now = await s.list(p);
      expect(now.items.map((kv) => `${kv.key.slice(p.length)}=${dec(kv.value)}`)).toEqual(['a=a2', 'c=c1']);
    });

    test('a list at a future revision is FutureRevision', async () => {
      const s = ctx.store();
      const current = await s.currentRevision();
      await expectStorageError(s.list(ctx.prefix(), { revision: current + 1000 }), 'FutureRevision');
    });

    test('paging at a fixed revision sees one snapshot while writes go on', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      await fill(s, p, 25);
      const first = await s.list(p, { limit: 10 });
      const snapshot = first.revision;
      const seen = first.items.map((kv) => kv.key);
      let more = first.more;
      let page = 0;
      while (more) {
        // Writes between pages: new keys inside and after the paged range, updates, deletes.
        await s.create(`${p}k00${page}x`, enc('new'));
        await s.create(`${p}k999-${page}`, enc('new'));
        await s.delete(`${p}k02${page}`);
        const next = await s.list(p, { revision: snapshot, limit: 10, startKey: `${seen.at(-1)!}\x00` });
        expect(next.revision).toBe(snapshot);
        seen.push(...next.items.map((kv) => kv.key));
        more = next.more;
        page++;
      }
      expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `${p}k${String(i).padStart(3, '0')}`));
    });

    test('a list at a revision before the prefix existed is empty', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const before = await s.currentRevision();
      await fill(s, p, 3);
      const res = await s.list(p, { revision: Math.max(before, 1) });
      expect(res.items).toEqual([]);
    });
  });
}
