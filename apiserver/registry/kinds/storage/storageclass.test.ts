/**
 * StorageClass through the registry's create and update paths (no store): Kubernetes v1.32's validation
 * with its field paths and reasons, the defaults, the immutable fields, and the table.
 */
import type { KubeObject } from '../../../api/object.js';
import { storageClasses } from './storageclass.js';
import { createAs, updateAs, type Cause } from './testing.js';

const sc = (fields: Record<string, unknown> = {}, name = 'fast'): KubeObject => ({
  apiVersion: 'storage.platform.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner: 'csi.example.com',
  ...fields,
});

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const bigParameters = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
const term = (...exprs: [string, string[]][]) => ({ matchLabelExpressions: exprs.map(([key, values]) => ({ key, values })) });

const cases: [string, Record<string, unknown>, Cause[]][] = [
  ['a minimal class', {}, []],
  ['every member set', {
    parameters: { type: 'ssd', 'csi.storage.k8s.io/fstype': 'ext4' },
    reclaimPolicy: 'Retain',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
    mountOptions: ['ro', 'not validated at all'],
    allowedTopologies: [term(['topology.kubernetes.io/zone', ['a', 'b']]), term(['topology.kubernetes.io/zone', ['c']])],
  }, []],
  ['a provisioner with capitals (checked lower-cased)', { provisioner: 'CSI.Example.COM/Driver' }, []],
  ['an empty parameters map', { parameters: {} }, []],
  ['512 parameters', { parameters: bigParameters(512) }, []],
  ['an empty allowedTopologies list', { allowedTopologies: [] }, []],
  ['no provisioner', { provisioner: undefined }, [{ reason: 'FieldValueRequired', field: 'provisioner', message: 'Required value' }]],
  ['an empty provisioner', { provisioner: '' }, [{ reason: 'FieldValueRequired', field: 'provisioner', message: 'Required value' }]],
  ['a provisioner with a space', { provisioner: 'my provisioner' }, [{ reason: 'FieldValueInvalid', field: 'provisioner', message: `Invalid value: "my provisioner": ${NAME_PART_MSG}` }]],
  ['a provisioner with two slashes', { provisioner: 'a/b/c' }, [{
    reason: 'FieldValueInvalid',
    field: 'provisioner',
    message: `Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
  }]],
  ['a provisioner with a bad prefix', { provisioner: '-x/driver' }, [{ reason: 'FieldValueInvalid', field: 'provisioner', message: `Invalid value: "-x/driver": prefix part ${SUBDOMAIN_MSG}` }]],
  ['a provisioner name part over 63 characters', { provisioner: 'a'.repeat(64) }, [{ reason: 'FieldValueInvalid', field: 'provisioner', message: `Invalid value: "${'a'.repeat(64)}": name part must be no more than 63 characters` }]],
  ['an empty parameter key', { parameters: { '': 'x' } }, [{ reason: 'FieldValueInvalid', field: 'parameters', message: 'Invalid value: "": field can not be empty.' }]],
  ['513 parameters', { parameters: bigParameters(513) }, [{ reason: 'FieldValueTooLong', field: 'parameters', message: 'Too long: may not be more than 512 bytes' }]],
  ['parameters over 256 KiB', { parameters: { big: 'x'.repeat(256 * 1024) } }, [{ reason: 'FieldValueTooLong', field: 'parameters', message: 'Too long: may not be more than 262144 bytes' }]],
  ['reclaimPolicy Recycle', { reclaimPolicy: 'Recycle' }, [{ reason: 'FieldValueNotSupported', field: 'reclaimPolicy', message: 'Unsupported value: "Recycle": supported values: "Delete", "Retain"' }]],
  ['an unknown volumeBindingMode', { volumeBindingMode: 'Later' }, [{ reason: 'FieldValueNotSupported', field: 'volumeBindingMode', message: 'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"' }]],
  ['an empty volumeBindingMode', { volumeBindingMode: '' }, [{ reason: 'FieldValueNotSupported', field: 'volumeBindingMode', message: 'Unsupported value: "": supported values: "Immediate", "WaitForFirstConsumer"' }]],
  ['a topology requirement without values', { allowedTopologies: [term(['zone', []])] }, [{ reason: 'FieldValueRequired', field: 'allowedTopologies[0].matchLabelExpressions[0].values', message: 'Required value' }]],
  ['a duplicate topology value', { allowedTopologies: [term(['zone', ['a', 'b', 'a']])] }, [{ reason: 'FieldValueDuplicate', field: 'allowedTopologies[0].matchLabelExpressions[0].values[2]', message: 'Duplicate value: "a"' }]],
  ['an invalid topology key', { allowedTopologies: [term(['bad key', ['a']])] }, [{ reason: 'FieldValueInvalid', field: 'allowedTopologies[0].matchLabelExpressions[0].key', message: `Invalid value: "bad key": ${NAME_PART_MSG}` }]],
  ['an empty topology key', { allowedTopologies: [term(['', ['a']])] }, [
    { reason: 'FieldValueInvalid', field: 'allowedTopologies[0].matchLabelExpressions[0].key', message: 'Invalid value: "": name part must be non-empty' },
    { reason: 'FieldValueInvalid', field: 'allowedTopologies[0].matchLabelExpressions[0].key', message: `Invalid value: "": ${NAME_PART_MSG}` },
  ]],
  ['a key twice in one term', { allowedTopologies: [term(['zone', ['a']], ['zone', ['b']])] }, [{ reason: 'FieldValueDuplicate', field: 'allowedTopologies[0].matchLabelExpressions[1].key', message: 'Duplicate value: "zone"' }]],
  ['the same term twice (value order ignored)', { allowedTopologies: [term(['zone', ['a', 'b']]), term(['zone', ['b', 'a']])] }, [{ reason: 'FieldValueDuplicate', field: 'allowedTopologies[1].matchLabelExpressions', message: 'Duplicate value: ""' }]],
  // Kubernetes' comparison list starts with one empty entry per term, so an empty term always matches.
  ['an empty term among two', { allowedTopologies: [term(['zone', ['a']]), {}] }, [
    { reason: 'FieldValueDuplicate', field: 'allowedTopologies[1].matchLabelExpressions', message: 'Duplicate value: ""' },
    { reason: 'FieldValueDuplicate', field: 'allowedTopologies[1].matchLabelExpressions', message: 'Duplicate value: ""' },
  ]],
  ['several errors at once, in Kubernetes order', { provisioner: '', reclaimPolicy: 'Keep', volumeBindingMode: 'Never' }, [
    { reason: 'FieldValueRequired', field: 'provisioner', message: 'Required value' },
    { reason: 'FieldValueNotSupported', field: 'reclaimPolicy', message: 'Unsupported value: "Keep": supported values: "Delete", "Retain"' },
    { reason: 'FieldValueNotSupported', field: 'volumeBindingMode', message: 'Unsupported value: "Never": supported values: "Immediate", "WaitForFirstConsumer"' },
  ]],
];

describe('StorageClass validation on create', () => {
  test.each(cases)('%s', (_name, fields, expected) => {
    expect(createAs(storageClasses, sc(fields)).causes).toEqual(expected);
  });

  test('defaults reclaimPolicy Delete and volumeBindingMode Immediate, and keeps set ones', () => {
    const { obj } = createAs(storageClasses, sc());
    expect(obj.reclaimPolicy).toBe('Delete');
    expect(obj.volumeBindingMode).toBe('Immediate');
    expect(obj.allowVolumeExpansion).toBeUndefined();
    const set = createAs(storageClasses, sc({ reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' })).obj;
    expect([set.reclaimPolicy, set.volumeBindingMode]).toEqual(['Retain', 'WaitForFirstConsumer']);
  });
});

describe('StorageClass updates', () => {
  const stored = createAs(storageClasses, sc({ parameters: { type: 'ssd' }, allowVolumeExpansion: false, mountOptions: ['ro'] })).obj;
  const update = (fields: Record<string, unknown>) => updateAs(storageClasses, { ...stored, ...fields }, stored).causes;

  test('mutable members may change', () => {
    expect(update({ allowVolumeExpansion: true, mountOptions: ['rw'], allowedTopologies: [term(['zone', ['a']])] })).toEqual([]);
    expect(update({ metadata: { ...stored.metadata, labels: { tier: 'gold' } } })).toEqual([]);
  });

  test('omitted defaulted fields are defaulted again, so they do not count as changes', () => {
    expect(update({ reclaimPolicy: undefined, volumeBindingMode: undefined })).toEqual([]);
  });

  test.each([
    ['parameters (a value)', { parameters: { type: 'hdd' } }, 'parameters', 'FieldValueForbidden', 'Forbidden: updates to parameters are forbidden.'],
    ['parameters (removed)', { parameters: undefined }, 'parameters', 'FieldValueForbidden', 'Forbidden: updates to parameters are forbidden.'],
    ['provisioner', { provisioner: 'other.example.com' }, 'provisioner', 'FieldValueForbidden', 'Forbidden: updates to provisioner are forbidden.'],
    ['reclaimPolicy', { reclaimPolicy: 'Retain' }, 'reclaimPolicy', 'FieldValueForbidden', 'Forbidden: updates to reclaimPolicy are forbidden.'],
    ['volumeBindingMode', { volumeBindingMode: 'WaitForFirstConsumer' }, 'volumeBindingMode', 'FieldValueInvalid', 'Invalid value: "WaitForFirstConsumer": field is immutable'],
  ])('%s cannot change', (_n, fields, field, reason, message) => {
    expect(update(fields)).toEqual([{ reason, field, message }]);
  });

  test('an absent and an empty parameters map are the same', () => {
    const bare = createAs(storageClasses, sc()).obj;
    expect(updateAs(storageClasses, { ...bare, parameters: {} }, bare).causes).toEqual([]);
  });

  test('an update is validated as a create too', () => {
    expect(update({ allowedTopologies: [term(['zone', []])] })).toEqual([
      { reason: 'FieldValueRequired', field: 'allowedTopologies[0].matchLabelExpressions[0].values', message: 'Required value' },
    ]);
  });
});

describe('StorageClass table', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  const cells = (o: KubeObject) => storageClasses.table.cells(o, now);
  const created = { creationTimestamp: '2026-01-01T00:00:00Z' };

  test('columns as kubectl shows them', () => {
    expect(storageClasses.table.columns.map((c) => [c.name, c.type, c.format, c.priority])).toEqual([
      ['Name', 'string', 'name', 0],
      ['Provisioner', 'string', '', 0],
      ['ReclaimPolicy', 'string', '', 0],
      ['VolumeBindingMode', 'string', '', 0],
      ['AllowVolumeExpansion', 'string', '', 0],
      ['Age', 'string', '', 0],
    ]);
  });

  test('cells, with the policies\' defaults when unset and a boolean expansion cell', () => {
    expect(cells(sc({ metadata: { name: 'fast', ...created } }))).toEqual(['fast', 'csi.example.com', 'Delete', 'Immediate', false, '10m']);
    expect(cells(sc({ metadata: { name: 'slow', ...created }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true }))).toEqual([
      'slow', 'csi.example.com', 'Retain', 'WaitForFirstConsumer', true, '10m',
    ]);
  });

  test.each([
    ['storageclass.kubernetes.io/is-default-class', 'true', 'fast (default)'],
    ['storageclass.beta.kubernetes.io/is-default-class', 'true', 'fast (default)'],
    ['storageclass.platform.io/is-default-class', 'true', 'fast (default)'],
    ['storageclass.kubernetes.io/is-default-class', 'false', 'fast'],
    ['storageclass.kubernetes.io/is-default-class', 'True', 'fast'],
    ['example.com/is-default-class', 'true', 'fast'],
  ])('annotation %s=%s names it %s', (key, value, name) => {
    expect(cells(sc({ metadata: { name: 'fast', annotations: { [key]: value }, ...created } }))[0]).toBe(name);
  });
});
