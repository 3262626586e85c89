import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { describeEtcd } from '../../test/harness/describe-etcd.js';
import { openEtcdStore, type EtcdStore } from './etcd-store.js';

describeEtcd('etcd list paging beyond the 4 MiB gRPC message cap', () => {
  const n = 10_000;
  const p = '/paging/';
  const keyOf = (i: number): string => `${p}${String(i).padStart(5, '0')}`;
  let cluster: EtcdCluster;
  let store: EtcdStore;
  let capped: EtcdStore;
  let written = 0;

  beforeAll(async () => {
    cluster = await startEtcd();
    store = await openEtcdStore({ endpoints: cluster.endpoints });
    // gRPC's usual 4 MiB cap: only paging keeps each message under it.
    capped = await openEtcdStore({
      endpoints: cluster.endpoints,
      rangePageSize: 1_000,
      maxReceiveMessageBytes: 4 * 1024 * 1024,
    });
    const value = Buffer.alloc(1024, 'x');
    for (let i = 0; i < n; i += 100) {
      const ops = Array.from({ length: 100 }, (_, j) => ({ type: 'put' as const, key: keyOf(i + j), value }));
      const res = await store.txn([], ops);
      expect(res.succeeded).toBe(true);
      written = res.revision;
    }
  });
  afterAll(async () => {
    await store?.close();
    await capped?.close();
    await cluster?.stop();
  });

  test('10k x 1 KiB lists whole, in order, at one revision', async () => {
    for (const s of [store, capped]) {
      const res = await s.list(p);
      expect(res.items).toHaveLength(n);
      expect(res.count).toBe(n);
      expect(res.more).toBe(false);
      expect(res.revision).toBeGreaterThanOrEqual(written);
      expect(res.items.every((kv, i) => kv.key === keyOf(i) && kv.value.length === 1024)).toBe(true);
    }
  });

  test('a limit above the page size is honoured, with more and count', async () => {
    const res = await capped.list(p, { limit: 7_500 });
    expect(res.items).toHaveLength(7_500);
    expect(res.items.at(-1)!.key).toBe(keyOf(7_499));
    expect(res.more).toBe(true);
    expect(res.count).toBe(n);
    const rest = await capped.list(p, { startKey: `${keyOf(7_499)}\x00`, revision: res.revision, limit: 5_000 });
    expect(rest.items).toHaveLength(2_500);
    expect(rest.more).toBe(false);
    expect(rest.count).toBe(2_500);
    expect(rest.revision).toBe(res.revision);
  });

  test('a limit that ends exactly at a page boundary and at the last key', async () => {
    const page = await capped.list(p, { limit: 2_000 });
    expect(page.items).toHaveLength(2_000);
    expect(page.more).toBe(true);
    const all = await capped.list(p, { limit: n });
    expect(all.items).toHaveLength(n);
    expect(all.more).toBe(false);
  });

  test('an old revision is reported as requested, not as etcd\'s header revision', async () => {
    await store.create('/paging-later/x', Buffer.from('v'));
    const res = await capped.list(p, { revision: written, limit: 1 });
    expect(res.revision).toBe(written);
    expect(res.count).toBe(n);
  });
});
