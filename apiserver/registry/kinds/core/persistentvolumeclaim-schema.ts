/**
 * PersistentVolumeClaim (core/v1) as a schema of its own: metadata, spec (the PersistentVolumeClaimSpec the
 * ephemeral volume source already uses, pod/volume-schema.ts) and status, with the field numbers of
 * kubernetes/api core/v1 generated.proto (PersistentVolumeClaim, PersistentVolumeClaimStatus,
 * PersistentVolumeClaimCondition, ModifyVolumeStatus; status field 6 was the removed resizeStatus).
 *
 * Used by StatefulSet `spec.volumeClaimTemplates` and by a PersistentVolumeClaim kind when one is served.
 * `claimPhaseDefault` is the default Kubernetes' SetDefaults_PersistentVolumeClaim gives a claim's
 * `status.phase` (`Pending`); the schema states it, so every claim written through a schema gets it.
 */
import { objectMetaSchema } from '../../../schema/object-meta-schema.js';
import { ptr, type Schema } from '../../../schema/schema.js';
import { resourceListSchema } from '../shared/common-schemas.js';
import { keyedList, obj, requiredStr, str, stringList, struct, time } from '../shared/schema-builders.js';
import { persistentVolumeClaimSpecSchema } from './pod/volume-schema.js';

export const CLAIM_PHASE_DEFAULT = 'Pending';

const claimConditionSchema: Schema = obj(
  'PersistentVolumeClaimCondition contains details about the state of a claim.',
  {
    lastProbeTime: time('The last time the condition was probed.'),
    lastTransitionTime: time('The last time the condition transitioned from one status to another.'),
    message: str('A human-readable message indicating details about the last transition.'),
    reason: str('A unique, short, machine understandable string giving the reason for the last transition (a CamelCase word).'),
    status: requiredStr('Status of the condition: True, False or Unknown.'),
    type: requiredStr('Type of the condition (Resizing, FileSystemResizePending, ModifyingVolume, ModifyVolumeError).'),
  },
  ['type', 'status'],
  { protobuf: { type: 1, status: 2, lastProbeTime: 3, lastTransitionTime: 4, reason: 5, message: 6 } },
);

const modifyVolumeStatusSchema: Schema = obj(
  'ModifyVolumeStatus represents the status object of a ControllerModifyVolume operation.',
  {
    status: requiredStr('The status of the operation: Pending, InProgress or Infeasible.'),
    targetVolumeAttributesClassName: str('The name of the VolumeAttributesClass the claim is being reconciled to.'),
  },
  ['status'],
  { protobuf: { targetVolumeAttributesClassName: 1, status: 2 } },
);

export const persistentVolumeClaimStatusSchema: Schema = obj(
  'PersistentVolumeClaimStatus is the current status of a persistent volume claim.',
  {
    accessModes: stringList('The actual access modes the volume backing the claim has.'),
    allocatedResourceStatuses: {
      type: 'object',
      description: 'The status of each resource being resized for the claim (ControllerResizeInProgress, ControllerResizeFailed, NodeResizePending, NodeResizeInProgress, NodeResizeFailed).',
      additionalProperties: { type: 'string', default: '' },
      'x-kubernetes-map-type': 'granular',
    },
    allocatedResources: resourceListSchema('The storage resource allocated to the claim (resize tracking).'),
    capacity: resourceListSchema('The actual resources of the underlying volume.'),
    conditions: keyedList(claimConditionSchema, 'The current conditions of the claim; Resizing while a resize is under way.', ['type']),
    currentVolumeAttributesClassName: str('The current VolumeAttributesClass the claim uses.'),
    modifyVolumeStatus: { ...modifyVolumeStatusSchema, description: 'The status of the ControllerModifyVolume operation; unset when none is under way.' },
    phase: str('The current phase of the claim: Pending, Bound or Lost.', { default: CLAIM_PHASE_DEFAULT }),
  },
  undefined,
  {
    protobuf: {
      phase: 1, accessModes: 2, capacity: 3, conditions: 4, allocatedResources: 5, allocatedResourceStatuses: 7,
      currentVolumeAttributesClassName: ptr(8), modifyVolumeStatus: ptr(9),
    },
  },
);

/** A PersistentVolumeClaim: a user's request for and claim to a persistent volume. */
export const persistentVolumeClaimSchema: Schema = obj(
  "PersistentVolumeClaim is a user's request for and claim to a persistent volume.",
  {
    apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
    kind: str('Kind is a string value representing the REST resource this object represents.'),
    metadata: { ...objectMetaSchema, description: "Standard object's metadata.", default: {} },
    spec: struct(persistentVolumeClaimSpecSchema, 'The desired characteristics of a volume requested by a pod author.'),
    status: struct(persistentVolumeClaimStatusSchema, 'The current information of the claim (read-only).'),
  },
  undefined,
  { protobuf: { metadata: 1, spec: 2, status: 3 } },
);
