/**
 * The in-tree volume sources of a pod template (awsElasticBlockStore ... vsphereVolume): typed schemas with
 * Kubernetes' required fields, defaults and field numbers, validated with ValidateVolumes' rules and
 * messages, unknown fields reported per fieldValidation, and a protobuf round trip.
 */
import type { KubeObject } from '../../../api/object.js';
import { decodeProtobuf, objectProtobuf } from '../../../codec/protobuf/protobuf-codec.js';
import { decodeObject } from '../../../schema/decode.js';
import { applyDefaults } from '../../../schema/defaults.js';
import type { ProtobufField, Schema } from '../../../schema/schema.js';
import { validateValue } from '../../../schema/validate.js';
import { FieldPath, errorString } from '../../../validation/field-error.js';
import { validateVolumes } from './pod/validate-volumes.js';
import { podTemplates } from './podtemplate.js';

const V = 'template.spec.volumes[0]';

function template(volumes: unknown[]): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: 'disks', namespace: 'default' },
    template: { spec: { containers: [{ name: 'app', image: 'busybox:1.36' }], volumes } },
  };
}

/** What a create runs: schema defaults, the create hook, then schema validation and the kind's rules. */
function create(obj: KubeObject): string[] {
  applyDefaults(obj, podTemplates.schema);
  podTemplates.prepareForCreate(obj);
  return [...validateValue(obj, podTemplates.schema, undefined, { style: 'builtin' }), ...podTemplates.validate(obj)].map(errorString);
}

/** The errors of a template with one volume `{ name: 'data', [source]: value }`. */
const errorsOf = (source: string, value: unknown): string[] => create(template([{ name: 'data', [source]: value }]));

/** The volume after create (defaults applied). */
function created(source: string, value: unknown): Record<string, any> {
  const obj = template([{ name: 'data', [source]: value }]);
  expect(create(obj)).toEqual([]);
  return (obj.template as any).spec.volumes[0][source];
}

const MINIMAL: readonly (readonly [string, Record<string, unknown>])[] = [
  ['awsElasticBlockStore', { volumeID: 'vol-0a1b2c3d' }],
  ['azureDisk', { diskName: 'data', diskURI: 'https://acct.blob.core.windows.net/vhds/data.vhd' }],
  ['azureFile', { secretName: 'azure-creds', shareName: 'share' }],
  ['cephfs', { monitors: ['10.0.0.1:6789'] }],
  ['cinder', { volumeID: '5f1c0e1a' }],
  ['fc', { targetWWNs: ['500a0982991b8dc5'], lun: 2 }],
  ['flexVolume', { driver: 'example.com/lvm' }],
  ['flocker', { datasetName: 'pgdata' }],
  ['gcePersistentDisk', { pdName: 'pd-1' }],
  ['gitRepo', { repository: 'https://git.example.com/site.git' }],
  ['glusterfs', { endpoints: 'gluster', path: 'vol1' }],
  ['image', { reference: 'registry.example.com/models/llm:1.0' }],
  ['iscsi', { targetPortal: '10.0.0.2:3260', iqn: 'iqn.2001-04.com.example:storage.disk1', lun: 0 }],
  ['photonPersistentDisk', { pdID: 'photon-1' }],
  ['portworxVolume', { volumeID: 'pxd-1' }],
  ['quobyte', { registry: 'registry.example.com:7861', volume: 'vol' }],
  ['rbd', { monitors: ['10.0.0.1:6789'], image: 'foo' }],
  ['scaleIO', { gateway: 'https://gateway:443/api', system: 'sys', secretRef: { name: 'sio' }, volumeName: 'vol-1' }],
  ['storageos', { volumeName: 'redis' }],
  ['vsphereVolume', { volumePath: '[datastore1] volumes/data.vmdk' }],
];

