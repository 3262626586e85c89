import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../interface.js';
import { openMemoryStore } from '../memory/memory-store.js';
import { CompactionProbe } from './compaction-probe.js';

describe('compaction probe', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  const open = async (): Promise<Store> => {
    const dir = mkdtempSync(join(tmpdir(), 'probe-'));
    dirs.push(dir);
    const s = await openMemoryStore({ dataDir: dir });
    stores.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** The real store's answer, read at once but handed back only when the gate opens (a slow etcd reply). */
  function slowAnswers(store: Store): { store: Store; probes(): number; open(): void } {
    let probes = 0;
    let release!: () => void;
    let gate = new Promise<void>((r) => (release = r));
    const wrapped = {
      compactedRevision: async () => {
        probes++;
        const answer = await store.compactedRevision();
        await gate;
        return answer;
      },
    } as Pick<Store, 'compactedRevision'> as Store;
    return {
      store: wrapped,
      probes: () => probes,
      open: () => {
        release();
        gate = Promise.resolve();
      },
    };
  }

  test('concurrent callers share probes', async () => {
    const slow = slowAnswers(await open());
    const probe = new CompactionProbe(slow.store);
    const answers = Promise.all(Array.from({ length: 100 }, () => probe.compactedRevision()));
    slow.open();
    expect(await answers).toEqual(Array.from({ length: 100 }, () => 0));
    expect(slow.probes()).toBe(2); // the one in flight, and one for everyone who came during it
  });

  test('a caller never gets an answer read before it asked', async () => {
    const store = await open();
    const slow = slowAnswers(store);
    const probe = new CompactionProbe(slow.store);
    const early = probe.compactedRevision(); // reads "not compacted" now, answers later
    await store.create('/p/a', Buffer.from('1'));
    const r2 = (await store.create('/p/b', Buffer.from('2'))).revision;
    await store.compact(r2);
    const late = probe.compactedRevision(); // asked after the compaction, while the early probe is in flight
    slow.open();
    expect(await early).toBe(0);
    expect(await late).toBe(r2);
  });
});
