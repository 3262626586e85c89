/**
 * Job lifecycle around the pods, the test as node agent: created suspended (no pods, no startTime),
 * resume (Suspended=False, startTime set, Resumed), suspend while running (active pods deleted without
 * counting them as failures, Suspended=True), managedBy (other controllers' jobs untouched, the reserved
 * value handled), the tracking finalizer removed from orphaned pods and from pods of a deleted job,
 * adoption of matching orphans, and expectations (never more pods than parallelism however often a job is
 * synced).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  activeOf,
  activePods,
  bind,
  condition,
  createJob,
  eventsAbout,
  getJob,
  NS,
  openHarness,
  patchSpec,
  podsOf,
  removeTerminating,
  statusOf,
  until,
  waitForCondition,
  waitForEvent,
  type Harness,
} from './testing-harness.js';

let h: Harness;
afterEach(async () => h?.close());

test('created suspended: no pods, no startTime, Suspended=True; resumed: Suspended=False, startTime, pods', async () => {
  h = await openHarness();
  const job = await createJob(h, 'later', { suspend: true, completions: 2, parallelism: 2 });
  const suspended = await waitForCondition(h, 'later', 'Suspended');
  expect(condition(suspended, 'Suspended')).toEqual(expect.objectContaining({ reason: 'JobSuspended', message: 'Job suspended' }));
  expect(statusOf(suspended).startTime).toBeUndefined();
  expect(await podsOf(h, job)).toHaveLength(0);
  await waitForEvent(h, 'later', 'Normal Suspended: Job suspended');

  await patchSpec(h, 'later', { suspend: false });
  const resumed = await waitForCondition(h, 'later', 'Suspended', 'False');
  expect(condition(resumed, 'Suspended')).toEqual(expect.objectContaining({ reason: 'JobResumed', message: 'Job resumed' }));
  expect(statusOf(resumed).startTime).toBeDefined();
  await activePods(h, job, 2);
  await waitForEvent(h, 'later', 'Normal Resumed: Job resumed');
});

test('suspending a running job deletes its active pods (not counted as failed); resuming sets startTime again', async () => {
  h = await openHarness();
  const job = await createJob(h, 'pause', { completions: 4, parallelism: 2, activeDeadlineSeconds: 600 });
  const pods = await activePods(h, job, 2);
  await bind(h, pods[0]!);
  const started = await until('startTime', async () => statusOf(await getJob(h, 'pause')).startTime);
  await patchSpec(h, 'pause', { suspend: true });
  const suspended = await waitForCondition(h, 'pause', 'Suspended');
  await until('no active pod', async () => activeOf(await podsOf(h, job)).length === 0);
  // Their finalizers went before the delete: they are not failures.
  for (const p of await podsOf(h, job)) expect(p.metadata.finalizers).toBeUndefined();
  const s = statusOf(await until('active 0', async () => {
    const j = await getJob(h, 'pause');
    return statusOf(j).active === 0 ? j : undefined;
  }));
  expect(s.failed ?? 0).toBe(0);
  expect(suspended).toBeDefined();
  const deletes = (await eventsAbout(h, 'pause')).filter((e) => e.startsWith('Normal SuccessfulDelete: Deleted pod: pause-'));
  expect(deletes).toHaveLength(2);
  expect(statusOf(await getJob(h, 'pause')).startTime).toBeUndefined();
  await removeTerminating(h, job);

  // Resume one second later at least: startTime is set anew (rfc3339 has whole seconds).
  await until('a new second', () => new Date().toISOString().slice(0, 19) + 'Z' > started);
  await patchSpec(h, 'pause', { suspend: false });
  const resumed = await waitForCondition(h, 'pause', 'Suspended', 'False');
  expect(statusOf(resumed).startTime! > started).toBe(true);
  await activePods(h, job, 2);
});

test('managedBy another controller: the job is left alone; the reserved value is the job controller', async () => {
  h = await openHarness();
  const other = await createJob(h, 'external', { managedBy: 'example.com/my-controller' });
  const mine = await createJob(h, 'reserved', { managedBy: 'platform.io/job-controller' });
  await activePods(h, mine, 1);
  // The reserved job was synced after the external one was seen; give the queue a pass anyway.
  await until('reserved job active', async () => statusOf(await getJob(h, 'reserved')).active === 1);
  expect(await podsOf(h, other)).toHaveLength(0);
  const untouched = statusOf(await getJob(h, 'external'));
  expect(untouched.startTime).toBeUndefined();
  expect(untouched.active).toBeUndefined();
});

test('the tracking finalizer is removed from orphan pods and from the pods of a deleted job', async () => {
  h = await openHarness();
  const orphan = (
    await h.pods.create(NS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stray', finalizers: [h.names.trackingFinalizer, 'example.com/keep'] },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    })
  ).object;
  await until('orphan finalizer removed', async () => {
    const p = await h.pods.get(NS, orphan.metadata.name!);
    return p.metadata.finalizers?.length === 1 && p.metadata.finalizers[0] === 'example.com/keep';
  });

  const job = await createJob(h, 'gone', { completions: 1 });
  const [p] = await activePods(h, job, 1);
  await h.jobs.delete(NS, 'gone', { propagationPolicy: 'Orphan' });
  await until('the deleted job pod lost its finalizer', async () => (await h.pods.get(NS, p!.metadata.name!)).metadata.finalizers === undefined);
});

test('orphan pods the selector matches are adopted (and count as active)', async () => {
  h = await openHarness();
  const labels = { app: 'adopt-me' };
  await h.pods.create(NS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'adoptee', labels }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } });
  const job = (
    await h.jobs.create(NS, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'adopter' },
      spec: { manualSelector: true, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    })
  ).object;
  await until('adopted', async () => (await h.pods.get(NS, 'adoptee')).metadata.ownerReferences?.[0]?.uid === job.metadata.uid);
  const s = await until('active 1', async () => {
    const st = statusOf(await getJob(h, 'adopter'));
    return st.active === 1 ? st : undefined;
  });
  expect(s.active).toBe(1);
  // The adopted pod is the one active pod: none created.
  expect((await podsOf(h, job)).map((p) => p.metadata.name)).toEqual(['adoptee']);
});

test('expectations: bursts of syncs never create more pods than parallelism', async () => {
  h = await openHarness();
  const job = await createJob(h, 'burst', { completions: 50, parallelism: 20 });
  // Poke the job many times while it creates its pods (each update syncs it again).
  for (let i = 0; i < 20; i++) {
    await h.jobs.patch(NS, 'burst', (current) => ({ ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, poke: String(i) } } }));
  }
  await activePods(h, job, 20);
  await sleep(200);
  expect((await podsOf(h, job)).length).toBe(20);
});

