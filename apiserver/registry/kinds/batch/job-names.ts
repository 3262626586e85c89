/**
 * The names of the batch group that follow the legacy domain (`kubernetes.io` under `--group-domain=k8s.io`,
 * else the group domain): the prefixed pod labels the server generates for a Job
 * (`batch.kubernetes.io/controller-uid` / `batch.platform.io/controller-uid`, `.../job-name`), the pod
 * annotations a job controller writes (`batch.<legacy domain>/job-completion-index`,
 * `.../job-index-failure-count`) and the job controller's reserved managedBy value
 * (`kubernetes.io/job-controller` / `platform.io/job-controller`).
 * The only place the Job kind reads the legacy domain, so the mapping can move into `naming/` in one step.
 */
import type { Naming } from '../../../naming/naming.js';
import { legacyDomain, legacyKey } from '../shared/legacy-domain.js';

/** The unprefixed labels Kubernetes keeps for old clients. */
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
export const LEGACY_JOB_NAME_LABEL = 'job-name';

export interface JobLabels {
  readonly controllerUid: string;
  readonly jobName: string;
}

/** `batch.<legacy domain>/controller-uid` and `batch.<legacy domain>/job-name`. */
export function jobLabels(naming: Naming): JobLabels {
  const prefix = `batch.${legacyDomain(naming)}`;
  return { controllerUid: `${prefix}/controller-uid`, jobName: `${prefix}/job-name` };
}

/** The managedBy value of the built-in job controller (`<legacy domain>/job-controller`). */
export const jobControllerName = (naming: Naming): string => legacyKey(naming, 'job-controller');

export interface JobPodAnnotations {
  readonly completionIndex: string;
  readonly indexFailureCount: string;
}

/** `batch.<legacy domain>/job-completion-index` and `batch.<legacy domain>/job-index-failure-count`. */
export function jobPodAnnotations(naming: Naming): JobPodAnnotations {
  const prefix = `batch.${legacyDomain(naming)}`;
  return { completionIndex: `${prefix}/job-completion-index`, indexFailureCount: `${prefix}/job-index-failure-count` };
}
