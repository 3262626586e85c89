/**
 * The rules a write of `/status` must keep, as Kubernetes v1.32 enforces them with JobManagedBy on
 * (ValidateJobUpdateStatus with the strategy's options). Most rules run only when a field they look at
 * changed, so an unrelated status write of a job that already breaks a rule (or that breaks it for a moment
 * after a spec change, as completedIndexes beyond a scaled-down completions) still goes through:
 *
 * - always: active, succeeded, failed, ready and terminating non-negative; uncounted pod UIDs non-empty and
 *   unique across both lists; Complete, Failed and FailureTarget once True never turned off; failed never
 *   decreases, nor succeeded (unless the job is Indexed with completions equal to parallelism: elastic
 *   jobs scale down); a set completionTime never changes; SuccessCriteriaMet never turned off, never added
 *   to an already Complete job, never with Failed or FailureTarget; Complete with a successPolicy only
 *   after SuccessCriteriaMet;
 * - on change: Complete xor Failed, Complete not with FailureTarget; Failed only after FailureTarget and
 *   Complete only after SuccessCriteriaMet; completionTime set exactly when Complete, never before
 *   startTime; a finished job has a startTime, no active or terminating pods and no uncounted pods; a set
 *   startTime changes only while the job is suspended; completedIndexes only for Indexed jobs and
 *   failedIndexes only with backoffLimitPerIndex, both in the index format below completions and disjoint;
 *   ready at most active.
 *
 * The success condition is `SuccessCriteriaMet` in Kubernetes; document 2 spells it `SucceededCriteriaMet`,
 * so either type counts as that condition (messages keep Kubernetes' name).
 */
import type { KubeObject } from '../../../api/object.js';
import { duplicate, type FieldError, FieldPath, invalidValue, required } from '../../../validation/field-error.js';
import { jsonEqual } from '../../patch/json-value.js';
import { type JsonObject, arrayAt, isObject, objectAt, objectItems } from '../core/pod/json-values.js';
import { countIndexes, firstOverlap } from './job-indexes.js';

const STATUS = FieldPath.root('status');
const CONDITIONS = STATUS.child('conditions');
const SUCCESS_CRITERIA_MET = ['SuccessCriteriaMet', 'SucceededCriteriaMet'];

const specOf = (job: KubeObject): JsonObject => (isObject(job.spec) ? job.spec : {});
const statusOf = (job: KubeObject): JsonObject => (isObject(job.status) ? job.status : {});
const count = (status: JsonObject, name: string): number => (typeof status[name] === 'number' ? (status[name] as number) : 0);
const optional = (status: JsonObject, name: string): unknown => (status[name] === undefined ? null : status[name]);

function conditionTrue(job: KubeObject, types: string | readonly string[]): boolean {
  const wanted = typeof types === 'string' ? [types] : types;
  for (const [, c] of objectItems(arrayAt(statusOf(job), 'conditions'))) if (wanted.includes(c.type as string) && c.status === 'True') return true;
  return false;
}

const complete = (job: KubeObject): boolean => conditionTrue(job, 'Complete');
const failed = (job: KubeObject): boolean => conditionTrue(job, 'Failed');
const failureTarget = (job: KubeObject): boolean => conditionTrue(job, 'FailureTarget');
const successCriteriaMet = (job: KubeObject): boolean => conditionTrue(job, SUCCESS_CRITERIA_MET);
const finished = (job: KubeObject): boolean => complete(job) || failed(job);

const timeOf = (v: unknown): number | undefined => (typeof v === 'string' ? Date.parse(v) : undefined);

function uncountedTotal(status: JsonObject): number {
  const u = objectAt(status, 'uncountedTerminatedPods');
  return u === undefined ? 0 : arrayAt(u, 'failed').length + arrayAt(u, 'succeeded').length;
}

/** The checks Kubernetes' strategy switches on for this pair of objects. */
interface Checks {
  readonly rejectDecreasingSucceeded: boolean;
  readonly completedIndexes: boolean;
  readonly failedIndexes: boolean;
  readonly overlap: boolean;
  readonly finishedWithActive: boolean;
  readonly finishedWithoutStartTime: boolean;
  readonly finishedWithUncounted: boolean;
  readonly startTimeUpdate: boolean;
  readonly completionBeforeStart: boolean;
  readonly completionTimeWithCondition: boolean;
  readonly completeAndFailed: boolean;
  readonly completeAndFailureTarget: boolean;
  readonly failedWithoutTarget: boolean;
  readonly completeWithoutCriteria: boolean;
  readonly moreReadyThanActive: boolean;
  readonly finishedWithTerminating: boolean;
}

