/**
 * The job controller across restarts and spec changes, the test as node agent: a new controller (a new
 * leader) finishes the counting a previous one started (UIDs already in uncountedTerminatedPods are counted
 * once), a lowered parallelism deletes the surplus pods without counting them as failures, and the
 * per-index back-off with the ignored-failure count of Ignore rules.
 */
import { createEventRecorder } from '../../events/event-recorder.js';
import { startJobController } from './job-controller.js';
import {
  activeOf,
  activePods,
  createJob,
  eventsAbout,
  getJob,
  NS,
  openHarness,
  patchSpec,
  podsOf,
  setPodStatus,
  statusOf,
  until,
  waitForCondition,
  type Harness,
} from './testing-harness.js';

let h: Harness;
let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
  await h?.close();
});

test('a new controller finishes the counting a previous one left in uncountedTerminatedPods', async () => {
  h = await openHarness({ controller: false });
  // What a previous controller left: its pod (finalizer and all) Succeeded, its UID already uncounted.
  const job = await createJob(h, 'handover', { completions: 1 });
  const pod = (
    await h.pods.create(NS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'handover-abcde',
        labels: (job.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels,
        finalizers: [h.names.trackingFinalizer],
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'handover', uid: job.metadata.uid!, controller: true, blockOwnerDeletion: true }],
      },
      spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] },
    })
  ).object;
  await setPodStatus(h, pod, 'Succeeded');
  const current = await getJob(h, 'handover');
  const t = new Date().toISOString().slice(0, 19) + 'Z';
  await h.jobs.update(NS, 'handover', { ...current, status: { startTime: t, active: 0, uncountedTerminatedPods: { succeeded: [pod.metadata.uid!] } } }, { subresource: 'status' });

  const c = startJobController({
    jobs: h.jobs,
    pods: h.pods,
    informers: h.informers,
    naming: h.naming,
    recorder: createEventRecorder({ events: h.events, component: 'job-controller' }),
    syncBatchPeriodMs: 0,
    apiBackoffMs: 10,
  });
  stop = () => c.stop();
  const done = await waitForCondition(h, 'handover', 'Complete');
  expect(statusOf(done)).toEqual(expect.objectContaining({ succeeded: 1, active: 0, uncountedTerminatedPods: {} }));
  expect((await h.pods.get(NS, 'handover-abcde')).metadata.finalizers).toBeUndefined();
  // Counted once: no second pod was needed or created.
  expect(await podsOf(h, job)).toHaveLength(1);
});

test('lowering parallelism deletes the surplus pods (finalizer first: not failures)', async () => {
  h = await openHarness();
  const job = await createJob(h, 'shrink', { completions: 6, parallelism: 4 });
  await activePods(h, job, 4);
  await patchSpec(h, 'shrink', { parallelism: 1 });
  await until('one active pod', async () => activeOf(await podsOf(h, job)).length === 1);
  const s = await until('status active 1', async () => {
    const st = statusOf(await getJob(h, 'shrink'));
    return st.active === 1 ? st : undefined;
  });
  expect(s.failed ?? 0).toBe(0);
  expect((await eventsAbout(h, 'shrink')).filter((e) => e.startsWith('Normal SuccessfulDelete: Deleted pod: shrink-'))).toHaveLength(3);
});

test('per-index back-off: a failed index is retried after the back-off; Ignore counts in the ignored-failure annotation', async () => {
  h = await openHarness({ podFailureBackoffMs: 500 });
  const job = await createJob(h, 'idx-backoff', {
    completionMode: 'Indexed',
    completions: 1,
    backoffLimitPerIndex: 2,
    podFailurePolicy: { rules: [{ action: 'Ignore', onExitCodes: { operator: 'In', values: [3] } }] },
  });
  const [first] = await activePods(h, job, 1);
  const failedAt = Date.now();
  await setPodStatus(h, first!, 'Failed', { exitCode: 3, finishedAt: new Date(failedAt) });
  const [second] = await activePods(h, job, 1);
  expect(Date.now() - Math.floor(failedAt / 1000) * 1000).toBeGreaterThanOrEqual(500);
  expect(second!.metadata.annotations?.[h.names.indexFailureCount]).toBe('0');
  expect(second!.metadata.annotations?.[h.names.indexIgnoredFailureCount]).toBe('1');
  await setPodStatus(h, second!, 'Failed', { exitCode: 1 });
  const [third] = await until('the third pod of index 0', async () => {
    const a = activeOf(await podsOf(h, job));
    return a.length === 1 && a[0]!.metadata.uid !== second!.metadata.uid ? a : undefined;
  });
  expect(third!.metadata.annotations?.[h.names.indexFailureCount]).toBe('1');
  expect(third!.metadata.annotations?.[h.names.indexIgnoredFailureCount]).toBe('1');
  // The failed pod kept its finalizer until its replacement existed (its counts travel by annotation); counted after.
  await until('the counted failure (the ignored one is not)', async () => statusOf(await getJob(h, 'idx-backoff')).failed === 1);
  await until('both failed pods released', async () => (await podsOf(h, job)).filter((p) => p.metadata.finalizers !== undefined).length === 1);
});
