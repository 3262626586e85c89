import { Etcd3 } from 'etcd3';
import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { describeEtcd } from '../../test/harness/describe-etcd.js';
import { openEtcdStore, type EtcdStore } from './etcd-store.js';

const bytes = (s: string): Uint8Array => Buffer.from(s);

/**
 * How writes with a ttl use etcd leases, read back from etcd itself (each key's lease, each lease's
 * granted ttl): shared within the reuse window and up to the key limit, granted for the ttl plus the
 * window, never attached without a ttl, and replaced when etcd no longer has it.
 */
describeEtcd('etcd leases for keys with a ttl', () => {
  let cluster: EtcdCluster;
  let raw: Etcd3;
  const stores: EtcdStore[] = [];

  const open = async (leases?: Parameters<typeof openEtcdStore>[0]['leases']): Promise<EtcdStore> => {
    const s = await openEtcdStore({ endpoints: cluster.endpoints, leases });
    stores.push(s);
    return s;
  };
  const leaseOf = async (key: string): Promise<string> => {
    const res = await raw.get(key).exec();
    const kv = res.kvs[0];
    if (kv === undefined) throw new Error(`${key} does not exist`);
    return kv.lease;
  };
  const grantedTtl = async (lease: string): Promise<number> =>
    Number((await raw.leaseClient.leaseTimeToLive({ ID: lease })).grantedTTL);

  beforeAll(async () => {
    cluster = await startEtcd();
    raw = new Etcd3({ hosts: cluster.endpoints.slice() });
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    raw?.close();
    await cluster?.stop();
  });

  test('writes close together share one lease, granted for the ttl plus the reuse window', async () => {
    const s = await open();
    await s.create('/lease/shared/a', bytes('a'), { ttlSeconds: 3600 });
    const rb = (await s.create('/lease/shared/b', bytes('b'), { ttlSeconds: 3600 })).revision;
    await s.update('/lease/shared/b', bytes('b2'), rb, { ttlSeconds: 3600 });
    const lease = await leaseOf('/lease/shared/a');
    expect(lease).not.toBe('0');
    expect(await leaseOf('/lease/shared/b')).toBe(lease);
    // kube's window: min(60 s, 5% of the ttl).
    expect(await grantedTtl(lease)).toBe(3660);
  });

  test('a write without a ttl attaches no lease and detaches the one the key had', async () => {
    const s = await open();
    const r1 = (await s.create('/lease/detach/a', bytes('a'), { ttlSeconds: 3600 })).revision;
    expect(await leaseOf('/lease/detach/a')).not.toBe('0');
    await s.update('/lease/detach/a', bytes('a2'), r1);
    expect(await leaseOf('/lease/detach/a')).toBe('0');
    await s.create('/lease/detach/b', bytes('b'));
    expect(await leaseOf('/lease/detach/b')).toBe('0');
  });

  test('short ttls get no window and a lease each; a lease is not reused past its window', async () => {
    const s = await open({ reuseSeconds: 1 });
    await s.create('/lease/short/a', bytes('a'), { ttlSeconds: 5 });
    await s.create('/lease/short/b', bytes('b'), { ttlSeconds: 5 });
    const [a, b] = [await leaseOf('/lease/short/a'), await leaseOf('/lease/short/b')];
    expect(a).not.toBe(b);
    expect(await grantedTtl(a)).toBe(5);

    // A one-second window: shared at once, a new lease once the window has passed.
    const started = Date.now();
    await s.create('/lease/window/a', bytes('a'), { ttlSeconds: 3600 });
    await s.create('/lease/window/b', bytes('b'), { ttlSeconds: 3600 });
    const first = await leaseOf('/lease/window/a');
    expect(await leaseOf('/lease/window/b')).toBe(first);
    expect(await grantedTtl(first)).toBe(3601);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 1100 - Date.now())));
    await s.create('/lease/window/c', bytes('c'), { ttlSeconds: 3600 });
    expect(await leaseOf('/lease/window/c')).not.toBe(first);
  });

  test('a lease serves at most maxKeysPerLease writes', async () => {
    const s = await open({ maxKeysPerLease: 2 });
    for (const k of ['a', 'b', 'c']) await s.create(`/lease/max/${k}`, bytes(k), { ttlSeconds: 3600 });
    const leases = await Promise.all(['a', 'b', 'c'].map((k) => leaseOf(`/lease/max/${k}`)));
    expect(leases[1]).toBe(leases[0]);
    expect(leases[2]).not.toBe(leases[0]);
  });

  test('a write whose reused lease is gone from etcd gets a fresh lease and succeeds', async () => {
    const s = await open();
    await s.create('/lease/revoked/a', bytes('a'), { ttlSeconds: 3600 });
    const revoked = await leaseOf('/lease/revoked/a');
    await raw.leaseClient.leaseRevoke({ ID: revoked });
    expect((await s.get('/lease/revoked/a')).kv).toBeUndefined();

    const r = (await s.create('/lease/revoked/b', bytes('b'), { ttlSeconds: 3600 })).revision;
    const fresh = await leaseOf('/lease/revoked/b');
    expect(fresh).not.toBe('0');
    expect(fresh).not.toBe(revoked);
    // And the fresh one is reused from then on.
    await s.update('/lease/revoked/b', bytes('b2'), r, { ttlSeconds: 3600 });
    expect(await leaseOf('/lease/revoked/b')).toBe(fresh);
  });
});
