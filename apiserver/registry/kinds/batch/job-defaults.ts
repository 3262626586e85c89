/**
 * Job's defaults as Kubernetes v1.32 applies them (batch/v1 SetDefaults_Job with the JobPodReplacementPolicy
 * gate on, plus the pod template's defaults), run by the kind's hooks after the schema's:
 * - completions and parallelism both 1 when both are unset; otherwise parallelism 1 when unset;
 * - backoffLimit 6, or 2147483647 when backoffLimitPerIndex is set;
 * - completionMode `NonIndexed`, suspend false, manualSelector false;
 * - podReplacementPolicy `Failed` with a podFailurePolicy, else `TerminatingOrFailed`;
 * - each podFailurePolicy onPodConditions pattern's status `True`;
 * - the job's labels copied from the template's when the job has none (`copyTemplateLabels`).
 *
 * And the strategy's selector generation (`generateSelector`, create only, unless manualSelector is true):
 * the template gets `controller-uid` and `job-name` plus their prefixed forms (job-names.ts) unless it has
 * them, and the selector matches the prefixed controller-uid. Conflicting values a user wrote are kept, so
 * validation reports them, as upstream.
 */
import type { KubeObject } from '../../../api/object.js';
import type { Naming } from '../../../naming/naming.js';
import { defaultPodSpec } from '../core/pod/pod-defaults.js';
import { type JsonObject, arrayAt, isObject, objectAt, objectItems } from '../core/pod/json-values.js';
import { LEGACY_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL, jobLabels } from './job-names.js';

const MAX_INT32 = 2147483647;

/** The job's spec object, created when absent (Go's JobSpec is a struct, never nil). */
export function specOf(job: KubeObject): JsonObject {
  if (!isObject(job.spec)) job.spec = {};
  return job.spec as JsonObject;
}

const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** Applies SetDefaults_Job and the template's pod defaults to `job` in place. */
export function defaultJob(job: KubeObject): void {
  const spec = specOf(job);
  if (!isSet(spec.completions) && !isSet(spec.parallelism)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  if (!isSet(spec.parallelism)) spec.parallelism = 1;
  if (!isSet(spec.backoffLimit)) spec.backoffLimit = isSet(spec.backoffLimitPerIndex) ? MAX_INT32 : 6;
  if (!isSet(spec.completionMode)) spec.completionMode = 'NonIndexed';
  if (!isSet(spec.suspend)) spec.suspend = false;
  if (!isSet(spec.manualSelector)) spec.manualSelector = false;
  const podFailurePolicy = objectAt(spec, 'podFailurePolicy');
  if (!isSet(spec.podReplacementPolicy)) spec.podReplacementPolicy = podFailurePolicy !== undefined ? 'Failed' : 'TerminatingOrFailed';
  if (podFailurePolicy !== undefined) {
    for (const [, rule] of objectItems(arrayAt(podFailurePolicy, 'rules'))) {
      for (const [, pattern] of objectItems(arrayAt(rule, 'onPodConditions'))) {
        if (typeof pattern.status !== 'string' || pattern.status === '') pattern.status = 'True';
      }
    }
  }
  const template = objectAt(spec, 'template');
  if (template !== undefined) defaultPodSpec(template.spec);
}

/**
 * The job's labels default to its template's when it has none. Kubernetes runs this default whenever it
 * decodes a Job, reads from storage included, so the labels the server generated on the template show on
 * the job too; copying them when the job is written gives clients the same objects.
 */
export function copyTemplateLabels(job: KubeObject): void {
  const labels = objectAt(objectAt(objectAt(specOf(job), 'template') ?? {}, 'metadata') ?? {}, 'labels');
  if (labels === undefined || Object.keys(labels).length === 0) return;
  const own = job.metadata.labels;
  if (own !== undefined && own !== null && Object.keys(own).length > 0) return;
  job.metadata.labels = { ...(labels as Record<string, string>) };
}

/** True unless the job asks to choose its own selector. */
export const generatesSelector = (job: KubeObject): boolean => specOf(job).manualSelector !== true;

/** Adds the generated template labels and selector (see the file comment); a no-op with manualSelector. */
export function generateSelector(job: KubeObject, naming: Naming): void {
  if (!generatesSelector(job)) return;
  const spec = specOf(job);
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name ?? '';
  const prefixed = jobLabels(naming);
  if (!isObject(spec.template)) spec.template = {};
  const template = spec.template as JsonObject;
  if (!isObject(template.metadata)) template.metadata = {};
  const meta = template.metadata as JsonObject;
  if (!isObject(meta.labels)) meta.labels = {};
  const labels = meta.labels as JsonObject;
  for (const key of [LEGACY_JOB_NAME_LABEL, prefixed.jobName]) if (!(key in labels)) labels[key] = name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, prefixed.controllerUid]) if (!(key in labels)) labels[key] = uid;
  if (!isObject(spec.selector)) spec.selector = {};
  const selector = spec.selector as JsonObject;
  if (!isObject(selector.matchLabels)) selector.matchLabels = {};
  const matchLabels = selector.matchLabels as JsonObject;
  if (!(prefixed.controllerUid in matchLabels)) matchLabels[prefixed.controllerUid] = uid;
}
