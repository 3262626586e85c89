/**
 * The schema of Job (`batch/v1`) as Kubernetes v1.32 publishes it, with the field numbers of
 * `k8s.io/api/batch/v1/generated.proto` (JobSpec, JobStatus, JobCondition, PodFailurePolicy and its rules,
 * SuccessPolicy and its rules, UncountedTerminatedPods). The pod template is core/pod's
 * PodTemplateSpec, shared with PodTemplate.
 *
 * No defaults here beyond Go's zero values of required members: Kubernetes' Job defaults depend on other
 * fields (completions and parallelism together, backoffLimit on backoffLimitPerIndex, podReplacementPolicy
 * on podFailurePolicy), so they are applied by the kind's hooks (job-defaults.ts), and the published
 * OpenAPI carries none, as Kubernetes'.
 */
import { ptr, type Schema } from '../../../schema/schema.js';
import { labelSelectorSchema } from '../core/pod/label-selector-schema.js';
import { podTemplateSpecSchema } from '../core/pod/pod-template-spec-schema.js';
import { atomicList, bool, int32, int64, obj, ref, requiredStr, str, time } from '../shared/schema-builders.js';

const onExitCodesSchema: Schema = obj(
  'The requirement on the exit codes of a failed pod\'s containers (`.state.terminated.exitCode` of every container and init container status). Containers that exited with 0 are not checked.',
  {
    containerName: str('Restricts the check to the container or init container of this name; null checks every container.'),
    operator: requiredStr(
      'How exit codes relate to `values`: `In` (satisfied when an exit code is in the set) or `NotIn` (satisfied when an exit code is not in it). Clients treat an unknown operator as not satisfied.',
    ),
    values: {
      type: 'array',
      description: 'The set of exit codes: ordered, without duplicates, 1 to 255 entries; 0 is not allowed with `In`.',
      items: { type: 'integer', format: 'int32', default: 0 },
      'x-kubernetes-list-type': 'set',
    },
  },
  ['operator', 'values'],
  { protobuf: { containerName: ptr(1), operator: 2, values: 3 } },
);

const onPodConditionsPatternSchema: Schema = obj(
  'A pattern matched against the conditions of a failed pod.',
  {
    type: requiredStr('The pod condition type that must match.'),
    status: str('The pod condition status that must match; defaults to True.'),
  },
  ['type'],
  { protobuf: { type: 1, status: 2 } },
);

const podFailurePolicyRuleSchema: Schema = obj(
  'How a pod failure is handled when the rule\'s requirement is met. A rule uses exactly one of onExitCodes and onPodConditions.',
  {
    action: requiredStr(
      'The action on a matching failure: `FailJob` (the job fails and its running pods are terminated), `FailIndex` (the pod\'s index fails and is not restarted; needs backoffLimitPerIndex), `Ignore` (the failure does not count towards backoffLimit and a replacement is created) or `Count` (the default handling). Clients skip rules with an unknown action.',
    ),
    onExitCodes: ref(onExitCodesSchema, 'The requirement on the container exit codes.'),
    onPodConditions: atomicList(
      { ...onPodConditionsPatternSchema, default: {} },
      'The requirement on the pod conditions: satisfied when any pattern matches a condition of the pod. At most 20 patterns.',
    ),
  },
  ['action'],
  { protobuf: { action: 1, onExitCodes: ptr(2), onPodConditions: 3 } },
);

const podFailurePolicySchema: Schema = obj(
  'How failed pods count towards the backoffLimit.',
  {
    rules: atomicList(
      { ...podFailurePolicyRuleSchema, default: {} },
      'The rules, evaluated in order; the first that matches a failure decides, the rest are ignored. With no match the failure counts towards backoffLimit. At most 20 rules.',
    ),
  },
  ['rules'],
  { protobuf: { rules: 1 } },
);

const successPolicyRuleSchema: Schema = obj(
  'A rule declaring the job succeeded. Each rule sets at least one of succeededIndexes and succeededCount.',
  {
    succeededIndexes: str(
      'The indexes that must all have succeeded: comma-separated decimal indexes or `first-last` ranges in increasing order (`1,3-5,7`), within 0 to completions-1, without duplicates. Null: never evaluated.',
    ),
    succeededCount: int32(
      'The least number of succeeded indexes; with succeededIndexes only those indexes count. Positive. Null: never evaluated.',
    ),
  },
  undefined,
  { protobuf: { succeededIndexes: ptr(1), succeededCount: ptr(2) } },
);

