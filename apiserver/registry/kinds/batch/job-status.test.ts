/**
 * Job `/status` writes: the invariants Kubernetes v1.32 enforces (JobManagedBy on), as one table of stored
 * status -> written status -> causes, plus the index-set parser.
 */
import type { KubeObject } from '../../../api/object.js';
import { createAs, updateStatusAs, type Cause } from '../storage/testing.js';
import { countIndexes, firstOverlap } from './job-indexes.js';
import { jobs } from './job.js';

type Json = Record<string, unknown>;

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:05:00Z';
const T2 = '2026-01-01T00:06:00Z';

const base = (spec: Json = {}): KubeObject =>
  createAs(jobs, {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'work', namespace: 'default', uid: 'a1b2c3' },
    spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'w', image: 'busybox' }] } }, ...spec },
  }).obj;

const INDEXED = { completionMode: 'Indexed', completions: 10, parallelism: 2 };
const PER_INDEX = { ...INDEXED, backoffLimitPerIndex: 1 };

const cond = (type: string, status = 'True'): Json => ({ type, status, lastTransitionTime: T1 });
const SUCCEEDED = [cond('SuccessCriteriaMet'), cond('Complete')];
const FAILED = [cond('FailureTarget'), cond('Failed')];
const RUNNING = { startTime: T0, active: 1 };

const invalid = (field: string, value: unknown, detail: string): Cause => ({
  reason: 'FieldValueInvalid',
  field,
  message: value === undefined ? `Invalid value: ${detail}` : `Invalid value: ${JSON.stringify(value)}: ${detail}`,
});
const required = (field: string, detail: string): Cause => ({ reason: 'FieldValueRequired', field, message: `Required value: ${detail}` });
const conditions = (detail: string): Cause => invalid('status.conditions', undefined, detail);

