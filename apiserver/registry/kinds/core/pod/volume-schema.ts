/**
 * The Volume schema: a name plus exactly one source. The common sources are described here (emptyDir,
 * configMap, secret, projected, persistentVolumeClaim, hostPath, downwardAPI, csi, ephemeral, nfs); the
 * rarer, mostly deprecated in-tree ones in in-tree-volume-schema.ts. Defaults as Kubernetes applies
 * them: file modes 420 (0644), hostPath type "", token expiry 3600 s, claim volumeMode Filesystem.
 * `volumes` merges by name with `retainKeys`, so replacing a volume's source drops the old one.
 */
import { objectMetaSchema } from '../../../../schema/object-meta-schema.js';
import type { ProtobufFields, Schema } from '../../../../schema/schema.js';
import { objectFieldSelectorSchema, resourceFieldSelectorSchema } from './env-schema.js';
import { inTreeVolumeSources } from './in-tree-volume-schema.js';
import { labelSelectorSchema } from './label-selector-schema.js';
import { atomicList, bool, inline, int32, int64, keyedList, localObjectReference, obj, ptr, quantity, quantityMap, requiredStr, str, stringList, stringMap } from './schema-builders.js';

const MODE_NOTE = 'between 0000 and 0777 octal (0 and 511 decimal)';
const defaultMode = (): Schema => int32(`Mode bits of created files by default, ${MODE_NOTE}; defaults to 0644.`, { default: 420 });

const keyToPathSchema: Schema = obj(
  'Maps a key to a file path in the volume.',
  {
    key: requiredStr('The key to project.'),
    mode: int32(`Mode bits of this file, ${MODE_NOTE}; defaults to the volume defaultMode.`),
    path: requiredStr("Relative path of the file; may not contain '..' elements or start with '..'."),
  },
  ['key', 'path'],
  { protobuf: { key: 1, path: 2, mode: ptr(3) } },
);
const keyItems = (what: string): Schema => atomicList({ ...keyToPathSchema, default: {} }, `Keys of the ${what} to project; unlisted keys are left out when set.`);

const downwardAPIFileSchema: Schema = obj(
  'A file holding a field of the pod or a resource of a container.',
  {
    fieldRef: objectFieldSelectorSchema,
    mode: int32(`Mode bits of this file, ${MODE_NOTE}.`),
    path: requiredStr('Relative path of the file.'),
    resourceFieldRef: resourceFieldSelectorSchema,
  },
  ['path'],
  { protobuf: { path: 1, fieldRef: ptr(2), resourceFieldRef: ptr(3), mode: ptr(4) } },
);
const downwardAPIItems = atomicList({ ...downwardAPIFileSchema, default: {} }, 'Files of the volume.');

// `name` is the embedded LocalObjectReference's; field 3 is unused (the volume sources' defaultMode).
const projectionFields: ProtobufFields = { name: inline(1, 1), items: 2, optional: ptr(4) };
const configMapProjection: Schema = obj('A ConfigMap projected into the volume.', {
  items: keyItems('ConfigMap'),
  name: str('Name of the ConfigMap.', { default: '' }),
  optional: bool('Whether the ConfigMap or its keys must be defined.'),
}, undefined, { protobuf: projectionFields });
const secretProjection: Schema = obj('A Secret projected into the volume.', {
  items: keyItems('Secret'),
  name: str('Name of the Secret.', { default: '' }),
  optional: bool('Whether the Secret or its keys must be defined.'),
}, undefined, { protobuf: projectionFields });

const volumeProjectionSchema: Schema = obj('One projected source; exactly one field.', {
  clusterTrustBundle: obj(
    'Certificates of ClusterTrustBundle objects, written as a PEM file.',
    {
      labelSelector: labelSelectorSchema,
      name: str('Name of one bundle; exclusive with signerName and labelSelector.'),
      optional: bool('Whether a missing bundle is tolerated.'),
      path: requiredStr('Relative path of the file.'),
      signerName: str('Select bundles of this signer.'),
    },
    ['path'],
    { protobuf: { name: ptr(1), signerName: ptr(2), labelSelector: ptr(3), path: 4, optional: ptr(5) } },
  ),
  configMap: configMapProjection,
  downwardAPI: obj('Downward API files.', { items: downwardAPIItems }, undefined, { protobuf: { items: 1 } }),
  secret: secretProjection,
  serviceAccountToken: obj(
    'A projected service account token.',
    {
      audience: str('Intended audience of the token; defaults to the API server identifier.'),
      expirationSeconds: int64('Requested lifetime of the token, at least 600; defaults to 1 hour.', { default: 3600 }),
      path: requiredStr('Relative path of the token file.'),
    },
    ['path'],
    { protobuf: { audience: 1, expirationSeconds: ptr(2), path: 3 } },
  ),
}, undefined, { protobuf: { secret: ptr(1), downwardAPI: ptr(2), configMap: ptr(3), serviceAccountToken: ptr(4), clusterTrustBundle: ptr(5) } });

