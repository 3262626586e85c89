/**
 * StorageClass (`storage.<domain>/v1`, short name `sc`): the parameters of dynamically provisioned
 * volumes. Cluster-scoped, no status. Defaults: reclaimPolicy `Delete`, volumeBindingMode `Immediate`
 * (schema defaults). parameters, provisioner, reclaimPolicy and volumeBindingMode cannot change after
 * creation. Delete answers with the deleted object, as Kubernetes does.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { storageClassTable } from './storage-tables.js';
import { STORAGE_CLASS_FIELDS, STORAGE_CLASS_PROPERTIES } from './storageclass-schema.js';
import { validateStorageClass, validateStorageClassUpdate } from './storageclass-validation.js';

const schema = kindSchema(
  'StorageClass describes the parameters for a class of storage for which PersistentVolumes can be dynamically provisioned. StorageClasses are non-namespaced; the name of the storage class according to etcd is in ObjectMeta.Name.',
  STORAGE_CLASS_PROPERTIES,
  undefined,
  STORAGE_CLASS_FIELDS,
);

export const storageClasses = Object.freeze({
  groupPrefix: 'storage',
  group: '',
  version: 'v1',
  kind: 'StorageClass',
  resource: 'storageclasses',
  singular: 'storageclass',
  namespaced: false,
  shortNames: Object.freeze(['sc']),
  schema,
  deleteReturnsObject: true,
  table: storageClassTable,
  validate: (obj: KubeObject): FieldError[] => validateStorageClass(obj),
  validateUpdate: (obj: KubeObject, old: KubeObject): FieldError[] => validateStorageClassUpdate(obj, old),
} satisfies KindStrategy);
