/**
 * The Job controller, after kube-controller-manager 1.32's `job-controller` (pkg/controller/job): it runs
 * a Job's pods and keeps its status.
 *
 * One pass over a job (`syncJob`), from the informers' state:
 * - skipped when the job is gone, finished, managed by another controller (`spec.managedBy` other than the
 *   reserved `<domain>/job-controller`), or of an unknown completion mode (a Warning event);
 * - its pods are claimed (adoption and release by selector), counted (active, ready, terminating) and the
 *   newly terminated ones found (those still holding the `batch.<domain>/job-tracking` finalizer);
 * - the finish is decided: a FailJob podFailurePolicy rule, failures beyond backoffLimit (or container
 *   restarts beyond it for restartPolicy OnFailure), activeDeadlineSeconds past startTime, failed indexes
 *   beyond maxFailedIndexes or every index done with some failed, a successPolicy rule met, or enough
 *   successes. Failure first writes the interim `FailureTarget` condition, success `SuccessCriteriaMet`;
 *   active pods are deleted and `Failed` / `Complete` (with completionTime) follow once no pod is
 *   terminating and every terminated pod is counted (kube 1.32 with JobManagedBy on);
 * - otherwise pods are created or deleted toward min(parallelism, remaining work) (suspended: none), with
 *   the exponential pod-failure back-off (global, or per index with backoffLimitPerIndex), slow-start
 *   batches, at most 500 per pass, and expectations so that a pass never acts on a cache that has not seen
 *   its previous pass's creations and deletions; Suspended / Resumed conditions and startTime follow
 *   `spec.suspend`;
 * - terminated pods are counted in three steps: their UIDs go to `status.uncountedTerminatedPods` (Indexed
 *   successes straight to completedIndexes), their tracking finalizer is removed, then the UIDs leave the
 *   list and the counters grow; at most 500 per pass.
 * Pods left with the tracking finalizer and no live, unfinished job controlling them (orphans, released
 * pods, pods of a deleted or finished job) lose the finalizer through a second queue.
 *
 * Writes (all with field manager kube-controller-manager): pods created (POST), pods deleted (DELETE with a
 * uid precondition), pod finalizer removal (PATCH, only the tracking finalizer), job status (PUT /status
 * with the resourceVersion read: a conflict requeues), pod adoption/release (controller-ref.ts), events.
 */
