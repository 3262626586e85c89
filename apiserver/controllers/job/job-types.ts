/**
 * Typed read-only views of the Job and Pod members the job controller reads. Objects stay plain JSON
 * (KubeObject); these views only name what is read, and every member may be absent in a stored object.
 */
import type { KubeObject } from '../../api/object.js';

export interface PodFailurePolicyRule {
  readonly action?: string;
  readonly onExitCodes?: { readonly containerName?: string | null; readonly operator?: string; readonly values?: readonly number[] } | null;
  readonly onPodConditions?: readonly { readonly type?: string; readonly status?: string }[] | null;
}

export interface SuccessPolicyRule {
  readonly succeededIndexes?: string | null;
  readonly succeededCount?: number | null;
}

export interface JobSpec {
  readonly parallelism?: number | null;
  readonly completions?: number | null;
  readonly completionMode?: string | null;
  readonly backoffLimit?: number | null;
  readonly backoffLimitPerIndex?: number | null;
  readonly maxFailedIndexes?: number | null;
  readonly activeDeadlineSeconds?: number | null;
  readonly ttlSecondsAfterFinished?: number | null;
  readonly suspend?: boolean | null;
  readonly selector?: { readonly matchLabels?: Record<string, string>; readonly matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] }[] } | null;
  readonly podFailurePolicy?: { readonly rules?: readonly PodFailurePolicyRule[] } | null;
  readonly successPolicy?: { readonly rules?: readonly SuccessPolicyRule[] } | null;
  readonly managedBy?: string | null;
  readonly podReplacementPolicy?: string | null;
  readonly template?: { readonly metadata?: KubeObject['metadata']; readonly spec?: { readonly restartPolicy?: string; readonly [k: string]: unknown } };
}

export interface JobCondition {
  type: string;
  status: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface JobStatus {
  startTime?: string;
  completionTime?: string;
  active?: number;
  ready?: number;
  failed?: number;
  succeeded?: number;
  terminating?: number;
  completedIndexes?: string;
  failedIndexes?: string;
  conditions?: JobCondition[];
  uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
}

export interface ContainerStatus {
  readonly name?: string;
  readonly restartCount?: number;
  readonly state?: { readonly terminated?: { readonly exitCode?: number; readonly finishedAt?: string } };
}

export interface PodStatus {
  readonly phase?: string;
  readonly conditions?: readonly { readonly type?: string; readonly status?: string; readonly lastTransitionTime?: string }[];
  readonly containerStatuses?: readonly ContainerStatus[];
  readonly initContainerStatuses?: readonly ContainerStatus[];
}

export const jobSpec = (job: KubeObject): JobSpec => (job.spec ?? {}) as JobSpec;
export const jobStatus = (job: KubeObject): JobStatus => (job.status ?? {}) as JobStatus;
export const podStatus = (pod: KubeObject): PodStatus => (pod.status ?? {}) as PodStatus;
export const podNodeName = (pod: KubeObject): string => ((pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '');

export const isIndexed = (job: KubeObject): boolean => jobSpec(job).completionMode === 'Indexed';
export const hasBackoffLimitPerIndex = (job: KubeObject): boolean => typeof jobSpec(job).backoffLimitPerIndex === 'number';
export const isSuspended = (job: KubeObject): boolean => jobSpec(job).suspend === true;

/** The condition of `type` with status True, if any. */
export function trueCondition(job: KubeObject, type: string): JobCondition | undefined {
  return jobStatus(job).conditions?.find((c) => c.type === type && c.status === 'True');
}

/** Complete or Failed (True): kube's IsJobFinished. */
export const isFinished = (job: KubeObject): boolean => trueCondition(job, 'Complete') !== undefined || trueCondition(job, 'Failed') !== undefined;

/** The time the job finished (the lastTransitionTime of its Complete or Failed condition). */
export function finishTime(job: KubeObject): number | undefined {
  const c = trueCondition(job, 'Complete') ?? trueCondition(job, 'Failed');
  if (c?.lastTransitionTime === undefined) return undefined;
  const t = Date.parse(c.lastTransitionTime);
  return Number.isNaN(t) ? undefined : t;
}
