/**
 * The instrumented Store decorator over the embedded store:
 * - it keeps the Store contract: the whole conformance suite runs through it (with metrics and a hook);
 * - each timed call reaches the recorder of its operation once, `failed` only for backend failures (a
 *   missing key, an existing key and a failed compare are answers), and the hook's end gets the error;
 * - `currentRevision` is timed as `list`, a count-only list as `listWithCount`; watch and the
 *   housekeeping calls are not timed;
 * - without metrics and hook the store itself is returned (no wrapper at all).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StorageError } from './errors.js';
import { instrumentStore, isBackendFailure, STORE_OPERATIONS, type StoreCallRecorder, type StoreMetrics, type StoreOperation } from './instrumented-store.js';
import type { Store } from './interface.js';
import { openMemoryStore } from './memory/memory-store.js';
import { describeStoreConformance } from './testing/conformance.js';

interface Recorded {
  readonly type: string;
  readonly operation: StoreOperation;
  readonly seconds: number;
  readonly failed: boolean;
}

function recordingMetrics(out: Recorded[]): StoreMetrics {
  return {
    recorders(type) {
      const r = {} as Record<StoreOperation, StoreCallRecorder>;
      for (const operation of STORE_OPERATIONS) r[operation] = { record: (seconds, failed) => out.push({ type, operation, seconds, failed }) };
      return r;
    },
  };
}

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('instrumented store: conformance through the wrapper', () => {
  let dir = '';
  describeStoreConformance('memory (instrumented)', {
    open: async () => {
      dir = mkdtempSync(join(tmpdir(), 'instrumented-conformance-'));
      const ended: unknown[] = [];
      return instrumentStore(await openMemoryStore({ dataDir: dir }), 'conformance', {
        metrics: recordingMetrics([]),
        hook: { begin: () => (err) => ended.push(err) },
      });
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  });
});

describe('instrumented store: what is recorded', () => {
  let dir: string;
  let inner: Store;
  let store: Store;
  let recorded: Recorded[];
  let hooked: { operation: StoreOperation; type: string; key: string; error?: unknown }[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'instrumented-'));
    inner = await openMemoryStore({ dataDir: dir });
    recorded = [];
    hooked = [];
    store = instrumentStore(inner, 'configmaps', {
      metrics: recordingMetrics(recorded),
      hook: {
        begin(operation, type, key) {
          const call: (typeof hooked)[number] = { operation, type, key };
          hooked.push(call);
          return (error) => {
            if (error !== undefined) call.error = error;
          };
        },
      },
    });
  });
  afterEach(async () => {
    await inner.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records each call once under its operation, with answers as successes', async () => {
    const w = await store.create('/r/configmaps/ns/a', bytes('1'));
    await store.get('/r/configmaps/ns/a');
    await store.update('/r/configmaps/ns/a', bytes('2'), w.revision);
    await store.list('/r/configmaps/', { limit: 10 });
    await store.list('/r/configmaps/', { countOnly: true });
    await store.currentRevision();
    await store.txn([{ key: '/r/configmaps/ns/a', modRevision: 1 }], [{ type: 'delete', key: '/r/configmaps/ns/a' }]);
    await expect(store.create('/r/configmaps/ns/b', bytes('1')).then(() => store.create('/r/configmaps/ns/b', bytes('1')))).rejects.toMatchObject({ code: 'AlreadyExists' });
    await expect(store.update('/r/configmaps/ns/b', bytes('3'), 999_999)).rejects.toMatchObject({ code: 'Conflict' });
    await expect(store.delete('/r/configmaps/ns/missing')).rejects.toMatchObject({ code: 'NotFound' });
    // Not timed.
    await store.compactedRevision();
    await store.requestProgress();
    await store.check();

    expect(recorded.map((r) => [r.operation, r.failed])).toEqual([
      ['create', false],
      ['get', false],
      ['update', false],
      ['list', false],
      ['listWithCount', false],
      ['list', false],
      ['txn', false],
      ['create', false],
      ['create', false],
      ['update', false],
      ['delete', false],
    ]);
    for (const r of recorded) {
      expect(r.type).toBe('configmaps');
      expect(r.seconds).toBeGreaterThanOrEqual(0);
      expect(r.seconds).toBeLessThan(5);
    }
    expect(hooked.map((h) => h.operation)).toEqual(recorded.map((r) => r.operation));
    expect(hooked[0]).toMatchObject({ operation: 'create', type: 'configmaps', key: '/r/configmaps/ns/a' });
    expect(hooked.at(-1)).toMatchObject({ operation: 'delete', key: '/r/configmaps/ns/missing', error: expect.objectContaining({ code: 'NotFound' }) });
    expect(hooked.filter((h) => h.error !== undefined).map((h) => (h.error as StorageError).code)).toEqual(['AlreadyExists', 'Conflict', 'NotFound']);
  });

  it('counts a backend failure as failed (a read at a compacted revision; a closed store)', async () => {
    await store.create('/r/configmaps/ns/a', bytes('1'));
    const w = await store.create('/r/configmaps/ns/b', bytes('1'));
    await inner.compact(w.revision);
    await expect(store.get('/r/configmaps/ns/a', { revision: 1 })).rejects.toMatchObject({ code: 'Compacted' });
    await inner.close();
    await expect(store.list('/r/configmaps/')).rejects.toMatchObject({ code: 'Unavailable' });
    expect(recorded.slice(-2).map((r) => [r.operation, r.failed])).toEqual([
      ['get', true],
      ['list', true],
    ]);
    expect(isBackendFailure(new StorageError('Timeout', 'deadline'))).toBe(true);
    expect(isBackendFailure(new Error('anything else'))).toBe(true);
    expect(isBackendFailure(new StorageError('NotFound', 'missing'))).toBe(false);
  });

  it('passes watches through untimed', async () => {
    const ac = new AbortController();
    const batches = store.watch('/r/configmaps/', { signal: ac.signal })[Symbol.asyncIterator]();
    const next = batches.next();
    await inner.create('/r/configmaps/ns/w', bytes('1'));
    expect((await next).value.events[0].kv.key).toBe('/r/configmaps/ns/w');
    ac.abort();
    expect(recorded).toEqual([]);
  });

  it('is the store itself when there is nothing to record', () => {
    expect(instrumentStore(inner, 'configmaps', {})).toBe(inner);
  });
});