/** TypedLocalObjectReference, or with `namespace` (field 4) TypedObjectReference: the same numbers otherwise. */
const typedLocalObjectReference = (description: string, extra: Record<string, Schema> = {}): Schema =>
  obj(
    description,
    {
      apiGroup: str('API group of the referent; the core group when empty.'),
      kind: requiredStr('Kind of the referent.'),
      name: requiredStr('Name of the referent.'),
      ...extra,
    },
    ['kind', 'name'],
    {
      'x-kubernetes-map-type': 'atomic',
      protobuf: { apiGroup: ptr(1), kind: 2, name: 3, ...('namespace' in extra ? { namespace: ptr(4) } : {}) },
    },
  );

/** PersistentVolumeClaimSpec (core/v1), shared with the PersistentVolumeClaim schema (core/persistentvolumeclaim-schema.ts). */
export const persistentVolumeClaimSpecSchema: Schema = obj('Desired characteristics of a volume claim.', {
  accessModes: stringList('ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.'),
  dataSource: typedLocalObjectReference('A VolumeSnapshot or PersistentVolumeClaim to populate the volume from.'),
  dataSourceRef: typedLocalObjectReference('An object to populate the volume from (any namespace with a grant).', {
    namespace: str('Namespace of the referent.'),
  }),
  resources: obj('Minimum and maximum resources of the volume.', {
    limits: quantityMap('Maximum amount of each resource allowed.'),
    requests: quantityMap('Minimum amount of each resource required.'),
  }, undefined, { protobuf: { limits: 1, requests: 2 } }),
  selector: labelSelectorSchema,
  storageClassName: str('Name of the StorageClass the claim requires.'),
  volumeAttributesClassName: str('Name of the VolumeAttributesClass the claim requires.'),
  volumeMode: str('Block or Filesystem; defaults to Filesystem.', { default: 'Filesystem' }),
  volumeName: str('Binds the claim to this PersistentVolume.'),
}, undefined, {
  protobuf: {
    accessModes: 1, resources: 2, volumeName: 3, selector: ptr(4), storageClassName: ptr(5), volumeMode: ptr(6), dataSource: ptr(7),
    dataSourceRef: ptr(8), volumeAttributesClassName: ptr(9),
  },
});

