/**
 * The transforming Store decorator over the embedded store:
 * - it keeps the Store contract: the whole conformance suite runs through it (every value transformed);
 * - the backend holds only transformed values; every read path hands out plaintext (get, list, watch events
 *   and their previous values, delete's prev, a conflict's and a failed txn's current);
 * - a value the transformer cannot read throws `TransformFailed` naming the key, from reads and from a watch;
 * - `isStaleValue` marks what the transformer read as stale, and only that.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isStorageError } from './errors.js';
import type { Store, WatchBatch } from './interface.js';
import { openMemoryStore } from './memory/memory-store.js';
import { describeStoreConformance } from './testing/conformance.js';
import { isStaleValue, transformStore, type ValueTransformer } from './transforming-store.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

/** A reversible transform a test can recognise: `v2:` + bytes XOR 0x5a; `v1:` reads too, as stale. */
function xorTransformer(): ValueTransformer & { failNext?: boolean } {
  const xor = (b: Uint8Array): Uint8Array => b.map((x) => x ^ 0x5a);
  return {
    fromStorage(stored) {
      const head = text(stored.subarray(0, 3));
      if (head !== 'v2:' && head !== 'v1:') throw new Error('no matching prefix found');
      return { value: xor(stored.subarray(3)), stale: head === 'v1:' };
    },
    toStorage(plain) {
      const out = new Uint8Array(plain.length + 3);
      out.set(bytes('v2:'), 0);
      out.set(xor(plain), 3);
      return out;
    },
  };
}

describe('transforming store: conformance through the wrapper', () => {
  let dir = '';
  describeStoreConformance('memory (transformed)', {
    open: async () => {
      dir = mkdtempSync(join(tmpdir(), 'transforming-conformance-'));
      const t = xorTransformer();
      return transformStore(await openMemoryStore({ dataDir: dir }), () => t);
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  });
});

describe('transforming store: what the backend holds and what readers see', () => {
  let dir: string;
  let inner: Store;
  let store: Store;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'transforming-'));
    inner = await openMemoryStore({ dataDir: dir });
    const t = xorTransformer();
    // Only /enc/ keys are transformed; others pass through.
    store = transformStore(inner, (key) => (key.startsWith('/enc/') ? t : undefined));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores transformed values and reads plaintext on every path', async () => {
    const watch = store.watch('/enc/', { fromRevision: 1 })[Symbol.asyncIterator]();
    await store.create('/enc/a', bytes('secret-1'));
    await store.create('/plain/a', bytes('open'));
    expect(text((await inner.get('/enc/a')).kv!.value)).toMatch(/^v2:/);
    expect(text((await inner.get('/plain/a')).kv!.value)).toBe('open');
    expect(text((await store.get('/enc/a')).kv!.value)).toBe('secret-1');
    expect((await store.list('/enc/')).items.map((kv) => text(kv.value))).toEqual(['secret-1']);

    const a = (await store.get('/enc/a')).kv!;
    await store.update('/enc/a', bytes('secret-2'), a.modRevision);
    // A failed compare carries the current value, in plaintext.
    const err = await store.update('/enc/a', bytes('x'), a.modRevision).catch((e: unknown) => e);
    expect(isStorageError(err, 'Conflict') && text(err.current!.value)).toBe('secret-2');
    const dup = await store.create('/enc/a', bytes('x')).catch((e: unknown) => e);
    expect(isStorageError(dup, 'AlreadyExists') && text(dup.current!.value)).toBe('secret-2');
    const failed = await store.txn([{ key: '/enc/a', modRevision: 1 }], [{ type: 'put', key: '/enc/b', value: bytes('y') }]);
    expect(failed.succeeded).toBe(false);
    expect(text(failed.current[0]!.value)).toBe('secret-2');
    const ok = await store.txn([], [{ type: 'put', key: '/enc/c', value: bytes('via-txn') }]);
    expect(ok.succeeded).toBe(true);
    expect(text((await inner.get('/enc/c')).kv!.value)).toMatch(/^v2:/);
    const del = await store.delete('/enc/c');
    expect(text(del.prev.value)).toBe('via-txn');

    const events: string[] = [];
    while (events.length < 4) {
      const { value } = (await watch.next()) as { value: WatchBatch };
      for (const e of value.events) events.push(`${e.type} ${e.kv.key} ${text(e.kv.value)} prev=${e.prev === undefined ? '' : text(e.prev.value)}`);
    }
    await watch.return?.();
    expect(events).toEqual([
      'put /enc/a secret-1 prev=',
      'put /enc/a secret-2 prev=secret-1',
      'put /enc/c via-txn prev=',
      'delete /enc/c  prev=via-txn',
    ]);
  });

  it('fails loudly, naming the key, on a value it cannot read', async () => {
    await inner.create('/enc/bad', bytes('plaintext that was never transformed'));
    const err = await store.get('/enc/bad').catch((e: unknown) => e);
    expect(isStorageError(err, 'TransformFailed')).toBe(true);
    expect((err as Error).message).toBe('unable to transform key "/enc/bad": no matching prefix found');
    await expect(store.list('/enc/')).rejects.toThrow('unable to transform key "/enc/bad"');
    const it = store.watch('/enc/', { fromRevision: 1 })[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toThrow('unable to transform key "/enc/bad"');
  });

  it('marks values read by an older transform stale, and only those', async () => {
    const old = new Uint8Array([...bytes('v1:'), ...bytes('old').map((x) => x ^ 0x5a)]);
    await inner.create('/enc/old', old);
    await store.create('/enc/new', bytes('new'));
    const oldKv = (await store.get('/enc/old')).kv!;
    expect(text(oldKv.value)).toBe('old');
    expect(isStaleValue(oldKv)).toBe(true);
    expect(isStaleValue((await store.get('/enc/new')).kv!)).toBe(false);
    // Writing it back (unchanged) stores it with the current transform: no longer stale.
    await store.update('/enc/old', oldKv.value, oldKv.modRevision);
    expect(text((await inner.get('/enc/old')).kv!.value)).toMatch(/^v2:/);
    expect(isStaleValue((await store.get('/enc/old')).kv!)).toBe(false);
  });
});
