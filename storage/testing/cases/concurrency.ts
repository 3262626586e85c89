import { StorageError } from '../../errors.js';
import { type SuiteContext, enc, dec, watchFrom } from '../helpers.js';

export function defineConcurrencyCases(ctx: SuiteContext): void {
  describe('concurrency', () => {
    test('concurrent compare-and-swap writers on one key: exactly one wins each round', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}contended`;
      let rev = (await s.create(key, enc('start'))).revision;
      for (let round = 0; round < 10; round++) {
        const results = await Promise.allSettled(
          Array.from({ length: 8 }, (_, w) => s.update(key, enc(`r${round}-w${w}`), rev)),
        );
        const winners = results.flatMap((r, w) => (r.status === 'fulfilled' ? [{ w, revision: r.value.revision }] : []));
        expect(winners).toHaveLength(1);
        const winner = winners[0]!;
        for (const r of results) {
          if (r.status === 'rejected') {
            expect(r.reason).toBeInstanceOf(StorageError);
            expect((r.reason as StorageError).code).toBe('Conflict');
            // The conflict carries the winner's write, so a retry loop needs no extra read.
            expect((r.reason as StorageError).current?.modRevision).toBe(winner.revision);
          }
        }
        const { kv } = await s.get(key);
        expect(dec(kv?.value)).toBe(`r${round}-w${winner.w}`);
        rev = winner.revision;
      }
    });

    test('concurrent creates of one key: exactly one succeeds', async () => {
      const s = ctx.store();
      const key = `${ctx.prefix()}once`;
      const results = await Promise.allSettled(Array.from({ length: 16 }, (_, i) => s.create(key, enc(`${i}`))));
      const ok = results.filter((r) => r.status === 'fulfilled');
      expect(ok).toHaveLength(1);
      const codes = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as StorageError).code] : []));
      expect(new Set(codes)).toEqual(new Set(['AlreadyExists']));
    });

    test('concurrent writers on many keys: distinct revisions, each seen once and in order by a watch', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const start = (await s.currentRevision()) + 1;
      const w = watchFrom(s, p, start);
      try {
        const writes = await Promise.all(
          Array.from({ length: 200 }, (_, i) => s.create(`${p}${i % 50}/${i}`, enc(`${i}`))),
        );
        const revs = writes.map((r) => r.revision);
        expect(new Set(revs).size).toBe(200);
        await w.untilEvents(200);
        const seen = w.events.map((e) => e.kv.modRevision);
        expect(seen).toEqual([...revs].sort((a, b) => a - b));
        const count = await s.list(p, { countOnly: true });
        expect(count.count).toBe(200);
      } finally {
        await w.stop();
      }
    });

    test('a read after an acknowledged write sees it (read-your-writes)', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const { revision } = await s.create(`${p}${i}`, enc(`${i}`));
          const { kv } = await s.get(`${p}${i}`);
          expect(kv?.modRevision).toBe(revision);
          expect(await s.currentRevision()).toBeGreaterThanOrEqual(revision);
        }),
      );
    });
  });
}