/** The sources Kubernetes describes fully and this file defines. */
const commonVolumeSources: Record<string, Schema> = {
  configMap: obj('A ConfigMap whose keys become files.', {
    defaultMode: defaultMode(),
    items: keyItems('ConfigMap'),
    name: str('Name of the ConfigMap.', { default: '' }),
    optional: bool('Whether the ConfigMap or its keys must be defined.'),
  }, undefined, { protobuf: { name: inline(1, 1), items: 2, defaultMode: ptr(3), optional: ptr(4) } }),
  csi: obj(
    'A volume served by an external CSI driver.',
    {
      driver: requiredStr('Name of the CSI driver.'),
      fsType: str('Filesystem type to mount (ext4, xfs, ntfs).'),
      nodePublishSecretRef: localObjectReference('Secret passed to the driver for NodePublishVolume.'),
      readOnly: bool('Mount read-only; defaults to false.'),
      volumeAttributes: stringMap('Driver-specific properties.'),
    },
    ['driver'],
    { protobuf: { driver: 1, readOnly: ptr(2), fsType: ptr(3), volumeAttributes: 4, nodePublishSecretRef: ptr(5) } },
  ),
  downwardAPI: obj('Fields of the pod written as files.', { defaultMode: defaultMode(), items: downwardAPIItems }, undefined, {
    protobuf: { items: 1, defaultMode: ptr(2) },
  }),
  emptyDir: obj('An empty directory that lives as long as the pod.', {
    medium: str('"" (the node default) or Memory.'),
    sizeLimit: quantity('Maximum local storage of the directory.'),
  }, undefined, { protobuf: { medium: 1, sizeLimit: ptr(2) } }),
  ephemeral: obj('A volume provisioned for the pod by a volume claim, deleted with the pod.', {
    volumeClaimTemplate: obj(
      'The PersistentVolumeClaim created for the pod.',
      { metadata: objectMetaSchema, spec: { ...persistentVolumeClaimSpecSchema, default: {} } },
      ['spec'],
      { protobuf: { metadata: 1, spec: 2 } },
    ),
    // Field 2 is unused (a removed readOnly).
  }, undefined, { protobuf: { volumeClaimTemplate: ptr(1) } }),
  hostPath: obj(
    'A file or directory of the node.',
    {
      path: requiredStr('Path on the host; a symlink is followed.'),
      type: str('"", DirectoryOrCreate, Directory, FileOrCreate, File, Socket, CharDevice or BlockDevice; defaults to "".', { default: '' }),
    },
    ['path'],
    { protobuf: { path: 1, type: ptr(2) } },
  ),
  nfs: obj(
    'An NFS share.',
    {
      path: requiredStr('Path exported by the server.'),
      readOnly: bool('Mount read-only; defaults to false.'),
      server: requiredStr('Hostname or IP of the NFS server.'),
    },
    ['server', 'path'],
    { protobuf: { server: 1, path: 2, readOnly: 3 } },
  ),
  persistentVolumeClaim: obj(
    'A PersistentVolumeClaim in the pod namespace.',
    { claimName: requiredStr('Name of the claim.'), readOnly: bool('Mount read-only; defaults to false.') },
    ['claimName'],
    { protobuf: { claimName: 1, readOnly: 2 } },
  ),
  projected: obj('Several sources projected into one directory.', {
    defaultMode: defaultMode(),
    sources: atomicList({ ...volumeProjectionSchema, default: {} }, 'The projected sources.'),
  }, undefined, { protobuf: { sources: 1, defaultMode: ptr(2) } }),
  secret: obj('A Secret whose keys become files.', {
    defaultMode: defaultMode(),
    items: keyItems('Secret'),
    optional: bool('Whether the Secret or its keys must be defined.'),
    secretName: str('Name of the Secret in the pod namespace.'),
  }, undefined, { protobuf: { secretName: 1, items: 2, defaultMode: ptr(3), optional: ptr(4) } }),
};

/** Every source of a Volume, by name in alphabetical order (as Kubernetes publishes them). */
export const volumeSourceProperties: Readonly<Record<string, Schema>> = Object.fromEntries(
  Object.entries({ ...commonVolumeSources, ...inTreeVolumeSources }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
);

/** The source fields of a Volume, in the order Kubernetes reports them. */
export const VOLUME_SOURCES: readonly string[] = Object.keys(volumeSourceProperties);

/** VolumeSource's field numbers; every source is a pointer. */
const VOLUME_SOURCE_FIELDS: Readonly<Record<string, number>> = {
  hostPath: 1, emptyDir: 2, gcePersistentDisk: 3, awsElasticBlockStore: 4, gitRepo: 5, secret: 6, nfs: 7, iscsi: 8, glusterfs: 9,
  persistentVolumeClaim: 10, rbd: 11, flexVolume: 12, cinder: 13, cephfs: 14, flocker: 15, downwardAPI: 16, fc: 17, azureFile: 18,
  configMap: 19, vsphereVolume: 20, quobyte: 21, azureDisk: 22, photonPersistentDisk: 23, portworxVolume: 24, scaleIO: 25, projected: 26,
  storageos: 27, csi: 28, ephemeral: 29, image: 30,
};

/** A Volume is {name = 1, volumeSource = 2}: the sources, inline in JSON, live in the embedded VolumeSource. */
const volumeFields: ProtobufFields = {
  name: 1,
  ...Object.fromEntries(VOLUME_SOURCES.map((source) => [source, inline(2, ptr(VOLUME_SOURCE_FIELDS[source]!))])),
};

export const volumeSchema: Schema = obj(
  'A named volume that containers of the pod may mount; exactly one source.',
  { name: requiredStr('Name of the volume (a DNS label), unique within the pod.'), ...volumeSourceProperties },
  ['name'],
  { protobuf: volumeFields },
);

export const volumeListSchema: Schema = keyedList(volumeSchema, 'Volumes that containers of the pod may mount.', ['name'], 'merge,retainKeys');