describe('each in-tree source is accepted with its required fields', () => {
  it('covers the twenty sources', () => {
    expect(MINIMAL).toHaveLength(20);
  });

  it.each(MINIMAL)('%s', (source, value) => {
    expect(errorsOf(source, value)).toEqual([]);
  });

  it('fc by wwids, flocker by UUID, a Managed azure disk', () => {
    expect(errorsOf('fc', { wwids: ['3600508b400105e210000900000490000'] })).toEqual([]);
    expect(errorsOf('flocker', { datasetUUID: '7d7e4fd0-1d2a-4c1f-9a2e-2c5a7b3f4e10' })).toEqual([]);
    expect(errorsOf('azureDisk', { diskName: 'd', diskURI: '/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/disks/d', kind: 'Managed' })).toEqual([]);
  });
});

describe('refused without their required fields, with Kubernetes messages', () => {
  const BLOB = '"https://{account-name}.blob.core.windows.net/{container-name}/{disk-name}.vhd"';
  it.each([
    ['awsElasticBlockStore', [`${V}.awsElasticBlockStore.volumeID: Required value`]],
    [
      'azureDisk',
      [`${V}.azureDisk.diskName: Required value`, `${V}.azureDisk.diskURI: Required value`, `${V}.azureDisk.diskURI: Unsupported value: "": supported values: ${BLOB}`],
    ],
    ['azureFile', [`${V}.azureFile.secretName: Required value`, `${V}.azureFile.shareName: Required value`]],
    ['cephfs', [`${V}.cephfs.monitors: Required value`]],
    ['cinder', [`${V}.cinder.volumeID: Required value`]],
    ['fc', [`${V}.fc.targetWWNs: Required value: must specify either targetWWNs or wwids, but not both`]],
    ['flexVolume', [`${V}.flexVolume.driver: Required value`]],
    ['flocker', [`${V}.flocker: Required value: one of datasetName and datasetUUID is required`]],
    // Kubernetes checks a GCE disk at `persistentDisk`.
    ['gcePersistentDisk', [`${V}.persistentDisk.pdName: Required value`]],
    ['gitRepo', [`${V}.gitRepo.repository: Required value`]],
    ['glusterfs', [`${V}.glusterfs.endpoints: Required value`, `${V}.glusterfs.path: Required value`]],
    ['iscsi', [`${V}.iscsi.targetPortal: Required value`, `${V}.iscsi.iqn: Required value`]],
    ['photonPersistentDisk', [`${V}.photonPersistentDisk.pdID: Required value`]],
    ['portworxVolume', [`${V}.portworxVolume.volumeID: Required value`]],
    [
      'quobyte',
      [`${V}.quobyte.registry: Required value: must be a host:port pair or multiple pairs separated by commas`, `${V}.quobyte.volume: Required value`],
    ],
    ['rbd', [`${V}.rbd.monitors: Required value`, `${V}.rbd.image: Required value`]],
    ['scaleIO', [`${V}.scaleIO.gateway: Required value`, `${V}.scaleIO.system: Required value`, `${V}.scaleIO.volumeName: Required value`]],
    ['storageos', [`${V}.storageos.volumeName: Required value`]],
    ['vsphereVolume', [`${V}.vsphereVolume.volumePath: Required value`]],
  ])('%s: {}', (source, expected) => {
    expect(errorsOf(source, {})).toEqual(expected);
  });

  it('an empty monitor list is one Required value, as an absent one', () => {
    expect(errorsOf('rbd', { monitors: [], image: 'foo' })).toEqual([`${V}.rbd.monitors: Required value`]);
    expect(errorsOf('cephfs', { monitors: [] })).toEqual([`${V}.cephfs.monitors: Required value`]);
  });

  it('an image volume of a template may leave its reference to controllers; a pod may not', () => {
    expect(errorsOf('image', {})).toEqual([]);
    const vol = { name: 'data', image: { pullPolicy: 'IfNotPresent' } };
    const path = FieldPath.root('spec').child('volumes');
    expect(validateVolumes({ volumes: [vol] }, path).errors).toEqual([]);
    expect(validateVolumes({ volumes: [vol] }, path, { resourceIsPod: true }).errors.map(errorString)).toEqual(['spec.volumes[0].image.reference: Required value']);
  });
});

