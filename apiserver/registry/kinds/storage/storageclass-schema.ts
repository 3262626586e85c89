/**
 * The schema of StorageClass (`storage.<domain>/v1`) as Kubernetes v1.32 publishes it, with the field
 * numbers of `k8s.io/api/storage/v1/generated.proto` (StorageClass) and `core/v1/generated.proto`
 * (TopologySelectorTerm, TopologySelectorLabelRequirement).
 *
 * `provisioner` is not listed as required, unlike the published OpenAPI, so a class without one reaches
 * the kind's validation and fails as Kubernetes reports it (`provisioner: Required value`). For the same
 * reason the two policies carry no `enum`: the kind's validation answers Kubernetes' NotSupported lists.
 */
import type { Schema } from '../../../schema/schema.js';
import { ptr } from '../../../schema/schema.js';
import { atomicList, bool, obj, requiredStr, str, stringList, stringMap } from '../shared/schema-builders.js';

const labelRequirementSchema: Schema = obj(
  'A selector that matches a given label: the label key and the values it may take (logical OR).',
  {
    key: requiredStr('The label key that the selector applies to.'),
    values: stringList('An array of string values. One value must match the label to be selected. Each entry in Values is ORed.'),
  },
  undefined,
  { protobuf: { key: 1, values: 2 } },
);

/** TopologySelectorTerm: the requirements of one term are ANDed; the terms of a list are ORed. */
export const topologySelectorTermSchema: Schema = obj(
  'A topology selector term represents the result of label queries. A null or empty term matches no objects. The requirements of them are ANDed.',
  { matchLabelExpressions: atomicList({ ...labelRequirementSchema, default: {} }, 'A list of topology selector requirements by labels.') },
  undefined,
  { 'x-kubernetes-map-type': 'atomic', protobuf: { matchLabelExpressions: 1 } },
);

export const STORAGE_CLASS_PROPERTIES: Record<string, Schema> = {
  allowVolumeExpansion: bool('Whether the storage class allows volume expansion.'),
  allowedTopologies: atomicList(
    { ...topologySelectorTermSchema, default: {} },
    'Restricts the node topologies where volumes can be dynamically provisioned. Each volume plugin defines its own supported topology specifications. An empty list means there is no topology restriction.',
  ),
  mountOptions: stringList(
    'Mount options of the volumes dynamically provisioned by this class, e.g. ["ro", "soft"]. Not validated: mounting the volumes fails if one is invalid.',
  ),
  parameters: stringMap('Parameters for the provisioner that should create volumes of this storage class.'),
  provisioner: str('The type of the provisioner.'),
  reclaimPolicy: str('The reclaim policy of the volumes dynamically provisioned by this class: Delete (the default) or Retain.', {
    default: 'Delete',
  }),
  volumeBindingMode: str('How PersistentVolumeClaims are provisioned and bound. When unset, VolumeBindingImmediate is used.', {
    default: 'Immediate',
  }),
};

export const STORAGE_CLASS_FIELDS = Object.freeze({
  provisioner: 2,
  parameters: 3,
  reclaimPolicy: ptr(4),
  mountOptions: 5,
  allowVolumeExpansion: ptr(6),
  volumeBindingMode: ptr(7),
  allowedTopologies: 8,
});
