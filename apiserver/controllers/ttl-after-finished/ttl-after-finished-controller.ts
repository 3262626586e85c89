/**
 * The ttl-after-finished controller (kube-controller-manager 1.32's `ttl-after-finished-controller`):
 * deletes a finished Job (condition Complete or Failed True) `spec.ttlSecondsAfterFinished` seconds after
 * it finished (that condition's lastTransitionTime).
 *
 * - A job not finished, without a TTL, or already being deleted is left alone; one whose TTL has not
 *   expired is looked at again when it expires.
 * - Before deleting, the job is read fresh from the store and checked again (the TTL may have changed
 *   meanwhile); the delete carries the fresh job's uid as a precondition, so a job re-created under the
 *   same name is never deleted in its place.
 * - The delete uses propagationPolicy Foreground, as kube's controller does: the job stays (with
 *   deletionTimestamp) until the garbage collector has deleted its pods.
 *
 * Writes: DELETE of the job (uid precondition, Foreground), nothing else.
 */
import type { KubeObject } from '../../api/object.js';
import { isStatusError } from '../../errors/status-error.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import type { InformerFactory } from '../informer.js';
import { keyOf, splitKey, startWorkQueue } from '../work-queue.js';

export interface TtlAfterFinishedOptions {
  readonly jobs: GenericRegistry;
  readonly informers: InformerFactory;
  readonly onError?: (err: unknown, key: string) => void;
  /** Jobs processed at once. Default 5 (kube's --concurrent-ttl-after-finished-syncs). */
  readonly workers?: number;
  /** Default `Foreground` (kube's). */
  readonly propagationPolicy?: 'Foreground' | 'Background';
  readonly now?: () => Date;
}

interface JobView {
  readonly spec?: { readonly ttlSecondsAfterFinished?: number | null };
  readonly status?: { readonly conditions?: readonly { type?: string; status?: string; lastTransitionTime?: string }[] };
}

/** The finish time of a finished job with a TTL; undefined when it needs no clean-up. */
function finishedAt(job: KubeObject): number | undefined {
  const v = job as unknown as JobView;
  if (typeof v.spec?.ttlSecondsAfterFinished !== 'number') return undefined;
  const c = v.status?.conditions?.find((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True');
  if (c === undefined) return undefined;
  const t = c.lastTransitionTime === undefined ? NaN : Date.parse(c.lastTransitionTime);
  // A finished job without a transition time cannot be timed: kube reports an error and retries.
  if (Number.isNaN(t)) throw new Error(`unable to find the time when the Job ${job.metadata.namespace ?? ''}/${job.metadata.name ?? ''} finished`);
  return t;
}

export function startTtlAfterFinishedController(o: TtlAfterFinishedOptions): { stop(): Promise<void> } {
  const now = o.now ?? (() => new Date());
  const informer = o.informers.informer(o.jobs);
  const abort = new AbortController();

  const needsCleanup = (job: KubeObject): boolean => {
    const v = job as unknown as JobView;
    return (
      job.metadata.deletionTimestamp === undefined &&
      typeof v.spec?.ttlSecondsAfterFinished === 'number' &&
      v.status?.conditions?.some((x) => (x.type === 'Complete' || x.type === 'Failed') && x.status === 'True') === true
    );
  };

  /** Milliseconds until the TTL expires (<= 0: expired); undefined when the job needs no clean-up. */
  const timeLeft = (job: KubeObject): number | undefined => {
    if (!needsCleanup(job)) return undefined;
    const finished = finishedAt(job);
    if (finished === undefined) return undefined;
    const ttl = (job as unknown as JobView).spec!.ttlSecondsAfterFinished!;
    return finished + ttl * 1000 - now().getTime();
  };

  const queue = startWorkQueue(
    async (key) => {
      const { namespace, name } = splitKey(key);
      const cached = informer.get(namespace, name);
      if (cached === undefined) return;
      const left = timeLeft(cached);
      if (left === undefined) return;
      if (left > 0) {
        queue.addAfter(key, left);
        return;
      }
      let fresh: KubeObject;
      try {
        fresh = await o.jobs.get(namespace, name);
      } catch (err) {
        if (isStatusError(err) && err.code === 404) return;
        throw err;
      }
      const freshLeft = timeLeft(fresh);
      if (freshLeft === undefined) return;
      if (freshLeft > 0) {
        queue.addAfter(key, freshLeft);
        return;
      }
      try {
        await o.jobs.delete(namespace, name, {
          propagationPolicy: o.propagationPolicy ?? 'Foreground',
          preconditions: { uid: fresh.metadata.uid ?? '' },
          signal: abort.signal,
        });
      } catch (err) {
        // Gone, or replaced by a job of another uid (409): that one is checked on its own events.
        if (isStatusError(err) && (err.code === 404 || err.code === 409)) return;
        throw err;
      }
    },
    { workers: o.workers ?? 5, ...(o.onError === undefined ? {} : { onError: o.onError }) },
  );

  const consider = (job: KubeObject): void => {
    if (needsCleanup(job)) queue.add(keyOf(job));
  };
  const unsubscribe = informer.on({ added: consider, updated: (_old, job) => consider(job) });

  return {
    async stop() {
      abort.abort();
      unsubscribe();
      await queue.stop();
    },
  };
}