describe('value rules', () => {
  it('iscsi: iqn formats, LUN range, CHAP needs a secret, initiator name and its interface name length', () => {
    const base = { targetPortal: '10.0.0.2:3260', iqn: 'iqn.2001-04.com.example:storage.disk1', lun: 0 };
    expect(errorsOf('iscsi', { ...base, iqn: 'storage.disk1' })).toEqual([`${V}.iscsi.iqn: Invalid value: "storage.disk1": must be valid format starting with iqn, eui, or naa`]);
    expect(errorsOf('iscsi', { ...base, iqn: 'iqn.2001.example' })).toEqual([`${V}.iscsi.iqn: Invalid value: "iqn.2001.example": must be valid format`]);
    expect(errorsOf('iscsi', { ...base, iqn: 'eui.02004567A425678D' })).toEqual([]);
    expect(errorsOf('iscsi', { ...base, iqn: 'naa.62004567BA64678D0123456789ABCDEF' })).toEqual([]);
    expect(errorsOf('iscsi', { ...base, iqn: 'eui.123' })).toEqual([`${V}.iscsi.iqn: Invalid value: "eui.123": must be valid format`]);
    expect(errorsOf('iscsi', { ...base, lun: 256 })).toEqual([`${V}.iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive`]);
    expect(errorsOf('iscsi', { ...base, chapAuthSession: true })).toEqual([`${V}.iscsi.secretRef: Required value`]);
    expect(errorsOf('iscsi', { ...base, chapAuthDiscovery: true, secretRef: { name: 'chap' } })).toEqual([]);
    expect(errorsOf('iscsi', { ...base, initiatorName: 'host1' })).toEqual([
      `${V}.iscsi.initiatorname: Invalid value: "host1": must be valid format starting with iqn, eui, or naa`,
    ]);
    expect(errorsOf('iscsi', { ...base, initiatorName: 'iqn.1994-05.com.example:node1' })).toEqual([]);
    const long = { ...base, targetPortal: `${'portal-'.repeat(8)}:3260`, initiatorName: 'iqn.1994-05.com.example:node1' };
    expect(errorsOf('iscsi', long)).toEqual([
      `${V}.name: Invalid value: "data": Total length of <volume name>:<iscsi.targetPortal> must be under 64 characters if iscsi.initiatorName is specified.`,
    ]);
  });

  it('fc: targetWWNs need a LUN in range and exclude wwids', () => {
    expect(errorsOf('fc', { targetWWNs: ['500a0982991b8dc5'] })).toEqual([`${V}.fc.lun: Required value: lun is required if targetWWNs is specified`]);
    expect(errorsOf('fc', { targetWWNs: ['500a0982991b8dc5'], lun: 300 })).toEqual([`${V}.fc.lun: Invalid value: 300: must be between 0 and 255, inclusive`]);
    const both = errorsOf('fc', { targetWWNs: ['500a0982991b8dc5'], lun: 1, wwids: ['3600508b4'] });
    expect(both).toHaveLength(1);
    expect(both[0]).toMatch(/^template\.spec\.volumes\[0\]\.fc\.targetWWNs: Invalid value: .*: targetWWNs and wwids can not be specified simultaneously$/);
  });

  it('azureDisk: caching modes, kinds and the disk URI of each kind', () => {
    const disk = { diskName: 'd', diskURI: 'https://acct.blob.core.windows.net/vhds/d.vhd' };
    expect(errorsOf('azureDisk', { ...disk, cachingMode: 'WriteBack', kind: 'Pooled' })).toEqual([
      `${V}.azureDisk.cachingMode: Unsupported value: "WriteBack": supported values: "None", "ReadOnly", "ReadWrite"`,
      `${V}.azureDisk.kind: Unsupported value: "Pooled": supported values: "Dedicated", "Managed", "Shared"`,
    ]);
    expect(errorsOf('azureDisk', { ...disk, kind: 'Managed' })).toEqual([
      `${V}.azureDisk.diskURI: Unsupported value: "https://acct.blob.core.windows.net/vhds/d.vhd": supported values: "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"`,
    ]);
    expect(errorsOf('azureDisk', { ...disk, cachingMode: 'None', kind: 'Dedicated' })).toEqual([]);
  });

  it('flexVolume: option keys may not use the kubernetes.io or k8s.io namespaces', () => {
    expect(errorsOf('flexVolume', { driver: 'example.com/lvm', options: { 'volume.kubernetes.io/size': '1', 'k8s.io': 'x', 'example.com/ok': 'y', plain: 'z' } })).toEqual([
      `${V}.flexVolume.options[volume.kubernetes.io/size]: Invalid value: "volume.kubernetes.io/size": kubernetes.io and k8s.io namespaces are reserved`,
      `${V}.flexVolume.options[k8s.io]: Invalid value: "k8s.io": kubernetes.io and k8s.io namespaces are reserved`,
    ]);
  });

  it('flocker: one of name and UUID; names without "/"', () => {
    expect(errorsOf('flocker', { datasetName: 'a/b', datasetUUID: 'u' })).toEqual([
      `${V}.flocker: Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously`,
      `${V}.flocker.datasetName: Invalid value: "a/b": must not contain '/'`,
    ]);
  });

  it('gitRepo: the directory is relative, without ".."', () => {
    expect(errorsOf('gitRepo', { repository: 'r', directory: '/abs' })).toEqual([`${V}.gitRepo.directory: Invalid value: "/abs": must be a relative path`]);
    expect(errorsOf('gitRepo', { repository: 'r', directory: 'a/../b' })).toEqual([`${V}.gitRepo.directory: Invalid value: "a/../b": must not contain '..'`]);
    expect(errorsOf('gitRepo', { repository: 'r', directory: '.' })).toEqual([]);
  });

  it('disk partitions 0..255 (worded as upstream words them)', () => {
    expect(errorsOf('gcePersistentDisk', { pdName: 'pd', partition: 256 })).toEqual([`${V}.persistentDisk.partition: Invalid value: 256: must be between 1 and 255, inclusive`]);
    expect(errorsOf('awsElasticBlockStore', { volumeID: 'v', partition: -1 })).toEqual([
      `${V}.awsElasticBlockStore.partition: Invalid value: -1: must be between 1 and 255, inclusive`,
    ]);
  });

  it('quobyte: host:port registries, tenants of at most 64 characters', () => {
    expect(errorsOf('quobyte', { registry: 'a:1,b', volume: 'v' })).toEqual([
      `${V}.quobyte.registry: Invalid value: "a:1,b": must be a host:port pair or multiple pairs separated by commas`,
    ]);
    expect(errorsOf('quobyte', { registry: '[::1]:7861,host:7861', volume: 'v' })).toEqual([]);
    expect(errorsOf('quobyte', { registry: '::1:7861', volume: 'v' })).toHaveLength(1);
    expect(errorsOf('quobyte', { registry: 'a:1', volume: 'v', tenant: 'x'.repeat(65) })).toEqual([
      `${V}.quobyte.tenant: Required value: must be a UUID and may not exceed a length of 64 characters`,
    ]);
  });

  it('storageos: DNS label names; secret references name their Secret', () => {
    const errs = errorsOf('storageos', { volumeName: 'Redis_1', volumeNamespace: 'ns', secretRef: {} });
    expect(errs).toHaveLength(2);
    expect(errs[0]).toMatch(/^template\.spec\.volumes\[0\]\.storageos\.volumeName: Invalid value: "Redis_1": a lowercase RFC 1123 label/);
    expect(errs[1]).toBe(`${V}.storageos.secretRef.name: Required value`);
    expect(errorsOf('cinder', { volumeID: 'v', secretRef: { name: '' } })).toEqual([`${V}.cinder.secretRef.name: Required value`]);
  });

  it('image: pull policies', () => {
    expect(errorsOf('image', { reference: 'x:1', pullPolicy: 'Sometimes' })).toEqual([
      `${V}.image.pullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"`,
    ]);
  });

  it('a second source is refused at Kubernetes path spelling, in its order', () => {
    expect(errorsOf('nfs', { server: 'nfs', path: '/export' }).length).toBe(0);
    const vol = { name: 'data', nfs: { server: 'nfs', path: '/export' }, cephfs: { monitors: ['m'] } };
    expect(create(template([vol]))).toEqual([`${V}.cephFS: Forbidden: may not specify more than 1 volume type`]);
    // flocker is checked before persistentVolumeClaim, flexVolume after fc.
    const two = { name: 'data', persistentVolumeClaim: { claimName: 'c' }, flocker: { datasetName: 'd' } };
    expect(create(template([two]))).toEqual([`${V}.persistentVolumeClaim: Forbidden: may not specify more than 1 volume type`]);
    const three = { name: 'data', flexVolume: { driver: 'd' }, fc: { wwids: ['w'] } };
    expect(create(template([three]))).toEqual([`${V}.flexVolume: Forbidden: may not specify more than 1 volume type`]);
  });
});

