import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../storage/interface.js';
import { unavailable } from '../../storage/errors.js';
import { openMemoryStore } from '../../storage/memory/memory-store.js';
import { leases } from '../registry/kinds/coordination/lease.js';
import { canonicalMicroTime } from '../registry/kinds/coordination/micro-time.js';
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

describe('the stored Lease', () => {
  const MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
  const stored = async (): Promise<any> => JSON.parse(Buffer.from((await store.get(KEY)).kv!.value).toString());

  test('is a coordination/v1 Lease in the registry stored form, valid for the Lease kind, its metadata kept across renewals', async () => {
    const log: string[] = [];
    await replica('a', log).started;
    const first = await stored();
    await renewals(2);
    const lease = await stored();
    expect(Object.keys(lease)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(lease.apiVersion).toBe('coordination.k8s.io/v1');
    expect(lease.kind).toBe('Lease');
    expect(lease.metadata).toEqual({ name: 'test-controller', namespace: 'platform-system', uid: first.metadata.uid, creationTimestamp: first.metadata.creationTimestamp });
    expect(lease.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(lease.metadata.creationTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(lease.spec).toEqual({ holderIdentity: 'a', leaseDurationSeconds: 1, acquireTime: first.spec.acquireTime, renewTime: expect.stringMatching(MICRO), leaseTransitions: 0 });
    expect(lease.spec.renewTime > first.spec.renewTime).toBe(true);
    expect(canonicalMicroTime(lease.spec.renewTime)).toBe(lease.spec.renewTime);
    expect(leases.validate(lease)).toEqual([]);
  });

  test('uses the apiVersion it is given', async () => {
    const elector = startLeaderElection({
      store, key: KEY, name: 'test-controller', namespace: 'platform-system', identity: 'x', apiVersion: 'coordination.platform.io/v1',
      leaseDurationMs: 1000, renewDeadlineMs: 400, retryPeriodMs: 50, onStartedLeading: () => undefined,
    });
    electors.push(elector);
    await renewals(1);
    expect((await stored()).apiVersion).toBe('coordination.platform.io/v1');
  });

  test('a takeover counts a transition and sets a new acquireTime; a release empties the holder', async () => {
    const log: string[] = [];
    const a = replica('a', log);
    await a.started;
    const before = await stored();
    const b = replica('b', log);
    await a.elector.stop();
    const released = await stored();
    expect(released.spec.holderIdentity).toBe('');
    expect(released.spec.leaseDurationSeconds).toBe(1);
    await b.started;
    const after = await stored();
    expect(after.metadata.uid).toBe(before.metadata.uid);
    expect(after.spec).toEqual(expect.objectContaining({ holderIdentity: 'b', leaseTransitions: 1 }));
    expect(after.spec.acquireTime > before.spec.acquireTime).toBe(true);
  });

  test("a previous version's record (no uid, no creationTimestamp) is honoured until it expires, then completed", async () => {
    const old = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'test-controller', namespace: 'platform-system' },
      spec: { holderIdentity: 'old', leaseDurationSeconds: 1, acquireTime: '2024-01-01T00:00:00.000000Z', renewTime: '2024-01-01T00:00:00.000000Z', leaseTransitions: 3 } };
    await store.create(KEY, Buffer.from(JSON.stringify(old)));
    const log: string[] = [];
    const t0 = Date.now();
    const a = replica('a', log);
    await a.started;
    // Expiry is judged from when this replica first saw the record, not from the renewTime written in it.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    const lease = await stored();
    expect(lease.metadata).toEqual({ name: 'test-controller', namespace: 'platform-system', uid: expect.stringMatching(/^[0-9a-f-]{36}$/), creationTimestamp: expect.any(String) });
    expect(lease.spec).toEqual(expect.objectContaining({ holderIdentity: 'a', leaseTransitions: 4 }));
  });

  test('labels and annotations someone added are kept; a record that is not JSON counts as free', async () => {
    const labelled = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
      metadata: { name: 'test-controller', namespace: 'platform-system', uid: 'u-1', creationTimestamp: '2024-01-01T00:00:00Z', labels: { team: 'x' }, resourceVersion: '7' },
      spec: { holderIdentity: '' } };
    await store.create(KEY, Buffer.from(JSON.stringify(labelled)));
    const log: string[] = [];
    const a = replica('a', log);
    await a.started;
    expect((await stored()).metadata).toEqual({ name: 'test-controller', namespace: 'platform-system', uid: 'u-1', creationTimestamp: '2024-01-01T00:00:00Z', labels: { team: 'x' } });
    await a.elector.stop();

    const { kv } = await store.get(KEY);
    await store.update(KEY, Buffer.from('not json'), kv!.modRevision);
    const b = replica('b', log);
    await b.started;
    expect((await stored()).spec).toEqual(expect.objectContaining({ holderIdentity: 'b', leaseTransitions: 1 }));
  });
});
