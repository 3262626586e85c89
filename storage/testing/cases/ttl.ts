import type { WatchEvent } from '../../interface.js';
import { type SuiteContext, enc, expectStorageError, valueOf, watchFrom } from '../helpers.js';

/**
 * Keys with a time to live (`WriteOptions.ttlSeconds`). Ttls are 1-2 s, the shortest both backends honour
 * (etcd raises a lease below its minimum, about 2 s, to it), and every case waits for the store's own
 * delete event rather than sleeping. Times are compared with a small allowance: etcd's lease clock is not
 * this process's wall clock.
 */
const CLOCK_ALLOWANCE_MS = 100;

const deleteOf = (key: string) => (e: WatchEvent): boolean => e.type === 'delete' && e.kv.key === key;

export function defineTtlCases(ctx: SuiteContext): void {
  describe('ttl', () => {
    test('a key written with a ttl is deleted by the store once it ran out; the watch sees a delete with the previous value', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const from = (await s.currentRevision()) + 1;
      const w = watchFrom(s, p, from);
      try {
        await s.create(`${p}permanent`, enc('stays'));
        const written = Date.now();
        const r1 = (await s.create(`${p}a`, enc('short-lived'), { ttlSeconds: 1 })).revision;
        expect(valueOf((await s.get(`${p}a`)).kv)).toBe('short-lived');

        await w.until((r) => r.events.some(deleteOf(`${p}a`)), 15_000, 'the expiry of the key');
        expect(Date.now() - written).toBeGreaterThanOrEqual(1000 - CLOCK_ALLOWANCE_MS);
        const expired = w.events.find(deleteOf(`${p}a`))!;
        expect(expired.kv.modRevision).toBeGreaterThan(r1);
        expect(expired.prev?.modRevision).toBe(r1);
        expect(valueOf(expired.prev)).toBe('short-lived');

        const after = await s.get(`${p}a`);
        expect(after.kv).toBeUndefined();
        expect(after.revision).toBeGreaterThanOrEqual(expired.kv.modRevision);
        // Nothing else was touched.
        expect(valueOf((await s.get(`${p}permanent`)).kv)).toBe('stays');
        expect(w.events.filter((e) => e.type === 'delete')).toHaveLength(1);
        // The key is an ordinary missing key afterwards: it can be created again.
        await s.create(`${p}a`, enc('again'));
      } finally {
        await w.stop();
      }
    });

    test('an update without a ttl, and a txn put, make the key permanent', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const from = (await s.currentRevision()) + 1;
      const w = watchFrom(s, p, from);
      try {
        const u1 = (await s.create(`${p}updated`, enc('v1'), { ttlSeconds: 1 })).revision;
        const u2 = (await s.update(`${p}updated`, enc('v2'), u1)).revision;
        await s.create(`${p}txn`, enc('t1'), { ttlSeconds: 1 });
        const t2 = (await s.txn([], [{ type: 'put', key: `${p}txn`, value: enc('t2') }])).revision;
        // A key with the same ttl written after both: once it is gone, their first ttls have run out too.
        await s.create(`${p}sentinel`, enc('s'), { ttlSeconds: 1 });

        await w.until((r) => r.events.some(deleteOf(`${p}sentinel`)), 15_000, 'the expiry of the sentinel');
        const updated = (await s.get(`${p}updated`)).kv;
        expect(valueOf(updated)).toBe('v2');
        expect(updated?.modRevision).toBe(u2);
        const put = (await s.get(`${p}txn`)).kv;
        expect(valueOf(put)).toBe('t2');
        expect(put?.modRevision).toBe(t2);
        expect(w.events.filter((e) => e.type === 'delete').map((e) => e.kv.key)).toEqual([`${p}sentinel`]);
      } finally {
        await w.stop();
      }
    });

    test('an update with a ttl restarts it from the update', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      const from = (await s.currentRevision()) + 1;
      const w = watchFrom(s, p, from);
      try {
        const created = Date.now();
        const r1 = (await s.create(`${p}a`, enc('v1'), { ttlSeconds: 2 })).revision;
        // Half-way through the first ttl (a set-up delay, not an assertion).
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, created + 1000 - Date.now())));
        const updated = Date.now();
        const r2 = (await s.update(`${p}a`, enc('v2'), r1, { ttlSeconds: 2 })).revision;

        await w.until((r) => r.events.some(deleteOf(`${p}a`)), 15_000, 'the expiry of the key');
        // Deleted a full ttl after the update, so it outlived the first ttl by the time between the writes.
        expect(Date.now() - updated).toBeGreaterThanOrEqual(2000 - CLOCK_ALLOWANCE_MS);
        const expired = w.events.find(deleteOf(`${p}a`))!;
        expect(expired.prev?.modRevision).toBe(r2);
        expect(valueOf(expired.prev)).toBe('v2');
        expect((await s.get(`${p}a`)).kv).toBeUndefined();
      } finally {
        await w.stop();
      }
    });

    test('a ttl that is negative, fractional or beyond etcd\'s maximum is InvalidArgument and writes nothing', async () => {
      const s = ctx.store();
      const p = ctx.prefix();
      for (const ttlSeconds of [-1, 1.5, Number.NaN, 9_000_000_001]) {
        await expectStorageError(s.create(`${p}a`, enc('x'), { ttlSeconds }), 'InvalidArgument');
      }
      const r1 = (await s.create(`${p}a`, enc('x'), { ttlSeconds: 0 })).revision;
      await expectStorageError(s.update(`${p}a`, enc('y'), r1, { ttlSeconds: -5 }), 'InvalidArgument');
      const kv = (await s.get(`${p}a`)).kv;
      expect(valueOf(kv)).toBe('x');
      expect(kv?.modRevision).toBe(r1);
    });
  });
}