/** [name, spec, stored status, written status, causes] */
const cases: [string, Json, Json, Json, Cause[]][] = [
  ['progress of a running job', {}, RUNNING, { ...RUNNING, ready: 1, terminating: 0, uncountedTerminatedPods: { succeeded: ['p1'] } }, []],
  ['the controller starts a job', {}, {}, RUNNING, []],
  ['success: SuccessCriteriaMet and Complete with a completionTime', {}, RUNNING, { startTime: T0, completionTime: T1, succeeded: 1, conditions: SUCCEEDED }, []],
  ['the document\'s spelling SucceededCriteriaMet counts as the success condition', {}, RUNNING, { startTime: T0, completionTime: T1, succeeded: 1, conditions: [cond('SucceededCriteriaMet'), cond('Complete')] }, []],
  ['failure: FailureTarget then Failed', {}, RUNNING, { startTime: T0, failed: 7, conditions: FAILED }, []],
  ['interim FailureTarget while pods still run', {}, RUNNING, { ...RUNNING, conditions: [cond('FailureTarget')] }, []],
  ['Complete without a completionTime', {}, RUNNING, { startTime: T0, conditions: SUCCEEDED }, [required('status.completionTime', 'completionTime is required for Complete jobs')]],
  ['a completionTime without Complete', {}, RUNNING, { ...RUNNING, completionTime: T1 }, [
    invalid('status.completionTime', T1, 'cannot set completionTime when there is no Complete=True condition'),
  ]],
  ['a completionTime before the startTime', {}, RUNNING, { startTime: T1, completionTime: T0, conditions: SUCCEEDED }, [
    invalid('status.completionTime', T0, 'completionTime cannot be set before startTime'),
    required('status.startTime', 'startTime cannot be removed for unsuspended job'),
  ]],
  ['Complete without SuccessCriteriaMet', {}, RUNNING, { startTime: T0, completionTime: T1, conditions: [cond('Complete')] }, [
    conditions('cannot set Complete=True condition without the SuccessCriteriaMet=true condition'),
  ]],
  ['Failed without FailureTarget', {}, RUNNING, { startTime: T0, conditions: [cond('Failed')] }, [
    conditions('cannot set Failed=True condition without the FailureTarget=true condition'),
  ]],
  ['Complete and Failed together', {}, RUNNING, { startTime: T0, completionTime: T1, conditions: [...SUCCEEDED, ...FAILED] }, [
    conditions('cannot set Complete=True and Failed=true conditions'),
    conditions('cannot set Complete=True and FailureTarget=true conditions'),
    conditions('cannot set SuccessCriteriaMet=True and Failed=true conditions'),
    conditions('cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'),
  ]],
  ['a finished job with active, terminating and uncounted pods', {}, RUNNING, {
    startTime: T0, active: 1, terminating: 2, uncountedTerminatedPods: { failed: ['p9'] }, conditions: FAILED,
  }, [
    invalid('status.active', 1, 'active>0 is invalid for finished job'),
    invalid('status.uncountedTerminatedPods', { failed: ['p9'] }, 'uncountedTerminatedPods needs to be empty for finished job'),
    invalid('status.terminating', 2, 'terminating>0 is invalid for finished job'),
  ]],
  ['a finished job without a startTime', {}, {}, { conditions: FAILED }, [required('status.startTime', 'startTime is required for finished job')]],
  ['more ready pods than active', {}, RUNNING, { ...RUNNING, ready: 2 }, [invalid('status.ready', 2, 'cannot set more ready pods than active')]],
  ['negative counters', {}, RUNNING, { startTime: T0, active: -1, ready: -1, terminating: -1 }, [
    invalid('status.active', -1, 'must be greater than or equal to 0'),
    invalid('status.ready', -1, 'must be greater than or equal to 0'),
    invalid('status.terminating', -1, 'must be greater than or equal to 0'),
  ]],
  ['the failed counter decreases', {}, { ...RUNNING, failed: 3 }, { ...RUNNING, failed: 2 }, [invalid('status.failed', 2, 'cannot decrease the failed counter')]],
  ['the succeeded counter decreases', {}, { ...RUNNING, succeeded: 3 }, { ...RUNNING, succeeded: 1 }, [invalid('status.succeeded', 1, 'cannot decrease the succeeded counter')]],
  ['an elastic Indexed job (completions = parallelism) may lose successes', { completionMode: 'Indexed', completions: 2, parallelism: 2 }, { ...RUNNING, succeeded: 2, completedIndexes: '0,1' }, { ...RUNNING, succeeded: 1, completedIndexes: '0' }, []],
  ['a terminal condition turned off', {}, { startTime: T0, conditions: FAILED }, { startTime: T0, conditions: [cond('FailureTarget'), cond('Failed', 'False')] }, [
    conditions('cannot disable the terminal Failed=True condition'),
  ]],
  ['FailureTarget removed', {}, { ...RUNNING, conditions: [cond('FailureTarget')] }, RUNNING, [conditions('cannot disable the terminal FailureTarget=True condition')]],
  ['SuccessCriteriaMet removed', INDEXED, { ...RUNNING, conditions: [cond('SuccessCriteriaMet')] }, RUNNING, [conditions('cannot disable the SuccessCriteriaMet=True condition')]],
  ['SuccessCriteriaMet added to a Complete job', {}, { startTime: T0, completionTime: T1, conditions: [cond('Complete')] }, { startTime: T0, completionTime: T1, conditions: [cond('Complete'), cond('SuccessCriteriaMet')] }, [
    conditions('cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'),
  ]],
  ['the completionTime changed', {}, { startTime: T0, completionTime: T1, conditions: SUCCEEDED }, { startTime: T0, completionTime: T2, conditions: SUCCEEDED }, [
    invalid('status.completionTime', T2, 'completionTime cannot be mutated'),
  ]],
  ['the startTime removed from a running job', {}, RUNNING, { active: 1 }, [required('status.startTime', 'startTime cannot be removed for unsuspended job')]],
  ['the startTime reset on a suspended job', { suspend: true }, RUNNING, { active: 0, conditions: [cond('Suspended')] }, []],
  ['completedIndexes of a NonIndexed job', {}, RUNNING, { ...RUNNING, completedIndexes: '0' }, [
    invalid('status.completedIndexes', '0', 'cannot set non-empty completedIndexes when non-indexed completion mode'),
  ]],
  ['completedIndexes out of order', INDEXED, RUNNING, { ...RUNNING, completedIndexes: '1,3-5,4' }, [
    invalid('status.completedIndexes', '1,3-5,4', 'error parsing completedIndexes: non-increasing order, previous: 5, current: 4'),
  ]],
  ['completedIndexes beyond completions, and not numbers', INDEXED, RUNNING, { ...RUNNING, completedIndexes: '2,10' }, [
    invalid('status.completedIndexes', '2,10', 'error parsing completedIndexes: too large index: "10"'),
  ]],
  ['completedIndexes with a three-part fragment', INDEXED, RUNNING, { ...RUNNING, completedIndexes: '1-2-3' }, [
    invalid('status.completedIndexes', '1-2-3', 'error parsing completedIndexes: the fragment "1-2-3" violates the requirement that an index interval can have at most two parts separated by \'-\''),
  ]],
  ['failedIndexes without backoffLimitPerIndex', INDEXED, RUNNING, { ...RUNNING, failedIndexes: '' }, [
    invalid('status.failedIndexes', '', 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'),
  ]],
  ['failedIndexes overlapping completedIndexes', PER_INDEX, RUNNING, { ...RUNNING, completedIndexes: '0-3,7', failedIndexes: '4,6-7' }, [
    invalid('status.failedIndexes', '4,6-7', 'failedIndexes and completedIndexes overlap at index: 7'),
  ]],
  ['failedIndexes malformed', PER_INDEX, RUNNING, { ...RUNNING, failedIndexes: 'x' }, [
    invalid('status.failedIndexes', 'x', 'error parsing failedIndexes: cannot convert string to integer for index: "x"'),
  ]],
  ['disjoint completed and failed indexes', PER_INDEX, RUNNING, { ...RUNNING, completedIndexes: '0-3,8', failedIndexes: '4,6-7,9' }, []],
  ['uncounted pods: empty and repeated UIDs', {}, RUNNING, { ...RUNNING, uncountedTerminatedPods: { succeeded: ['p1', '', 'p1'], failed: ['p1'] } }, [
    { reason: 'FieldValueDuplicate', field: 'status.uncountedTerminatedPods.succeeded[2]', message: 'Duplicate value: "p1"' },
    invalid('status.uncountedTerminatedPods.succeeded[1]', '', 'must not be empty'),
    { reason: 'FieldValueDuplicate', field: 'status.uncountedTerminatedPods.failed[0]', message: 'Duplicate value: "p1"' },
  ]],
  ['Complete with a success policy needs SuccessCriteriaMet', { ...INDEXED, successPolicy: { rules: [{ succeededCount: 1 }] } }, RUNNING, { startTime: T0, completionTime: T1, conditions: [cond('Complete')] }, [
    conditions('cannot set Complete=True condition without the SuccessCriteriaMet=true condition'),
    conditions('cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'),
  ]],
  ['an unrelated write to a job already breaking a change-triggered rule goes through', {}, { ...RUNNING, ready: 3 }, { ...RUNNING, ready: 3, failed: 1 }, []],
];

describe('Job /status writes', () => {
  test.each(cases)('%s', (_name, spec, stored, written, expected) => {
    const old = { ...base(spec), status: stored };
    expect(updateStatusAs(jobs, { ...old, status: written }, old).causes).toEqual(expected);
  });

  test('a status write keeps the stored spec', () => {
    const old: KubeObject = { ...base(), status: RUNNING };
    const { obj } = updateStatusAs(jobs, { ...old, spec: { ...(old as Json).spec as Json, parallelism: 9 }, status: { ...RUNNING, ready: 1 } }, old);
    expect((obj.spec as Json).parallelism).toBe(1);
    expect(obj.status).toEqual({ ...RUNNING, ready: 1 });
  });
});

describe('index sets', () => {
  test.each([
    ['', 0],
    ['0', 1],
    ['1,3-5,7', 5],
    ['0-9', 10],
    ['+3', 1],
  ])('%j holds %d indexes', (text, total) => {
    expect(countIndexes(text, 10)).toEqual({ total });
  });

  test.each([
    ['1,', 'cannot convert string to integer for index: ""'],
    ['5-5', 'non-increasing order, previous: 5, current: 5'],
    ['3,3', 'non-increasing order, previous: 3, current: 3'],
    ['-1', 'cannot convert string to integer for index: ""'],
    ['99999999999999999999', 'cannot convert string to integer for index: "99999999999999999999"'],
  ])('%j: %s', (text, error) => {
    expect(countIndexes(text, 10)).toEqual({ error });
  });

  test('overlap walks both interval lists in order', () => {
    expect(firstOverlap('0-2,5', '3-4,6', 10)).toBeUndefined();
    expect(firstOverlap('0-2,5-8', '3-4,6', 10)).toBe(6);
    expect(firstOverlap('x,5', '5', 10)).toBe(5);
  });
});
