/**
 * The schema of VolumeAttachment (`storage.<domain>/v1`) as Kubernetes v1.32 publishes it, with the field
 * numbers of `k8s.io/api/storage/v1/generated.proto` (VolumeAttachment, VolumeAttachmentSpec,
 * VolumeAttachmentSource, VolumeAttachmentStatus, VolumeError).
 *
 * Differences from the published OpenAPI, on purpose:
 * - `attacher`, `nodeName` and `status.attached` are not listed as required, so a missing one reaches the
 *   kind's validation and fails with Kubernetes' own causes;
 * - `source.inlineVolumeSpec` (a PersistentVolumeSpec, beta and only for CSI migration) is kept as a
 *   free-form object: this server does not model PersistentVolumes, so its members are neither typed nor
 *   validated beyond being an object; JSON, YAML and CBOR carry it whole, but its protobuf message
 *   (field 2) is written empty, since the schema gives no numbers for its members (left for issue 14).
 */
import type { Schema } from '../../../schema/schema.js';
import { ptr } from '../../../schema/schema.js';
import { bool, obj, requiredStr, str, stringMap, struct, time } from '../shared/schema-builders.js';

const volumeErrorSchema = (description: string): Schema => ({
  ...obj(
    'VolumeError captures an error encountered during a volume operation.',
    {
      message: str('A string detailing the error encountered during the operation. It may be logged: it must not contain sensitive information.'),
      time: time('The time the error was encountered.'),
    },
    undefined,
    { protobuf: { time: 1, message: 2 } },
  ),
  description,
});

const sourceSchema: Schema = obj(
  'VolumeAttachmentSource represents a volume that should be attached. Exactly one member must be set.',
  {
    inlineVolumeSpec: {
      type: 'object',
      description:
        'The source of a volume defined inline in a Pod spec, populated only for the CSIMigration feature: it holds the translated fields of the pod\'s in-tree volume to a PersistentVolumeSpec. Beta.',
      'x-kubernetes-preserve-unknown-fields': true,
    },
    persistentVolumeName: str('The name of the persistent volume to attach.'),
  },
  undefined,
  { protobuf: { persistentVolumeName: ptr(1), inlineVolumeSpec: ptr(2) } },
);

const specSchema: Schema = obj(
  'VolumeAttachmentSpec is the specification of a VolumeAttachment request.',
  {
    attacher: requiredStr('The name of the volume driver that MUST handle this request, as returned by GetPluginName().'),
    nodeName: requiredStr('The node that the volume should be attached to.'),
    source: struct(sourceSchema, 'The volume that should be attached.'),
  },
  undefined,
  { protobuf: { attacher: 1, source: 2, nodeName: 3 } },
);

const statusSchema: Schema = obj(
  'VolumeAttachmentStatus is the status of a VolumeAttachment request.',
  {
    attachError: volumeErrorSchema('The last error encountered during attach, if any. Set only by the entity completing the attach (the external attacher).'),
    attached: bool('Whether the volume is successfully attached. Set only by the entity completing the attach (the external attacher).', { default: false }),
    attachmentMetadata: stringMap(
      'Filled on successful attach with the information returned by the attach operation, which must be passed into later WaitForAttach or Mount calls. Set only by the entity completing the attach (the external attacher).',
    ),
    detachError: volumeErrorSchema('The last error encountered during detach, if any. Set only by the entity completing the detach (the external attacher).'),
  },
  undefined,
  { protobuf: { attached: 1, attachmentMetadata: 2, attachError: ptr(3), detachError: ptr(4) } },
);

export const VOLUME_ATTACHMENT_PROPERTIES: Record<string, Schema> = {
  spec: struct(specSchema, 'The desired attach or detach behavior. Populated by the Kubernetes system.'),
  status: { ...statusSchema, description: 'The status of the VolumeAttachment request. Populated by the entity completing the attach or detach operation (the external attacher).' },
};

export const VOLUME_ATTACHMENT_FIELDS = Object.freeze({ spec: 2, status: 3 });
