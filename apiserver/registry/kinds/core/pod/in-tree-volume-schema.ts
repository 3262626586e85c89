/**
 * The in-tree volume sources (cloud disks, network filesystems, block devices, gitRepo, image): mostly
 * deprecated drivers that Kubernetes v1.32 still types field by field. Required fields and defaults are
 * the ones its OpenAPI publishes (azureDisk cachingMode ReadWrite / fsType ext4 / kind Shared / readOnly
 * false, iscsi iscsiInterface "default", rbd pool "rbd" / user "admin" / keyring "/etc/ceph/keyring",
 * scaleIO storageMode ThinProvisioned / fsType xfs), with one exception: scaleIO's `secretRef` is published
 * as required, but the API server accepts a scaleIO volume without it, so it is not required here.
 *
 * Field numbers are core/v1 generated.proto's; pointer fields (types.go) are `ptr`, and every `secretRef`
 * is a `*LocalObjectReference`. Value rules (formats, ranges, enumerations) live in
 * validate-in-tree-volumes.ts, with Kubernetes' messages; the schema only types the fields.
 */
import type { Schema } from '../../../../schema/schema.js';
import { bool, int32, localObjectReference, obj, ptr, requiredStr, str, stringList, stringMap } from './schema-builders.js';

const fsType = (inferred = 'ext4'): Schema => str(`Filesystem type to mount (ext4, xfs, ntfs, ...); ${inferred} when empty.`);
const readOnly = (): Schema => bool('Mount the volume read-only (forces readOnly on its mounts); defaults to false.');
const partition = (): Schema => int32('Partition to mount (1 for /dev/sda1); unset or 0 mounts the whole disk.');
const secretRef = (what: string): Schema => localObjectReference(`Secret holding ${what}.`);

