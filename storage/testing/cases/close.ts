import { type SuiteContext, enc, expectStorageError, watchFrom } from '../helpers.js';

/** Closes the suite's store: must run after every other case. */
export function defineCloseCases(ctx: SuiteContext): void {
  describe('close', () => {
    test('close ends open watches with Unavailable, later calls fail with Unavailable, and close is idempotent', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const start = (await s.currentRevision()) + 1;
      const w = watchFrom(s, p, start);
      try {
        await s.create(`${p}a`, enc('1'));
        await w.untilEvents(1);
        await s.close();
        await w.untilDone();
        expect(w.error).toMatchObject({ name: 'StorageError', code: 'Unavailable' });
        await expectStorageError(s.get(`${p}a`), 'Unavailable');
        await expectStorageError(s.create(`${p}b`, enc('2')), 'Unavailable');
        await expect(s.close()).resolves.toBeUndefined();
      } finally {
        await w.stop();
      }
    });
  });
}
