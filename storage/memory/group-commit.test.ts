import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GroupCommit } from './group-commit.js';
import { openMemoryStore } from './memory-store.js';

describe('group commit', () => {
  it('writes everything queued during a flush in one write, in order', async () => {
    const writes: string[] = [];
    let release!: () => void;
    let firstStarted!: () => void;
    const started = new Promise<void>((r) => (firstStarted = r));
    const durable: string[] = [];
    const gc = new GroupCommit<{ frame: Buffer; id: string }>({
      write: async (chunk) => {
        writes.push(chunk.toString());
        if (writes.length === 1) {
          firstStarted();
          await new Promise<void>((r) => (release = r));
        }
      },
      durable: (entries) => durable.push(...entries.map((e) => e.id)),
      failed: () => undefined,
      between: async () => undefined,
    });
    gc.submit({ frame: Buffer.from('a'), id: 'a' });
    await started;
    for (const id of ['b', 'c', 'd']) gc.submit({ frame: Buffer.from(id), id });
    expect(durable).toEqual([]);
    release();
    await gc.idle();
    expect(writes).toEqual(['a', 'bcd']);
    expect(durable).toEqual(['a', 'b', 'c', 'd']);
  });

  it('fails every entry not yet durable when a write fails, and refuses more', async () => {
    const failed: string[] = [];
    const gc = new GroupCommit<{ frame: Buffer; id: string }>({
      write: async () => {
        throw new Error('disk full');
      },
      durable: () => undefined,
      failed: (_err, entries) => failed.push(...entries.map((e) => e.id)),
      between: async () => undefined,
    });
    gc.submit({ frame: Buffer.from('a'), id: 'a' });
    gc.submit({ frame: Buffer.from('b'), id: 'b' });
    await gc.idle();
    expect(failed).toEqual(['a', 'b']);
    expect(() => gc.submit({ frame: Buffer.from('c'), id: 'c' })).toThrow('disk full');
  });

  it('acknowledges many concurrent store writes, all durable after restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memstore-gc-'));
    try {
      let store = await openMemoryStore({ dataDir: dir });
      const results = await Promise.all(
        Array.from({ length: 2000 }, (_, i) => store.create(`/c/${i}`, new Uint8Array([i & 0xff]))),
      );
      const revs = results.map((r) => r.revision).sort((a, b) => a - b);
      expect(revs).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
      await store.close();
      store = await openMemoryStore({ dataDir: dir });
      const list = await store.list('/c/');
      expect(list.count).toBe(2000);
      expect(new Set(list.items.map((kv) => kv.modRevision)).size).toBe(2000);
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