import type { KubeObject } from '../../api/object.js';
import { isStatusError } from '../../errors/status-error.js';
import type { EventRecorder, EventType } from '../../events/event-recorder.js';
import { referenceOf } from '../../events/object-reference.js';
import type { Naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import { labelSelectorFromObject } from '../../selectors/label-selector-object.js';
import { claimObjects, controllerRefOf, controllerRefTo, controllerUidIndex } from '../controller-ref.js';
import { CONTROLLER_FIELD_MANAGER } from '../field-manager.js';
import type { InformerFactory } from '../informer.js';
import { podFromTemplate } from '../pod-from-template.js';
import { keyOf, splitKey, startWorkQueue } from '../work-queue.js';
import { BackoffStore, remainingBackoff, type BackoffRecord } from './backoff.js';
import { Expectations } from './expectations.js';
import { ensureCondition, MESSAGE, newCondition, REASON } from './job-conditions.js';
import { jobControllerNames } from './job-pod-names.js';
import {
  activePodsOrder,
  completionIndexOf,
  finishedTime,
  int32Annotation,
  isActive,
  isPodFailed,
  isReady,
  isSucceeded,
  isTerminating,
  onlyReplaceFailedPods,
} from './job-pods.js';
import { hasBackoffLimitPerIndex, isFinished, isIndexed, isSuspended, jobSpec, jobStatus, podStatus, trueCondition, type JobCondition, type JobStatus } from './job-types.js';
import { firstPending, formatIntervals, has, mergeIntervals, parseIntervals, total, withIndexes, type Interval } from './ordered-intervals.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { matchSuccessPolicy } from './success-policy.js';

/** kube's limits per pass. */
export const MAX_UNCOUNTED_PODS = 500;
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;
const SLOW_START_INITIAL_BATCH = 1;
const JOB_KIND = { apiVersion: 'batch/v1', kind: 'Job' } as const;
const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';
const MAX_GENERATED_NAME_LENGTH = 58;

export interface JobControllerOptions {
  readonly jobs: GenericRegistry;
  readonly pods: GenericRegistry;
  readonly informers: InformerFactory;
  readonly naming: Naming;
  readonly recorder?: EventRecorder;
  readonly onError?: (err: unknown, key: string) => void;
  /** Jobs synced at once. Default 5 (kube's --concurrent-job-syncs). */
  readonly workers?: number;
  /** First pod-failure back-off. Default 10 s (kube's DefaultJobPodFailureBackOff). */
  readonly podFailureBackoffMs?: number;
  /** Longest pod-failure back-off. Default 10 min (kube's MaxJobPodFailureBackOff). */
  readonly maxPodFailureBackoffMs?: number;
  /** Delay that batches pod events into one pass. Default 1 s (kube's syncJobBatchPeriod). */
  readonly syncBatchPeriodMs?: number;
  /** First retry after a failed pass. Default 1 s (kube's DefaultJobApiBackOff). */
  readonly apiBackoffMs?: number;
  /** Longest retry delay. Default 1 min (kube's MaxJobApiBackOff). */
  readonly maxApiBackoffMs?: number;
  /** Expectations expire after this. Default 5 min (kube's ExpectationsTimeout). */
  readonly expectationsTtlMs?: number;
  readonly now?: () => Date;
}

interface SyncContext {
  job: KubeObject;
  readonly pods: KubeObject[];
  readonly activePods: KubeObject[];
  readonly key: string;
  ready: number;
  terminating: number;
  succeeded: number;
  failed: number;
  readonly uncountedSucceeded: ReadonlySet<string>;
  readonly uncountedFailed: ReadonlySet<string>;
  readonly expectedRmFinalizers: ReadonlySet<string>;
  prevSucceededIndexes: Interval[];
  succeededIndexes: Interval[];
  failedIndexes?: Interval[];
  podsWithDelayedDeletionPerIndex: Map<number, KubeObject>;
  finishedCondition?: JobCondition;
  backoffRecord: BackoffRecord;
}

const ORPHANS_BY_NAMESPACE = 'job-controller/orphans-by-namespace';
const POD_CONTROLLER_UID = 'job-controller/controller-uid';

export function startJobController(o: JobControllerOptions): { stop(): Promise<void> } {
  const names = jobControllerNames(o.naming);
  const now = o.now ?? (() => new Date());
  const nowMs = (): number => now().getTime();
  const baseBackoff = o.podFailureBackoffMs ?? 10_000;
  const maxBackoff = o.maxPodFailureBackoffMs ?? 600_000;
  const batchMs = o.syncBatchPeriodMs ?? 1_000;
  const expectations = new Expectations(o.expectationsTtlMs ?? 300_000, nowMs);
  const backoffs = new BackoffStore();
  const jobInformer = o.informers.informer(o.jobs);
  const podInformer = o.informers.informer(o.pods);
  podInformer.addIndex(POD_CONTROLLER_UID, controllerUidIndex);
  podInformer.addIndex(ORPHANS_BY_NAMESPACE, (pod) => (controllerRefOf(pod) === undefined ? [pod.metadata.namespace ?? ''] : []));
  const abort = new AbortController();
  const signal = abort.signal;
  /**
   * Both caches loaded: before that, a pod's job may just not be known yet, and its finalizer must not be
   * taken for an orphan's (kube starts its workers once the caches synced).
   */
  const synced = (): Promise<unknown> => Promise.all([jobInformer.synced, podInformer.synced]);

  const writeOpts = { fieldManager: CONTROLLER_FIELD_MANAGER, signal };

  const record = (obj: KubeObject, type: EventType, reason: string, message: string): void => {
    if (o.recorder !== undefined) void o.recorder.event(referenceOf({ ...obj, apiVersion: 'batch/v1', kind: 'Job' }), type, reason, message);
  };

  const managedByOther = (job: KubeObject): boolean => {
    const m = jobSpec(job).managedBy;
    return typeof m === 'string' && m !== names.controllerName;
  };

  const queue = startWorkQueue((key) => syncJob(key), {
    workers: o.workers ?? 5,
    baseDelayMs: o.apiBackoffMs ?? 1_000,
    maxDelayMs: o.maxApiBackoffMs ?? 60_000,
    ...(o.onError === undefined ? {} : { onError: o.onError }),
  });
  const orphanQueue = startWorkQueue((key) => syncOrphanPod(key), {
    baseDelayMs: o.apiBackoffMs ?? 1_000,
    maxDelayMs: o.maxApiBackoffMs ?? 60_000,
    ...(o.onError === undefined ? {} : { onError: o.onError }),
  });

  /** The job controlling `pod`, if it is in the cache with the uid of the pod's controller reference. */
  const jobOf = (pod: KubeObject): KubeObject | undefined => {
    const ref = controllerRefOf(pod);
    if (ref === undefined || ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return undefined;
    const job = jobInformer.get(pod.metadata.namespace ?? '', ref.name);
    return job?.metadata.uid === ref.uid ? job : undefined;
  };
  const hasFinalizer = (pod: KubeObject): boolean => pod.metadata.finalizers?.includes(names.trackingFinalizer) === true;

  /** Pods holding the finalizer whose controlling job is gone, finished, or not a Job at all go to the orphan queue. */
  const maybeOrphan = (pod: KubeObject): void => {
    if (!hasFinalizer(pod)) return;
    const ref = controllerRefOf(pod);
    if (ref !== undefined && (ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1')) return;
    const job = ref === undefined ? undefined : jobOf(pod);
    if (job === undefined || isFinished(job)) orphanQueue.add(keyOf(pod));
  };

  const enqueueForPod = (pod: KubeObject, immediate: boolean): void => {
    const job = jobOf(pod);
    if (job === undefined || managedByOther(job)) return;
    const key = keyOf(job);
    if (immediate || batchMs <= 0) queue.add(key);
    else queue.addAfter(key, batchMs);
  };

  /** Pods without a controller whose labels some job's selector matches: that job may adopt them. */
  const enqueueAdopters = (pod: KubeObject): void => {
    for (const job of jobInformer.list(pod.metadata.namespace ?? '')) {
      if (managedByOther(job) || isFinished(job)) continue;
      if (labelSelectorFromObject(jobSpec(job).selector).matches(pod.metadata.labels ?? {})) queue.addAfter(keyOf(job), batchMs);
    }
  };

  const unsubscribePods = podInformer.on({
    added(pod) {
      if (pod.metadata.deletionTimestamp !== undefined) {
        podDeleted(pod);
        return;
      }
      const job = jobOf(pod);
      if (job !== undefined) {
        expectations.observed(keyOf(job), 'add');
        enqueueForPod(pod, false);
      } else if (controllerRefOf(pod) === undefined) {
        enqueueAdopters(pod);
      }
      maybeOrphan(pod);
    },
    updated(old, pod) {
      if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
      const job = jobOf(pod);
      if (job !== undefined) {
        const key = keyOf(job);
        if (pod.metadata.deletionTimestamp !== undefined && old.metadata.deletionTimestamp === undefined) expectations.observed(key, 'del');
        if (!hasFinalizer(pod) && hasFinalizer(old)) expectations.finalizerRemovalObserved(key, pod.metadata.uid ?? '');
        const newlyFailed = podStatus(pod).phase === 'Failed' && podStatus(old).phase !== 'Failed';
        enqueueForPod(pod, !newlyFailed);
      }
      const oldRef = controllerRefOf(old);
      if (oldRef !== undefined && oldRef.uid !== controllerRefOf(pod)?.uid) {
        const previous = jobOf(old);
        if (previous !== undefined) queue.add(keyOf(previous));
      }
      if (controllerRefOf(pod) === undefined) enqueueAdopters(pod);
      maybeOrphan(pod);
    },
    deleted(pod) {
      podDeleted(pod);
    },
  });

  function podDeleted(pod: KubeObject): void {
    const job = jobOf(pod);
    if (job === undefined) {
      maybeOrphan(pod);
      return;
    }
    const key = keyOf(job);
    expectations.observed(key, 'del');
    expectations.finalizerRemovalObserved(key, pod.metadata.uid ?? '');
    enqueueForPod(pod, false);
  }

  const unsubscribeJobs = jobInformer.on({
    added(job) {
      if (!managedByOther(job)) queue.add(keyOf(job));
    },
    updated(old, job) {
      if (old.metadata.resourceVersion === job.metadata.resourceVersion) return;
      if (old.metadata.uid !== job.metadata.uid) {
        // Replaced under the same name (seen as one update after a relist): the old job's state goes.
        expectations.forget(keyOf(job));
        backoffs.remove(keyOf(job));
        cleanupPodFinalizers(old);
      }
      if (!managedByOther(job)) queue.add(keyOf(job));
      if (isFinished(job) && !isFinished(old)) cleanupPodFinalizers(job);
    },
    deleted(job) {
      queue.add(keyOf(job));
      cleanupPodFinalizers(job);
    },
  });

  /** Every pod of `job` still holding the finalizer goes to the orphan queue (the job is gone or finished). */
  function cleanupPodFinalizers(job: KubeObject): void {
    for (const pod of podInformer.byIndex(POD_CONTROLLER_UID, job.metadata.uid ?? '')) if (hasFinalizer(pod)) orphanQueue.add(keyOf(pod));
  }

  async function syncOrphanPod(key: string): Promise<void> {
    await synced();
    const { namespace, name } = splitKey(key);
    const pod = podInformer.get(namespace, name);
    if (pod === undefined || !hasFinalizer(pod)) return;
    const ref = controllerRefOf(pod);
    if (ref !== undefined) {
      if (ref.kind !== 'Job' || ref.apiVersion !== 'batch/v1') return;
      const job = jobOf(pod);
      if (job !== undefined && managedByOther(job)) return;
      if (job !== undefined && !isFinished(job)) return;
    }
    await removeFinalizer(pod).catch(ignoreNotFound);
  }

  const ignoreNotFound = (err: unknown): void => {
    if (isStatusError(err) && err.code === 404) return;
    throw err;
  };

  /** Removes only the tracking finalizer, and only from the pod with the uid seen (a 409 otherwise). */
  async function removeFinalizer(pod: KubeObject): Promise<void> {
    await o.pods.patch(
      pod.metadata.namespace ?? '',
      pod.metadata.name ?? '',
      (current) => {
        if (current.metadata.uid !== pod.metadata.uid) throw Object.assign(new Error('pod replaced'), { replaced: true });
        const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== names.trackingFinalizer);
        const metadata = { ...current.metadata };
        if (finalizers.length > 0) metadata.finalizers = finalizers;
        else delete metadata.finalizers;
        return { ...current, metadata };
      },
      writeOpts,
    ).catch((err: unknown) => {
      if ((err as { replaced?: boolean }).replaced === true) return;
      throw err;
    });
  }

  async function getPodsForJob(job: KubeObject): Promise<KubeObject[]> {
    const ns = job.metadata.namespace ?? '';
    const selector = labelSelectorFromObject(jobSpec(job).selector);
    const owned = podInformer.byIndex(POD_CONTROLLER_UID, job.metadata.uid ?? '');
    const orphans = podInformer.byIndex(ORPHANS_BY_NAMESPACE, ns).filter((p) => selector.matches(p.metadata.labels ?? {}));
    if (orphans.length === 0 && owned.every((p) => selector.matches(p.metadata.labels ?? {}))) return owned;
    return claimObjects({
      registry: o.pods,
      owner: job,
      ownerType: JOB_KIND,
      matches: (p) => selector.matches(p.metadata.labels ?? {}),
      candidates: [...owned, ...orphans],
      canAdopt: async () => {
        const fresh = await o.jobs.get(ns, job.metadata.name ?? '').catch(() => undefined);
        return fresh !== undefined && fresh.metadata.uid === job.metadata.uid && fresh.metadata.deletionTimestamp === undefined;
      },
      signal,
    });
  }

  async function syncJob(key: string): Promise<void> {
    await synced();
    const { namespace, name } = splitKey(key);
    const shared = jobInformer.get(namespace, name);
    if (shared === undefined) {
      expectations.forget(key);
      backoffs.remove(key);
      return;
    }
    if (managedByOther(shared)) return;
    if (isFinished(shared)) {
      backoffs.remove(key);
      return;
    }
    const mode = jobSpec(shared).completionMode;
    if (mode !== undefined && mode !== null && mode !== 'NonIndexed' && mode !== 'Indexed') {
      record(shared, 'Warning', 'UnknownCompletionMode', 'Skipped Job sync because completion mode is unknown');
      return;
    }
    const job = structuredClone(shared);
    const status = (job.status ??= {}) as JobStatus;
    status.uncountedTerminatedPods ??= {};
    const spec = jobSpec(job);
    const t = now();

    const satisfied = expectations.satisfied(key);
    const pods = await getPodsForJob(job);
    const activePods = pods.filter(isActive);
    const uncounted = status.uncountedTerminatedPods;
    const ctx: SyncContext = {
      job,
      pods,
      activePods,
      key,
      ready: activePods.filter(isReady).length,
      terminating: pods.filter(isTerminating).length,
      succeeded: 0,
      failed: 0,
      uncountedSucceeded: new Set(uncounted.succeeded ?? []),
      uncountedFailed: new Set(uncounted.failed ?? []),
      expectedRmFinalizers: new Set(expectations.expectedFinalizerRemovals(key)),
      prevSucceededIndexes: [],
      succeededIndexes: [],
      podsWithDelayedDeletionPerIndex: new Map(),
      backoffRecord: { failuresAfterLastSuccess: 0 },
    };
    let active = activePods.length;
    const newSucceeded = validPods(ctx, ctx.uncountedSucceeded, isSucceeded);
    const newFailed = validPods(ctx, ctx.uncountedFailed, (p) => isPodFailed(p, job));
    ctx.succeeded = (status.succeeded ?? 0) + newSucceeded.length + ctx.uncountedSucceeded.size;
    ctx.failed = (status.failed ?? 0) + nonIgnoredFailures(job, newFailed) + ctx.uncountedFailed.size;

    if (status.startTime === undefined && !isSuspended(job)) status.startTime = rfc3339(t);
    ctx.backoffRecord = backoffs.next(key, newSucceeded, newFailed, t.getTime());

    const exceedsBackoffLimit = ctx.failed > (spec.backoffLimit ?? 6);
    const criteria = trueCondition(job, 'SuccessCriteriaMet');
    if (criteria !== undefined) ctx.finishedCondition = criteria;
    if (ctx.finishedCondition === undefined) {
      const target = trueCondition(job, 'FailureTarget');
      const failJobMessage = target === undefined ? failJobMessageOf(job, pods) : undefined;
      if (target !== undefined) ctx.finishedCondition = newCondition('Failed', 'True', target.reason ?? '', target.message ?? '', t);
      else if (failJobMessage !== undefined) ctx.finishedCondition = newCondition('FailureTarget', 'True', REASON.podFailurePolicy, failJobMessage, t);
    }
    if (ctx.finishedCondition === undefined) {
      if (exceedsBackoffLimit || pastBackoffLimitOnFailure(job, pods)) {
        ctx.finishedCondition = newCondition('FailureTarget', 'True', REASON.backoffLimitExceeded, MESSAGE.backoffLimitExceeded, t);
      } else if (pastActiveDeadline(job, t)) {
        ctx.finishedCondition = newCondition('FailureTarget', 'True', REASON.deadlineExceeded, MESSAGE.deadlineExceeded, t);
      } else if (typeof spec.activeDeadlineSeconds === 'number' && !isSuspended(job) && status.startTime !== undefined) {
        const left = spec.activeDeadlineSeconds * 1000 - (t.getTime() - Date.parse(status.startTime));
        queue.addAfter(key, Math.max(0, left));
      }
    }

    if (isIndexed(job)) {
      const completions = spec.completions ?? 0;
      ctx.prevSucceededIndexes = parseIntervals(status.completedIndexes, completions);
      const newIndexes = new Set<number>();
      for (const p of pods) {
        const ix = completionIndexOf(p, names.completionIndex);
        if (isSucceeded(p) && ix >= 0 && ix < completions && hasFinalizer(p)) newIndexes.add(ix);
      }
      ctx.succeededIndexes = withIndexes(ctx.prevSucceededIndexes, [...newIndexes].sort((a, b) => a - b));
      ctx.succeeded = total(ctx.succeededIndexes);
      if (hasBackoffLimitPerIndex(job)) {
        ctx.failedIndexes = calculateFailedIndexes(job, pods);
        if (ctx.finishedCondition === undefined) {
          const failedCount = total(ctx.failedIndexes);
          if (typeof spec.maxFailedIndexes === 'number' && failedCount > spec.maxFailedIndexes) {
            ctx.finishedCondition = newCondition('FailureTarget', 'True', REASON.maxFailedIndexesExceeded, MESSAGE.maxFailedIndexesExceeded, t);
          } else if (failedCount > 0 && failedCount + total(ctx.succeededIndexes) >= completions) {
            ctx.finishedCondition = newCondition('FailureTarget', 'True', REASON.failedIndexes, MESSAGE.failedIndexes, t);
          }
        }
        ctx.podsWithDelayedDeletionPerIndex = podsWithDelayedDeletionPerIndex(ctx);
      }
      if (ctx.finishedCondition === undefined) {
        const msg = matchSuccessPolicy(spec, completions, ctx.succeededIndexes);
        if (msg !== undefined) ctx.finishedCondition = newCondition('SuccessCriteriaMet', 'True', REASON.successPolicy, msg, t);
      }
    }

    let suspendChanged = false;
    let manageErr: unknown;
    if (ctx.finishedCondition !== undefined) {
      const { deleted, deletedReady, error } = await deletePods(job, activePods, false);
      if (deleted !== active || !satisfied) ctx.finishedCondition = undefined;
      active -= deleted;
      ctx.terminating += deleted;
      ctx.ready -= deletedReady;
      manageErr = error;
    } else {
      let manageCalled = false;
      if (satisfied && job.metadata.deletionTimestamp === undefined) {
        const r = await manageJob(ctx);
        active = r.active;
        manageErr = r.error;
        manageCalled = true;
      }
      const complete =
        typeof spec.completions === 'number' ? ctx.succeeded >= spec.completions && active === 0 : ctx.succeeded > 0 && active === 0;
      if (complete) {
        ctx.finishedCondition = newCondition('SuccessCriteriaMet', 'True', REASON.completionsReached, MESSAGE.completionsReached, t);
      } else if (manageCalled) {
        status.conditions ??= [];
        if (isSuspended(job)) {
          if (ensureCondition(status.conditions, 'Suspended', 'True', 'JobSuspended', 'Job suspended', t)) {
            suspendChanged = true;
            record(job, 'Normal', 'Suspended', 'Job suspended');
          }
          // The deadline timer stops: startTime goes while suspended (the only time the API lets it go) and
          // is set anew on resume.
          if (status.startTime !== undefined) {
            delete status.startTime;
            suspendChanged = true;
          }
        } else if (ensureCondition(status.conditions, 'Suspended', 'False', 'JobResumed', 'Job resumed', t)) {
          suspendChanged = true;
          record(job, 'Normal', 'Resumed', 'Job resumed');
          // Resuming restarts the activeDeadlineSeconds clock (kube: ActiveDeadlineSeconds counts continuous activity).
          status.startTime = rfc3339(t);
        }
        if (status.conditions.length === 0) delete status.conditions;
      }
    }

    const needsStatusUpdate =
      suspendChanged || active !== (status.active ?? 0) || ctx.ready !== status.ready || ctx.terminating !== status.terminating;
    status.active = active;
    status.ready = ctx.ready;
    status.terminating = ctx.terminating;
    await trackStatusAndRemoveFinalizers(ctx, needsStatusUpdate);
    if (manageErr !== undefined) throw manageErr;
  }

  /** Pods holding the finalizer, not yet in `uncountedSet`, with a valid index for Indexed jobs, that pass `filter`. */
  function validPods(ctx: SyncContext, uncountedSet: ReadonlySet<string>, filter: (p: KubeObject) => boolean): KubeObject[] {
    const completions = jobSpec(ctx.job).completions ?? 0;
    const indexed = isIndexed(ctx.job);
    return ctx.pods.filter((p) => {
      const uid = p.metadata.uid ?? '';
      if (!hasFinalizer(p) || uncountedSet.has(uid) || ctx.expectedRmFinalizers.has(uid)) return false;
      if (indexed) {
        const ix = completionIndexOf(p, names.completionIndex);
        if (ix < 0 || ix >= completions) return false;
      }
      return filter(p);
    });
  }

  function nonIgnoredFailures(job: KubeObject, failed: readonly KubeObject[]): number {
    const spec = jobSpec(job);
    if (spec.podFailurePolicy === undefined || spec.podFailurePolicy === null) return failed.length;
    return failed.filter((p) => matchPodFailurePolicy(spec, p).countFailed).length;
  }

  function failJobMessageOf(job: KubeObject, pods: readonly KubeObject[]): string | undefined {
    const spec = jobSpec(job);
    if (spec.podFailurePolicy === undefined || spec.podFailurePolicy === null) return undefined;
    for (const p of pods) {
      if (!isPodFailed(p, job)) continue;
      const m = matchPodFailurePolicy(spec, p).failJobMessage;
      if (m !== undefined) return m;
    }
    return undefined;
  }

  /** restartPolicy OnFailure: the container restarts of running and pending pods reach backoffLimit. */
  function pastBackoffLimitOnFailure(job: KubeObject, pods: readonly KubeObject[]): boolean {
    const spec = jobSpec(job);
    if (spec.template?.spec?.restartPolicy !== 'OnFailure') return false;
    let restarts = 0;
    for (const p of pods) {
      const s = podStatus(p);
      if (s.phase !== 'Running' && s.phase !== 'Pending') continue;
      for (const cs of [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])]) restarts += cs.restartCount ?? 0;
    }
    const limit = spec.backoffLimit ?? 6;
    return limit === 0 ? restarts > 0 : restarts >= limit;
  }

  function pastActiveDeadline(job: KubeObject, t: Date): boolean {
    const spec = jobSpec(job);
    const start = jobStatus(job).startTime;
    if (typeof spec.activeDeadlineSeconds !== 'number' || start === undefined || isSuspended(job)) return false;
    return t.getTime() - Date.parse(start) >= spec.activeDeadlineSeconds * 1000;
  }

  /** A failed index: a counted failure at the index's backoffLimitPerIndex, or a FailIndex rule. */
  function isIndexFailed(job: KubeObject, pod: KubeObject): boolean {
    const spec = jobSpec(job);
    let counted = false;
    if (isPodFailed(pod, job)) {
      if (spec.podFailurePolicy !== undefined && spec.podFailurePolicy !== null) {
        const m = matchPodFailurePolicy(spec, pod);
        if (m.action === 'FailIndex') return true;
        counted = m.countFailed;
      } else {
        counted = true;
      }
    }
    return counted && int32Annotation(pod, names.indexFailureCount) >= (spec.backoffLimitPerIndex ?? 0);
  }

  function calculateFailedIndexes(job: KubeObject, pods: readonly KubeObject[]): Interval[] {
    const completions = jobSpec(job).completions ?? 0;
    const prev = parseIntervals(jobStatus(job).failedIndexes, completions);
    const failed = new Set<number>();
    for (const p of pods) {
      const ix = completionIndexOf(p, names.completionIndex);
      if (ix >= 0 && ix < completions && hasFinalizer(p) && isIndexFailed(job, p)) failed.add(ix);
    }
    return withIndexes(prev, [...failed].sort((a, b) => a - b));
  }

  const absoluteFailureCount = (p: KubeObject): number => int32Annotation(p, names.indexFailureCount) + int32Annotation(p, names.indexIgnoredFailureCount);

  /**
   * Per index, the last failed pod whose deletion waits for its replacement (which inherits its failure
   * counts through annotations); none for indexes done, failed, or already running again.
   */
  function podsWithDelayedDeletionPerIndex(ctx: SyncContext): Map<number, KubeObject> {
    const activeIndexes = new Set(ctx.activePods.map((p) => completionIndexOf(p, names.completionIndex)));
    const result = new Map<number, KubeObject>();
    const t = nowMs();
    for (const p of validPods(ctx, new Set(), (pod) => isPodFailed(pod, ctx.job))) {
      const ix = completionIndexOf(p, names.completionIndex);
      if (has(ctx.succeededIndexes, ix) || (ctx.failedIndexes !== undefined && has(ctx.failedIndexes, ix)) || activeIndexes.has(ix)) continue;
      const last = result.get(ix);
      if (last === undefined || (absoluteFailureCount(last) <= absoluteFailureCount(p) && finishedTime(p, t) >= finishedTime(last, t))) result.set(ix, p);
    }
    return result;
  }

  /** The pods to delete: duplicate and out-of-range indexes first (Indexed), then by kube's ActivePods order. */
  function activePodsForRemoval(job: KubeObject, pods: readonly KubeObject[], rmAtLeast: number): KubeObject[] {
    const rm: KubeObject[] = [];
    let left: KubeObject[] = [...pods];
    if (isIndexed(job)) {
      const completions = jobSpec(job).completions ?? 0;
      left = [];
      const byIndex = new Map<number, KubeObject[]>();
      for (const p of pods) {
        const ix = completionIndexOf(p, names.completionIndex);
        if (ix < 0 || ix >= completions) rm.push(p);
        else byIndex.set(ix, [...(byIndex.get(ix) ?? []), p]);
      }
      for (const ix of [...byIndex.keys()].sort((a, b) => a - b)) {
        const same = byIndex.get(ix)!.sort(activePodsOrder);
        rm.push(...same.slice(0, -1));
        left.push(same[same.length - 1]!);
      }
    }
    if (rm.length < rmAtLeast) {
      left.sort(activePodsOrder);
      rm.push(...left.slice(0, rmAtLeast - rm.length));
    }
    return rm;
  }

  async function manageJob(ctx: SyncContext): Promise<{ active: number; error?: unknown }> {
    const { job, key } = ctx;
    const spec = jobSpec(job);
    let active = ctx.activePods.length;
    const parallelism = spec.parallelism ?? 1;

    if (isSuspended(job)) {
      const toDelete = activePodsForRemoval(job, ctx.activePods, active);
      expectations.expect(key, 0, toDelete.length);
      const r = await deletePods(job, toDelete, true);
      ctx.terminating += r.deleted;
      ctx.ready -= r.deletedReady;
      return { active: active - r.deleted, error: r.error };
    }

    let wantActive: number;
    if (typeof spec.completions !== 'number') wantActive = ctx.succeeded > 0 ? active : parallelism;
    else wantActive = Math.max(0, Math.min(spec.completions - ctx.succeeded, parallelism));

    let toDelete = activePodsForRemoval(job, ctx.activePods, Math.max(0, active - wantActive));
    if (toDelete.length > MAX_POD_CREATE_DELETE_PER_SYNC) toDelete = toDelete.slice(0, MAX_POD_CREATE_DELETE_PER_SYNC);
    if (toDelete.length > 0) {
      expectations.expect(key, 0, toDelete.length);
      const r = await deletePods(job, toDelete, true);
      ctx.terminating += r.deleted;
      ctx.ready -= r.deletedReady;
      return { active: active - r.deleted, error: r.error };
    }

    const terminating = onlyReplaceFailedPods(job) ? ctx.terminating : 0;
    let diff = wantActive - terminating - active;
    if (diff <= 0) return { active };
    const t = nowMs();
    if (!hasBackoffLimitPerIndex(job)) {
      const left = remainingBackoff(ctx.backoffRecord.failuresAfterLastSuccess, ctx.backoffRecord.lastFailureTime, t, baseBackoff, maxBackoff);
      if (left > 0) {
        queue.addAfter(key, left);
        return { active };
      }
    }
    diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
    let indexes: number[] = [];
    if (isIndexed(job)) {
      const completions = spec.completions ?? 0;
      let taken = withIndexes(ctx.succeededIndexes, sortedIndexes(ctx.activePods));
      if (onlyReplaceFailedPods(job)) taken = withIndexes(taken, sortedIndexes(ctx.pods.filter(isTerminating)));
      if (ctx.failedIndexes !== undefined) taken = mergeIntervals(taken, ctx.failedIndexes);
      indexes = firstPending(taken, diff, completions);
      if (hasBackoffLimitPerIndex(job)) {
        const now = [];
        let minLeft: number | undefined;
        for (const ix of indexes) {
          const last = ctx.podsWithDelayedDeletionPerIndex.get(ix);
          const left = last === undefined ? 0 : remainingBackoff(absoluteFailureCount(last) + 1, finishedTime(last, t), t, baseBackoff, maxBackoff);
          if (left === 0) now.push(ix);
          else if (minLeft === undefined || left < minLeft) minLeft = left;
        }
        if (now.length === 0 && minLeft !== undefined) {
          queue.addAfter(key, minLeft);
          return { active };
        }
        indexes = now;
      }
      diff = indexes.length;
    }
    if (diff <= 0) return { active };

    expectations.expect(key, diff, 0);
    const template = structuredClone(spec.template ?? {}) as { metadata?: KubeObject['metadata']; spec?: Record<string, unknown> };
    if (isIndexed(job)) addCompletionIndexEnv(template.spec ?? {});
    template.metadata ??= {};
    const finalizers = template.metadata.finalizers ?? [];
    template.metadata.finalizers = finalizers.includes(names.trackingFinalizer) ? finalizers : [...finalizers, names.trackingFinalizer];
    const ref = controllerRefTo(job, JOB_KIND.apiVersion, JOB_KIND.kind);
    let error: unknown;
    let remaining = diff;
    for (let batch = Math.min(diff, SLOW_START_INITIAL_BATCH); remaining > 0; batch = Math.min(2 * batch, remaining)) {
      const results = await Promise.all(
        Array.from({ length: batch }, async () => {
          const ix = indexes.shift();
          const pod = podFor(job, template, ref, ix, ctx);
          try {
            const created = await o.pods.create(job.metadata.namespace ?? '', pod, writeOpts);
            record(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.object.metadata.name ?? ''}`);
            return true;
          } catch (err) {
            expectations.observed(key, 'add');
            active--;
            record(job, 'Warning', 'FailedCreate', `Error creating: ${err instanceof Error ? err.message : String(err)}`);
            error ??= err;
            return false;
          }
        }),
      );
      active += batch;
      remaining -= batch;
      if (results.includes(false) && remaining > 0) {
        // Slow start: after a failed batch, the pods never tried are not expected (a later pass retries them).
        for (let i = 0; i < remaining; i++) expectations.observed(key, 'add');
        break;
      }
    }
    return error === undefined ? { active } : { active, error };
  }

  const sortedIndexes = (pods: readonly KubeObject[]): number[] =>
    [...new Set(pods.map((p) => completionIndexOf(p, names.completionIndex)).filter((ix) => ix >= 0))].sort((a, b) => a - b);

  /** kube's JOB_COMPLETION_INDEX variable, from the completion-index label, in every (init) container. */
  function addCompletionIndexEnv(podSpec: Record<string, unknown>): void {
    for (const field of ['initContainers', 'containers']) {
      const containers = podSpec[field];
      if (!Array.isArray(containers)) continue;
      for (const c of containers as { env?: { name: string }[] }[]) {
        c.env ??= [];
        if (c.env.some((e) => e.name === COMPLETION_INDEX_ENV)) continue;
        c.env.push({ name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.labels['${names.completionIndex}']` } } } as { name: string });
      }
    }
  }

  function podFor(job: KubeObject, template: { metadata?: KubeObject['metadata']; spec?: Record<string, unknown> }, ref: ReturnType<typeof controllerRefTo>, ix: number | undefined, ctx: SyncContext): KubeObject {
    const jobName = job.metadata.name ?? '';
    if (ix === undefined) return podFromTemplate(template, job, ref);
    const t = structuredClone(template);
    t.metadata ??= {};
    t.metadata.annotations = { ...(t.metadata.annotations ?? {}), [names.completionIndex]: String(ix) };
    t.metadata.labels = { ...(t.metadata.labels ?? {}), [names.completionIndex]: String(ix) };
    t.spec = { ...(t.spec ?? {}), hostname: `${jobName}-${ix}` };
    if (hasBackoffLimitPerIndex(job)) {
      const replaced = ctx.podsWithDelayedDeletionPerIndex.get(ix);
      let failures = 0;
      let ignored = 0;
      if (replaced !== undefined) {
        failures = int32Annotation(replaced, names.indexFailureCount);
        ignored = int32Annotation(replaced, names.indexIgnoredFailureCount);
        const spec = jobSpec(job);
        if (spec.podFailurePolicy !== undefined && spec.podFailurePolicy !== null && !matchPodFailurePolicy(spec, replaced).countFailed) ignored++;
        else failures++;
      }
      t.metadata.annotations[names.indexFailureCount] = String(failures);
      if (ignored > 0) t.metadata.annotations[names.indexIgnoredFailureCount] = String(ignored);
    }
    const suffix = `-${ix}-`;
    let generateName = `${jobName}${suffix}`;
    if (generateName.length > MAX_GENERATED_NAME_LENGTH) generateName = jobName.slice(0, MAX_GENERATED_NAME_LENGTH - suffix.length) + suffix;
    return podFromTemplate(t, job, ref, { generateName });
  }

  /**
   * Deletes pods (a uid precondition each). With `removeFinalizer` (scale-down, suspension) the tracking
   * finalizer goes first, so the pod is not counted as a failure; a finishing job keeps it (the pods are
   * counted as failed once terminated). Failed deletions are no longer expected.
   */
  async function deletePods(job: KubeObject, pods: readonly KubeObject[], withFinalizerRemoval: boolean): Promise<{ deleted: number; deletedReady: number; error?: unknown }> {
    const key = keyOf(job);
    let deleted = 0;
    let deletedReady = 0;
    let error: unknown;
    await Promise.all(
      pods.map(async (pod) => {
        try {
          if (withFinalizerRemoval && hasFinalizer(pod)) await removeFinalizer(pod);
          await o.pods.delete(pod.metadata.namespace ?? '', pod.metadata.name ?? '', { preconditions: { uid: pod.metadata.uid ?? '' }, signal });
          record(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name ?? ''}`);
          deleted++;
          if (isReady(pod)) deletedReady++;
        } catch (err) {
          if (withFinalizerRemoval) expectations.observed(key, 'del');
          if (isStatusError(err) && err.code === 404) {
            deleted++;
            if (isReady(pod)) deletedReady++;
            return;
          }
          record(job, 'Warning', 'FailedDelete', `Error deleting: ${err instanceof Error ? err.message : String(err)}`);
          error ??= err;
        }
      }),
    );
    return error === undefined ? { deleted, deletedReady } : { deleted, deletedReady, error };
  }

  async function updateStatus(job: KubeObject): Promise<KubeObject> {
    const result = await o.jobs.update(job.metadata.namespace ?? '', job.metadata.name ?? '', job, { subresource: 'status', ...writeOpts });
    return result.object;
  }

  /** Moves UIDs whose pod lost the finalizer out of uncountedTerminatedPods into the counters; whether anything moved. */
  function cleanUncounted(status: JobStatus, withFinalizer: ReadonlySet<string>): boolean {
    const u = (status.uncountedTerminatedPods ??= {});
    let changed = false;
    const succeeded = (u.succeeded ?? []).filter((uid) => withFinalizer.has(uid));
    if (succeeded.length !== (u.succeeded ?? []).length) {
      changed = true;
      status.succeeded = (status.succeeded ?? 0) + (u.succeeded ?? []).length - succeeded.length;
      u.succeeded = succeeded;
    }
    const failed = (u.failed ?? []).filter((uid) => withFinalizer.has(uid));
    if (failed.length !== (u.failed ?? []).length) {
      changed = true;
      status.failed = (status.failed ?? 0) + (u.failed ?? []).length - failed.length;
      u.failed = failed;
    }
    return changed;
  }

  /** The three-step counting, the interim conditions, then the terminal condition (kube's trackJobStatusAndRemoveFinalizers). */
  async function trackStatusAndRemoveFinalizers(ctx: SyncContext, needsFlushIn: boolean): Promise<void> {
    let needsFlush = needsFlushIn;
    const job = ctx.job;
    const spec = jobSpec(job);
    const status = job.status as JobStatus;
    const indexed = isIndexed(job);
    const completions = spec.completions ?? 0;
    const pods = indexed ? [...ctx.pods].sort((a, b) => completionIndexOf(a, names.completionIndex) - completionIndexOf(b, names.completionIndex)) : ctx.pods;
    const withFinalizer = new Set<string>();
    for (const p of pods) if (hasFinalizer(p) && !ctx.expectedRmFinalizers.has(p.metadata.uid ?? '')) withFinalizer.add(p.metadata.uid ?? '');
    if (cleanUncounted(status, withFinalizer)) needsFlush = true;
    const uncounted = status.uncountedTerminatedPods!;
    uncounted.succeeded ??= [];
    uncounted.failed ??= [];
    const toRemoveFinalizer: KubeObject[] = [];
    const newSucceededIndexes: number[] = [];
    let reachedMax = false;
    const terminalFailure = ctx.finishedCondition !== undefined && ctx.finishedCondition.type !== 'SuccessCriteriaMet';
    for (const pod of pods) {
      const uid = pod.metadata.uid ?? '';
      if (!hasFinalizer(pod) || ctx.expectedRmFinalizers.has(uid)) continue;
      const failed = isPodFailed(pod, job);
      if (!canRemoveFinalizer(ctx, pod, failed)) continue;
      toRemoveFinalizer.push(pod);
      if (isSucceeded(pod) && !ctx.uncountedFailed.has(uid)) {
        if (indexed) {
          const ix = completionIndexOf(pod, names.completionIndex);
          if (ix >= 0 && ix < completions && !has(ctx.prevSucceededIndexes, ix)) {
            newSucceededIndexes.push(ix);
            needsFlush = true;
          }
        } else if (!ctx.uncountedSucceeded.has(uid)) {
          needsFlush = true;
          uncounted.succeeded.push(uid);
        }
      } else if (failed || terminalFailure) {
        // Once the job is failing, every pod not terminated yet counts as failed.
        const ix = completionIndexOf(pod, names.completionIndex);
        if (!ctx.uncountedFailed.has(uid) && (!indexed || (ix >= 0 && ix < completions))) {
          const counted = spec.podFailurePolicy === undefined || spec.podFailurePolicy === null || matchPodFailurePolicy(spec, pod).countFailed;
          if (counted) {
            needsFlush = true;
            uncounted.failed.push(uid);
          }
        }
      }
      if (newSucceededIndexes.length + uncounted.succeeded.length + uncounted.failed.length >= MAX_UNCOUNTED_PODS) {
        reachedMax = true;
        break;
      }
    }
    if (indexed) {
      ctx.succeededIndexes = withIndexes(ctx.succeededIndexes, [...newSucceededIndexes].sort((a, b) => a - b));
      const text = formatIntervals(ctx.succeededIndexes);
      if (text !== (status.completedIndexes ?? '')) needsFlush = true;
      status.succeeded = total(ctx.succeededIndexes);
      status.completedIndexes = text;
      const failedText = ctx.failedIndexes === undefined ? undefined : formatIntervals(ctx.failedIndexes);
      if (failedText !== status.failedIndexes) {
        if (failedText === undefined) delete status.failedIndexes;
        else status.failedIndexes = failedText;
        needsFlush = true;
      }
    }
    const t = now();
    if (ctx.finishedCondition?.type === 'FailureTarget') {
      (status.conditions ??= []).push(ctx.finishedCondition);
      needsFlush = true;
      ctx.finishedCondition = newCondition('Failed', 'True', ctx.finishedCondition.reason ?? '', ctx.finishedCondition.message ?? '', t);
    }
    if (ctx.finishedCondition?.type === 'SuccessCriteriaMet') {
      if (trueCondition(job, 'SuccessCriteriaMet') === undefined) {
        (status.conditions ??= []).push(ctx.finishedCondition);
        needsFlush = true;
      }
      ctx.finishedCondition = newCondition('Complete', 'True', ctx.finishedCondition.reason ?? '', ctx.finishedCondition.message ?? '', t);
    }

    // Step 1: the uncounted UIDs (and interim conditions) are stored before any finalizer goes.
    let current = job;
    if (needsFlush) {
      current = await updateStatus(tidy(current));
      backoffs.set(ctx.key, ctx.backoffRecord);
      needsFlush = false;
    }
    // Step 2: the finalizers go.
    let rmError: unknown;
    if (toRemoveFinalizer.length > 0) {
      expectations.expectFinalizersRemoved(ctx.key, toRemoveFinalizer.map((p) => p.metadata.uid ?? ''));
      await Promise.all(
        toRemoveFinalizer.map(async (pod) => {
          try {
            await removeFinalizer(pod);
            withFinalizer.delete(pod.metadata.uid ?? '');
          } catch (err) {
            expectations.finalizerRemovalObserved(ctx.key, pod.metadata.uid ?? '');
            if (isStatusError(err) && err.code === 404) {
              withFinalizer.delete(pod.metadata.uid ?? '');
              return;
            }
            rmError ??= err;
          }
        }),
      );
    }
    // Step 3: the UIDs leave the lists and the counters grow.
    const currentStatus = (current.status ??= {}) as JobStatus;
    currentStatus.uncountedTerminatedPods ??= {};
    if (cleanUncounted(currentStatus, withFinalizer)) needsFlush = true;
    if (rmError !== undefined) {
      if (needsFlush) await updateStatus(tidy(current));
      throw rmError;
    }
    const finished = !reachedMax && enactFinished(current, ctx, t);
    if (finished) needsFlush = true;
    if (needsFlush) {
      const written = await updateStatus(tidy(current));
      if (finished && ctx.finishedCondition !== undefined) recordFinished(written, ctx.finishedCondition);
    }
  }

  /** Empty uncounted lists are written as `{}` (Go's omitempty on the slices). */
  function tidy(job: KubeObject): KubeObject {
    const status = job.status as JobStatus;
    const u = status.uncountedTerminatedPods;
    if (u !== undefined) {
      if (u.succeeded?.length === 0) delete u.succeeded;
      if (u.failed?.length === 0) delete u.failed;
    }
    return job;
  }

  function canRemoveFinalizer(ctx: SyncContext, pod: KubeObject, failed: boolean): boolean {
    if (ctx.job.metadata.deletionTimestamp !== undefined || ctx.finishedCondition !== undefined || isSucceeded(pod)) return true;
    if (!failed) return false;
    if (hasBackoffLimitPerIndex(ctx.job)) {
      const ix = completionIndexOf(pod, names.completionIndex);
      if (ix >= 0 && ctx.podsWithDelayedDeletionPerIndex.get(ix)?.metadata.uid === pod.metadata.uid) return false;
    }
    return true;
  }

  /** Adds Complete (with completionTime) or Failed once every pod is counted and none is terminating. */
  function enactFinished(job: KubeObject, ctx: SyncContext, t: Date): boolean {
    const c = ctx.finishedCondition;
    if (c === undefined) return false;
    const status = job.status as JobStatus;
    const u = status.uncountedTerminatedPods;
    if ((u?.succeeded?.length ?? 0) + (u?.failed?.length ?? 0) > 0) return false;
    if (ctx.terminating > 0) return false;
    ensureCondition((status.conditions ??= []), c.type, c.status, c.reason ?? '', c.message ?? '', t);
    if (c.type === 'Complete') status.completionTime = status.conditions.find((x) => x.type === 'Complete')?.lastTransitionTime ?? rfc3339(t);
    return true;
  }

  function recordFinished(job: KubeObject, c: JobCondition): void {
    if (c.type === 'Complete') {
      const wanted = jobSpec(job).completions;
      if (typeof wanted === 'number' && (jobStatus(job).succeeded ?? 0) > wanted) {
        record(job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
      }
      record(job, 'Normal', 'Completed', 'Job completed');
    } else {
      record(job, 'Warning', c.reason ?? '', c.message ?? '');
    }
  }

  return {
    async stop() {
      abort.abort();
      unsubscribePods();
      unsubscribeJobs();
      await Promise.all([queue.stop(), orphanQueue.stop()]);
    },
  };
}

