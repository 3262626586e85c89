/**
 * What kube's controllers read from a pod's status (pkg/api/v1/pod and pkg/controller's helpers): whether it
 * is active, ready, available, when it became ready, and how often its containers restarted.
 *
 * Edge cases, as kube:
 * - active: not Succeeded, not Failed, and not being deleted (a terminating pod is already on its way out);
 * - ready: the `Ready` condition is `True` (no condition: not ready);
 * - available: ready, and with `minReadySeconds` > 0 ready for strictly longer than that, measured from the
 *   Ready condition's `lastTransitionTime` (a condition without one is never available).
 */
import type { KubeObject } from '../../api/object.js';

export interface PodCondition {
  readonly type?: string;
  readonly status?: string;
  readonly lastTransitionTime?: string;
}

interface PodStatusLike {
  readonly phase?: string;
  readonly conditions?: readonly PodCondition[];
  readonly containerStatuses?: readonly { readonly restartCount?: number }[];
  readonly podIP?: string;
  readonly podIPs?: readonly { readonly ip?: string }[];
}

interface PodSpecLike {
  readonly nodeName?: string;
  readonly hostname?: string;
  readonly subdomain?: string;
  readonly containers?: readonly ContainerLike[];
  readonly initContainers?: readonly ContainerLike[];
}

export interface ContainerLike {
  readonly name?: string;
  readonly restartPolicy?: string;
  readonly ports?: readonly { readonly name?: string; readonly containerPort?: number; readonly protocol?: string }[];
}

export const podStatus = (pod: KubeObject): PodStatusLike => (pod.status ?? {}) as PodStatusLike;
export const podSpec = (pod: KubeObject): PodSpecLike => (pod.spec ?? {}) as PodSpecLike;

export function isPodTerminal(pod: KubeObject): boolean {
  const phase = podStatus(pod).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** kube's controller.IsPodActive. */
export function isPodActive(pod: KubeObject): boolean {
  return !isPodTerminal(pod) && pod.metadata.deletionTimestamp === undefined;
}

export function podReadyCondition(pod: KubeObject): PodCondition | undefined {
  return podStatus(pod).conditions?.find((c) => c.type === 'Ready');
}

export function isPodReady(pod: KubeObject): boolean {
  return podReadyCondition(pod)?.status === 'True';
}

/** The time the pod became ready (ms since the epoch), or undefined when it is not ready or the time is unknown. */
export function podReadyTime(pod: KubeObject): number | undefined {
  const c = podReadyCondition(pod);
  if (c?.status !== 'True' || c.lastTransitionTime === undefined) return undefined;
  const t = Date.parse(c.lastTransitionTime);
  return Number.isNaN(t) ? undefined : t;
}

/** kube's podutil.IsPodAvailable. */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const readySince = podReadyTime(pod);
  return readySince !== undefined && readySince + minReadySeconds * 1000 < now;
}

export function maxContainerRestarts(pod: KubeObject): number {
  let max = 0;
  for (const c of podStatus(pod).containerStatuses ?? []) max = Math.max(max, c.restartCount ?? 0);
  return max;
}

/** Whether every `key: value` of `selector` is among `labels` (an empty selector matches everything, as kube's `labels.Set.AsSelector`). */
export function labelsMatch(selector: Readonly<Record<string, string>> | undefined, labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const [k, v] of Object.entries(selector ?? {})) if (labels?.[k] !== v) return false;
  return true;
}