function checksFor(job: KubeObject, old: KubeObject): Checks {
  const s = statusOf(job);
  const o = statusOf(old);
  const spec = specOf(job);
  const changed = (name: string): boolean => !jsonEqual(optional(s, name), optional(o, name));
  const countChanged = (name: string): boolean => count(s, name) !== count(o, name);
  const finishedChanged = finished(job) !== finished(old);
  const completeChanged = complete(job) !== complete(old);
  const failedChanged = failed(job) !== failed(old);
  const targetChanged = failureTarget(job) !== failureTarget(old);
  const criteriaChanged = successCriteriaMet(job) !== successCriteriaMet(old);
  const completedChanged = (typeof s.completedIndexes === 'string' ? s.completedIndexes : '') !== (typeof o.completedIndexes === 'string' ? o.completedIndexes : '');
  const failedIndexesChanged = changed('failedIndexes');
  const activeChanged = countChanged('active');
  const startChanged = changed('startTime');
  const completionChanged = changed('completionTime');
  const indexed = spec.completionMode === 'Indexed';
  return {
    rejectDecreasingSucceeded: !indexed || !jsonEqual(spec.completions ?? null, spec.parallelism ?? null),
    completedIndexes: completedChanged,
    failedIndexes: failedIndexesChanged,
    overlap: failedIndexesChanged || completedChanged,
    finishedWithActive: finishedChanged || activeChanged,
    finishedWithoutStartTime: finishedChanged || startChanged,
    finishedWithUncounted: finishedChanged || changed('uncountedTerminatedPods'),
    startTimeUpdate: startChanged,
    completionBeforeStart: startChanged || completionChanged,
    completionTimeWithCondition: completeChanged || completionChanged,
    completeAndFailed: completeChanged || failedChanged,
    completeAndFailureTarget: completeChanged || targetChanged,
    failedWithoutTarget: failedChanged || targetChanged,
    completeWithoutCriteria: completeChanged || criteriaChanged,
    moreReadyThanActive: changed('ready') || activeChanged,
    finishedWithTerminating: finishedChanged || changed('terminating'),
  };
}

function nonNegative(errs: FieldError[], status: JsonObject, name: string): void {
  const v = status[name];
  if (typeof v === 'number' && v < 0) errs.push(invalidValue(STATUS.child(name), v, 'must be greater than or equal to 0'));
}

/** UIDs must be non-empty; a UID in both lists is a duplicate (the schema's set lists report repeats within one). */
function validateUncounted(errs: FieldError[], status: JsonObject): void {
  const u = objectAt(status, 'uncountedTerminatedPods');
  if (u === undefined) return;
  const path = STATUS.child('uncountedTerminatedPods');
  const succeeded = new Set<string>();
  arrayAt(u, 'succeeded').forEach((uid, i) => {
    if (uid === '') errs.push(invalidValue(path.child('succeeded').index(i), '', 'must not be empty'));
    else if (typeof uid === 'string') succeeded.add(uid);
  });
  arrayAt(u, 'failed').forEach((uid, i) => {
    if (uid === '') errs.push(invalidValue(path.child('failed').index(i), '', 'must not be empty'));
    else if (typeof uid === 'string' && succeeded.has(uid)) errs.push(duplicate(path.child('failed').index(i), uid));
  });
}

