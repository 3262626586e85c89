import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../storage/interface.js';
import { unavailable } from '../../storage/errors.js';
import { openMemoryStore } from '../../storage/memory/memory-store.js';
import { startLeaderElection, type LeaderElector } from './leader-election.js';

const KEY = '/registry/leases/platform-system/test-controller';
let dir: string;
let store: Store;
const electors: LeaderElector[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'leader-'));
  store = await openMemoryStore({ dataDir: dir });
});
afterEach(async () => {
  await Promise.all(electors.splice(0).map((e) => e.stop()));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A replica: its elector plus a log of what happened to it, in global order. */
function replica(name: string, log: string[], s: Store = store): { elector: LeaderElector; started: Promise<AbortSignal> } {
  let resolveStarted: (signal: AbortSignal) => void = () => undefined;
  const started = new Promise<AbortSignal>((r) => {
    resolveStarted = r;
  });
  const elector = startLeaderElection({
    store: s,
    key: KEY,
    name: 'test-controller',
    namespace: 'platform-system',
    identity: name,
    leaseDurationMs: 1000,
    renewDeadlineMs: 400,
    retryPeriodMs: 50,
    onStartedLeading: (signal) => {
      log.push(`${name} started`);
      resolveStarted(signal);
    },
    onStoppedLeading: () => log.push(`${name} stopped`),
  });
  electors.push(elector);
  return { elector, started };
}

/** Resolves after the lease record has been written `n` more times (renewals). */
async function renewals(n: number): Promise<void> {
  const from = (await store.currentRevision()) + 1;
  let seen = 0;
  for await (const batch of store.watch(KEY, { fromRevision: from })) {
    seen += batch.events.length;
    if (seen >= n) return;
  }
}

test('exactly one of two replicas leads, and keeps renewing', async () => {
  const log: string[] = [];
  const a = replica('a', log);
  const b = replica('b', log);
  await Promise.race([a.started, b.started]);
  await renewals(5);
  expect(log).toHaveLength(1);
  expect([a.elector.isLeader, b.elector.isLeader].filter(Boolean)).toHaveLength(1);
  const lease = JSON.parse(Buffer.from((await store.get(KEY)).kv!.value).toString()) as { kind: string; spec: { holderIdentity: string } };
  expect(lease.kind).toBe('Lease');
  expect(lease.spec.holderIdentity).toBe(log[0]!.split(' ')[0]);
});

test('a leader that stops releases the lease and the other takes over', async () => {
  const log: string[] = [];
  const a = replica('a', log);
  const signal = await a.started;
  const b = replica('b', log);
  await renewals(2);
  expect(b.elector.isLeader).toBe(false);
  await a.elector.stop();
  expect(signal.aborted).toBe(true);
  await b.started;
  expect(log).toEqual(['a started', 'a stopped', 'b started']);
});

test('a leader that cannot renew stops leading before anyone else starts', async () => {
  const log: string[] = [];
  // Replica a's view of the store breaks (a partitioned replica): its writes fail.
  let partitioned = false;
  const aStore: Store = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if ((prop === 'update' || prop === 'create') && typeof value === 'function') {
        return (...args: unknown[]) => (partitioned ? Promise.reject(unavailable('partitioned')) : (value as (...a: unknown[]) => unknown).apply(target, args));
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const a = replica('a', log, aStore);
  const signal = await a.started;
  const b = replica('b', log);
  await renewals(2);
  partitioned = true;
  await b.started;
  expect(signal.aborted).toBe(true);
  expect(log).toEqual(['a started', 'a stopped', 'b started']);
});
