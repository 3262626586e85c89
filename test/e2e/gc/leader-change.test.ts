/**
 * The garbage collector across a leader change: two replicas on one etcd share the controllers' Lease; the
 * first (the leader) starts a foreground deletion held by a dependent's finalizer and is stopped; the
 * second takes the Lease and finishes it, collects the dependents of an owner deleted after the change,
 * orphans as asked, and deletes nothing else (dependents of a live owner keep their references).
 */
import { naming } from '../../../apiserver/naming/naming.js';
import { describeEtcd } from '../../harness/describe-etcd.js';
import { backends, stopBackends, type TestApi } from '../../http/helpers.js';
import { until as poll } from '../../harness/until.js';

const etcd = backends().filter((b) => b.name === 'etcd');
afterAll(() => stopBackends(etcd));

const names = naming('platform.io');
const LEASE = `/apis/${names.group('coordination')}/v1/namespaces/${names.systemNamespace}/leases/platform-apiserver-controllers`;
const ns = 'gc-leader';
const cms = `/api/v1/namespaces/${ns}/configmaps`;

const until = <T>(what: string, check: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> => poll(what, check, ms, 100);

async function must(api: TestApi, method: string, path: string, body: unknown, status: number): Promise<any> {
  const res = await api.request(method, path, body === undefined ? {} : { body });
  if (res.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${res.status}: ${res.text()}`);
  return res.json();
}

const holder = async (api: TestApi): Promise<string> => {
  const res = await api.request('GET', LEASE);
  return res.status === 200 ? String(res.json().spec?.holderIdentity ?? '') : '';
};

describeEtcd('garbage collection across a leader change (two replicas, one etcd)', () => {
  test('the new leader finishes what the old one started and over-deletes nothing', async () => {
    const storagePrefix = `/registry-gc-${process.pid}`;
    const first = await etcd[0]!.start({ storagePrefix });
    await until('first replica leads', async () => (await holder(first)) !== '');
    const firstHolder = await holder(first);
    const second = await etcd[0]!.start({ storagePrefix });
    expect(await holder(second)).toBe(firstHolder);

    const cm = (name: string, owners: any[] = [], finalizers: string[] = []) => ({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name, ...(owners.length ? { ownerReferences: owners } : {}), ...(finalizers.length ? { finalizers } : {}) },
    });
    const ref = (o: any, block = true) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.metadata.name, uid: o.metadata.uid, blockOwnerDeletion: block });
    const exists = async (api: TestApi, name: string): Promise<any> => {
      const res = await api.request('GET', `${cms}/${name}`);
      return res.status === 200 ? res.json() : undefined;
    };

    await must(first, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, 201);
    const keeper = await must(first, 'POST', cms, cm('keeper'), 201);
    for (let i = 0; i < 5; i++) await must(first, 'POST', cms, cm(`bystander-${i}`, [ref(keeper)]), 201);
    const fg = await must(first, 'POST', cms, cm('fg'), 201);
    await must(first, 'POST', cms, cm('fg-held', [ref(fg)], ['example.com/hold']), 201);
    for (let i = 0; i < 10; i++) await must(first, 'POST', cms, cm(`fg-${i}`, [ref(fg)]), 201);

    // The first leader's collector starts the foreground deletion: dependents deleted, one held.
    await must(first, 'DELETE', `${cms}/fg`, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground' }, 200);
    await until('foreground under way', async () => (await exists(first, 'fg-held'))?.metadata.deletionTimestamp !== undefined);

    // Leader change: the first replica stops (releasing the Lease), the second takes over.
    await first.server.close();
    await until('second replica leads', async () => {
      const h = await holder(second);
      return h !== '' && h !== firstHolder;
    });

    // Work for the new leader: the held dependent goes; an owner is deleted in the background; another is orphaned.
    const held = await exists(second, 'fg-held');
    held.metadata.finalizers = [];
    await must(second, 'PUT', `${cms}/fg-held`, held, 200);
    const bg = await must(second, 'POST', cms, cm('bg'), 201);
    for (let i = 0; i < 5; i++) await must(second, 'POST', cms, cm(`bg-${i}`, [ref(bg)]), 201);
    const or = await must(second, 'POST', cms, cm('or'), 201);
    for (let i = 0; i < 5; i++) await must(second, 'POST', cms, cm(`or-${i}`, [ref(or)]), 201);
    await must(second, 'DELETE', `${cms}/bg`, undefined, 200);
    await must(second, 'DELETE', `${cms}/or`, { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Orphan' }, 200);

    await until('foreground finished', async () => (await exists(second, 'fg')) === undefined);
    await until('background dependents collected', async () => {
      for (let i = 0; i < 5; i++) if ((await exists(second, `bg-${i}`)) !== undefined) return false;
      return true;
    });
    await until('orphaning finished', async () => (await exists(second, 'or')) === undefined);

    const left = (await must(second, 'GET', cms, undefined, 200)).items.map((o: any) => o.metadata.name).sort();
    expect(left).toEqual(['bystander-0', 'bystander-1', 'bystander-2', 'bystander-3', 'bystander-4', 'keeper', 'or-0', 'or-1', 'or-2', 'or-3', 'or-4']);
    for (let i = 0; i < 5; i++) {
      expect((await exists(second, `or-${i}`)).metadata.ownerReferences).toBeUndefined();
      expect((await exists(second, `bystander-${i}`)).metadata.ownerReferences).toEqual([ref(keeper)]);
    }
    await second.server.close();
  }, 120_000);
});
