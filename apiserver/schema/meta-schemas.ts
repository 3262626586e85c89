/**
 * The shared `meta/v1` types every group-version document carries besides ObjectMeta and ListMeta:
 * Status (and its details), DeleteOptions (and Preconditions), Patch and WatchEvent. Kept as internal
 * schemas (Kubernetes' extension names) so they are published through the same walk as kinds.
 */
import { ptr, type Schema } from './schema.js';

const str = (description: string): Schema => ({ type: 'string', description });

export const statusCauseSchema: Schema = {
  type: 'object',
  description: 'More information about one cause of a failure: which field, and why.',
  properties: {
    field: str('The field of the resource that caused the error, as a JSON path (`spec.containers[0].name`). Optional.'),
    message: str('A human-readable description of the cause.'),
    reason: str('A machine-readable description of the cause. Empty when unknown.'),
  },
  protobuf: { reason: 1, message: 2, field: 3 },
};

export const statusDetailsSchema: Schema = {
  type: 'object',
  description: 'Extra data about a failure: the object it concerns and its causes.',
  properties: {
    causes: { type: 'array', description: 'The causes of the failure, when known.', items: statusCauseSchema, 'x-kubernetes-list-type': 'atomic' },
    group: str('The group of the resource of the error.'),
    kind: str('The kind of the resource of the error.'),
    name: str('The name attribute of the resource of the error, when one name applies.'),
    retryAfterSeconds: { type: 'integer', format: 'int32', description: 'Seconds to wait before retrying, when the operation may be retried.' },
    uid: str('The UID of the resource of the error.'),
  },
  protobuf: { name: 1, group: 2, kind: 3, causes: 4, retryAfterSeconds: 5, uid: 6 },
};

export const preconditionsSchema: Schema = {
  type: 'object',
  description: 'Must be fulfilled before an operation (update, delete) is carried out.',
  properties: {
    resourceVersion: str('The target resourceVersion.'),
    uid: str('The target UID.'),
  },
  protobuf: { uid: ptr(1), resourceVersion: ptr(2) },
};

/** Builders because `Status` and `DeleteOptions` reference ListMeta and Preconditions by identity. */
export function statusSchema(listMeta: Schema): Schema {
  return {
    type: 'object',
    description: 'Status is the return value of calls that do not return other objects.',
    properties: {
      apiVersion: str('The versioned schema of this representation of an object.'),
      code: { type: 'integer', format: 'int32', description: 'The HTTP status code of this status, 0 when unset.' },
      details: statusDetailsSchema,
      kind: str('The REST resource this object represents.'),
      message: str('A human-readable description of the status of this operation.'),
      metadata: listMeta,
      reason: str('A machine-readable description of why the operation is in the "Failure" status.'),
      status: str('Status of the operation: "Success" or "Failure".'),
    },
    protobuf: { metadata: 1, status: 2, message: 3, reason: 4, details: ptr(5), code: 6 },
  };
}

export const deleteOptionsSchema: Schema = {
  type: 'object',
  description: 'DeleteOptions may be provided when deleting an API object.',
  properties: {
    apiVersion: str('The versioned schema of this representation of an object.'),
    dryRun: { type: 'array', description: 'When present, modifications are not persisted. Valid values: All.', items: { type: 'string' }, 'x-kubernetes-list-type': 'atomic' },
    gracePeriodSeconds: { type: 'integer', format: 'int64', description: 'Seconds before the object is deleted; zero deletes immediately.' },
    ignoreStoreReadErrorWithClusterBreakingPotential: { type: 'boolean', description: 'Deletes an object that cannot be read from storage. Unsafe.' },
    kind: str('The REST resource this object represents.'),
    orphanDependents: { type: 'boolean', description: 'Deprecated: use propagationPolicy.' },
    preconditions: preconditionsSchema,
    propagationPolicy: str('Whether and how garbage collection is performed: Orphan, Background or Foreground.'),
  },
  protobuf: {
    gracePeriodSeconds: ptr(1), preconditions: ptr(2), orphanDependents: ptr(3), propagationPolicy: ptr(4), dryRun: 5,
    ignoreStoreReadErrorWithClusterBreakingPotential: ptr(6),
  },
};

export const patchSchema: Schema = {
  type: 'object',
  description: 'The body of a PATCH request: JSON Patch, JSON Merge Patch, strategic merge patch or an apply configuration.',
};

export const watchEventSchema: Schema = {
  type: 'object',
  description: 'An event of a watch stream.',
  required: ['type', 'object'],
  properties: {
    object: {
      type: 'object',
      description: 'The object of the event: the object for ADDED and MODIFIED, its last state for DELETED, a Status for ERROR, only the resourceVersion for BOOKMARK.',
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-embedded-resource': true,
    },
    type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
  },
};
