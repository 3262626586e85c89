/**
 * Failure paths of the job controller, the test as node agent: backoffLimit with the exponential back-off,
 * restartPolicy OnFailure restarts, activeDeadlineSeconds, podFailurePolicy (FailJob, Ignore, Count on exit
 * codes and pod conditions), podReplacementPolicy and status.terminating, the interim FailureTarget before
 * Failed (after the pods terminated), and the Warning events.
 */
import {
  activeOf,
  activePods,
  bind,
  condition,
  createJob,
  getJob,
  NS,
  openHarness,
  patchSpec,
  podsOf,
  removeTerminating,
  setPodStatus,
  statusOf,
  until,
  waitForCondition,
  waitForEvent,
  type Harness,
} from './testing-harness.js';

let h: Harness;
afterEach(async () => h?.close());

test('backoffLimit: failures beyond it fail the job (FailureTarget, then Failed once no pod terminates)', async () => {
  h = await openHarness();
  const job = await createJob(h, 'flaky', { completions: 2, parallelism: 2, backoffLimit: 1 });
  const [a, b] = await activePods(h, job, 2);
  await bind(h, b!);
  await setPodStatus(h, a!, 'Failed');
  // One failure (not beyond 1): replaced.
  const replaced = await until('a replacement', async () => {
    const active = activeOf(await podsOf(h, job));
    return active.length === 2 && statusOf(await getJob(h, 'flaky')).failed === 1 ? active : undefined;
  });
  const c = replaced.find((p) => p.metadata.uid !== b!.metadata.uid)!;
  await setPodStatus(h, c, 'Failed');
  // Two failures: FailureTarget first; the running (bound) pod is deleted and stays terminating.
  const target = await waitForCondition(h, 'flaky', 'FailureTarget');
  expect(condition(target, 'FailureTarget')).toEqual(expect.objectContaining({ reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }));
  const terminating = await until('the running pod terminating', async () => {
    const j = await getJob(h, 'flaky');
    return statusOf(j).terminating === 1 ? j : undefined;
  });
  expect(condition(terminating, 'Failed')).toBeUndefined();
  expect(statusOf(terminating).active).toBe(0);
  expect(await removeTerminating(h, job)).toBe(1);
  const failed = await waitForCondition(h, 'flaky', 'Failed');
  expect(condition(failed, 'Failed')).toEqual(expect.objectContaining({ reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }));
  expect(statusOf(failed)).toEqual(expect.objectContaining({ failed: 3, active: 0, terminating: 0, uncountedTerminatedPods: {} }));
  expect(statusOf(failed).completionTime).toBeUndefined();
  await waitForEvent(h, 'flaky', 'Warning BackoffLimitExceeded: Job has reached the specified backoff limit');
  for (const p of await podsOf(h, job)) expect(p.metadata.finalizers).toBeUndefined();
});

test('exponential back-off: a replacement waits the base delay after a failure, then twice it', async () => {
  h = await openHarness({ podFailureBackoffMs: 400 });
  const job = await createJob(h, 'slow', { completions: 1, backoffLimit: 5 });
  const [first] = await activePods(h, job, 1);
  let failedAt = Date.now();
  await setPodStatus(h, first!, 'Failed', { finishedAt: new Date(failedAt) });
  const [second] = await activePods(h, job, 1);
  // rfc3339 finish times have whole seconds: the wait is measured from the written finishedAt.
  expect(Date.now() - Math.floor(failedAt / 1000) * 1000).toBeGreaterThanOrEqual(400);
  failedAt = Date.now();
  await setPodStatus(h, second!, 'Failed', { finishedAt: new Date(failedAt) });
  await activePods(h, job, 1);
  expect(Date.now() - Math.floor(failedAt / 1000) * 1000).toBeGreaterThanOrEqual(800);
  // The replacement and the counted failure are separate writes of one sync: await the count.
  await until('the second failure counted', async () => statusOf(await getJob(h, 'slow')).failed === 2);
});

test('restartPolicy OnFailure: container restarts reaching backoffLimit fail the job', async () => {
  h = await openHarness();
  const job = await createJob(h, 'restarts', { backoffLimit: 2 }, { restartPolicy: 'OnFailure' });
  const [p] = await activePods(h, job, 1);
  await setPodStatus(h, p!, 'Running', { restartCount: 2 });
  const failed = await waitForCondition(h, 'restarts', 'Failed');
  expect(condition(failed, 'Failed')?.reason).toBe('BackoffLimitExceeded');
  expect(statusOf(failed).failed).toBe(1);
});

test('activeDeadlineSeconds: DeadlineExceeded, running pods deleted', async () => {
  h = await openHarness();
  // The pods must be bound before the deadline deletes them (an unbound pod goes at once, never
  // terminating), so the deadline is lowered only once they are: a short deadline from the start raced the
  // binding under load. activeDeadlineSeconds is mutable; startTime stays, so the lowered one is already near.
  const job = await createJob(h, 'deadline', { activeDeadlineSeconds: 3600, parallelism: 2, completions: 4 });
  const pods = await activePods(h, job, 2);
  for (const p of pods) await bind(h, p);
  await patchSpec(h, 'deadline', { activeDeadlineSeconds: 1 });
  const target = await waitForCondition(h, 'deadline', 'FailureTarget');
  expect(condition(target, 'FailureTarget')).toEqual(expect.objectContaining({ reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }));
  await until('both pods terminating', async () => (await podsOf(h, job)).filter((p) => p.metadata.deletionTimestamp !== undefined).length === 2);
  await removeTerminating(h, job);
  const failed = await waitForCondition(h, 'deadline', 'Failed');
  expect(condition(failed, 'Failed')?.reason).toBe('DeadlineExceeded');
  expect(statusOf(failed).failed).toBe(2);
  await waitForEvent(h, 'deadline', 'Warning DeadlineExceeded: Job was active longer than specified deadline');
});

