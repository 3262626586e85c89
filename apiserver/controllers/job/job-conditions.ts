/**
 * Job conditions as kube 1.32's job controller writes them: reasons and messages of the terminal and
 * interim conditions, and ensureJobConditionStatus (replace a condition of the same type when its status,
 * reason or message changed; never add a condition with status False).
 */
import { rfc3339 } from '../../registry/generic/system-fields.js';
import type { JobCondition } from './job-types.js';

export const REASON = {
  backoffLimitExceeded: 'BackoffLimitExceeded',
  deadlineExceeded: 'DeadlineExceeded',
  podFailurePolicy: 'PodFailurePolicy',
  maxFailedIndexesExceeded: 'MaxFailedIndexesExceeded',
  failedIndexes: 'FailedIndexes',
  successPolicy: 'SuccessPolicy',
  completionsReached: 'CompletionsReached',
} as const;

export const MESSAGE = {
  backoffLimitExceeded: 'Job has reached the specified backoff limit',
  deadlineExceeded: 'Job was active longer than specified deadline',
  maxFailedIndexesExceeded: 'Job has exceeded the specified maximal number of failed indexes',
  failedIndexes: 'Job has failed indexes',
  completionsReached: 'Reached expected number of succeeded pods',
} as const;

/** A condition with both times `now`; empty reason and message left out (Go's omitempty). */
export function newCondition(type: string, status: string, reason: string, message: string, now: Date): JobCondition {
  const t = rfc3339(now);
  const c: JobCondition = { type, status, lastProbeTime: t, lastTransitionTime: t };
  if (reason !== '') c.reason = reason;
  if (message !== '') c.message = message;
  return c;
}

/** Sets the condition of `type`; returns whether the list changed. */
export function ensureCondition(list: JobCondition[], type: string, status: string, reason: string, message: string, now: Date): boolean {
  const i = list.findIndex((c) => c.type === type);
  if (i >= 0) {
    const c = list[i]!;
    if (c.status !== status || (c.reason ?? '') !== reason || (c.message ?? '') !== message) {
      list[i] = newCondition(type, status, reason, message, now);
      return true;
    }
    return false;
  }
  if (status === 'False') return false;
  list.push(newCondition(type, status, reason, message, now));
  return true;
}
