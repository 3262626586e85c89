/**
 * The schema of StatefulSet (`apps/v1`) as Kubernetes v1.32 publishes it, with the field numbers of
 * kubernetes/api apps/v1 (StatefulSet, StatefulSetSpec, StatefulSetStatus, StatefulSetCondition,
 * StatefulSetUpdateStrategy, RollingUpdateStatefulSetStrategy,
 * StatefulSetPersistentVolumeClaimRetentionPolicy, StatefulSetOrdinals; status field 8 is unused).
 *
 * The defaults that depend on other fields (updateStrategy, partition, the retention policy, an explicit
 * empty podManagementPolicy) are not stated here but applied by the kind's hooks (statefulset-defaults.ts),
 * as Kubernetes' SetDefaults_StatefulSet does. `spec.serviceName` is listed as required, as document 2
 * says (Kubernetes v1.32 made it optional; see docs/differences.md).
 */
import { ptr, type Schema } from '../../../schema/schema.js';
import { labelSelectorSchema } from '../core/pod/label-selector-schema.js';
import { intOrString } from '../core/pod/schema-builders.js';
import { podTemplateSpecSchema } from '../core/pod/pod-template-spec-schema.js';
import { persistentVolumeClaimSchema } from '../core/persistentvolumeclaim-schema.js';
import { atomicList, int32, int64, keyedList, obj, ref, requiredStr, str, struct, time } from '../shared/schema-builders.js';

const rollingUpdateSchema: Schema = obj(
  'RollingUpdateStatefulSetStrategy is used to communicate parameter for RollingUpdateStatefulSetStrategyType.',
  {
    maxUnavailable: intOrString(
      'The maximum number of pods that can be unavailable during the update: an absolute number (5) or a percentage of desired pods (10%), rounded up; cannot be 0; defaults to 1. Alpha: only honored with the MaxUnavailableStatefulSet feature, and dropped otherwise. Applies to every pod from 0 to replicas-1.',
    ),
    partition: int32(
      'The ordinal at which the StatefulSet is partitioned for updates: during a rolling update, pods from ordinal replicas-1 down to partition are updated, those below are untouched (a canary). Defaults to 0.',
    ),
  },
  undefined,
  { protobuf: { partition: ptr(1), maxUnavailable: ptr(2) } },
);

const updateStrategySchema: Schema = obj(
  'StatefulSetUpdateStrategy indicates the strategy that the StatefulSet controller will use to perform updates. It includes any additional parameters necessary to perform the update for the indicated strategy.',
  {
    rollingUpdate: ref(rollingUpdateSchema, 'Parameters of the update when type is RollingUpdate.'),
    type: str('The type of the update strategy: RollingUpdate (pods are replaced in reverse ordinal order) or OnDelete (pods are replaced only when deleted). Defaults to RollingUpdate.'),
  },
  undefined,
  { protobuf: { type: 1, rollingUpdate: ptr(2) } },
);

const retentionPolicySchema: Schema = obj(
  'StatefulSetPersistentVolumeClaimRetentionPolicy describes the policy used for PVCs created from the StatefulSet VolumeClaimTemplates.',
  {
    whenDeleted: str(
      'What happens to PVCs created from the volumeClaimTemplates when the StatefulSet is deleted: Retain (the default) leaves them, Delete deletes them.',
    ),
    whenScaled: str(
      'What happens to PVCs created from the volumeClaimTemplates when the StatefulSet is scaled down: Retain (the default) leaves them, Delete deletes those of the pods above the replica count.',
    ),
  },
  undefined,
  { protobuf: { whenDeleted: 1, whenScaled: 2 } },
);

const ordinalsSchema: Schema = obj(
  'StatefulSetOrdinals describes the policy used for replica ordinal assignment in this StatefulSet.',
  {
    start: int32(
      'The number of the first replica. Replica indices run from start to start+replicas-1 (an alternate index such as 1, or a progressive move of replicas between StatefulSets). Defaults to 0.',
      { default: 0 },
    ),
  },
  undefined,
  { protobuf: { start: 1 } },
);

