/**
 * The compare-and-swap loop shared by the guaranteed update and delete, over a real embedded store: a lost
 * compare starts the next round from the fresh state (no extra read), a key deleted meanwhile from
 * "absent", other store errors become Statuses, and what a round throws outside `attempt` ends the loop.
 * A first state given by the caller (the watch cache's copy) saves the read, and counts only when a write
 * from it won: anything else a round from it decides is decided again from the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemoryStore, type MemoryStore } from '../../../storage/memory/memory-store.js';
import { isStorageError, timeout } from '../../../storage/errors.js';
import type { KeyValue } from '../../../storage/interface.js';
import { StatusError } from '../../errors/status-error.js';
import { compareAndSwapLoop } from './compare-and-swap.js';

const gr = { group: '', resource: 'configmaps' };
const text = (kv: KeyValue | undefined): string | undefined => (kv === undefined ? undefined : Buffer.from(kv.value).toString());

let dir: string;
let store: MemoryStore;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cas-loop-'));
  store = await openMemoryStore({ dataDir: dir });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('compareAndSwapLoop', () => {
  test('a lost compare reruns the round with the state that won, and the round that wins returns', async () => {
    await store.create('/k', Buffer.from('0'));
    const seen: (string | undefined)[] = [];
    const out = await compareAndSwapLoop({ store, gr }, '/k', 'k', async (kv, attempt) => {
      seen.push(text(kv));
      // A concurrent writer gets in between the first read and its write.
      if (seen.length === 1) await store.update('/k', Buffer.from('other'), kv!.modRevision);
      return attempt(async () => (await store.update('/k', Buffer.from(`${text(kv)}+1`), kv!.modRevision)).revision);
    });
    expect(seen).toEqual(['0', 'other']);
    expect(text((await store.get('/k')).kv)).toBe('other+1');
    expect(out).toBe((await store.get('/k')).kv!.modRevision);
  });

  test('a key deleted meanwhile starts the next round from absent; a create that loses starts from the winner', async () => {
    await store.create('/k', Buffer.from('0'));
    const seen: (string | undefined)[] = [];
    await compareAndSwapLoop({ store, gr }, '/k', 'k', async (kv, attempt) => {
      seen.push(text(kv));
      if (seen.length === 1) await store.delete('/k', kv!.modRevision);
      if (seen.length === 2) await store.create('/k', Buffer.from('raced'));
      return attempt(async () =>
        kv === undefined ? store.create('/k', Buffer.from('created')) : store.update('/k', Buffer.from('updated'), kv.modRevision),
      );
    });
    expect(seen).toEqual(['0', undefined, 'raced']);
    expect(text((await store.get('/k')).kv)).toBe('updated');
  });

  test('another store error inside attempt becomes its Status; errors outside attempt pass unchanged', async () => {
    await expect(compareAndSwapLoop({ store, gr }, '/k', 'k', (_kv, attempt) => attempt(() => Promise.reject(timeout('slow'))))).rejects.toMatchObject({
      code: 504,
    });
    const own = new Error('precondition');
    await expect(compareAndSwapLoop({ store, gr }, '/k', 'k', async () => Promise.reject(own))).rejects.toBe(own);
    // A StorageError thrown outside attempt (another key's read) is not retried as if the compare failed.
    let rounds = 0;
    const err = await compareAndSwapLoop({ store, gr }, '/k', 'k', async () => {
      rounds++;
      await store.update('/missing', Buffer.from('x'), 1);
    }).catch((e: unknown) => e);
    expect(rounds).toBe(1);
    expect(isStorageError(err, 'NotFound')).toBe(true);
    expect(err instanceof StatusError).toBe(false);
  });

  describe('a first state instead of the read (the watch cache\'s copy)', () => {
    const first = async (value: string): Promise<KeyValue> => {
      const kv = (await store.get('/k')).kv!;
      return { ...kv, value: Buffer.from(value) };
    };
    const wrote = (r: { wrote: boolean }): boolean => r.wrote;

    test('a current copy: one round, no read, and its write counts', async () => {
      await store.create('/k', Buffer.from('0'));
      const copy = await first('0');
      const reads = spyReads();
      const seen: (string | undefined)[] = [];
      const out = await compareAndSwapLoop({ store, gr }, '/k', 'k', async (kv, attempt) => {
        seen.push(text(kv));
        return attempt(async () => ({ wrote: (await store.update('/k', Buffer.from(`${text(kv)}+1`), kv!.modRevision)).revision > 0 }));
      }, { kv: copy, vouched: wrote });
      expect(out.wrote).toBe(true);
      expect(seen).toEqual(['0']);
      expect(reads()).toBe(0);
      expect(text((await store.get('/k')).kv)).toBe('0+1');
    });

    test('a stale copy: its write loses the compare and the next round starts from the store\'s state', async () => {
      await store.create('/k', Buffer.from('0'));
      const copy = await first('0');
      await store.update('/k', Buffer.from('1'), copy.modRevision);
      const seen: (string | undefined)[] = [];
      await compareAndSwapLoop({ store, gr }, '/k', 'k', async (kv, attempt) => {
        seen.push(text(kv));
        return attempt(async () => ({ wrote: (await store.update('/k', Buffer.from(`${text(kv)}+1`), kv!.modRevision)).revision > 0 }));
      }, { kv: copy, vouched: wrote });
      expect(seen).toEqual(['0', '1']);
      expect(text((await store.get('/k')).kv)).toBe('1+1');
    });

    test('a refusal or a result without a write from the copy is decided again from a read', async () => {
      await store.create('/k', Buffer.from('0'));
      const copy = await first('0');
      await store.update('/k', Buffer.from('1'), copy.modRevision);
      // A precondition the stale copy fails (the client saw '1'): judged again against the store, it holds.
      const seen: (string | undefined)[] = [];
      const out = await compareAndSwapLoop({ store, gr }, '/k', 'k', async (kv) => {
        seen.push(text(kv));
        if (text(kv) !== '1') throw new Error('precondition failed');
        return { wrote: false };
      }, { kv: copy, vouched: wrote });
      expect(seen).toEqual(['0', '1']);
      expect(out.wrote).toBe(false);
      // A refusal that stands on the store's state too ends the loop after that second round.
      let rounds = 0;
      const refusal = new Error('refused');
      await expect(compareAndSwapLoop({ store, gr }, '/k', 'k', async () => {
        rounds++;
        throw refusal;
      }, { kv: await first('1'), vouched: wrote })).rejects.toBe(refusal);
      expect(rounds).toBe(2);
    });
  });
});

/** Counts the store's reads of '/k' from now on. */
function spyReads(): () => number {
  let n = 0;
  const get = store.get.bind(store);
  store.get = (async (key: string, options?: Parameters<MemoryStore['get']>[1]) => {
    if (key === '/k') n++;
    return get(key, options);
  }) as MemoryStore['get'];
  return () => n;
}

