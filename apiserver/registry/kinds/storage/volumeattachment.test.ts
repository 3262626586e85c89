/**
 * VolumeAttachment through the registry's create, update and status paths (no store): Kubernetes v1.32's
 * validation with its field paths and reasons, the status reset on create, the immutable spec, the status
 * sub-resource's rules, and the table.
 */
import type { KubeObject } from '../../../api/object.js';
import { createAs, updateAs, updateStatusAs, type Cause } from './testing.js';
import { volumeAttachments } from './volumeattachment.js';

const va = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KubeObject => ({
  apiVersion: 'storage.platform.io/v1',
  kind: 'VolumeAttachment',
  metadata: { name: 'csi-0123' },
  spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' }, ...spec },
  ...(status === undefined ? {} : { status }),
});

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const EXACTLY_ONE = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
const required = (field: string, detail = ''): Cause => ({ reason: 'FieldValueRequired', field, message: detail === '' ? 'Required value' : `Required value: ${detail}` });
const invalid = (field: string, value: string, detail: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });

const cases: [string, Record<string, unknown>, Cause[]][] = [
  ['a persistent volume attachment', {}, []],
  ['an inline volume spec', { source: { inlineVolumeSpec: { csi: { driver: 'csi.example.com', volumeHandle: 'h' } } } }, []],
  ['an attacher with capitals (checked lower-cased)', { attacher: 'CSI.Example.com' }, []],
  ['an attacher of 63 characters', { attacher: 'a'.repeat(63) }, []],
  ['no attacher (both the general and the v1 checks)', { attacher: undefined }, [required('spec.attacher'), required('spec.attacher'), invalid('spec.attacher', '', SUBDOMAIN_MSG)]],
  ['an attacher of 64 characters', { attacher: 'a'.repeat(64) }, [{ reason: 'FieldValueTooLong', field: 'spec.attacher', message: 'Too long: may not be more than 63 bytes' }]],
  ['an attacher with a slash', { attacher: 'example.com/driver' }, [invalid('spec.attacher', 'example.com/driver', SUBDOMAIN_MSG)]],
  ['an attacher starting with a dash', { attacher: '-csi' }, [invalid('spec.attacher', '-csi', SUBDOMAIN_MSG)]],
  ['an attacher with an underscore', { attacher: 'csi_driver' }, [invalid('spec.attacher', 'csi_driver', SUBDOMAIN_MSG)]],
  ['no node name', { nodeName: undefined }, [required('spec.nodeName')]],
  ['an empty node name', { nodeName: '' }, [required('spec.nodeName')]],
  ['no source', { source: undefined }, [required('spec.source', EXACTLY_ONE)]],
  ['an empty source', { source: {} }, [required('spec.source', EXACTLY_ONE)]],
  ['both sources', { source: { persistentVolumeName: 'pv-1', inlineVolumeSpec: {} } }, [{ reason: 'FieldValueForbidden', field: 'spec.source', message: `Forbidden: ${EXACTLY_ONE}` }]],
  ['an empty persistent volume name', { source: { persistentVolumeName: '' } }, [
    required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'),
    invalid('spec.source.persistentVolumeName', '', SUBDOMAIN_MSG),
  ]],
  ['a persistent volume name with capitals', { source: { persistentVolumeName: 'PV-1' } }, [invalid('spec.source.persistentVolumeName', 'PV-1', SUBDOMAIN_MSG)]],
  ['a persistent volume name of 254 characters', { source: { persistentVolumeName: 'a'.repeat(254) } }, [
    invalid('spec.source.persistentVolumeName', 'a'.repeat(254), 'must be no more than 253 characters'),
  ]],
  ['an inline volume spec that is not an object', { source: { inlineVolumeSpec: 'x' } }, [
    { reason: 'FieldValueTypeInvalid', field: 'spec.source.inlineVolumeSpec', message: 'Invalid value: "string": must be of type object: "string"' },
  ]],
  ['an attacher that is not a string', { attacher: 7 }, [
    { reason: 'FieldValueTypeInvalid', field: 'spec.attacher', message: 'Invalid value: "integer": must be of type string: "integer"' },
    required('spec.attacher'),
    required('spec.attacher'),
    invalid('spec.attacher', '', SUBDOMAIN_MSG),
  ]],
  ['everything missing', { attacher: '', nodeName: '', source: {} }, [
    required('spec.attacher'),
    required('spec.source', EXACTLY_ONE),
    required('spec.nodeName'),
    required('spec.attacher'),
    invalid('spec.attacher', '', SUBDOMAIN_MSG),
  ]],
];

