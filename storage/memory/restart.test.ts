import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WatchBatch } from '../interface.js';
import { isStorageError } from '../errors.js';
import { openMemoryStore, type MemoryStore } from './memory-store.js';

const v = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : Buffer.from(b).toString());

async function collect(store: MemoryStore, prefix: string, fromRevision: number, untilRevision: number): Promise<WatchBatch[]> {
  const out: WatchBatch[] = [];
  for await (const b of store.watch(prefix, { fromRevision })) {
    out.push(b);
    if (b.revision >= untilRevision) break;
  }
  return out;
}

describe.each([
  ['log replay only', 1_000_000],
  ['snapshot + log replay', 3],
])('restart (%s)', (_name, snapshotEveryRecords) => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'memstore-restart-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('restores history, compaction and the revision counter', async () => {
    let store = await openMemoryStore({ dataDir: dir, snapshotEveryRecords });
    const r1 = (await store.create('/k/a', v('a1'))).revision;
    const r2 = (await store.update('/k/a', v('a2'), r1)).revision;
    const r3 = (await store.create('/k/b', v('b1'))).revision;
    const r4 = (await store.delete('/k/b')).revision;
    const r5 = (await store.update('/k/a', v('a3'), r2)).revision;
    const r6 = (await store.txn([], [
      { type: 'put', key: '/k/c', value: v('c1') },
      { type: 'put', key: '/k/d', value: v('d1') },
    ])).revision;
    await store.compact(r2);
    const r7 = (await store.delete('/k/c')).revision;
    await store.snapshotIdle();
    await store.close();
    if (snapshotEveryRecords < 10) expect(readdirSync(dir).some((n) => n.endsWith('.snap'))).toBe(true);

    store = await openMemoryStore({ dataDir: dir, snapshotEveryRecords });
    try {
      expect(await store.currentRevision()).toBe(r7);
      expect(await store.compactedRevision()).toBe(r2);
      // Reads at retained revisions, and the compacted revision itself.
      expect(text((await store.get('/k/a', { revision: r2 })).kv?.value)).toBe('a2');
      expect(text((await store.get('/k/a', { revision: r4 })).kv?.value)).toBe('a2');
      expect(text((await store.get('/k/b', { revision: r3 })).kv?.value)).toBe('b1');
      expect((await store.get('/k/b', { revision: r4 })).kv).toBeUndefined();
      expect((await store.get('/k/a')).kv).toEqual({ key: '/k/a', value: v('a3'), createRevision: r1, modRevision: r5 });
      expect((await store.get('/k/c', { revision: r6 })).kv?.modRevision).toBe(r6);
      expect((await store.get('/k/c')).kv).toBeUndefined();
      const err = await store.get('/k/a', { revision: r1 }).catch((e: unknown) => e);
      expect(isStorageError(err, 'Compacted')).toBe(true);
      expect((await store.list('/k/', { revision: r6 })).items.map((kv) => kv.key)).toEqual(['/k/a', '/k/c', '/k/d']);

      // A watch from the compacted revision still gets that revision's event with its previous value.
      const batches = await collect(store, '/k/', r2, r7);
      const events = batches.flatMap((b) => b.events.map((e) => [e.type, e.kv.key, e.kv.modRevision, text(e.prev?.value)]));
      expect(events).toEqual([
        ['put', '/k/a', r2, 'a1'],
        ['put', '/k/b', r3, undefined],
        ['delete', '/k/b', r4, 'b1'],
        ['put', '/k/a', r5, 'a2'],
        ['put', '/k/c', r6, undefined],
        ['put', '/k/d', r6, undefined],
        ['delete', '/k/c', r7, 'c1'],
      ]);
      // Both events of the transaction at r6 come in one batch.
      expect(batches.filter((b) => b.events.some((e) => e.kv.modRevision === r6))).toHaveLength(1);

      // The counter continues; no revision is reused.
      expect((await store.create('/k/e', v('e'))).revision).toBe(r7 + 1);
    } finally {
      await store.close();
    }
  });
});
