/**
 * The etcd backend against a 3-member cluster that loses a member in the middle of a stream of writes:
 * every acknowledged write survives with its revision, and watches (one per member that cannot fail over,
 * one over all members that can) deliver every revision exactly once, in order.
 */
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { WatchReader } from '../../storage/testing/watch-reader.js';
import { describeEtcd, revisionsBetween } from '../harness/describe-etcd.js';
import { openEtcdStore, type EtcdStore } from '../../storage/etcd/etcd-store.js';

describeEtcd('etcd backend: a member dies mid-stream', () => {
  let cluster: EtcdCluster;
  const stores: EtcdStore[] = [];

  beforeAll(async () => {
    cluster = await startEtcd({ members: 3 });
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await cluster?.stop();
  });

  test('acknowledged writes survive; watches see every revision once, in order', async () => {
    const open = async (endpoints: readonly string[]): Promise<EtcdStore> => {
      const s = await openEtcdStore({ endpoints, callTimeoutMs: 15_000 });
      stores.push(s);
      return s;
    };
    const writer = await open(cluster.endpoints);
    const p = '/failover/';
    const from = (await writer.currentRevision()) + 1;
    // Watches pinned to one member each (the killed one must resume after its restart) and one that can
    // move to another member.
    const watchStores = [...(await Promise.all(cluster.endpoints.map((e) => open([e])))), await open(cluster.endpoints)];
    const readers = watchStores.map((s) => new WatchReader((signal) => s.watch(p, { fromRevision: from, signal })));

    const total = 400;
    const concurrency = 8;
    const acked = new Map<string, number>();
    let failures = 0;
    let next = 0;
    let killed: Promise<void> | undefined;
    const victim = cluster.members[1]!;
    const worker = async (): Promise<void> => {
      while (next < total) {
        const key = `${p}k${String(next++).padStart(4, '0')}`;
        try {
          const { revision } = await writer.create(key, Buffer.from(key));
          acked.set(key, revision);
        } catch {
          failures += 1; // unacknowledged: may or may not have been applied
        }
        if (acked.size >= 100 && killed === undefined) killed = victim.kill();
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    await killed;
    expect(acked.size).toBeGreaterThan(total / 2);

    for (const [key, revision] of acked) {
      const { kv } = await writer.get(key);
      expect(kv?.modRevision).toBe(revision);
    }
    const last = await writer.currentRevision();
    // Everything written under the prefix since `from` is ours, acknowledged or not: the revisions are
    // exactly from..last.
    const expected = revisionsBetween(from, last);
    const survivors = readers.filter((_, i) => i !== 1);
    for (const r of survivors) await r.until((x) => x.events.at(-1)?.kv.modRevision === last, 60_000, `revision ${last}`);

    await victim.start();
    await readers[1]!.until((x) => x.events.at(-1)?.kv.modRevision === last, 60_000, `revision ${last} after restart`);
    for (const r of readers) {
      await r.stop();
      expect(r.error).toBeUndefined();
      expect(r.events.map((e) => e.kv.modRevision)).toEqual(expected);
    }
    const revisions = new Set(readers[0]!.events.map((e) => e.kv.modRevision));
    for (const revision of acked.values()) expect(revisions.has(revision)).toBe(true);
    // The kill happened mid-stream: writes were acknowledged after it.
    expect(acked.size + failures).toBe(total);
    expect(acked.size).toBeGreaterThan(100);
  });
});
