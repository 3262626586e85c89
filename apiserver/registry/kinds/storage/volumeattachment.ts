/**
 * VolumeAttachment (`storage.<domain>/v1`): the intent to attach a volume to a node, and the external
 * attacher's outcome in `status`. Cluster-scoped, with a `status` sub-resource. As in Kubernetes:
 * a create starts from an empty status (`attached: false`), the main endpoint keeps the stored status,
 * `/status` keeps everything else, the spec never changes after creation, and the generation is not
 * tracked (the spec cannot change). Delete answers with the deleted object.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { volumeAttachmentTable } from './storage-tables.js';
import { VOLUME_ATTACHMENT_FIELDS, VOLUME_ATTACHMENT_PROPERTIES } from './volumeattachment-schema.js';
import { validateSpecUnchanged, validateVolumeAttachment, validateVolumeAttachmentV1 } from './volumeattachment-validation.js';

const schema = kindSchema(
  'VolumeAttachment captures the intent to attach or detach the specified volume to/from the specified node. VolumeAttachment objects are non-namespaced.',
  VOLUME_ATTACHMENT_PROPERTIES,
  ['spec'],
  VOLUME_ATTACHMENT_FIELDS,
);

export const volumeAttachments = Object.freeze({
  groupPrefix: 'storage',
  group: '',
  version: 'v1',
  kind: 'VolumeAttachment',
  resource: 'volumeattachments',
  singular: 'volumeattachment',
  namespaced: false,
  subresources: Object.freeze(['status'] as const),
  schema,
  deleteReturnsObject: true,
  table: volumeAttachmentTable,

  prepareForCreate(va: KubeObject): void {
    // Only the attacher sets status, through /status.
    va.status = { attached: false };
  },

  prepareForUpdate(va: KubeObject, old: KubeObject): void {
    // A copy: `old` may be shared with the store's cache.
    if (old.status === undefined) delete va.status;
    else va.status = structuredClone(old.status);
  },

  validate: (va: KubeObject): FieldError[] => [...validateVolumeAttachment(va), ...validateVolumeAttachmentV1(va)],
  validateUpdate: (va: KubeObject, old: KubeObject): FieldError[] => validateSpecUnchanged(va, old),
  validateStatusUpdate: (va: KubeObject, old: KubeObject): FieldError[] => [...validateVolumeAttachment(va), ...validateSpecUnchanged(va, old)],
} satisfies KindStrategy);
