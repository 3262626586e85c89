/**
 * `kubectl get` columns of the storage kinds, as kube-apiserver 1.32 prints them.
 *
 * StorageClass: NAME (with ` (default)` appended for the default class), PROVISIONER, RECLAIMPOLICY and
 * VOLUMEBINDINGMODE (each showing its default when unset), ALLOWVOLUMEEXPANSION (a boolean cell, false
 * when unset) and AGE. VolumeAttachment: NAME, ATTACHER, PV (the persistent volume's name, empty for an
 * inline volume), NODE, ATTACHED (boolean) and AGE.
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';

type Rec = Record<string, unknown>;
const record = (v: unknown): Rec | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The default-class annotation: Kubernetes' `storageclass.kubernetes.io/is-default-class` (or its beta
 * `storageclass.beta.kubernetes.io/...`) set to "true". Under another group domain the annotation follows
 * the domain as the other `kubernetes.io` names do (shared/legacy-domain.ts: `storageclass.platform.io/
 * is-default-class`). A table has no Naming to ask, so every domain's spelling is recognized; a server
 * only ever sees its own in practice.
 */
const DEFAULT_CLASS_KEY = /^storageclass\.(?:beta\.)?[^/]+\/is-default-class$/;

export function isDefaultClass(obj: KubeObject): boolean {
  return Object.entries(obj.metadata.annotations ?? {}).some(([k, v]) => v === 'true' && DEFAULT_CLASS_KEY.test(k));
}

export const storageClassTable: TableConvention = table(
  [
    nameColumn,
    column('Provisioner', 'string', 'The type of the provisioner.'),
    column('ReclaimPolicy', 'string', 'The reclaim policy of the volumes dynamically provisioned by this class. Defaults to Delete.'),
    column('VolumeBindingMode', 'string', 'How PersistentVolumeClaims are provisioned and bound. When unset, VolumeBindingImmediate is used.'),
    column('AllowVolumeExpansion', 'string', 'Whether the storage class allows volume expansion.'),
    ageColumn,
  ],
  (obj, now) => [
    isDefaultClass(obj) ? `${nameCell(obj)} (default)` : nameCell(obj),
    text(obj.provisioner),
    typeof obj.reclaimPolicy === 'string' ? obj.reclaimPolicy : 'Delete',
    typeof obj.volumeBindingMode === 'string' ? obj.volumeBindingMode : 'Immediate',
    obj.allowVolumeExpansion === true,
    ageCell(obj, now),
  ],
);

export const volumeAttachmentTable: TableConvention = table(
  [
    nameColumn,
    Object.freeze({ ...column('Attacher', 'string', 'The name of the volume driver that must handle this request.'), format: 'name' }),
    column('PV', 'string', 'The name of the persistent volume to attach.'),
    column('Node', 'string', 'The node that the volume should be attached to.'),
    column('Attached', 'boolean', 'Whether the volume is successfully attached.'),
    ageColumn,
  ],
  (obj, now) => {
    const spec = record(obj.spec);
    return [
      nameCell(obj),
      text(spec?.attacher),
      text(record(spec?.source)?.persistentVolumeName),
      text(spec?.nodeName),
      record(obj.status)?.attached === true,
      ageCell(obj, now),
    ];
  },
);
