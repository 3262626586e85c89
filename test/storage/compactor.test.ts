import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../storage/interface.js';
import { compactionRound, startCompactor, type CompactorState } from '../../storage/compactor.js';
import { openMemoryStore } from '../../storage/memory/memory-store.js';
import { openEtcdStore } from '../../storage/etcd/etcd-store.js';
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';

const fresh: CompactorState = { keyRevision: 0, revision: 0 };
const write = async (s: Store, key: string): Promise<number> => (await s.txn([], [{ type: 'put', key, value: Buffer.from('x') }])).revision;

/** Two replicas (two clients of one etcd) racing round by round: exactly one compaction per round. */
async function twoReplicaRounds(a: Store, b: Store): Promise<void> {
  let sa = fresh;
  let sb = fresh;
  // Round 1: A ticks first and wins, but has nothing to compact yet; B loses.
  const a1 = await compactionRound(a, sa);
  sa = a1.state;
  expect(a1.compacted).toBeUndefined();
  const b1 = await compactionRound(b, sb);
  sb = b1.state;
  expect(b1.compacted).toBeUndefined();
  const seenAtRound1 = sa.revision;
  await write(a, '/registry/x/1');

  // Round 2: B ticks first this time. It saw A's write in round 1 and nobody wrote since: B wins and
  // compacts to the revision it saw one interval earlier. A then loses.
  const b2 = await compactionRound(b, sb);
  sb = b2.state;
  expect(b2.compacted).toBe(b1.state.revision);
  expect(b2.compacted).toBeGreaterThanOrEqual(seenAtRound1);
  const a2 = await compactionRound(a, sa);
  sa = a2.state;
  expect(a2.compacted).toBeUndefined();
  expect(await a.compactedRevision()).toBe(b2.compacted);

  // Round 3: A first again; it compacts to what it saw in round 2.
  await write(b, '/registry/x/2');
  const a3 = await compactionRound(a, sa);
  expect(a3.compacted).toBe(a2.state.revision);
  const b3 = await compactionRound(b, b2.state);
  expect(b3.compacted).toBeUndefined();
  expect(await b.compactedRevision()).toBe(a3.compacted);
}

describe('compactor on the embedded store', () => {
  let dir: string;
  let store: Store;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'compactor-'));
    store = await openMemoryStore({ dataDir: dir });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a single replica compacts to the revision of its previous round', async () => {
    let state = fresh;
    const first = await compactionRound(store, state);
    expect(first.compacted).toBeUndefined();
    state = first.state;
    const r = await write(store, '/registry/a');
    const second = await compactionRound(store, state);
    expect(second.compacted).toBe(state.revision);
    expect(second.compacted).toBeLessThan(r);
    expect(await store.compactedRevision()).toBe(second.compacted);
    // The write after the compacted revision is still readable at its own revision.
    expect((await store.get('/registry/a', { revision: r })).kv).toBeDefined();
  });

  test('the timer runs rounds until stopped and reports compactions', async () => {
    const compacted: number[] = [];
    const errors: unknown[] = [];
    let notify: () => void = () => undefined;
    const twoCompactions = new Promise<void>((resolve) => {
      notify = () => compacted.length >= 2 && resolve();
    });
    const c = startCompactor(store, {
      intervalMs: 20,
      key: 'timer_compact_key',
      onCompacted: (rev) => {
        compacted.push(rev);
        notify();
      },
      onError: (err) => errors.push(err),
    });
    // Writes between rounds give each round something new to compact.
    const writer = setInterval(() => void write(store, '/registry/timer'), 5);
    try {
      await twoCompactions;
    } finally {
      clearInterval(writer);
      await c.stop();
    }
    expect(errors).toEqual([]);
    expect(compacted[1]!).toBeGreaterThan(compacted[0]!);
    const after = compacted.length;
    await write(store, '/registry/timer');
    expect(compacted.length).toBe(after);
  });

  test('rejects a non-positive interval', () => {
    expect(() => startCompactor(store, { intervalMs: 0 })).toThrow(/positive/);
  });
});

describe('compactor with two replicas on one etcd', () => {
  let cluster: EtcdCluster;
  let a: Store;
  let b: Store;
  beforeAll(async () => {
    cluster = await startEtcd();
    a = await openEtcdStore({ endpoints: cluster.endpoints });
    b = await openEtcdStore({ endpoints: cluster.endpoints });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await cluster?.stop();
  });

  test('they compact once per round between them', async () => {
    await twoReplicaRounds(a, b);
  });
});

describe('compactor with two replicas on the embedded store', () => {
  test('they compact once per round between them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'compactor-2-'));
    const store = await openMemoryStore({ dataDir: dir });
    try {
      // One process per data dir: "replicas" here are two compactors on the same store.
      await twoReplicaRounds(store, store);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
