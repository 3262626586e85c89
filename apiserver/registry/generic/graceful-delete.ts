/**
 * Graceful deletion, as kube's rest.BeforeDelete decides it for kinds with a graceful delete strategy
 * (`KindStrategy.gracefulDeletion`: Pods). What a DELETE of `current` does:
 *
 * - `now`: remove the object (unless finalizers keep it: the registry's finalizer path then marks it);
 * - `mark`: keep it with `deletionTimestamp` = when the grace period ends and
 *   `deletionGracePeriodSeconds` = the period (the node agent then stops the pod and deletes it with 0);
 * - `pending`: a graceful deletion is already under way and this request does not shorten it: nothing
 *   changes, the answer is the object.
 *
 * A negative `gracePeriodSeconds` counts as 1 (kube). An object already marked with a grace period of 0
 * (or none) is removed at once; a shorter period moves `deletionTimestamp` earlier by the difference, and
 * a period of 0 removes it (`kubectl delete --grace-period=0 --force`). For an object not yet marked the
 * kind decides the period (kube's CheckGracefulDelete); 0 removes at once.
 */
import type { KubeObject } from '../../api/object.js';
import type { KindStrategy } from '../kind-strategy.js';
import { rfc3339 } from './system-fields.js';

/** The latest deletionTimestamp written: huge grace periods (int64 seconds) end here instead of overflowing. */
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59);
const timestamp = (ms: number): string => rfc3339(new Date(Number.isFinite(ms) ? Math.min(ms, LATEST) : LATEST));

export type GracefulStep =
  | { readonly type: 'now' }
  | { readonly type: 'pending' }
  | { readonly type: 'mark'; readonly deletionTimestamp: string; readonly gracePeriodSeconds: number };

/** The step for `current`, or undefined when the kind deletes without a grace period. */
export function gracefulStep(strategy: KindStrategy, current: KubeObject, requestedGrace: number | undefined, now: Date): GracefulStep | undefined {
  if (strategy.gracefulDeletion === undefined) return undefined;
  const requested = requestedGrace !== undefined && requestedGrace < 0 ? 1 : requestedGrace;
  const meta = current.metadata;
  if (meta.deletionTimestamp !== undefined) {
    const pendingGrace = meta.deletionGracePeriodSeconds ?? 0;
    if (pendingGrace <= 0) return { type: 'now' };
    if (requested === undefined || requested >= pendingGrace) return { type: 'pending' };
    if (requested === 0) return { type: 'now' };
    const marked = Date.parse(meta.deletionTimestamp);
    const at = Number.isNaN(marked) ? now.getTime() : marked - pendingGrace * 1000 + requested * 1000;
    return { type: 'mark', deletionTimestamp: timestamp(at), gracePeriodSeconds: requested };
  }
  let period = strategy.gracefulDeletion(current, requested);
  if (period < 0) period = 1;
  if (period === 0) return { type: 'now' };
  return { type: 'mark', deletionTimestamp: timestamp(now.getTime() + period * 1000), gracePeriodSeconds: period };
}
