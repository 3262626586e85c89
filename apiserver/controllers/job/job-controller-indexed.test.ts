/**
 * Indexed jobs, the test as node agent: pod names, hostname, the completion-index annotation and label,
 * JOB_COMPLETION_INDEX; completedIndexes in the compressed format; backoffLimitPerIndex with the
 * index failure-count annotation, failedIndexes, FailIndex and maxFailedIndexes; successPolicy
 * (SuccessCriteriaMet, lingering pods deleted, then Complete); both domain modes' names.
 */
import type { KubeObject } from '../../api/object.js';
import {
  activeOf,
  activePods,
  bind,
  condition,
  createJob,
  getJob,
  openHarness,
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

const indexOf = (h: Harness, p: KubeObject): number => Number(p.metadata.annotations?.[h.names.completionIndex]);
const byIndex = (h: Harness, pods: readonly KubeObject[], ix: number): KubeObject => pods.find((p) => indexOf(h, p) === ix)!;

for (const domain of ['platform.io', 'k8s.io']) {
  const legacy = domain === 'k8s.io' ? 'kubernetes.io' : 'platform.io';
  test(`pods of an Indexed job (${domain}): names, hostname, index annotation and label, JOB_COMPLETION_INDEX, subdomain kept`, async () => {
    h = await openHarness({ domain });
    const job = await createJob(h, 'idx', { completionMode: 'Indexed', completions: 3, parallelism: 3 }, { subdomain: 'workers' });
    const pods = await activePods(h, job, 3);
    expect(pods.map((p) => indexOf(h, p)).sort()).toEqual([0, 1, 2]);
    for (const p of pods) {
      const ix = indexOf(h, p);
      expect(p.metadata.name).toMatch(new RegExp(`^idx-${ix}-[a-z0-9]{5}$`));
      expect(p.metadata.annotations).toEqual({ [`batch.${legacy}/job-completion-index`]: String(ix) });
      expect(p.metadata.labels?.[`batch.${legacy}/job-completion-index`]).toBe(String(ix));
      expect(p.metadata.finalizers).toEqual([`batch.${legacy}/job-tracking`]);
      const spec = p.spec as { hostname?: string; subdomain?: string; containers: { env?: unknown[] }[] };
      expect(spec.hostname).toBe(`idx-${ix}`);
      expect(spec.subdomain).toBe('workers');
      expect(spec.containers[0]!.env).toEqual([
        { name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.labels['batch.${legacy}/job-completion-index']` } } },
      ]);
    }
  });
}

test('completedIndexes: ascending, runs of three or more as first-last; Complete when every index is done', async () => {
  h = await openHarness();
  const job = await createJob(h, 'many', { completionMode: 'Indexed', completions: 6, parallelism: 6 });
  const pods = await activePods(h, job, 6);
  for (const ix of [0, 1, 2, 4, 5]) await setPodStatus(h, byIndex(h, pods, ix), 'Succeeded');
  const partial = await until('five indexes done', async () => {
    const j = await getJob(h, 'many');
    return statusOf(j).succeeded === 5 ? j : undefined;
  });
  expect(statusOf(partial).completedIndexes).toBe('0-2,4,5');
  expect(statusOf(partial).uncountedTerminatedPods).toEqual({});
  await setPodStatus(h, byIndex(h, pods, 3), 'Succeeded');
  const done = await waitForCondition(h, 'many', 'Complete');
  expect(statusOf(done).completedIndexes).toBe('0-5');
  expect(statusOf(done).succeeded).toBe(6);
});

test('a failed index is retried with the same index (fewer pods when fewer indexes remain)', async () => {
  h = await openHarness();
  const job = await createJob(h, 'retry', { completionMode: 'Indexed', completions: 3, parallelism: 2 });
  const first = await activePods(h, job, 2);
  expect(first.map((p) => indexOf(h, p)).sort()).toEqual([0, 1]);
  await setPodStatus(h, byIndex(h, first, 0), 'Failed');
  const again = await until('index 0 again', async () => {
    const a = activeOf(await podsOf(h, job));
    return a.length === 2 && a.some((p) => indexOf(h, p) === 0 && p.metadata.uid !== byIndex(h, first, 0).metadata.uid) ? a : undefined;
  });
  await setPodStatus(h, byIndex(h, again, 0), 'Succeeded');
  await setPodStatus(h, byIndex(h, again, 1), 'Succeeded');
  const last = await activePods(h, job, 1);
  expect(indexOf(h, last[0]!)).toBe(2);
  await setPodStatus(h, last[0]!, 'Succeeded');
  const done = await waitForCondition(h, 'retry', 'Complete');
  expect(statusOf(done)).toEqual(expect.objectContaining({ succeeded: 3, failed: 1, completedIndexes: '0-2' }));
});

test('backoffLimitPerIndex: the failure count travels by annotation; an index past it is failed; the job fails with FailedIndexes', async () => {
  h = await openHarness();
  const job = await createJob(h, 'per-index', { completionMode: 'Indexed', completions: 3, parallelism: 3, backoffLimitPerIndex: 1 });
  expect((job.spec as { backoffLimit: number }).backoffLimit).toBe(2147483647);
  const pods = await activePods(h, job, 3);
  for (const p of pods) expect(p.metadata.annotations?.[h.names.indexFailureCount]).toBe('0');
  await setPodStatus(h, byIndex(h, pods, 1), 'Failed');
  const retry = await until('index 1 again with failure count 1', async () => {
    const a = activeOf(await podsOf(h, job));
    return a.find((p) => indexOf(h, p) === 1 && p.metadata.annotations?.[h.names.indexFailureCount] === '1');
  });
  await setPodStatus(h, retry, 'Failed');
  // failedIndexes is written with the pod's UID still uncounted (step 1); the counter follows (step 3).
  const failedIndex = await until('index 1 failed and both failures counted', async () => {
    const j = await getJob(h, 'per-index');
    return statusOf(j).failedIndexes === '1' && statusOf(j).failed === 2 ? j : undefined;
  });
  expect(statusOf(failedIndex).uncountedTerminatedPods).toEqual({});
  // No third pod for index 1.
  expect(activeOf(await podsOf(h, job)).map((p) => indexOf(h, p)).sort()).toEqual([0, 2]);
  await setPodStatus(h, byIndex(h, pods, 0), 'Succeeded');
  await setPodStatus(h, byIndex(h, pods, 2), 'Succeeded');
  const failed = await waitForCondition(h, 'per-index', 'Failed');
  expect(condition(failed, 'Failed')).toEqual(expect.objectContaining({ reason: 'FailedIndexes', message: 'Job has failed indexes' }));
  expect(condition(failed, 'FailureTarget')?.reason).toBe('FailedIndexes');
  expect(statusOf(failed)).toEqual(expect.objectContaining({ completedIndexes: '0,2', failedIndexes: '1', succeeded: 2, failed: 2 }));
});

test('FailIndex rule and maxFailedIndexes: failed indexes beyond it fail the job (MaxFailedIndexesExceeded), running pods deleted', async () => {
  h = await openHarness();
  const job = await createJob(h, 'max-failed', {
    completionMode: 'Indexed',
    completions: 4,
    parallelism: 4,
    backoffLimitPerIndex: 3,
    maxFailedIndexes: 1,
    podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [42] } }] },
  });
  const pods = await activePods(h, job, 4);
  await setPodStatus(h, byIndex(h, pods, 0), 'Failed', { exitCode: 42 });
  const one = await until('index 0 failed at once (FailIndex)', async () => {
    const j = await getJob(h, 'max-failed');
    return statusOf(j).failedIndexes === '0' ? j : undefined;
  });
  expect(condition(one, 'FailureTarget')).toBeUndefined();
  await setPodStatus(h, byIndex(h, pods, 3), 'Failed', { exitCode: 42 });
  const target = await waitForCondition(h, 'max-failed', 'FailureTarget');
  expect(condition(target, 'FailureTarget')).toEqual(
    expect.objectContaining({ reason: 'MaxFailedIndexesExceeded', message: 'Job has exceeded the specified maximal number of failed indexes' }),
  );
  const failed = await waitForCondition(h, 'max-failed', 'Failed');
  expect(statusOf(failed)).toEqual(expect.objectContaining({ failedIndexes: '0,3', active: 0 }));
  await waitForEvent(h, 'max-failed', 'Warning MaxFailedIndexesExceeded: Job has exceeded the specified maximal number of failed indexes');
});

test('successPolicy: SuccessCriteriaMet when a rule is met, lingering pods deleted, then Complete', async () => {
  h = await openHarness();
  const job = await createJob(h, 'leader', {
    completionMode: 'Indexed',
    completions: 3,
    parallelism: 3,
    successPolicy: { rules: [{ succeededIndexes: '0' }] },
  });
  const pods = await activePods(h, job, 3);
  for (const p of pods) await bind(h, p);
  await setPodStatus(h, byIndex(h, pods, 0), 'Succeeded');
  const met = await waitForCondition(h, 'leader', 'SuccessCriteriaMet');
  expect(condition(met, 'SuccessCriteriaMet')).toEqual(expect.objectContaining({ reason: 'SuccessPolicy', message: 'Matched rules at index 0' }));
  await until('the lingering pods terminating', async () => (await podsOf(h, job)).filter((p) => p.metadata.deletionTimestamp !== undefined).length === 2);
  expect(condition(await getJob(h, 'leader'), 'Complete')).toBeUndefined();
  await removeTerminating(h, job);
  const done = await waitForCondition(h, 'leader', 'Complete');
  expect(condition(done, 'Complete')).toEqual(expect.objectContaining({ reason: 'SuccessPolicy', message: 'Matched rules at index 0' }));
  expect(statusOf(done)).toEqual(expect.objectContaining({ completedIndexes: '0', succeeded: 1, active: 0, terminating: 0 }));
  expect(statusOf(done).completionTime).toBeDefined();
  await waitForEvent(h, 'leader', 'Normal Completed: Job completed');
});

test('successPolicy succeededCount', async () => {
  h = await openHarness();
  const job = await createJob(h, 'two-of-four', { completionMode: 'Indexed', completions: 4, parallelism: 4, successPolicy: { rules: [{ succeededCount: 2 }] } });
  const pods = await activePods(h, job, 4);
  await setPodStatus(h, byIndex(h, pods, 1), 'Succeeded');
  await until('one index', async () => statusOf(await getJob(h, 'two-of-four')).succeeded === 1);
  expect(condition(await getJob(h, 'two-of-four'), 'SuccessCriteriaMet')).toBeUndefined();
  await setPodStatus(h, byIndex(h, pods, 3), 'Succeeded');
  const done = await waitForCondition(h, 'two-of-four', 'Complete');
  expect(statusOf(done).completedIndexes).toBe('1,3');
  expect(condition(done, 'SuccessCriteriaMet')?.message).toBe('Matched rules at index 0');
});
