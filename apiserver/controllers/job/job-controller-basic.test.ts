/**
 * The job controller over the real registries (embedded store), the test as node agent: NonIndexed jobs
 * with parallelism and completions, jobs without completions, status.ready, the tracking finalizer and
 * the three-step counting, the interim SuccessCriteriaMet condition before Complete, events.
 */
import type { KubeObject } from '../../api/object.js';
import {
  activePods,
  condition,
  createJob,
  eventsAbout,
  getJob,
  NS,
  openHarness,
  podsOf,
  setPodStatus,
  statusOf,
  until,
  waitForCondition,
  waitForEvent,
  type Harness,
} from './testing-harness.js';

let h: Harness;
afterEach(async () => h?.close());

test('completions 3, parallelism 2: two pods, then only the one left to do; SuccessCriteriaMet then Complete', async () => {
  h = await openHarness();
  const job = await createJob(h, 'work', { completions: 3, parallelism: 2 });
  const first = await activePods(h, job, 2);
  for (const p of first) {
    expect(p.metadata.generateName).toBe('work-');
    expect(p.metadata.finalizers).toEqual(['batch.platform.io/job-tracking']);
    expect(p.metadata.ownerReferences).toEqual([{ apiVersion: 'batch/v1', kind: 'Job', name: 'work', uid: job.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(p.metadata.labels).toEqual(expect.objectContaining({ 'batch.platform.io/job-name': 'work', 'batch.platform.io/controller-uid': job.metadata.uid }));
  }
  const running = await until('active 2 and a startTime', async () => {
    const j = await getJob(h, 'work');
    return statusOf(j).active === 2 && statusOf(j).startTime !== undefined ? j : undefined;
  });
  expect(statusOf(running)).toEqual(expect.objectContaining({ active: 2, ready: 0, terminating: 0, uncountedTerminatedPods: {} }));

  await setPodStatus(h, first[0]!, 'Succeeded');
  // One success: 2 remain, parallelism 2: a replacement is created.
  await until('one succeeded counted, two active', async () => {
    const j = await getJob(h, 'work');
    return statusOf(j).succeeded === 1 && activeOf(await podsOf(h, job)).length === 2 ? j : undefined;
  });
  // The counted pod lost its finalizer (step 2 of the counting).
  expect((await h.pods.get(NS, first[0]!.metadata.name!)).metadata.finalizers).toBeUndefined();

  await setPodStatus(h, first[1]!, 'Succeeded');
  // Two successes: one completion left, so only one pod runs (fewer pods when less work remains).
  const last = await activePods(h, job, 1);
  expect(statusOf(await until('succeeded 2', async () => {
    const j = await getJob(h, 'work');
    return statusOf(j).succeeded === 2 ? j : undefined;
  })).active).toBe(1);
  await setPodStatus(h, last[0]!, 'Succeeded');

  const done = await waitForCondition(h, 'work', 'Complete');
  const s = statusOf(done);
  expect(s.succeeded).toBe(3);
  expect(s.failed ?? 0).toBe(0);
  expect(s.active).toBe(0);
  expect(s.uncountedTerminatedPods).toEqual({});
  expect(s.completionTime).toBeDefined();
  expect(condition(done, 'SuccessCriteriaMet')).toEqual(expect.objectContaining({ status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' }));
  expect(condition(done, 'Complete')).toEqual(expect.objectContaining({ status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' }));
  // SuccessCriteriaMet comes first in the list: it was written before Complete.
  expect(s.conditions!.map((c) => c.type)).toEqual(['SuccessCriteriaMet', 'Complete']);
  for (const p of await podsOf(h, job)) expect(p.metadata.finalizers).toBeUndefined();
  expect((await podsOf(h, job)).length).toBe(3);
  await waitForEvent(h, 'work', 'Normal Completed: Job completed');
  const events = await eventsAbout(h, 'work');
  expect(events.filter((e) => e.startsWith('Normal SuccessfulCreate: Created pod: work-'))).toHaveLength(3);
});

const activeOf = (pods: readonly KubeObject[]): KubeObject[] =>
  pods.filter((p) => p.metadata.deletionTimestamp === undefined && !['Succeeded', 'Failed'].includes((p.status as { phase?: string }).phase ?? ''));

test('completions unset: any success ends the job once the other pods finish', async () => {
  h = await openHarness();
  const job = await createJob(h, 'any', { parallelism: 2 });
  const [a, b] = await activePods(h, job, 2);
  await setPodStatus(h, a!, 'Succeeded');
  await until('succeeded 1', async () => statusOf(await getJob(h, 'any')).succeeded === 1);
  // The other pod keeps running and nothing new is created.
  expect(activeOf(await podsOf(h, job))).toHaveLength(1);
  expect(condition(await getJob(h, 'any'), 'Complete')).toBeUndefined();
  await setPodStatus(h, b!, 'Succeeded');
  const done = await waitForCondition(h, 'any', 'Complete');
  expect(statusOf(done).succeeded).toBe(2);
});

test('status.ready counts active pods with Ready=True', async () => {
  h = await openHarness();
  const job = await createJob(h, 'ready', { completions: 2, parallelism: 2 });
  const [a] = await activePods(h, job, 2);
  await setPodStatus(h, a!, 'Running', { ready: true });
  await until('ready 1', async () => statusOf(await getJob(h, 'ready')).ready === 1);
});

test('a 1,000-completion Job completes', async () => {
  h = await openHarness();
  const job = await createJob(h, 'big', { completions: 1000, parallelism: 100 });
  const done = new Set<string>();
  await until(
    'the 1,000-completion job complete',
    async () => {
      const j = await getJob(h, 'big');
      if (condition(j, 'Complete')?.status === 'True') return j;
      for (const p of activeOf(await podsOf(h, job))) {
        if (done.has(p.metadata.uid!)) continue;
        done.add(p.metadata.uid!);
        await setPodStatus(h, p, 'Succeeded');
      }
      return undefined;
    },
    120_000,
  );
  const final = statusOf(await getJob(h, 'big'));
  expect(final.succeeded).toBe(1000);
  expect(final.failed ?? 0).toBe(0);
  // Never more pods than completions: expectations kept every pass from creating twice.
  expect((await podsOf(h, job)).length).toBe(1000);
}, 180_000);

test('three-step counting: the UID enters uncountedTerminatedPods, then the finalizer goes, then the counter grows', async () => {
  h = await openHarness();
  const job = await createJob(h, 'steps', { completions: 1 });
  const [pod] = await activePods(h, job, 1);
  const uid = pod!.metadata.uid!;
  // Every write carries the store revision as resourceVersion: one order across jobs and pods.
  const seen: Record<string, number[]> = { uncounted: [], 'finalizer removed': [], counted: [] };
  const rv = (o: KubeObject): number => Number(o.metadata.resourceVersion);
  const offJobs = h.informers.informer(h.jobs).on({
    updated(_old, o) {
      if (o.metadata.name !== 'steps') return;
      if (statusOf(o).uncountedTerminatedPods?.succeeded?.includes(uid)) seen.uncounted!.push(rv(o));
      if (statusOf(o).succeeded === 1) seen.counted!.push(rv(o));
    },
  });
  const offPods = h.informers.informer(h.pods).on({
    updated(old, o) {
      if (o.metadata.uid === uid && old.metadata.finalizers !== undefined && o.metadata.finalizers === undefined) seen['finalizer removed']!.push(rv(o));
    },
  });
  await setPodStatus(h, pod!, 'Succeeded');
  await waitForCondition(h, 'steps', 'Complete');
  await until('all three steps seen', () => Object.values(seen).every((l) => l.length > 0));
  offJobs();
  offPods();
  const [uncounted, removed, counted] = [seen.uncounted![0]!, seen['finalizer removed']![0]!, seen.counted![0]!];
  expect(uncounted).toBeLessThan(removed);
  expect(removed).toBeLessThan(counted);
  expect(seen.uncounted!.every((r) => r < counted)).toBe(true);
});
