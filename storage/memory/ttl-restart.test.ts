import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WatchReader } from '../testing/watch-reader.js';
import type { WatchEvent } from '../interface.js';
import { openMemoryStore, type MemoryStore } from './memory-store.js';

const v = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString());
const deleteOf = (key: string) => (e: WatchEvent): boolean => e.type === 'delete' && e.kv.key === key;
const until = (at: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

/**
 * Expiries are stored with the versions in the log and in snapshots: after a restart, keys whose time
 * passed while the store was closed are deleted soon after the start, the others on time, and the
 * permanent ones never.
 */
describe.each([
  ['log replay only', false],
  ['snapshot', true],
])('ttl across a restart (%s)', (_name, snapshot) => {
  let dir: string;
  let store: MemoryStore | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memstore-ttl-'));
  });
  afterEach(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deletes overdue keys soon after the start, the others on time, and keeps permanent ones', async () => {
    // snapshotEveryRecords 1: every flush may start a snapshot (one at a time, see below).
    const options = { dataDir: dir, snapshotEveryRecords: snapshot ? 1 : 1_000_000 };
    store = await openMemoryStore(options);
    const t0 = Date.now();
    const gone = (await store.create('/k/gone', v('g'), { ttlSeconds: 1 })).revision;
    const soon = (await store.create('/k/soon', v('s'), { ttlSeconds: 3 })).revision;
    const kept1 = (await store.create('/k/kept', v('k1'), { ttlSeconds: 1 })).revision;
    const kept2 = (await store.update('/k/kept', v('k2'), kept1)).revision;
    await store.create('/k/later', v('l'), { ttlSeconds: 3600 });
    await store.create('/k/permanent', v('p'));
    if (snapshot) {
      // The snapshot running now may predate the last writes; the one a further write starts covers them.
      await store.snapshotIdle();
      await store.create('/k/filler', v('f'));
      await store.snapshotIdle();
      expect(readdirSync(dir).some((n) => n.endsWith('.snap'))).toBe(true);
    }
    const closedAt = await store.currentRevision();
    await store.close();
    store = undefined;

    // Closed while /k/gone's second passes.
    await until(t0 + 1100);
    store = await openMemoryStore(options);
    const s = store;
    const w = new WatchReader((signal) => s.watch('/k/', { fromRevision: closedAt + 1, signal }));
    try {
      // Not yet due: still there right after the start.
      expect(text((await s.get('/k/soon')).kv?.value)).toBe('s');

      await w.until((r) => r.events.some(deleteOf('/k/gone')), 5_000, 'the overdue expiry');
      const expired = w.events.find(deleteOf('/k/gone'))!;
      expect(expired.prev?.modRevision).toBe(gone);
      expect(text(expired.prev?.value)).toBe('g');
      expect((await s.get('/k/gone')).kv).toBeUndefined();

      await w.until((r) => r.events.some(deleteOf('/k/soon')), 10_000, 'the expiry due after the start');
      expect(Date.now() - t0).toBeGreaterThanOrEqual(3000);
      expect(w.events.find(deleteOf('/k/soon'))?.prev?.modRevision).toBe(soon);

      const kept = (await s.get('/k/kept')).kv;
      expect(text(kept?.value)).toBe('k2');
      expect(kept?.modRevision).toBe(kept2);
      expect(text((await s.get('/k/later')).kv?.value)).toBe('l');
      expect(text((await s.get('/k/permanent')).kv?.value)).toBe('p');
      expect(w.events.filter((e) => e.type === 'delete').map((e) => e.kv.key)).toEqual(['/k/gone', '/k/soon']);
      // /k/later's hour is still tracked (and nothing else): it was restored with its version.
      expect(s.expiryCount).toBe(1);
    } finally {
      await w.stop();
    }
  });
});