const successPolicySchema: Schema = obj(
  'When an Indexed job is declared succeeded from the success of some of its indexes.',
  {
    rules: atomicList(
      { ...successPolicyRuleSchema, default: {} },
      'Alternative rules, evaluated in order, for declaring the job succeeded before `.status.succeeded >= .spec.completions`. When one is met the job gets the SuccessCriteriaMet condition, its lingering pods are removed, and it ends Complete. At most 20 rules.',
    ),
  },
  ['rules'],
  { protobuf: { rules: 1 } },
);

const specSchema: Schema = obj(
  'How a job runs.',
  {
    activeDeadlineSeconds: int64(
      'Seconds the job may be active, counted from startTime, before the system tries to terminate it; positive. Suspending the job stops this timer and resuming it resets it.',
    ),
    backoffLimit: int32('Retries before the job is marked failed. Defaults to 6, or to 2147483647 when backoffLimitPerIndex is set.'),
    backoffLimitPerIndex: int32(
      'Retries within one index before the index is marked failed (Indexed jobs whose pods restart Never only). The failure count is kept in the pod annotation `batch.<domain>/job-index-failure-count`. Immutable.',
    ),
    completionMode: str(
      '`NonIndexed` (default: the job is complete after `completions` successful pods, all alike) or `Indexed` (each pod gets an index from 0 to completions-1 in the annotation `batch.<domain>/job-completion-index`, pods are named `$(job-name)-$(index)-$(random-string)` with hostname `$(job-name)-$(index)`, and the job is complete when every index succeeded once; needs completions, and parallelism at most 10^5). Immutable.',
    ),
    completions: int32(
      'The number of successful pods the job needs. Null: any success ends the job and parallelism may be any positive value. Only an Indexed job may change it, together with parallelism.',
    ),
    managedBy: str(
      'The controller managing the job. The built-in job controller handles jobs without it or with the reserved value `<domain>/job-controller` (`platform.io/job-controller`) and skips the others. A domain-prefixed path (`acme.io/foo`) of at most 63 characters. Immutable.',
    ),
    manualSelector: bool(
      'When true the user picks the pods\' labels and the selector and must keep them unique; false or unset: the system adds labels unique to the job to the pod template and selects them.',
    ),
    maxFailedIndexes: int32(
      'The number of failed indexes after which the whole job fails (needs backoffLimitPerIndex); null: every index runs and the job ends Complete. At most completions; required and at most 10^4 when completions exceed 10^5.',
    ),
    parallelism: int32(
      'The most pods running at once; fewer run when the remaining work is smaller ((completions - succeeded) < parallelism).',
    ),
    podFailurePolicy: ref(
      podFailurePolicySchema,
      'How failed pods are handled; empty: each failure counts towards backoffLimit (the `.status.failed` counter). Not allowed with the template\'s restartPolicy OnFailure.',
    ),
    podReplacementPolicy: str(
      'When replacement pods are created: `TerminatingOrFailed` (as soon as a pod is terminating or failed) or `Failed` (only once it is fully terminated). Only `Failed` is allowed with podFailurePolicy, which it then defaults to.',
    ),
    selector: ref(labelSelectorSchema, 'The pods the job counts. Normally set by the system.'),
    successPolicy: ref(
      successPolicySchema,
      'When an Indexed job is declared succeeded; empty: when the number of succeeded pods reaches completions. Immutable once set.',
    ),
    suspend: bool(
      'Whether the job controller should create pods. A job created suspended gets no pods; suspending a running job deletes its active pods and resets startTime (and so the activeDeadlineSeconds timer). Defaults to false.',
    ),
    template: {
      ...podTemplateSpecSchema,
      description: 'The pods the job runs. The pod restartPolicy must be `Never` or `OnFailure`.',
      default: {},
    },
    ttlSecondsAfterFinished: int32(
      'Seconds after the job finished (Complete or Failed) after which it may be deleted automatically, finalizers honoured. Unset: never; 0: right after it finishes.',
    ),
  },
  ['template'],
  {
    protobuf: {
      parallelism: ptr(1),
      completions: ptr(2),
      activeDeadlineSeconds: ptr(3),
      selector: ptr(4),
      manualSelector: ptr(5),
      template: 6,
      backoffLimit: ptr(7),
      ttlSecondsAfterFinished: ptr(8),
      completionMode: ptr(9),
      suspend: ptr(10),
      podFailurePolicy: ptr(11),
      backoffLimitPerIndex: ptr(12),
      maxFailedIndexes: ptr(13),
      podReplacementPolicy: ptr(14),
      managedBy: ptr(15),
      successPolicy: ptr(16),
    },
  },
);

