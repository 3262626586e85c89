/**
 * PersistentVolumeClaim and ControllerRevision through the registry's create, update and status paths (no
 * store): Kubernetes v1.32's validation with exact field paths, reasons and messages, the immutable members,
 * the status rules, the tables (`kubectl get pvc` / `kubectl get controllerrevisions`), and protobuf read
 * back by an independent description of generated.proto's numbers.
 */
import protobuf from 'protobufjs';
import type { KubeObject } from '../../../api/object.js';
import { decodeProtobuf, encodeMessage, objectProtobuf } from '../../../codec/protobuf/protobuf-codec.js';
import { controllerRevisions } from '../apps/controllerrevision.js';
import { createAs, updateAs, updateStatusAs, type Cause } from '../storage/testing.js';
import { persistentVolumeClaims } from './persistentvolumeclaim.js';
import { IMMUTABLE_SPEC_MESSAGE } from './persistentvolumeclaim-validation.js';

type Spec = Record<string, any>;

function pvc(edit: (spec: Spec) => void = () => {}, extra: Partial<KubeObject> = {}): KubeObject {
  const spec: Spec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
  edit(spec);
  return { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec, ...extra };
}

const required = (field: string, detail = ''): Cause => ({ reason: 'FieldValueRequired', field, message: detail === '' ? 'Required value' : `Required value: ${detail}` });
const invalid = (field: string, value: unknown, detail: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
const unsupported = (field: string, value: string, valid: string[]): Cause => ({
  reason: 'FieldValueNotSupported', field,
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}`,
});
const forbidden = (field: string, detail: string): Cause => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
const MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

describe('PersistentVolumeClaim create', () => {
  it.each<[string, (s: Spec) => void, Cause[]]>([
    ['a valid claim', () => {}, []],
    ['every supported mode but ReadWriteOncePod', (s) => (s.accessModes = ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany']), []],
    ['no access mode', (s) => (s.accessModes = []), [required('spec.accessModes', 'at least 1 access mode is required')]],
    ['an unknown access mode', (s) => (s.accessModes = ['WriteSometimes']), [unsupported('spec.accessModes', 'WriteSometimes', MODES)]],
    ['ReadWriteOncePod with another mode', (s) => (s.accessModes = ['ReadWriteOncePod', 'ReadOnlyMany']),
      [forbidden('spec.accessModes', 'may not use ReadWriteOncePod with other access modes')]],
    ['no storage request', (s) => (s.resources = { requests: { cpu: '1' } }), [required('spec.resources[storage]')]],
    ['a zero storage request', (s) => (s.resources.requests.storage = '0'), [invalid('spec.resources[storage]', '0', 'must be greater than zero')]],
    ['an unknown volume mode', (s) => (s.volumeMode = 'Tape'), [unsupported('spec.volumeMode', 'Tape', ['Block', 'Filesystem'])]],
    ['a storage class that is no subdomain', (s) => (s.storageClassName = 'Fast_SSD'), [invalid('spec.storageClassName', 'Fast_SSD',
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")]],
    ['a core data source that is not a claim', (s) => (s.dataSource = { kind: 'Pod', name: 'p' }),
      [invalid('spec.dataSource', 'Pod', "must be 'PersistentVolumeClaim' when referencing the default apiGroup")]],
    ['a data source without name', (s) => (s.dataSource = { kind: 'PersistentVolumeClaim' }), [required('spec.dataSource.name')]],
  ])('%s', (_name, edit, causes) => {
    expect(createAs(persistentVolumeClaims, pvc(edit)).causes).toEqual(causes);
  });

  it('starts Pending with volumeMode Filesystem; the disabled volumeAttributesClassName is dropped', () => {
    const { obj } = createAs(persistentVolumeClaims, pvc((s) => (s.volumeAttributesClassName = 'gold'), { status: { phase: 'Bound' } }));
    expect(obj.status).toEqual({ phase: 'Pending' });
    expect(obj.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' });
  });
});

describe('PersistentVolumeClaim update', () => {
  const stored = (edit: (s: Spec) => void = () => {}, status: Spec = { phase: 'Pending' }): KubeObject => ({ ...createAs(persistentVolumeClaims, pvc(edit)).obj, status });

  it('forbids spec changes but the ones Kubernetes allows', () => {
    expect(updateAs(persistentVolumeClaims, pvc((s) => (s.accessModes = ['ReadWriteMany'])), stored()).causes).toEqual([forbidden('spec', IMMUTABLE_SPEC_MESSAGE)]);
    // volumeName once; storageClassName once from nil.
    expect(updateAs(persistentVolumeClaims, pvc((s) => { s.volumeName = 'pv-1'; s.storageClassName = 'fast'; }), stored()).causes).toEqual([]);
    expect(updateAs(persistentVolumeClaims, pvc((s) => (s.volumeName = 'pv-2')), stored((s) => (s.volumeName = 'pv-1'))).causes)
      .toEqual([forbidden('spec', IMMUTABLE_SPEC_MESSAGE)]);
    expect(updateAs(persistentVolumeClaims, pvc((s) => (s.storageClassName = 'slow')), stored((s) => (s.storageClassName = 'fast'))).causes)
      .toEqual([forbidden('spec', IMMUTABLE_SPEC_MESSAGE)]);
    // The storage request of an unbound claim is immutable, of a bound one may grow.
    const bigger = pvc((s) => (s.resources.requests.storage = '2Gi'));
    expect(updateAs(persistentVolumeClaims, bigger, stored()).causes).toEqual([forbidden('spec', IMMUTABLE_SPEC_MESSAGE)]);
    const bound = stored(() => {}, { phase: 'Bound', capacity: { storage: '1Gi' } });
    expect(updateAs(persistentVolumeClaims, bigger, bound).causes).toEqual([]);
    // Shrinking to the capacity (or below) is refused.
    const grown = { ...stored((s) => (s.resources.requests.storage = '2Gi')), status: { phase: 'Bound', capacity: { storage: '1Gi' } } };
    expect(updateAs(persistentVolumeClaims, pvc(), grown).causes).toEqual([forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity')]);
    expect(updateAs(persistentVolumeClaims, pvc((s) => (s.resources.requests.storage = '1500Mi')), grown).causes).toEqual([]);
    // volumeMode: reported as v1.32 does, at `volumeMode`.
    expect(updateAs(persistentVolumeClaims, pvc((s) => (s.volumeMode = 'Block')), stored()).causes)
      .toEqual([forbidden('spec', IMMUTABLE_SPEC_MESSAGE), invalid('volumeMode', 'Block', 'field is immutable')]);
  });

  it('status: quantities must not be negative; the spec is the stored one', () => {
    const old = stored();
    const ok = updateStatusAs(persistentVolumeClaims, { ...old, status: { phase: 'Bound', capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] } }, old);
    expect(ok.causes).toEqual([]);
    const bad = updateStatusAs(persistentVolumeClaims, { ...old, status: { phase: 'Bound', capacity: { storage: '-1Gi' } } }, old);
    expect(bad.causes).toEqual([invalid('status.capacity[storage]', '-1Gi', 'must be a valid resource quantity')]);
  });
});

describe('tables', () => {
  const now = new Date('2025-01-01T01:00:00Z');
  const created = '2025-01-01T00:00:00Z';
  it('kubectl get pvc: NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE (VOLUMEMODE wide)', () => {
    const t = persistentVolumeClaims.table;
    expect(t.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0], ['Status', 0], ['Volume', 0], ['Capacity', 0], ['Access Modes', 0], ['StorageClass', 0], ['VolumeAttributesClass', 0], ['Age', 0], ['VolumeMode', 1],
    ]);
    const pending = { ...pvc((s) => { s.storageClassName = 'fast'; s.volumeMode = 'Filesystem'; }), metadata: { name: 'data', creationTimestamp: created }, status: { phase: 'Pending' } };
    expect(t.cells(pending, now)).toEqual(['data', 'Pending', '', '', '', 'fast', '<unset>', '60m', 'Filesystem']);
    const bound = {
      ...pvc((s) => (s.volumeName = 'pv-1')),
      metadata: { name: 'data', creationTimestamp: created, deletionTimestamp: created, annotations: { 'volume.beta.kubernetes.io/storage-class': 'old' } },
      status: { phase: 'Bound', capacity: { storage: '1024Mi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'] },
    };
    expect(t.cells(bound, now)).toEqual(['data', 'Terminating', 'pv-1', '1Gi', 'RWO,RWX', 'old', '<unset>', '60m', '<unset>']);
  });

  it('kubectl get controllerrevisions: NAME CONTROLLER REVISION AGE', () => {
    const t = controllerRevisions.table;
    expect(t.columns.map((c) => c.name)).toEqual(['Name', 'Controller', 'Revision', 'Age']);
    const rev = {
      metadata: { name: 'web-abc', creationTimestamp: created, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u', controller: true }] },
      revision: 3,
    };
    expect(t.cells(rev, now)).toEqual(['web-abc', 'statefulset.apps/web', 3, '60m']);
    expect(t.cells({ metadata: { name: 'x', creationTimestamp: created }, revision: 1 }, now)).toEqual(['x', '<none>', 1, '60m']);
  });
});

describe('ControllerRevision validation', () => {
  const rev = (extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-abc', namespace: 'default' },
    data: { spec: { template: { $patch: 'replace' } } }, revision: 1, ...extra,
  });
  it('data is mandatory, revision not negative, data immutable, revision mutable', () => {
    expect(createAs(controllerRevisions, rev()).causes).toEqual([]);
    expect(createAs(controllerRevisions, rev({ data: undefined })).causes).toEqual([required('data', 'data is mandatory')]);
    expect(createAs(controllerRevisions, rev({ revision: -1 })).causes).toEqual([invalid('revision', -1, 'must be greater than or equal to 0')]);
    const stored = createAs(controllerRevisions, rev()).obj;
    expect(updateAs(controllerRevisions, rev({ revision: 7 }), stored).causes).toEqual([]);
    expect(updateAs(controllerRevisions, rev({ data: { other: true } }), stored).causes).toEqual([invalid('data', { other: true }, 'field is immutable')]);
  });
});

describe('protobuf', () => {
  const root = protobuf.parse(`
    syntax = "proto2";
    package t;
    message Quantity { optional string string = 1; }
    message ObjectMeta { optional string name = 1; optional string namespace = 3; }
    message RawExtension { optional bytes raw = 1; }
    message ControllerRevision { optional ObjectMeta metadata = 1; optional RawExtension data = 2; optional int64 revision = 3; }
    message VolumeResourceRequirements { map<string, Quantity> limits = 1; map<string, Quantity> requests = 2; }
    message PVCSpec { repeated string accessModes = 1; optional VolumeResourceRequirements resources = 2; optional string volumeName = 3; optional string storageClassName = 5; optional string volumeMode = 6; }
    message PVCStatus { optional string phase = 1; repeated string accessModes = 2; map<string, Quantity> capacity = 3; }
    message PVC { optional ObjectMeta metadata = 1; optional PVCSpec spec = 2; optional PVCStatus status = 3; }
  `).root;
  const read = (name: string, bytes: Uint8Array): Record<string, any> => {
    const type = root.lookupType(`t.${name}`);
    return type.toObject(type.decode(bytes), { longs: Number, defaults: false }) as Record<string, any>;
  };

  it('a ControllerRevision: data as RawExtension {raw = 1} holding JSON, revision 3; round-trips', () => {
    const cr = createAs(controllerRevisions, {
      apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'web-abc', namespace: 'default' }, data: { spec: { template: { a: 1 } } }, revision: 4,
    }).obj;
    const msg = read('ControllerRevision', encodeMessage(controllerRevisions.schema, cr));
    expect(msg.revision).toBe(4);
    expect(JSON.parse(Buffer.from(msg.data.raw).toString())).toEqual({ spec: { template: { a: 1 } } });
    const decoded = decodeProtobuf(objectProtobuf(controllerRevisions.schema, cr, undefined).bytes, controllerRevisions.schema);
    expect({ apiVersion: decoded.apiVersion, kind: decoded.kind, ...decoded.value }).toEqual(cr);
  });

  it('a PersistentVolumeClaim reads back and round-trips', () => {
    const claim = { ...createAs(persistentVolumeClaims, pvc((s) => (s.storageClassName = 'fast'))).obj, status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } };
    const msg = read('PVC', encodeMessage(persistentVolumeClaims.schema, claim));
    expect(msg.spec).toEqual({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: { string: '1Gi' } } }, storageClassName: 'fast', volumeMode: 'Filesystem' });
    expect(msg.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: { string: '1Gi' } } });
    const decoded = decodeProtobuf(objectProtobuf(persistentVolumeClaims.schema, claim, undefined).bytes, persistentVolumeClaims.schema);
    expect({ apiVersion: decoded.apiVersion, kind: decoded.kind, ...decoded.value }).toEqual(claim);
  });
});
