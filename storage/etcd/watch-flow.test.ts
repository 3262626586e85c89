import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { isStorageError } from '../errors.js';
import { WatchReader } from '../testing/watch-reader.js';
import { describeEtcd } from '../../test/harness/describe-etcd.js';
import { openEtcdStore, type EtcdStore } from './etcd-store.js';

const bytes = (s: string): Uint8Array => Buffer.from(s);

describeEtcd('etcd watch: progress and slow consumers', () => {
  let cluster: EtcdCluster;
  let store: EtcdStore;

  beforeAll(async () => {
    cluster = await startEtcd();
    store = await openEtcdStore({ endpoints: cluster.endpoints, watchBufferEvents: 10 });
  });
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  test('requestProgress yields an empty batch at the current revision, also with no events under the prefix', async () => {
    const from = (await store.currentRevision()) + 1;
    const progressWanted = (): boolean => true;
    const quiet = new WatchReader((signal) => store.watch('/flow/quiet/', { fromRevision: from, signal, progressWanted }));
    const busy = new WatchReader((signal) => store.watch('/flow/busy/', { fromRevision: from, signal, progressWanted }));
    const { revision } = await store.create('/flow/busy/k', bytes('v'));
    await busy.untilEvents(1);
    // As the watch cache does: keep asking while waiting (progress is best effort, see watcher.ts).
    const ticker = setInterval(() => void store.requestProgress(), 100);
    const progressAt = (r: WatchReader): boolean =>
      r.batches.some((b) => b.events.length === 0 && b.revision >= revision);
    try {
      await quiet.until(progressAt, 15_000, 'a progress batch on the quiet watch');
      await busy.until(progressAt, 15_000, 'a progress batch on the busy watch');
    } finally {
      clearInterval(ticker);
    }
    await quiet.stop();
    await busy.stop();
    expect(quiet.events).toEqual([]);
    const lastEvents = busy.batches.filter((b) => b.events.length > 0).at(-1)!;
    const progress = busy.batches.find((b) => b.events.length === 0)!;
    expect(busy.batches.indexOf(progress)).toBeGreaterThan(busy.batches.indexOf(lastEvents));
  });

  test('a consumer that does not read fails with Lagging; writes and other watchers go on', async () => {
    const p = '/flow/lag/';
    const from = (await store.currentRevision()) + 1;
    const slow = store.watch(p, { fromRevision: from })[Symbol.asyncIterator]();
    const first = slow.next(); // starts the watch, takes the first batch
    const fast = new WatchReader((signal) => store.watch(p, { fromRevision: from, signal }));
    for (let i = 0; i < 60; i++) await store.create(`${p}k${i}`, bytes('v'));
    await fast.untilEvents(60);
    expect((await first).done).toBe(false);

    let delivered = 0;
    const err = await (async () => {
      for (;;) {
        const r = await slow.next();
        if (r.done) return undefined;
        delivered += r.value.events.length;
      }
    })().catch((e: unknown) => e);
    expect(isStorageError(err, 'Lagging')).toBe(true);
    expect(delivered).toBeLessThan(59);
    expect((await store.create(`${p}after`, bytes('v'))).revision).toBeGreaterThan(0);
    await fast.untilEvents(61);
    await fast.stop();
  });
});
