import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WatchBatch } from '../interface.js';
import { openMemoryStore, type MemoryStore } from './memory-store.js';

const v = (n: number): Uint8Array => new Uint8Array([n & 0xff]);

describe('memory store watch', () => {
  let dir: string;
  let store: MemoryStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'memstore-watch-'));
    store = await openMemoryStore({ dataDir: dir, watchBufferEvents: 50 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ends a watch that falls behind its buffer with Lagging while writes go on', async () => {
    const slow = store.watch('/w/')[Symbol.asyncIterator]();
    const fast = store.watch('/w/')[Symbol.asyncIterator]();
    // Both consumers are live (waiting in next) when the first write lands.
    const firsts = [slow.next(), fast.next()];
    await store.create('/w/0', v(0));
    for (const f of await Promise.all(firsts)) expect(f.value?.events[0]?.kv.key).toBe('/w/0');
    // `fast` keeps reading; nobody reads `slow`: it buffers up to the bound (50 events), then gives up.
    // Writers never wait for it.
    let fastSeen = 0;
    const reader = (async () => {
      while (fastSeen < 200) fastSeen += (await fast.next()).value!.events.length;
    })();
    for (let i = 1; i <= 200; i++) await store.create(`/w/${i}`, v(i));
    await reader;
    expect(fastSeen).toBe(200);
    expect(await store.currentRevision()).toBe(201);
    expect(store.watchCount).toBe(1); // `slow` already left the hub, its buffer freed
    // The consumer learns it must re-watch.
    await expect(slow.next()).rejects.toMatchObject({ name: 'StorageError', code: 'Lagging' });
    await fast.return!();
    expect(store.watchCount).toBe(0);
    // Re-watching from the last revision + 1 catches up from history.
    const again = store.watch('/w/', { fromRevision: 2 })[Symbol.asyncIterator]();
    let seen = 0;
    while (seen < 200) seen += (await again.next()).value!.events.length;
    expect(seen).toBe(200);
    await again.return!();
  });

  it('frees the watch on break, on abort, and ends open watches on close with Unavailable', async () => {
    await store.create('/x/1', v(1));
    for await (const b of store.watch('/x/', { fromRevision: 1 })) {
      expect(b.revision).toBe(1);
      expect(store.watchCount).toBe(1);
      break;
    }
    expect(store.watchCount).toBe(0);

    const ac = new AbortController();
    const aborted = store.watch('/x/', { signal: ac.signal })[Symbol.asyncIterator]();
    const pending = aborted.next();
    expect(store.watchCount).toBe(1);
    ac.abort();
    await expect(pending).resolves.toEqual({ value: undefined, done: true });
    expect(store.watchCount).toBe(0);

    const open = store.watch('/x/')[Symbol.asyncIterator]();
    const ended = expect(open.next()).rejects.toMatchObject({ name: 'StorageError', code: 'Unavailable' });
    await store.close();
    await ended;
  });

  it('delivers progress, transactions in one batch, and only matching prefixes', async () => {
    const it = store.watch('/p/')[Symbol.asyncIterator]();
    const progress = it.next();
    await store.requestProgress();
    expect(await progress).toEqual({ value: { events: [], revision: 0 }, done: false });
    await store.create('/q/1', v(1));
    const r = await store.txn([], [
      { type: 'put', key: '/p/1', value: v(1) },
      { type: 'put', key: '/q/2', value: v(2) },
      { type: 'put', key: '/p/2', value: v(2) },
    ]);
    const b = (await it.next()).value as WatchBatch;
    expect(b.revision).toBe(r.revision);
    expect(b.events.map((e) => e.kv.key)).toEqual(['/p/1', '/p/2']);
    const compactErr = store.watch('/p/', { fromRevision: 1 })[Symbol.asyncIterator]();
    await store.compact(2);
    await expect(compactErr.next()).rejects.toMatchObject({ name: 'StorageError', code: 'Compacted' });
  });
});
