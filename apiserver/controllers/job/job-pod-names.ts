/**
 * The names the job controller writes on pods that carry the legacy domain (`batch.kubernetes.io/...`
 * under `--group-domain=k8s.io`, `batch.platform.io/...` otherwise): the tracking finalizer, the
 * completion-index label (kube 1.32's PodIndexLabel), and the ignored-failure-count annotation. The
 * completion-index and failure-count annotations come from the Job kind (registry/kinds/batch/job-names.ts).
 */
import type { Naming } from '../../naming/naming.js';
import { jobControllerName, jobLabels, jobPodAnnotations } from '../../registry/kinds/batch/job-names.js';

export interface JobControllerNames {
  /** `batch.<domain>/job-tracking`. */
  readonly trackingFinalizer: string;
  /** `batch.<domain>/job-completion-index`: the annotation and, since kube 1.28, the label too. */
  readonly completionIndex: string;
  /** `batch.<domain>/job-index-failure-count`. */
  readonly indexFailureCount: string;
  /** `batch.<domain>/job-index-ignored-failure-count`. */
  readonly indexIgnoredFailureCount: string;
  /** The reserved managedBy value: `<domain>/job-controller`. */
  readonly controllerName: string;
  /** `batch.<domain>/job-name` and `.../controller-uid`. */
  readonly jobName: string;
  readonly controllerUid: string;
}

export function jobControllerNames(naming: Naming): JobControllerNames {
  const a = jobPodAnnotations(naming);
  const l = jobLabels(naming);
  const prefix = a.completionIndex.slice(0, a.completionIndex.indexOf('/'));
  return {
    trackingFinalizer: `${prefix}/job-tracking`,
    completionIndex: a.completionIndex,
    indexFailureCount: a.indexFailureCount,
    indexIgnoredFailureCount: `${prefix}/job-index-ignored-failure-count`,
    controllerName: jobControllerName(naming),
    jobName: l.jobName,
    controllerUid: l.controllerUid,
  };
}