export const inTreeVolumeSources: Readonly<Record<string, Schema>> = {
  awsElasticBlockStore: obj(
    'Deprecated: an AWS EBS disk attached to the node (now served by the ebs.csi.aws.com CSI driver).',
    {
      fsType: fsType(),
      partition: partition(),
      readOnly: readOnly(),
      volumeID: requiredStr('ID of the EBS volume.'),
    },
    ['volumeID'],
    { protobuf: { volumeID: 1, fsType: 2, partition: 3, readOnly: 4 } },
  ),
  azureDisk: obj(
    'Deprecated: an Azure data disk (now served by the disk.csi.azure.com CSI driver).',
    {
      cachingMode: str('Host caching: None, ReadOnly or ReadWrite; defaults to ReadWrite.', { default: 'ReadWrite' }),
      diskName: requiredStr('Name of the data disk in blob storage.'),
      diskURI: requiredStr('URI of the data disk: an https blob URL, or a /subscriptions/... ID for a managed disk.'),
      fsType: str('Filesystem type to mount (ext4, xfs, ntfs, ...); defaults to ext4.', { default: 'ext4' }),
      kind: str('Shared (several blob disks per storage account), Dedicated (one per account) or Managed; defaults to Shared.', {
        default: 'Shared',
      }),
      readOnly: bool('Mount the volume read-only (forces readOnly on its mounts); defaults to false.', { default: false }),
    },
    ['diskName', 'diskURI'],
    { protobuf: { diskName: 1, diskURI: 2, cachingMode: ptr(3), fsType: ptr(4), readOnly: ptr(5), kind: ptr(6) } },
  ),
  azureFile: obj(
    'Deprecated: an Azure File share (now served by the file.csi.azure.com CSI driver).',
    {
      readOnly: readOnly(),
      secretName: requiredStr('Secret holding the storage account name and key.'),
      shareName: requiredStr('Name of the file share.'),
    },
    ['secretName', 'shareName'],
    { protobuf: { secretName: 1, shareName: 2, readOnly: 3 } },
  ),
  cephfs: obj(
    'Deprecated: a CephFS mount.',
    {
      monitors: stringList('Ceph monitor addresses; at least one.'),
      path: str('Root of the mount inside the Ceph tree; / when empty.'),
      readOnly: readOnly(),
      secretFile: str('Path of the keyring of `user`; /etc/ceph/user.secret when empty.'),
      secretRef: secretRef('the key of `user`; overrides secretFile'),
      user: str('RADOS user name; admin when empty.'),
    },
    ['monitors'],
    { protobuf: { monitors: 1, path: 2, user: 3, secretFile: 4, secretRef: ptr(5), readOnly: 6 } },
  ),
  cinder: obj(
    'Deprecated: an OpenStack Cinder volume (now served by the cinder.csi.openstack.org CSI driver).',
    {
      fsType: fsType(),
      readOnly: readOnly(),
      secretRef: secretRef('the parameters to connect to OpenStack'),
      volumeID: requiredStr('ID of the Cinder volume.'),
    },
    ['volumeID'],
    { protobuf: { volumeID: 1, fsType: 2, readOnly: 3, secretRef: ptr(4) } },
  ),
  fc: obj(
    'A Fibre Channel disk: either targetWWNs with lun, or wwids.',
    {
      fsType: fsType(),
      lun: int32('Target LUN (0 to 255); required with targetWWNs.'),
      readOnly: readOnly(),
      targetWWNs: stringList('Target worldwide names.'),
      wwids: stringList('World wide identifiers of the volume; exclusive with targetWWNs.'),
    },
    undefined,
    { protobuf: { targetWWNs: 1, lun: ptr(2), fsType: 3, readOnly: 4, wwids: 5 } },
  ),
  flexVolume: obj(
    'Deprecated: a volume served by an exec-based plugin on the node.',
    {
      driver: requiredStr('Name of the plugin driver.'),
      fsType: str('Filesystem type to mount; the plugin chooses when empty.'),
      options: stringMap('Extra options passed to the plugin; kubernetes.io and k8s.io keys are reserved.'),
      readOnly: readOnly(),
      secretRef: secretRef('values passed to the plugin'),
    },
    ['driver'],
    { protobuf: { driver: 1, fsType: 2, secretRef: ptr(3), readOnly: 4, options: 5 } },
  ),
  flocker: obj(
    'Deprecated: a Flocker dataset; exactly one of datasetName and datasetUUID.',
    {
      datasetName: str('Name of the dataset (its metadata name).'),
      datasetUUID: str('UUID of the dataset.'),
    },
    undefined,
    { protobuf: { datasetName: 1, datasetUUID: 2 } },
  ),
  gcePersistentDisk: obj(
    'Deprecated: a GCE persistent disk (now served by the pd.csi.storage.gke.io CSI driver).',
    {
      fsType: fsType(),
      partition: partition(),
      pdName: requiredStr('Name of the persistent disk in GCE.'),
      readOnly: readOnly(),
    },
    ['pdName'],
    { protobuf: { pdName: 1, fsType: 2, partition: 3, readOnly: 4 } },
  ),
  gitRepo: obj(
    'Deprecated: a git repository cloned into an empty directory (clone in an init container instead).',
    {
      directory: str("Directory to clone into, relative and without '..'; '.' clones into the volume root."),
      repository: requiredStr('URL of the repository.'),
      revision: str('Commit to check out.'),
    },
    ['repository'],
    { protobuf: { repository: 1, revision: 2, directory: 3 } },
  ),
  glusterfs: obj(
    'Deprecated: a GlusterFS mount.',
    {
      endpoints: requiredStr('Name of the Endpoints object that lists the Gluster servers.'),
      path: requiredStr('Gluster volume path.'),
      readOnly: bool('Mount the Gluster volume read-only; defaults to false.'),
    },
    ['endpoints', 'path'],
    { protobuf: { endpoints: 1, path: 2, readOnly: 3 } },
  ),
  image: obj(
    'An OCI image or artifact, pulled and mounted read-only.',
    {
      pullPolicy: str('Always, Never or IfNotPresent; defaults to Always for a :latest (or untagged) reference, else IfNotPresent.'),
      reference: str('Image or artifact reference, as a container image; may be left to controllers in templates.'),
    },
    undefined,
    { protobuf: { reference: 1, pullPolicy: 2 } },
  ),
  iscsi: obj(
    'An iSCSI disk.',
    {
      chapAuthDiscovery: bool('Use CHAP authentication for discovery.'),
      chapAuthSession: bool('Use CHAP authentication for the session.'),
      fsType: fsType(),
      initiatorName: str('Custom initiator name (iqn., eui. or naa. format); creates the interface <targetPortal>:<volume name>.'),
      iqn: requiredStr('iSCSI qualified name of the target (iqn., eui. or naa. format).'),
      iscsiInterface: str('iSCSI interface using the transport; defaults to "default" (tcp).', { default: 'default' }),
      lun: int32('Target LUN, 0 to 255.', { default: 0 }),
      portals: stringList('More target portals (IP or ip:port).'),
      readOnly: readOnly(),
      secretRef: secretRef('the CHAP credentials'),
      targetPortal: requiredStr('Target portal: an IP, or ip:port when the port is not the default (860 or 3260).'),
    },
    ['targetPortal', 'iqn', 'lun'],
    {
      protobuf: {
        targetPortal: 1, iqn: 2, lun: 3, iscsiInterface: 4, fsType: 5, readOnly: 6, portals: 7, chapAuthDiscovery: 8, secretRef: ptr(10),
        chapAuthSession: 11, initiatorName: ptr(12),
      },
    },
  ),
  photonPersistentDisk: obj(
    'Deprecated: a Photon Controller persistent disk.',
    { fsType: fsType(), pdID: requiredStr('ID of the persistent disk.') },
    ['pdID'],
    { protobuf: { pdID: 1, fsType: 2 } },
  ),
  portworxVolume: obj(
    'Deprecated: a Portworx volume (now served by the pxd.portworx.com CSI driver).',
    { fsType: fsType(), readOnly: readOnly(), volumeID: requiredStr('ID of the Portworx volume.') },
    ['volumeID'],
    { protobuf: { volumeID: 1, fsType: 2, readOnly: 3 } },
  ),
  quobyte: obj(
    'Deprecated: a Quobyte mount.',
    {
      group: str('Group to map volume access to; none when empty.'),
      readOnly: bool('Mount the Quobyte volume read-only; defaults to false.'),
      registry: requiredStr('Registry services as host:port pairs, separated by commas.'),
      tenant: str('Tenant owning the volume (a UUID, at most 64 characters); set by the plugin for provisioned volumes.'),
      user: str('User to map volume access to; the service account user when empty.'),
      volume: requiredStr('Name of an existing Quobyte volume.'),
    },
    ['registry', 'volume'],
    { protobuf: { registry: 1, volume: 2, readOnly: 3, user: 4, group: 5, tenant: 6 } },
  ),
  rbd: obj(
    'Deprecated: a Ceph RADOS block device.',
    {
      fsType: fsType(),
      image: requiredStr('Name of the RADOS image.'),
      keyring: str('Path of the keyring of `user`; defaults to /etc/ceph/keyring.', { default: '/etc/ceph/keyring' }),
      monitors: stringList('Ceph monitor addresses; at least one.'),
      pool: str('RADOS pool; defaults to rbd.', { default: 'rbd' }),
      readOnly: readOnly(),
      secretRef: secretRef('the key of `user`; overrides keyring'),
      user: str('RADOS user name; defaults to admin.', { default: 'admin' }),
    },
    ['monitors', 'image'],
    { protobuf: { monitors: 1, image: 2, fsType: 3, pool: 4, user: 5, keyring: 6, secretRef: ptr(7), readOnly: 8 } },
  ),
  scaleIO: obj(
    'Deprecated: a ScaleIO volume.',
    {
      fsType: str('Filesystem type to mount (ext4, xfs, ntfs, ...); defaults to xfs.', { default: 'xfs' }),
      gateway: requiredStr('Host address of the ScaleIO API gateway.'),
      protectionDomain: str('ScaleIO protection domain of the storage.'),
      readOnly: readOnly(),
      secretRef: secretRef('the ScaleIO user and other credentials; login fails without it'),
      sslEnabled: bool('Talk to the gateway over TLS; defaults to false.'),
      storageMode: str('ThickProvisioned or ThinProvisioned; defaults to ThinProvisioned.', { default: 'ThinProvisioned' }),
      storagePool: str('ScaleIO storage pool of the protection domain.'),
      system: requiredStr('Name of the storage system as configured in ScaleIO.'),
      volumeName: str('Name of an existing ScaleIO volume.'),
    },
    // Published with secretRef too; left out because the API server does not enforce it (see above).
    ['gateway', 'system'],
    {
      protobuf: {
        gateway: 1, system: 2, secretRef: ptr(3), sslEnabled: 4, protectionDomain: 5, storagePool: 6, storageMode: 7, volumeName: 8, fsType: 9,
        readOnly: 10,
      },
    },
  ),
  storageos: obj(
    'Deprecated: a StorageOS volume.',
    {
      fsType: fsType(),
      readOnly: readOnly(),
      secretRef: secretRef('the StorageOS API credentials; defaults are tried without it'),
      volumeName: str('Name of the StorageOS volume (a DNS label), unique within its namespace.'),
      volumeNamespace: str("StorageOS namespace of the volume (a DNS label); the pod's namespace when empty."),
    },
    undefined,
    { protobuf: { volumeName: 1, volumeNamespace: 2, fsType: 3, readOnly: 4, secretRef: ptr(5) } },
  ),
  vsphereVolume: obj(
    'Deprecated: a vSphere VMDK volume (now served by the csi.vsphere.vmware.com CSI driver).',
    {
      fsType: fsType(),
      storagePolicyID: str('ID of the storage policy (SPBM profile) named by storagePolicyName.'),
      storagePolicyName: str('Name of the storage policy (SPBM profile).'),
      volumePath: requiredStr('Path of the VMDK.'),
    },
    ['volumePath'],
    { protobuf: { volumePath: 1, fsType: 2, storagePolicyName: 3, storagePolicyID: 4 } },
  ),
};