const policy = {
  rules: [
    { action: 'FailJob', onExitCodes: { containerName: 'work', operator: 'In', values: [42] } },
    { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
    { action: 'Count', onExitCodes: { operator: 'NotIn', values: [42, 43] } },
  ],
};

test('podFailurePolicy FailJob on an exit code: the job fails with the rule message', async () => {
  h = await openHarness();
  const job = await createJob(h, 'pfp', { completions: 2, parallelism: 2, podFailurePolicy: policy });
  const [a, b] = await activePods(h, job, 2);
  await setPodStatus(h, a!, 'Failed', { exitCode: 42 });
  const target = await waitForCondition(h, 'pfp', 'FailureTarget');
  const message = `Container work for pod ${NS}/${a!.metadata.name} failed with exit code 42 matching FailJob rule at index 0`;
  expect(condition(target, 'FailureTarget')).toEqual(expect.objectContaining({ reason: 'PodFailurePolicy', message }));
  // The other pod is deleted; unbound, it goes once counted.
  expect(b).toBeDefined();
  const failed = await waitForCondition(h, 'pfp', 'Failed');
  expect(condition(failed, 'Failed')).toEqual(expect.objectContaining({ reason: 'PodFailurePolicy', message }));
  await waitForEvent(h, 'pfp', `Warning PodFailurePolicy: ${message}`);
});

test('podFailurePolicy: the exit code of another container does not match a containerName rule', async () => {
  h = await openHarness();
  const job = await createJob(h, 'other-container', { backoffLimit: 0, podFailurePolicy: policy });
  const [a] = await activePods(h, job, 1);
  await setPodStatus(h, a!, 'Failed', { exitCode: 42, container: 'sidecar' });
  // Not FailJob (other container), not NotIn [42, 43]: no rule, counted: backoffLimit 0 exceeded.
  const failed = await waitForCondition(h, 'other-container', 'Failed');
  expect(condition(failed, 'Failed')?.reason).toBe('BackoffLimitExceeded');
});

test('podFailurePolicy Ignore on DisruptionTarget: not counted, replaced; Count on NotIn: counted', async () => {
  h = await openHarness();
  const job = await createJob(h, 'ignore', { completions: 1, backoffLimit: 1, podFailurePolicy: policy });
  const [a] = await activePods(h, job, 1);
  await setPodStatus(h, a!, 'Failed', { exitCode: 137, conditions: [{ type: 'DisruptionTarget', status: 'True' }] });
  const [b] = await until('a replacement', async () => {
    const active = activeOf(await podsOf(h, job));
    return active.length === 1 && active[0]!.metadata.uid !== a!.metadata.uid ? active : undefined;
  });
  await until('the ignored pod uncounted and its finalizer gone', async () => (await h.pods.get(NS, a!.metadata.name!)).metadata.finalizers === undefined);
  expect(statusOf(await getJob(h, 'ignore')).failed ?? 0).toBe(0);
  await setPodStatus(h, b!, 'Failed', { exitCode: 1 });
  await until('failed 1', async () => statusOf(await getJob(h, 'ignore')).failed === 1);
  expect(condition(await getJob(h, 'ignore'), 'FailureTarget')).toBeUndefined();
});

test('podReplacementPolicy TerminatingOrFailed: a terminating pod counts as failed and is replaced at once', async () => {
  h = await openHarness();
  const job = await createJob(h, 'eager', { completions: 1, backoffLimit: 3 });
  expect((job.spec as { podReplacementPolicy: string }).podReplacementPolicy).toBe('TerminatingOrFailed');
  const [a] = await activePods(h, job, 1);
  await bind(h, a!);
  await h.pods.delete(NS, a!.metadata.name!);
  const j = await until('replaced while the old pod terminates', async () => {
    const pods = await podsOf(h, job);
    const active = activeOf(pods);
    const s = statusOf(await getJob(h, 'eager'));
    return active.length === 1 && s.failed === 1 ? s : undefined;
  });
  expect(j.terminating).toBe(1);
});

test('podReplacementPolicy Failed: no replacement while the pod terminates; status.terminating counts it', async () => {
  h = await openHarness();
  const job = await createJob(h, 'patient', { completions: 1, backoffLimit: 3, podReplacementPolicy: 'Failed' });
  const [a] = await activePods(h, job, 1);
  await bind(h, a!);
  await h.pods.delete(NS, a!.metadata.name!);
  const s = await until('terminating 1', async () => {
    const st = statusOf(await getJob(h, 'patient'));
    return st.terminating === 1 ? st : undefined;
  });
  expect(s.active).toBe(0);
  expect(activeOf(await podsOf(h, job))).toHaveLength(0);
  expect(s.failed ?? 0).toBe(0);
  // The node agent reports it Failed: now counted and replaced.
  await setPodStatus(h, a!, 'Failed');
  await until('replacement', async () => activeOf(await podsOf(h, job)).length === 1 && statusOf(await getJob(h, 'patient')).failed === 1);
});