const conditionSchema: Schema = obj(
  'A condition of a job.',
  {
    lastProbeTime: time('When the condition was last checked.'),
    lastTransitionTime: time('When the condition last changed status.'),
    message: str('A human-readable account of the last transition.'),
    reason: str('A brief, machine-readable reason for the last transition.'),
    status: requiredStr('True, False or Unknown.'),
    type: requiredStr('The condition type: Complete, Failed, Suspended, FailureTarget or SuccessCriteriaMet.'),
  },
  ['type', 'status'],
  { protobuf: { type: 1, status: 2, lastProbeTime: 3, lastTransitionTime: 4, reason: 5, message: 6 } },
);

const uidSet = (description: string): Schema => ({
  type: 'array',
  description,
  items: { type: 'string', default: '' },
  'x-kubernetes-list-type': 'set',
});

const uncountedSchema: Schema = obj(
  'The UIDs of pods that terminated but are not counted in the status counters yet.',
  {
    failed: uidSet('UIDs of failed pods.'),
    succeeded: uidSet('UIDs of succeeded pods.'),
  },
  undefined,
  { protobuf: { succeeded: 1, failed: 2 } },
);

const statusSchema: Schema = obj(
  'The observed state of a job.',
  {
    active: int32('Pending and running pods that are not terminating; 0 for finished jobs.'),
    completedIndexes: str(
      'The completed indexes of an Indexed job: increasing decimal indexes separated by commas, runs of three or more written `first-last` (`1,3-5,7`).',
    ),
    completionTime: time(
      'When the job completed successfully; set only then, never changed or removed afterwards, and not before startTime.',
    ),
    conditions: {
      ...atomicList(
        { ...conditionSchema, default: {} },
        'The latest observations of the job\'s state. A finished job has Complete or Failed (never both, and never Complete with FailureTarget); Suspended is True while the job is suspended and False once resumed. Complete, Failed and FailureTarget cannot be turned off once True.',
      ),
      'x-kubernetes-patch-merge-key': 'type',
      'x-kubernetes-patch-strategy': 'merge',
    },
    failed: int32('Pods that reached phase Failed; never decreases.'),
    failedIndexes: str(
      'The failed indexes when backoffLimitPerIndex is set, in the completedIndexes format; disjoint from the completed indexes.',
    ),
    ready: int32('Active pods that are Ready and not terminating.'),
    startTime: time(
      'When the job controller started the job: unset while a job created suspended has not been resumed, reset at every resume. Once set it can only be removed while the job is suspended.',
    ),
    succeeded: int32('Pods that reached phase Succeeded; may decrease only when an elastic Indexed job is scaled down.'),
    terminating: int32('Pods that are terminating (phase Pending or Running with a deletionTimestamp).'),
    uncountedTerminatedPods: ref(
      uncountedSchema,
      'Pods that terminated but are not counted yet: the controller adds a pod\'s UID here, removes the pod\'s finalizer, then removes the UID while incrementing the counter. Empty for finished jobs; null for old jobs.',
    ),
  },
  undefined,
  {
    protobuf: {
      conditions: 1,
      startTime: ptr(2),
      completionTime: ptr(3),
      active: 4,
      succeeded: 5,
      failed: 6,
      completedIndexes: 7,
      uncountedTerminatedPods: ptr(8),
      ready: ptr(9),
      failedIndexes: ptr(10),
      terminating: ptr(11),
    },
  },
);

export const JOB_PROPERTIES: Record<string, Schema> = {
  spec: { ...ref(specSchema, 'The desired behaviour of the job.'), default: {} },
  status: { ...ref(statusSchema, 'The current state of the job, written by its controller through the status sub-resource.'), default: {} },
};

export const JOB_FIELDS = { spec: 2, status: 3 };
