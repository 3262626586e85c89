import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { describeEtcd } from '../../test/harness/describe-etcd.js';
import { EtcdConnection } from './etcd-connection.js';
import { openEtcdStore, type EtcdStore } from './etcd-store.js';
import { prefixEnd } from './key-value.js';
import { prefixUnchanged } from './prefix-unchanged.js';
import type { RangeCall } from './range.js';

describeEtcd('prefixUnchanged: whether a prefix is the same at two revisions, from etcd state', () => {
  let cluster: EtcdCluster;
  let store: EtcdStore;
  let connection: EtcdConnection;
  let range: RangeCall;
  let n = 0;
  const prefix = (): string => `/unchanged/${++n}/`;
  const enc = (s: string): Buffer => Buffer.from(s);
  const check = (p: string, from: number, to: number, countBefore?: number) =>
    prefixUnchanged(range, Buffer.from(p), prefixEnd(Buffer.from(p)), from, to, countBefore);
  /** A write elsewhere: moves the store's revision without touching any tested prefix. */
  const elsewhere = async (): Promise<number> => (await store.create(`/elsewhere/${++n}`, enc('x'))).revision;

  beforeAll(async () => {
    cluster = await startEtcd();
    store = await openEtcdStore({ endpoints: cluster.endpoints });
    connection = new EtcdConnection({ endpoints: cluster.endpoints, callTimeoutMs: 5_000 });
    range = (req) => connection.kv('range', req, true);
  });
  afterAll(async () => {
    connection?.close();
    await store?.close();
    await cluster?.stop();
  });

  test('writes elsewhere only: unchanged, with the count before', async () => {
    const p = prefix();
    await store.create(`${p}a`, enc('1'));
    const r1 = (await store.create(`${p}b`, enc('1'))).revision;
    await elsewhere();
    const r2 = await elsewhere();
    expect(await check(p, r1 + 1, r2)).toEqual({ unchanged: true, countBefore: 2 });
    // The count passed in is trusted (it is what the caller's events made it): a wrong one is a change.
    expect(await check(p, r1 + 1, r2, 2)).toEqual({ unchanged: true, countBefore: 2 });
    expect((await check(p, r1 + 1, r2, 3)).unchanged).toBe(false);
  });

  test('a created key, a modified key, a deleted key: each is a change; before them, none', async () => {
    const p = prefix();
    const r0 = (await store.create(`${p}a`, enc('1'))).revision;
    const rCreate = (await store.create(`${p}b`, enc('1'))).revision;
    const rUpdate = (await store.update(`${p}a`, enc('2'), r0)).revision;
    const rDelete = (await store.delete(`${p}b`)).revision;
    const rLater = await elsewhere();
    expect(await check(p, r0 + 1, rCreate)).toEqual({ unchanged: false, countBefore: 1 });
    expect((await check(p, rCreate + 1, rUpdate)).unchanged).toBe(false);
    expect((await check(p, rUpdate + 1, rDelete)).unchanged).toBe(false);
    expect(await check(p, rDelete + 1, rLater)).toEqual({ unchanged: true, countBefore: 1 });
    // Across all three writes the prefix changed, though the count is back where it was.
    expect((await check(p, r0 + 1, rLater)).unchanged).toBe(false);
  });

  test('a key created and deleted again in between leaves no trace (the state is the same)', async () => {
    const p = prefix();
    const r0 = (await store.create(`${p}a`, enc('1'))).revision;
    await store.create(`${p}gone`, enc('1'));
    const r2 = (await store.delete(`${p}gone`)).revision;
    expect(await check(p, r0 + 1, r2)).toEqual({ unchanged: true, countBefore: 1 });
  });

  test('from revision 1: nothing existed before it (etcd would read revision 0 as now)', async () => {
    const p = prefix();
    const now = await elsewhere();
    expect(await check(p, 1, now)).toEqual({ unchanged: true, countBefore: 0 });
  });

  test('the count before a compacted revision cannot be read: etcd\'s error, unless the caller knows it', async () => {
    const p = prefix();
    const r0 = (await store.create(`${p}a`, enc('1'))).revision;
    await elsewhere();
    const r2 = await elsewhere();
    await store.compact(r2);
    await expect(check(p, r0 + 1, r2)).rejects.toThrow(/compacted/);
    expect(await check(p, r0 + 1, r2, 1)).toEqual({ unchanged: true, countBefore: 1 });
  });
});