describe('VolumeAttachment validation on create', () => {
  test.each(cases)('%s', (_name, spec, expected) => {
    expect(createAs(volumeAttachments, va(spec)).causes).toEqual(expected);
  });

  test('a create starts from an empty status, whatever it sends', () => {
    const { obj, causes } = createAs(volumeAttachments, va({}, { attached: true, attachError: { message: 'x'.repeat(2000) } }));
    expect(causes).toEqual([]);
    expect(obj.status).toEqual({ attached: false });
  });
});

describe('VolumeAttachment updates', () => {
  const stored: KubeObject = { ...createAs(volumeAttachments, va()).obj, status: { attached: true, attachmentMetadata: { device: '/dev/sdb' } } };

  test('metadata may change; the status sent is replaced by the stored one', () => {
    const { obj, causes } = updateAs(volumeAttachments, { ...stored, metadata: { ...stored.metadata, labels: { a: 'b' } }, status: { attached: false } }, stored);
    expect(causes).toEqual([]);
    expect(obj.status).toEqual(stored.status);
  });

  test.each([
    ['the attacher', { attacher: 'other.example.com' }],
    ['the node', { nodeName: 'node-2' }],
    ['the source', { source: { persistentVolumeName: 'pv-2' } }],
  ])('the spec is immutable: %s', (_n, spec) => {
    const next = { ...stored, spec: { ...(stored.spec as object), ...spec } };
    expect(updateAs(volumeAttachments, next, stored).causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec', message: `Invalid value: ${JSON.stringify(next.spec)}: field is immutable` },
    ]);
  });
});

describe('VolumeAttachment status', () => {
  const stored = createAs(volumeAttachments, va()).obj;
  const write = (status: Record<string, unknown>) => updateStatusAs(volumeAttachments, { ...stored, status }, stored);

  test('the attacher records the outcome; the spec stays', () => {
    const { obj, causes } = write({ attached: true, attachmentMetadata: { device: '/dev/sdb' }, detachError: { message: 'busy', time: '2026-01-01T00:00:00Z' } });
    expect(causes).toEqual([]);
    expect(obj.status).toEqual({ attached: true, attachmentMetadata: { device: '/dev/sdb' }, detachError: { message: 'busy', time: '2026-01-01T00:00:00Z' } });
    expect(obj.spec).toEqual(stored.spec);
  });

  test('attached defaults to false', () => {
    expect(write({}).obj.status).toEqual({ attached: false });
  });

  test('an error message of 1024 bytes is accepted', () => {
    expect(write({ attached: false, attachError: { message: 'x'.repeat(1024) } }).causes).toEqual([]);
  });

  test.each([
    ['attachError', 'status.attachError.message'],
    ['detachError', 'status.detachError.message'],
  ])('%s.message over 1024 bytes (Kubernetes names the metadata limit)', (member, field) => {
    expect(write({ attached: false, [member]: { message: 'é'.repeat(513) } }).causes).toEqual([
      { reason: 'FieldValueTooLong', field, message: 'Too long: may not be more than 262144 bytes' },
    ]);
  });

  test('attachment metadata over 256 KiB', () => {
    expect(write({ attached: true, attachmentMetadata: { k: 'x'.repeat(256 * 1024) } }).causes).toEqual([
      { reason: 'FieldValueTooLong', field: 'status.attachmentMetadata', message: 'Too long: may not be more than 262144 bytes' },
    ]);
  });

  test('attached must be a boolean', () => {
    expect(write({ attached: 'yes' }).causes).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'status.attached', message: 'Invalid value: "string": must be of type boolean: "string"' },
    ]);
  });
});

describe('VolumeAttachment table', () => {
  const now = new Date('2026-01-01T01:00:00Z');
  const cells = (o: KubeObject) => volumeAttachments.table.cells(o, now);
  const meta = { name: 'csi-0123', creationTimestamp: '2026-01-01T00:00:00Z' };

  test('columns as kubectl shows them', () => {
    expect(volumeAttachments.table.columns.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Attacher', 'string', 'name', 0],
      ['PV', 'string', '', 0],
      ['Node', 'string', '', 0],
      ['Attached', 'boolean', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  test('cells: the PV name, empty for an inline volume, and a boolean ATTACHED', () => {
    expect(cells({ ...va(), metadata: meta, status: { attached: true } })).toEqual(['csi-0123', 'csi.example.com', 'pv-1', 'node-1', true, '60m']);
    expect(cells({ ...va({ source: { inlineVolumeSpec: {} } }), metadata: meta })).toEqual(['csi-0123', 'csi.example.com', '', 'node-1', false, '60m']);
  });
});
