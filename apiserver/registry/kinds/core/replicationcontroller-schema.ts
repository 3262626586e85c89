/**
 * The schema of ReplicationController (core/v1) as Kubernetes v1.32 publishes it, with the field numbers
 * of kubernetes/api core/v1 generated.proto (ReplicationController, ReplicationControllerSpec,
 * ReplicationControllerStatus, ReplicationControllerCondition). The template is a pointer in Go (it may be
 * absent, then validation requires it); the selector is an atomic map. Selector, labels and replicas
 * defaults depend on the template and are applied by the kind's hooks (replicationcontroller.ts).
 */
import { ptr, type Schema } from '../../../schema/schema.js';
import { int32, int64, keyedList, obj, ref, requiredStr, str, stringMap, struct, time } from '../shared/schema-builders.js';
import { podTemplateSpecSchema } from './pod/pod-template-spec-schema.js';

const specSchema: Schema = obj(
  'ReplicationControllerSpec is the specification of a replication controller.',
  {
    minReadySeconds: int32(
      'Minimum number of seconds for which a newly created pod should be ready without any of its containers crashing to be considered available. Defaults to 0 (available as soon as it is ready).',
    ),
    replicas: int32('The number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1.'),
    selector: stringMap(
      'A label query over pods that should match the replicas count. If empty, defaulted to the labels of the pod template; when set, it must match the pod template labels.',
      true,
    ),
    template: ref(
      podTemplateSpecSchema,
      'The pods created when too few replicas are detected. Takes precedence over a template reference. The only allowed template.spec.restartPolicy is "Always".',
    ),
  },
  undefined,
  { protobuf: { replicas: ptr(1), selector: 2, template: ptr(3), minReadySeconds: 4 } },
);

const conditionSchema: Schema = obj(
  'ReplicationControllerCondition describes the state of a replication controller at a certain point.',
  {
    lastTransitionTime: time('The last time the condition transitioned from one status to another.'),
    message: str('A human readable message indicating details about the transition.'),
    reason: str("The reason for the condition's last transition."),
    status: requiredStr('Status of the condition, one of True, False, Unknown.'),
    type: requiredStr('Type of replication controller condition.'),
  },
  ['type', 'status'],
  { protobuf: { type: 1, status: 2, lastTransitionTime: 3, reason: 4, message: 5 } },
);

const statusSchema: Schema = obj(
  'ReplicationControllerStatus represents the current status of a replication controller.',
  {
    availableReplicas: int32('The number of available replicas (ready for at least minReadySeconds) for this replication controller.'),
    conditions: keyedList(conditionSchema, "The latest available observations of a replication controller's current state.", ['type']),
    fullyLabeledReplicas: int32('The number of pods that have labels matching the labels of the pod template of the replication controller.'),
    observedGeneration: int64('The generation of the most recently observed replication controller.'),
    readyReplicas: int32('The number of ready replicas for this replication controller.'),
    replicas: int32('The most recently observed number of replicas.', { default: 0 }),
  },
  ['replicas'],
  { protobuf: { replicas: 1, fullyLabeledReplicas: 2, observedGeneration: 3, readyReplicas: 4, availableReplicas: 5, conditions: 6 } },
);

export const REPLICATION_CONTROLLER_PROPERTIES: Record<string, Schema> = {
  spec: struct(specSchema, 'The specification of the desired behavior of the replication controller.'),
  status: struct(statusSchema, 'The most recently observed status of the replication controller; may be out of date by some window of time. Read-only.'),
};

export const REPLICATION_CONTROLLER_FIELDS = Object.freeze({ spec: 2, status: 3 });
