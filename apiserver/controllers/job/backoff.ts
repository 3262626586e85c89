/**
 * The pod-failure back-off of a job (kube's backoff_utils): how many pods failed since the last success
 * and when the last of them finished. A new pod waits `base × 2^(failures-1)` (capped at `max`) after the
 * last failure: kube's 10 s base and 10 min cap by default. Records live in memory for the leadership term
 * (a new leader starts from fresh records, as a restarted kube-controller-manager does) and are dropped
 * when the job finishes or is deleted.
 */
import type { KubeObject } from '../../api/object.js';
import { finishedTime } from './job-pods.js';

export interface BackoffRecord {
  readonly failuresAfterLastSuccess: number;
  readonly lastFailureTime?: number;
}

const EMPTY: BackoffRecord = { failuresAfterLastSuccess: 0 };

export class BackoffStore {
  private readonly records = new Map<string, BackoffRecord>();

  /** The record once the newly finished pods (not counted before) are taken into account. */
  next(key: string, newSucceeded: readonly KubeObject[], newFailed: readonly KubeObject[], now: number): BackoffRecord {
    const current = this.records.get(key) ?? EMPTY;
    const failedTimes = newFailed.map((p) => finishedTime(p, now)).sort((a, b) => a - b);
    if (newSucceeded.length === 0) {
      if (failedTimes.length === 0) return current;
      return { failuresAfterLastSuccess: current.failuresAfterLastSuccess + failedTimes.length, lastFailureTime: failedTimes[failedTimes.length - 1]! };
    }
    const lastSuccess = Math.max(...newSucceeded.map((p) => finishedTime(p, now)));
    let failures = 0;
    let last: number | undefined;
    for (let i = failedTimes.length - 1; i >= 0 && failedTimes[i]! > lastSuccess; i--) {
      last ??= failedTimes[i]!;
      failures++;
    }
    return last === undefined ? EMPTY : { failuresAfterLastSuccess: failures, lastFailureTime: last };
  }

  set(key: string, record: BackoffRecord): void {
    if (record.failuresAfterLastSuccess === 0) this.records.delete(key);
    else this.records.set(key, record);
  }

  remove(key: string): void {
    this.records.delete(key);
  }
}

/** The wait left before creating a pod after `failures` failures, the last at `lastFailureTime`. */
export function remainingBackoff(failures: number, lastFailureTime: number | undefined, now: number, baseMs: number, maxMs: number): number {
  if (failures === 0 || lastFailureTime === undefined) return 0;
  let delay = baseMs;
  for (let i = 1; i < failures; i++) {
    delay *= 2;
    if (delay >= maxMs) {
      delay = maxMs;
      break;
    }
  }
  const elapsed = now - lastFailureTime;
  return delay < elapsed ? 0 : delay - elapsed;
}
