import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { isStorageError } from '../errors.js';
import { WatchReader } from '../testing/watch-reader.js';
import { describeEtcd } from '../../test/harness/describe-etcd.js';
import { openEtcdStore, type EtcdStore } from './etcd-store.js';

const bytes = (s: string): Uint8Array => Buffer.from(s);

describeEtcd('etcd compaction seen by a store that did not compact', () => {
  let cluster: EtcdCluster;
  let compactor: EtcdStore;
  let other: EtcdStore;

  beforeAll(async () => {
    cluster = await startEtcd();
    compactor = await openEtcdStore({ endpoints: cluster.endpoints });
    other = await openEtcdStore({ endpoints: cluster.endpoints });
  });
  afterAll(async () => {
    await compactor?.close();
    await other?.close();
    await cluster?.stop();
  });

  test('compactedRevision is discovered exactly; never-compacted is 0', async () => {
    expect(await other.compactedRevision()).toBe(0);
    const p = '/compaction/discover/';
    let target = 0;
    for (let i = 0; i < 40; i++) {
      const { revision } = await compactor.create(`${p}k${i}`, bytes('v'));
      if (i === 23) target = revision;
    }
    await compactor.compact(target);
    expect(await other.compactedRevision()).toBe(target);
    expect(await compactor.compactedRevision()).toBe(target);
  });

  test('a read below it is Compacted with the compacted revision', async () => {
    const compactedAt = await compactor.compactedRevision();
    const err = await other.get('/compaction/any', { revision: compactedAt - 1 }).catch((e: unknown) => e);
    expect(isStorageError(err, 'Compacted')).toBe(true);
    expect(err).toMatchObject({ compactedRevision: compactedAt, requestedRevision: compactedAt - 1 });
  });

  test('a watch from before it fails with Compacted and etcd\'s compact revision', async () => {
    const p = '/compaction/watch/';
    const first = (await compactor.create(`${p}a`, bytes('1'))).revision;
    const second = (await compactor.create(`${p}b`, bytes('2'))).revision;
    await compactor.create(`${p}c`, bytes('3'));
    await compactor.compact(second);
    const fresh = await openEtcdStore({ endpoints: cluster.endpoints });
    try {
      const reader = new WatchReader((signal) => fresh.watch(p, { fromRevision: first, signal }));
      await reader.untilDone();
      expect(isStorageError(reader.error, 'Compacted')).toBe(true);
      expect(reader.error).toMatchObject({ compactedRevision: second, requestedRevision: first });
      expect(reader.events).toEqual([]);
      // The watch told the fresh store where compaction is: no further discovery needed to agree.
      expect(await fresh.compactedRevision()).toBe(second);
    } finally {
      await fresh.close();
    }
  });
});