const specSchema: Schema = obj(
  'A StatefulSetSpec is the specification of a StatefulSet.',
  {
    minReadySeconds: int32(
      'Minimum number of seconds for which a newly created pod should be ready without any of its containers crashing to be considered available. Defaults to 0 (available as soon as it is ready).',
    ),
    ordinals: ref(ordinalsSchema, 'The numbering of replica indices. By default the first replica gets index 0 and each additional one the next.'),
    persistentVolumeClaimRetentionPolicy: ref(
      retentionPolicySchema,
      'The lifecycle of persistent volume claims created from volumeClaimTemplates. By default claims are created as needed and retained until deleted by hand; this policy can delete them with the set or when their pod is scaled down.',
    ),
    podManagementPolicy: str(
      'How pods are created during initial scale up, when replacing pods on nodes, or when scaling down. OrderedReady (the default) creates pods in increasing order (pod-0, then pod-1, ...), waiting for each to be ready, and removes them in reverse order; Parallel creates and deletes them all at once.',
    ),
    replicas: int32(
      'The desired number of replicas of the given template; each replica also has a consistent identity. Defaults to 1.',
    ),
    revisionHistoryLimit: int32(
      "The maximum number of revisions maintained in the StatefulSet's revision history (the revisions not represented by a currently applied spec). Defaults to 10.",
    ),
    selector: ref(labelSelectorSchema, "A label query over pods that should match the replica count. It must match the pod template's labels."),
    serviceName: str(
      'The name of the service that governs this StatefulSet. The service must exist before the StatefulSet and is responsible for the network identity of the set: pods get DNS names and host names of the form pod-specific-string.serviceName.default.svc.cluster.local.',
    ),
    template: struct(
      podTemplateSpecSchema,
      'The pods created when there are too few replicas. Each pod stamped out by the StatefulSet fulfils this template but has an identity of its own, named <statefulsetname>-<podindex> ("web-3" for index 3 of "web"). The only allowed template.spec.restartPolicy is "Always".',
    ),
    updateStrategy: ref(updateStrategySchema, 'The strategy used to update the pods when the template is revised.'),
    volumeClaimTemplates: atomicList(
      { ...persistentVolumeClaimSchema, default: {} },
      'The claims pods may reference. The controller maps network identities to claims so that a pod keeps its storage. Every claim needs at least one volume mount of the same name in a container of the template; a claim takes precedence over a template volume of the same name.',
    ),
  },
  ['selector', 'template', 'serviceName'],
  {
    protobuf: {
      replicas: ptr(1), selector: ptr(2), template: 3, volumeClaimTemplates: 4, serviceName: 5, podManagementPolicy: 6,
      updateStrategy: 7, revisionHistoryLimit: ptr(8), minReadySeconds: 9, persistentVolumeClaimRetentionPolicy: ptr(10), ordinals: ptr(11),
    },
  },
);

const conditionSchema: Schema = obj(
  'StatefulSetCondition describes the state of a statefulset at a certain point.',
  {
    lastTransitionTime: time('Last time the condition transitioned from one status to another.'),
    message: str('A human readable message indicating details about the transition.'),
    reason: str("The reason for the condition's last transition."),
    status: requiredStr('Status of the condition, one of True, False, Unknown.'),
    type: requiredStr('Type of statefulset condition.'),
  },
  ['type', 'status'],
  { protobuf: { type: 1, status: 2, lastTransitionTime: 3, reason: 4, message: 5 } },
);

const statusSchema: Schema = obj(
  'StatefulSetStatus represents the current state of a StatefulSet.',
  {
    availableReplicas: int32('Total number of available pods (ready for at least minReadySeconds) targeted by this statefulset.', { default: 0 }),
    collisionCount: int32('The count of hash collisions for the StatefulSet, used to name the newest ControllerRevision without collisions.'),
    conditions: keyedList(conditionSchema, "The latest available observations of a statefulset's current state.", ['type']),
    currentReplicas: int32('The number of pods created by the StatefulSet controller from the version indicated by currentRevision.'),
    currentRevision: str('If not empty, the version of the StatefulSet used to generate pods in the sequence [0,currentReplicas).'),
    observedGeneration: int64("The most recent generation observed for this StatefulSet; it corresponds to the StatefulSet's generation, which the API server updates on mutation."),
    readyReplicas: int32('The number of pods created for this StatefulSet with a Ready condition.'),
    replicas: int32('The number of pods created by the StatefulSet controller.', { default: 0 }),
    updateRevision: str('If not empty, the version of the StatefulSet used to generate pods in the sequence [replicas-updatedReplicas,replicas).'),
    updatedReplicas: int32('The number of pods created by the StatefulSet controller from the version indicated by updateRevision.'),
  },
  ['replicas'],
  {
    protobuf: {
      observedGeneration: 1, replicas: 2, readyReplicas: 3, currentReplicas: 4, updatedReplicas: 5, currentRevision: 6, updateRevision: 7,
      collisionCount: ptr(9), conditions: 10, availableReplicas: 11,
    },
  },
);

export const STATEFUL_SET_PROPERTIES: Record<string, Schema> = {
  spec: struct(specSchema, 'The desired identities of pods in this set.'),
  status: struct(statusSchema, 'The current status of the pods in this StatefulSet; may be out of date by some window of time.'),
};

export const STATEFUL_SET_FIELDS = Object.freeze({ spec: 2, status: 3 });
