/**
 * What the job controller reads from its pods (kube's controller_utils and job utils): active, terminating,
 * ready, failed as the job's podReplacementPolicy sees it, the time a pod finished, its completion index,
 * and kube's ActivePods order (the pods to delete first come first).
 */
import type { KubeObject } from '../../api/object.js';
import { jobSpec, podNodeName, podStatus } from './job-types.js';

const phaseOf = (pod: KubeObject): string => podStatus(pod).phase ?? '';

/** Not Succeeded, not Failed, not being deleted (kube's FilterActivePods). */
export const isActive = (pod: KubeObject): boolean =>
  phaseOf(pod) !== 'Succeeded' && phaseOf(pod) !== 'Failed' && pod.metadata.deletionTimestamp === undefined;

/** Being deleted and not yet terminal (kube's CountTerminatingPods / FilterTerminatingPods). */
export const isTerminating = (pod: KubeObject): boolean =>
  pod.metadata.deletionTimestamp !== undefined && phaseOf(pod) !== 'Succeeded' && phaseOf(pod) !== 'Failed';

export const isReady = (pod: KubeObject): boolean => podStatus(pod).conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

export const isSucceeded = (pod: KubeObject): boolean => phaseOf(pod) === 'Succeeded';

/** podReplacementPolicy `Failed` (the default with a podFailurePolicy): only pods in phase Failed are failures. */
export const onlyReplaceFailedPods = (job: KubeObject): boolean => {
  const spec = jobSpec(job);
  return spec.podReplacementPolicy === 'Failed' || (spec.podFailurePolicy !== undefined && spec.podFailurePolicy !== null);
};

/**
 * kube's isPodFailed: phase Failed, or (unless only Failed pods are replaced) being deleted and not
 * Succeeded, so that an orphan never reaching Failed still counts.
 */
export function isPodFailed(pod: KubeObject, job: KubeObject): boolean {
  if (phaseOf(pod) === 'Failed') return true;
  if (onlyReplaceFailedPods(job)) return false;
  return pod.metadata.deletionTimestamp !== undefined && phaseOf(pod) !== 'Succeeded';
}

/**
 * When the pod finished: its containers' latest finishedAt, else the Ready=False condition's transition,
 * else its deletionTimestamp less the grace period, else `now` (kube's getFinishedTime).
 */
export function finishedTime(pod: KubeObject, now: number): number {
  let latest: number | undefined;
  const s = podStatus(pod);
  for (const cs of [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])]) {
    const at = cs.state?.terminated?.finishedAt;
    const t = at === undefined ? NaN : Date.parse(at);
    if (!Number.isNaN(t) && (latest === undefined || t > latest)) latest = t;
  }
  if (latest !== undefined) return latest;
  const ready = s.conditions?.find((c) => c.type === 'Ready' && c.status === 'False')?.lastTransitionTime;
  if (ready !== undefined && !Number.isNaN(Date.parse(ready))) return Date.parse(ready);
  // Deleted: the deletion was asked for the grace period before the deletionTimestamp.
  const deleted = pod.metadata.deletionTimestamp;
  if (deleted !== undefined && !Number.isNaN(Date.parse(deleted))) return Date.parse(deleted) - (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return now;
}

/** The completion index annotation as a non-negative integer, else -1 (unknown). */
export function completionIndexOf(pod: KubeObject, annotation: string): number {
  const v = pod.metadata.annotations?.[annotation];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return -1;
  const n = Number(v);
  return n < 0 || !Number.isSafeInteger(n) ? -1 : n;
}

/** A non-negative int32 annotation value, else 0 (kube's parseInt32 of the failure-count annotations). */
export function int32Annotation(pod: KubeObject, annotation: string): number {
  const v = pod.metadata.annotations?.[annotation];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return 0;
  const n = Number(v);
  return n < 0 || n > 2147483647 ? 0 : n;
}

const PHASE_ORDER: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

const readySince = (pod: KubeObject): number | undefined => {
  const t = podStatus(pod).conditions?.find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime;
  return t === undefined ? undefined : Date.parse(t);
};
const maxRestarts = (pod: KubeObject): number => Math.max(0, ...(podStatus(pod).containerStatuses ?? []).map((c) => c.restartCount ?? 0));
const created = (pod: KubeObject): number | undefined => (pod.metadata.creationTimestamp === undefined ? undefined : Date.parse(pod.metadata.creationTimestamp));
/** kube's afterOrZero: a zero time first, then the later time first. */
const afterOrZero = (a: number | undefined, b: number | undefined): boolean => (a === undefined || b === undefined ? a === undefined : a > b);

/**
 * kube's ActivePods order: unassigned before assigned, Pending < Unknown < Running, not ready before
 * ready, ready for less time first, more restarts first, newer first.
 */
export function activePodsOrder(a: KubeObject, b: KubeObject): number {
  const less = (x: KubeObject, y: KubeObject): boolean => {
    const nx = podNodeName(x);
    const ny = podNodeName(y);
    if (nx !== ny && (nx === '' || ny === '')) return nx === '';
    const px = PHASE_ORDER[phaseOf(x)] ?? 0;
    const py = PHASE_ORDER[phaseOf(y)] ?? 0;
    if (px !== py) return px < py;
    if (isReady(x) !== isReady(y)) return !isReady(x);
    if (isReady(x) && isReady(y)) {
      const rx = readySince(x);
      const ry = readySince(y);
      if (rx !== ry) return afterOrZero(rx, ry);
    }
    if (maxRestarts(x) !== maxRestarts(y)) return maxRestarts(x) > maxRestarts(y);
    const cx = created(x);
    const cy = created(y);
    if (cx !== cy) return afterOrZero(cx, cy);
    return false;
  };
  return less(a, b) ? -1 : less(b, a) ? 1 : 0;
}
