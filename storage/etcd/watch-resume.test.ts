import { startEtcd, type EtcdCluster } from '../../test/harness/etcd.js';
import { WatchReader } from '../testing/watch-reader.js';
import { describeEtcd, revisionsBetween } from '../../test/harness/describe-etcd.js';
import { openEtcdStore, type EtcdStore } from './etcd-store.js';

const bytes = (s: string): Uint8Array => Buffer.from(s);

describeEtcd('etcd watch resumes across a dropped stream', () => {
  let cluster: EtcdCluster;
  let store: EtcdStore;

  beforeAll(async () => {
    cluster = await startEtcd();
    store = await openEtcdStore({ endpoints: cluster.endpoints, callTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  test('killing and restarting the only member: every revision exactly once, in order', async () => {
    const p = '/resume/kill/';
    const from = (await store.currentRevision()) + 1;
    // A watch that starts in the past and one that starts "now": both resume from their own last revision.
    const reader = new WatchReader((signal) => store.watch(p, { fromRevision: from, signal }));
    let last = 0;
    for (let i = 0; i < 50; i++) last = (await store.create(`${p}a${i}`, bytes(`v${i}`))).revision;
    await reader.until((r) => r.events.length >= 25, 15_000, 'half of the first writes');

    await cluster.members[0]!.kill();
    await cluster.members[0]!.start();
    for (let i = 0; i < 50; i++) last = (await store.create(`${p}b${i}`, bytes(`v${i}`))).revision;
    await reader.until((r) => r.events.at(-1)?.kv.modRevision === last, 30_000, `revision ${last}`);
    await reader.stop();

    expect(reader.error).toBeUndefined();
    expect(reader.events.map((e) => e.kv.modRevision)).toEqual(revisionsBetween(from, last));
    const batchRevisions = reader.batches.filter((b) => b.events.length > 0).map((b) => b.revision);
    expect(batchRevisions).toEqual([...batchRevisions].sort((a, b) => a - b));
  });

  test('a watch from an old revision, dropped early, resumes without gaps', async () => {
    const p = '/resume/catchup/';
    const from = (await store.currentRevision()) + 1;
    let last = 0;
    for (let i = 0; i < 300; i++) last = (await store.create(`${p}k${i}`, bytes('x'.repeat(512)))).revision;
    const reader = new WatchReader((signal) => store.watch(p, { fromRevision: from, signal }));
    await reader.until((r) => r.events.length > 0, 15_000, 'the first catch-up events');
    await cluster.members[0]!.kill();
    await cluster.members[0]!.start();
    await reader.until((r) => r.events.at(-1)?.kv.modRevision === last, 30_000, `revision ${last}`);
    await reader.stop();
    expect(reader.events.map((e) => e.kv.modRevision)).toEqual(revisionsBetween(from, last));
  });
});
