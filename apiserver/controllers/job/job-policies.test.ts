/**
 * The job controller's pure parts: index sets (kube's orderedIntervals text and merges), the pod-failure
 * back-off (10 s doubling to 10 min by default), podFailurePolicy and successPolicy matching.
 */
import type { KubeObject } from '../../api/object.js';
import { BackoffStore, remainingBackoff } from './backoff.js';
import { firstPending, formatIntervals, has, parseIntervals, total, withIndexes } from './ordered-intervals.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { matchSuccessPolicy } from './success-policy.js';

test('index sets: compressed text, lenient parsing, merges, pending indexes', () => {
  expect(formatIntervals(withIndexes([], [0, 1, 2, 4, 5, 7]))).toBe('0-2,4,5,7');
  expect(formatIntervals(parseIntervals('0-2,3,5,x,7-20', 10))).toBe('0-3,5,7-9');
  expect(formatIntervals(parseIntervals('12', 10))).toBe('');
  const set = parseIntervals('1,3-5', 10);
  expect(total(set)).toBe(4);
  expect([0, 1, 2, 3, 5, 6].map((ix) => has(set, ix))).toEqual([false, true, false, true, true, false]);
  expect(formatIntervals(withIndexes(set, [2, 6]))).toBe('1-6');
  expect(firstPending(set, 3, 10)).toEqual([0, 2, 6]);
  expect(firstPending(set, 10, 7)).toEqual([0, 2, 6]);
});

test('back-off: base after one failure, doubling, capped; measured from the last failure', () => {
  const now = 1_000_000;
  expect(remainingBackoff(0, undefined, now, 10_000, 600_000)).toBe(0);
  expect(remainingBackoff(1, now, now, 10_000, 600_000)).toBe(10_000);
  expect(remainingBackoff(2, now, now, 10_000, 600_000)).toBe(20_000);
  expect(remainingBackoff(3, now - 5_000, now, 10_000, 600_000)).toBe(35_000);
  expect(remainingBackoff(20, now, now, 10_000, 600_000)).toBe(600_000);
  expect(remainingBackoff(1, now - 11_000, now, 10_000, 600_000)).toBe(0);
});

const finishedPod = (phase: string, at: number): KubeObject => ({
  metadata: { name: 'p' },
  status: { phase, containerStatuses: [{ name: 'c', state: { terminated: { exitCode: phase === 'Failed' ? 1 : 0, finishedAt: new Date(at).toISOString() } } }] },
});

test('back-off record: failures since the last success', () => {
  const store = new BackoffStore();
  const r1 = store.next('j', [], [finishedPod('Failed', 1000), finishedPod('Failed', 3000)], 5000);
  expect(r1).toEqual({ failuresAfterLastSuccess: 2, lastFailureTime: 3000 });
  store.set('j', r1);
  expect(store.next('j', [finishedPod('Succeeded', 4000)], [finishedPod('Failed', 5000)], 6000)).toEqual({ failuresAfterLastSuccess: 1, lastFailureTime: 5000 });
  expect(store.next('j', [finishedPod('Succeeded', 4000)], [], 6000)).toEqual({ failuresAfterLastSuccess: 0 });
});

const failed = (containers: { name: string; exitCode: number }[], conditions: { type: string; status: string }[] = []): KubeObject => ({
  metadata: { namespace: 'ns', name: 'pod' },
  status: { phase: 'Failed', conditions, containerStatuses: containers.map((c) => ({ name: c.name, state: { terminated: { exitCode: c.exitCode } } })) },
});

test('podFailurePolicy: first matching rule, In/NotIn, containerName, conditions, exit code 0 never matches', () => {
  const spec = {
    podFailurePolicy: {
      rules: [
        { action: 'Unknown', onExitCodes: { operator: 'In', values: [1] } },
        { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
        { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        { action: 'FailIndex', onExitCodes: { operator: 'NotIn', values: [0, 1, 42] } },
        { action: 'Count', onExitCodes: { operator: 'Bogus', values: [1] } },
      ],
    },
  };
  expect(matchPodFailurePolicy(spec, failed([{ name: 'main', exitCode: 42 }]))).toEqual({
    countFailed: true,
    action: 'FailJob',
    failJobMessage: 'Container main for pod ns/pod failed with exit code 42 matching FailJob rule at index 1',
  });
  expect(matchPodFailurePolicy(spec, failed([{ name: 'side', exitCode: 42 }]))).toEqual({ countFailed: true });
  expect(matchPodFailurePolicy(spec, failed([{ name: 'main', exitCode: 0 }], [{ type: 'DisruptionTarget', status: 'True' }]))).toEqual({ countFailed: false, action: 'Ignore' });
  expect(matchPodFailurePolicy(spec, failed([{ name: 'x', exitCode: 7 }]))).toEqual({ countFailed: true, action: 'FailIndex' });
  expect(matchPodFailurePolicy(spec, failed([{ name: 'x', exitCode: 1 }]))).toEqual({ countFailed: true });
  expect(
    matchPodFailurePolicy({ podFailurePolicy: { rules: [{ action: 'FailJob', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] } }, failed([], [{ type: 'DisruptionTarget', status: 'True' }])),
  ).toEqual({ countFailed: true, action: 'FailJob', failJobMessage: 'Pod ns/pod has condition DisruptionTarget matching FailJob rule at index 0' });
});

test('successPolicy: succeededIndexes (all, or succeededCount of them), succeededCount alone, first rule met named', () => {
  const spec = { successPolicy: { rules: [{ succeededIndexes: '0-2', succeededCount: 2 }, { succeededIndexes: '5' }, { succeededCount: 4 }] } };
  expect(matchSuccessPolicy(spec, 10, parseIntervals('0', 10))).toBeUndefined();
  expect(matchSuccessPolicy(spec, 10, parseIntervals('0,2', 10))).toBe('Matched rules at index 0');
  expect(matchSuccessPolicy(spec, 10, parseIntervals('5', 10))).toBe('Matched rules at index 1');
  expect(matchSuccessPolicy(spec, 10, parseIntervals('3,4,6,7', 10))).toBe('Matched rules at index 2');
  expect(matchSuccessPolicy({}, 10, parseIntervals('0-9', 10))).toBeUndefined();
});
