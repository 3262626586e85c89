/**
 * `kubectl get persistentvolumeclaims` columns as kube-apiserver 1.32 prints them: NAME, STATUS (the phase,
 * `Terminating` once deletion started), VOLUME, CAPACITY and ACCESS MODES (both only once the claim names a
 * volume: `status.capacity.storage` canonical, the status access modes abbreviated RWO,ROX,RWX,RWOP),
 * STORAGECLASS (the beta annotation first, then `spec.storageClassName`), VOLUMEATTRIBUTESCLASS (`<unset>`
 * without one), AGE; with `-o wide` also VOLUMEMODE (`<unset>` without one).
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { canonicalQuantity } from '../shared/quantity.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';
import { arrayAt, isObject, objectAt, stringAt, type JsonObject } from './pod/json-values.js';
import { BETA_STORAGE_CLASS_ANNOTATION } from './persistentvolumeclaim-validation.js';

const ABBREVIATIONS: readonly (readonly [string, string])[] = [
  ['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP'],
];

/** kubectl's GetAccessModesAsString: the modes present, in that fixed order, comma-separated. */
export function accessModesText(modes: readonly unknown[]): string {
  return ABBREVIATIONS.filter(([mode]) => modes.includes(mode)).map(([, short]) => short).join(',');
}

function cells(pvc: KubeObject, now: Date): unknown[] {
  const spec: JsonObject = isObject(pvc.spec) ? pvc.spec : {};
  const status: JsonObject = isObject(pvc.status) ? pvc.status : {};
  const phase = pvc.metadata.deletionTimestamp !== undefined ? 'Terminating' : stringAt(status, 'phase');
  const volumeName = stringAt(spec, 'volumeName');
  let capacity = '';
  let accessModes = '';
  if (volumeName !== '') {
    accessModes = accessModesText(arrayAt(status, 'accessModes'));
    const storage = objectAt(status, 'capacity')?.storage;
    capacity = storage === undefined ? '0' : (canonicalQuantity(storage) ?? String(storage));
  }
  const storageClass = pvc.metadata.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] ?? stringAt(spec, 'storageClassName');
  const attributesClass = typeof spec.volumeAttributesClassName === 'string' ? spec.volumeAttributesClassName : '<unset>';
  const volumeMode = typeof spec.volumeMode === 'string' ? spec.volumeMode : '<unset>';
  return [nameCell(pvc), phase, volumeName, capacity, accessModes, storageClass, attributesClass, ageCell(pvc, now), volumeMode];
}

export const persistentVolumeClaimTable: TableConvention = table(
  [
    nameColumn,
    column('Status', 'string', 'Phase represents the current phase of PersistentVolumeClaim.'),
    column('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
    column('Capacity', 'string', 'Requests describes the minimum amount of compute resources required.'),
    column('Access Modes', 'string', 'accessModes contains the actual access modes the volume backing the PVC has.'),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    ageColumn,
    column('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim.', 1),
  ],
  cells,
);