describe('defaults', () => {
  it('azureDisk: ReadWrite caching, ext4, Shared, read-write', () => {
    expect(created('azureDisk', { diskName: 'd', diskURI: 'https://a.blob.core.windows.net/c/d.vhd' })).toEqual({
      diskName: 'd',
      diskURI: 'https://a.blob.core.windows.net/c/d.vhd',
      cachingMode: 'ReadWrite',
      fsType: 'ext4',
      kind: 'Shared',
      readOnly: false,
    });
  });

  it('iscsi: the "default" interface; rbd: pool rbd, user admin, /etc/ceph/keyring', () => {
    expect(created('iscsi', { targetPortal: '10.0.0.2', iqn: 'iqn.2001-04.com.example:d' })).toEqual({
      targetPortal: '10.0.0.2',
      iqn: 'iqn.2001-04.com.example:d',
      lun: 0,
      iscsiInterface: 'default',
    });
    expect(created('rbd', { monitors: ['m:6789'], image: 'img' })).toEqual({ monitors: ['m:6789'], image: 'img', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
    expect(created('rbd', { monitors: ['m'], image: 'img', pool: 'kube', user: 'k', keyring: '/k' })).toMatchObject({ pool: 'kube', user: 'k', keyring: '/k' });
  });

  it('scaleIO: ThinProvisioned and xfs; a secret reference gets its empty name', () => {
    expect(created('scaleIO', { gateway: 'g', system: 's', volumeName: 'v', secretRef: { name: 'sio' } })).toMatchObject({ storageMode: 'ThinProvisioned', fsType: 'xfs' });
    const errs = errorsOf('cinder', { volumeID: 'v', secretRef: {} });
    expect(errs).toEqual([`${V}.cinder.secretRef.name: Required value`]);
  });

  it('image: pullPolicy from the reference, as a container image', () => {
    expect(created('image', { reference: 'registry.example.com/data:latest' }).pullPolicy).toBe('Always');
    expect(created('image', { reference: 'registry.example.com/data' }).pullPolicy).toBe('Always');
    expect(created('image', { reference: 'registry.example.com/data:1.0' }).pullPolicy).toBe('IfNotPresent');
    expect(created('image', { reference: 'registry.example.com/data:latest', pullPolicy: 'Never' }).pullPolicy).toBe('Never');
  });

  it('sources without defaults are left as sent', () => {
    expect(created('awsElasticBlockStore', { volumeID: 'v' })).toEqual({ volumeID: 'v' });
    expect(created('fc', { wwids: ['w'] })).toEqual({ wwids: ['w'] });
  });
});

describe('unknown fields inside a source, per fieldValidation', () => {
  const body = JSON.stringify(template([{ name: 'data', rbd: { monitors: ['m'], image: 'i', bogus: 1, secretRef: { name: 's', namespace: 'x' } } }]));

  it('Strict: one 400 listing them', () => {
    expect(() => decodeObject(body, podTemplates.schema, 'Strict')).toThrow(
      'strict decoding error: unknown field "template.spec.volumes[0].rbd.bogus", unknown field "template.spec.volumes[0].rbd.secretRef.namespace"',
    );
  });

  it('Warn: warnings, and the fields are dropped', () => {
    const { object, warnings } = decodeObject(body, podTemplates.schema, 'Warn');
    expect(warnings).toEqual(['unknown field "template.spec.volumes[0].rbd.bogus"', 'unknown field "template.spec.volumes[0].rbd.secretRef.namespace"']);
    expect((object as any).template.spec.volumes[0].rbd).toEqual({ monitors: ['m'], image: 'i', secretRef: { name: 's' } });
  });

  it('Ignore: dropped silently', () => {
    const { object, warnings } = decodeObject(body, podTemplates.schema, 'Ignore');
    expect(warnings).toEqual([]);
    expect((object as any).template.spec.volumes[0].rbd).toEqual({ monitors: ['m'], image: 'i', secretRef: { name: 's' } });
  });
});

describe('field numbers (core/v1 generated.proto; pointers from types.go)', () => {
  const volume = (((podTemplates.schema.properties!.template as Schema).properties!.spec as Schema).properties!.volumes as Schema).items!;
  const numbers = (source: string): Record<string, string> =>
    Object.fromEntries(
      Object.entries(volume.properties![source]!.protobuf!).map(([k, f]) => {
        const field: ProtobufField = typeof f === 'number' ? { tag: f } : f;
        return [k, `${field.pointer === true ? '*' : ''}${field.tag}`];
      }),
    );

  it.each([
    ['awsElasticBlockStore', { volumeID: '1', fsType: '2', partition: '3', readOnly: '4' }],
    ['gcePersistentDisk', { pdName: '1', fsType: '2', partition: '3', readOnly: '4' }],
    ['azureDisk', { diskName: '1', diskURI: '2', cachingMode: '*3', fsType: '*4', readOnly: '*5', kind: '*6' }],
    ['azureFile', { secretName: '1', shareName: '2', readOnly: '3' }],
    ['cephfs', { monitors: '1', path: '2', user: '3', secretFile: '4', secretRef: '*5', readOnly: '6' }],
    ['cinder', { volumeID: '1', fsType: '2', readOnly: '3', secretRef: '*4' }],
    ['fc', { targetWWNs: '1', lun: '*2', fsType: '3', readOnly: '4', wwids: '5' }],
    ['flexVolume', { driver: '1', fsType: '2', secretRef: '*3', readOnly: '4', options: '5' }],
    ['flocker', { datasetName: '1', datasetUUID: '2' }],
    ['gitRepo', { repository: '1', revision: '2', directory: '3' }],
    ['glusterfs', { endpoints: '1', path: '2', readOnly: '3' }],
    ['image', { reference: '1', pullPolicy: '2' }],
    [
      'iscsi',
      {
        targetPortal: '1', iqn: '2', lun: '3', iscsiInterface: '4', fsType: '5', readOnly: '6', portals: '7', chapAuthDiscovery: '8', secretRef: '*10',
        chapAuthSession: '11', initiatorName: '*12',
      },
    ],
    ['photonPersistentDisk', { pdID: '1', fsType: '2' }],
    ['portworxVolume', { volumeID: '1', fsType: '2', readOnly: '3' }],
    ['quobyte', { registry: '1', volume: '2', readOnly: '3', user: '4', group: '5', tenant: '6' }],
    ['rbd', { monitors: '1', image: '2', fsType: '3', pool: '4', user: '5', keyring: '6', secretRef: '*7', readOnly: '8' }],
    [
      'scaleIO',
      {
        gateway: '1', system: '2', secretRef: '*3', sslEnabled: '4', protectionDomain: '5', storagePool: '6', storageMode: '7', volumeName: '8', fsType: '9',
        readOnly: '10',
      },
    ],
    ['storageos', { volumeName: '1', volumeNamespace: '2', fsType: '3', readOnly: '4', secretRef: '*5' }],
    ['vsphereVolume', { volumePath: '1', fsType: '2', storagePolicyName: '3', storagePolicyID: '4' }],
  ])('%s', (source, expected) => {
    expect(numbers(source)).toEqual(expected);
    expect(volume.properties![source]!['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
  });

  it('secret references are LocalObjectReference {name = 1}', () => {
    expect(volume.properties!.rbd!.properties!.secretRef!.protobuf).toEqual({ name: 1 });
  });
});

describe('protobuf round trip of a PodTemplate with several in-tree sources', () => {
  const volumes = [
    { name: 'azure', azureDisk: { diskName: 'd', diskURI: 'https://a.blob.core.windows.net/c/d.vhd', readOnly: false } },
    { name: 'fibre', fc: { targetWWNs: ['500a0982991b8dc5', '500a0982991b8dc6'], lun: 0, fsType: 'xfs', readOnly: true } },
    {
      name: 'block',
      iscsi: {
        targetPortal: '10.0.0.2:3260', iqn: 'iqn.2001-04.com.example:storage.disk1', lun: 3, portals: ['10.0.0.3:3260'], chapAuthSession: true,
        secretRef: { name: 'chap' }, initiatorName: 'iqn.1994-05.com.example:node1',
      },
    },
    { name: 'ceph', rbd: { monitors: ['10.0.0.1:6789', '10.0.0.4:6789'], image: 'img', secretRef: { name: 'ceph' }, readOnly: true } },
    { name: 'cephfs', cephfs: { monitors: ['10.0.0.1:6789'], path: '/data', user: 'k', secretRef: { name: 'cephfs' } } },
    { name: 'flex', flexVolume: { driver: 'example.com/lvm', options: { size: '10Gi', volumegroup: 'vg0' }, secretRef: { name: 'lvm' } } },
    { name: 'sio', scaleIO: { gateway: 'https://gw', system: 'sys', secretRef: { name: 'sio' }, sslEnabled: true, volumeName: 'v' } },
    { name: 'model', image: { reference: 'registry.example.com/models/llm:1.0' } },
    { name: 'site', gitRepo: { repository: 'https://git.example.com/site.git', revision: 'abc123', directory: '.' } },
    { name: 'redis', storageos: { volumeName: 'redis', volumeNamespace: 'team-a', fsType: 'ext4' } },
  ];

  it('objectProtobuf then decodeProtobuf gives the created object back', () => {
    const obj = template(volumes);
    expect(create(obj)).toEqual([]);
    const { bytes } = objectProtobuf(podTemplates.schema, obj, undefined);
    const decoded = decodeProtobuf(bytes, podTemplates.schema);
    expect(decoded.unknown).toEqual([]);
    expect(decoded.apiVersion).toBe('v1');
    expect(decoded.kind).toBe('PodTemplate');
    const back: KubeObject = { apiVersion: decoded.apiVersion, kind: decoded.kind, ...decoded.value } as KubeObject;
    const spec = (back.template as any).spec;
    // Pointer fields keep their zero values: fc's lun 0, azureDisk's readOnly false.
    expect(spec.volumes[1].fc.lun).toBe(0);
    expect(spec.volumes[0].azureDisk.readOnly).toBe(false);
    expect(spec.volumes[2].iscsi.initiatorName).toBe('iqn.1994-05.com.example:node1');
    // Plain zero values travel as absent (Go's omitempty); the defaults restore them, as on the server.
    applyDefaults(back, podTemplates.schema);
    expect(back).toEqual(obj);
  });

  it('each source is its own field of VolumeSource (Volume field 2)', () => {
    const obj = template([{ name: 'v', portworxVolume: { volumeID: 'pxd' } }]);
    create(obj);
    const raw = objectProtobuf(podTemplates.schema, obj, undefined).raw;
    // VolumeSource {portworxVolume = 24 {volumeID = 1 "pxd"}}: tag 24 (length-delimited) is 0xc2 0x01.
    const volumeSource = Buffer.from([0xc2, 0x01, 0x05, 0x0a, 0x03, ...Buffer.from('pxd')]);
    expect(raw.includes(volumeSource)).toBe(true);
  });
});