/** validateJobStatus: the state of the new status on its own. */
function validateStatus(job: KubeObject, c: Checks): FieldError[] {
  const errs: FieldError[] = [];
  const status = statusOf(job);
  const spec = specOf(job);
  for (const name of ['active', 'succeeded', 'failed', 'ready', 'terminating']) nonNegative(errs, status, name);
  validateUncounted(errs, status);
  const isComplete = complete(job);
  const isFailed = failed(job);
  const isFinished = isComplete || isFailed;
  const criteria = successCriteriaMet(job);
  const target = failureTarget(job);
  const start = timeOf(status.startTime);
  const completion = timeOf(status.completionTime);
  if (c.completeAndFailed && isComplete && isFailed) errs.push(invalidValue(CONDITIONS, undefined, 'cannot set Complete=True and Failed=true conditions'));
  if (c.completeAndFailureTarget && isComplete && target) errs.push(invalidValue(CONDITIONS, undefined, 'cannot set Complete=True and FailureTarget=true conditions'));
  if (c.completionTimeWithCondition && completion !== undefined && !isComplete) {
    errs.push(invalidValue(STATUS.child('completionTime'), status.completionTime, 'cannot set completionTime when there is no Complete=True condition'));
  }
  if (c.completionTimeWithCondition && completion === undefined && isComplete) errs.push(required(STATUS.child('completionTime'), 'completionTime is required for Complete jobs'));
  if (c.completionBeforeStart && start !== undefined && completion !== undefined && completion < start) {
    errs.push(invalidValue(STATUS.child('completionTime'), status.completionTime, 'completionTime cannot be set before startTime'));
  }
  if (c.failedWithoutTarget && isFailed && !target) errs.push(invalidValue(CONDITIONS, undefined, 'cannot set Failed=True condition without the FailureTarget=true condition'));
  if (c.completeWithoutCriteria && isComplete && !criteria) {
    errs.push(invalidValue(CONDITIONS, undefined, 'cannot set Complete=True condition without the SuccessCriteriaMet=true condition'));
  }
  if (c.finishedWithActive && count(status, 'active') > 0 && isFinished) errs.push(invalidValue(STATUS.child('active'), count(status, 'active'), 'active>0 is invalid for finished job'));
  if (c.finishedWithoutStartTime && start === undefined && isFinished) errs.push(required(STATUS.child('startTime'), 'startTime is required for finished job'));
  if (c.finishedWithUncounted && isFinished && uncountedTotal(status) > 0) {
    errs.push(invalidValue(STATUS.child('uncountedTerminatedPods'), status.uncountedTerminatedPods, 'uncountedTerminatedPods needs to be empty for finished job'));
  }
  const completions = typeof spec.completions === 'number' ? spec.completions : undefined;
  const completedIndexes = typeof status.completedIndexes === 'string' ? status.completedIndexes : '';
  const failedIndexes = typeof status.failedIndexes === 'string' ? status.failedIndexes : undefined;
  if (c.completedIndexes && completions !== undefined) {
    const parsed = countIndexes(completedIndexes, completions);
    if ('error' in parsed) errs.push(invalidValue(STATUS.child('completedIndexes'), completedIndexes, `error parsing completedIndexes: ${parsed.error}`));
  }
  if (c.failedIndexes && completions !== undefined && spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null && failedIndexes !== undefined) {
    const parsed = countIndexes(failedIndexes, completions);
    if ('error' in parsed) errs.push(invalidValue(STATUS.child('failedIndexes'), failedIndexes, `error parsing failedIndexes: ${parsed.error}`));
  }
  if (c.completedIndexes && completedIndexes !== '' && spec.completionMode !== 'Indexed') {
    errs.push(invalidValue(STATUS.child('completedIndexes'), completedIndexes, 'cannot set non-empty completedIndexes when non-indexed completion mode'));
  }
  if (c.failedIndexes && (spec.backoffLimitPerIndex === undefined || spec.backoffLimitPerIndex === null) && failedIndexes !== undefined) {
    errs.push(invalidValue(STATUS.child('failedIndexes'), failedIndexes, 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'));
  }
  if (c.overlap && completions !== undefined && failedIndexes !== undefined) {
    const at = firstOverlap(completedIndexes, failedIndexes, completions);
    if (at !== undefined) errs.push(invalidValue(STATUS.child('failedIndexes'), failedIndexes, `failedIndexes and completedIndexes overlap at index: ${at}`));
  }
  const terminating = typeof status.terminating === 'number' ? status.terminating : undefined;
  if (c.finishedWithTerminating && terminating !== undefined && terminating > 0 && isFinished) {
    errs.push(invalidValue(STATUS.child('terminating'), terminating, 'terminating>0 is invalid for finished job'));
  }
  const ready = typeof status.ready === 'number' ? status.ready : undefined;
  if (c.moreReadyThanActive && ready !== undefined && ready > count(status, 'active')) {
    errs.push(invalidValue(STATUS.child('ready'), ready, 'cannot set more ready pods than active'));
  }
  if (criteria && isFailed) errs.push(invalidValue(CONDITIONS, undefined, 'cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (criteria && target) errs.push(invalidValue(CONDITIONS, undefined, 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  if (isObject(spec.successPolicy) && !criteria && isComplete) {
    errs.push(invalidValue(CONDITIONS, undefined, 'cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'));
  }
  return errs;
}

/** ValidateJobStatusUpdate: the new status on its own, then its transition from the stored one. */
export function validateJobStatusUpdate(job: KubeObject, old: KubeObject): FieldError[] {
  const c = checksFor(job, old);
  const errs = validateStatus(job, c);
  const status = statusOf(job);
  const oldStatus = statusOf(old);
  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (conditionTrue(old, type) && !conditionTrue(job, type)) errs.push(invalidValue(CONDITIONS, undefined, `cannot disable the terminal ${type}=True condition`));
  }
  if (count(status, 'failed') < count(oldStatus, 'failed')) errs.push(invalidValue(STATUS.child('failed'), count(status, 'failed'), 'cannot decrease the failed counter'));
  if (c.rejectDecreasingSucceeded && count(status, 'succeeded') < count(oldStatus, 'succeeded')) {
    errs.push(invalidValue(STATUS.child('succeeded'), count(status, 'succeeded'), 'cannot decrease the succeeded counter'));
  }
  const completion = timeOf(status.completionTime);
  const oldCompletion = timeOf(oldStatus.completionTime);
  if (completion !== undefined && oldCompletion !== undefined && completion !== oldCompletion) {
    errs.push(invalidValue(STATUS.child('completionTime'), status.completionTime, 'completionTime cannot be mutated'));
  }
  if (c.startTimeUpdate && oldStatus.startTime !== undefined && oldStatus.startTime !== null && specOf(job).suspend !== true) {
    errs.push(required(STATUS.child('startTime'), 'startTime cannot be removed for unsuspended job'));
  }
  if (successCriteriaMet(old) && !successCriteriaMet(job)) errs.push(invalidValue(CONDITIONS, undefined, 'cannot disable the SuccessCriteriaMet=True condition'));
  if (complete(old) && !successCriteriaMet(old) && successCriteriaMet(job)) {
    errs.push(invalidValue(CONDITIONS, undefined, 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'));
  }
  return errs;
}
