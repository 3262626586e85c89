/**
 * PersistentVolumeClaim (core/v1): a user's request for storage. Namespaced, short name `pvc`, with a
 * `status` sub-resource; the schema is persistentvolumeclaim-schema.ts (shared with StatefulSet
 * volumeClaimTemplates). There is no provisioning here: claims stay `Pending` unless a client writes their
 * status. As Kubernetes v1.32's persistentvolumeclaimStrategy:
 * - a create starts from an empty status (`phase: Pending` by the defaults); `volumeAttributesClassName` is
 *   dropped while the VolumeAttributesClass gate is off (its default in v1.32), unless the stored claim has it;
 * - the main resource keeps the stored status, `/status` keeps the stored spec (the registry);
 * - validation: persistentvolumeclaim-validation.ts;
 * - DELETE answers with the deleted object; field selectors: `metadata.name`, `metadata.namespace`, `name`.
 * Table columns as kube-apiserver prints them: persistentvolumeclaim-table.ts.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { Schema } from '../../../schema/schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { isObject } from './pod/json-values.js';
import { persistentVolumeClaimSchema } from './persistentvolumeclaim-schema.js';
import { persistentVolumeClaimTable } from './persistentvolumeclaim-table.js';
import {
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimStatusUpdate,
  validatePersistentVolumeClaimUpdate,
} from './persistentvolumeclaim-validation.js';

const members = persistentVolumeClaimSchema.properties as Record<string, Schema>;
const schema = kindSchema(
  "PersistentVolumeClaim is a user's request for and claim to a persistent volume",
  { spec: members.spec!, status: members.status! },
  undefined,
  { spec: 2, status: 3 },
);

/** The VolumeAttributesClass gate is off in v1.32: its field is dropped unless already in use. */
function dropDisabledFields(pvc: KubeObject, old?: KubeObject): void {
  if (!isObject(pvc.spec)) return;
  const inUse = old !== undefined && isObject(old.spec) && old.spec.volumeAttributesClassName !== undefined;
  if (!inUse) delete pvc.spec.volumeAttributesClassName;
}

export const persistentVolumeClaims = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  resource: 'persistentvolumeclaims',
  singular: 'persistentvolumeclaim',
  namespaced: true,
  shortNames: Object.freeze(['pvc']),
  subresources: Object.freeze(['status'] as const),
  schema,
  deleteReturnsObject: true,
  table: persistentVolumeClaimTable,
  selectableFields: Object.freeze({ name: (obj: KubeObject) => obj.metadata.name ?? '' }),

  prepareForCreate(pvc: KubeObject): void {
    pvc.status = { phase: 'Pending' };
    dropDisabledFields(pvc);
  },

  prepareForUpdate(pvc: KubeObject, old: KubeObject): void {
    dropDisabledFields(pvc, old);
  },

  validate: (pvc: KubeObject): FieldError[] => validatePersistentVolumeClaim(pvc),
  validateUpdate: (pvc: KubeObject, old: KubeObject): FieldError[] => validatePersistentVolumeClaimUpdate(pvc, old),
  validateStatusUpdate: (pvc: KubeObject): FieldError[] => validatePersistentVolumeClaimStatusUpdate(pvc),
} satisfies KindStrategy);
