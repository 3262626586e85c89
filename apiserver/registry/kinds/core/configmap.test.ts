import type { KubeObject } from '../../../api/object.js';
import { errorString, toCauses } from '../../../validation/field-error.js';
import { configMaps } from './configmap.js';

const cm = (fields: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' },
  ...fields,
});
const validate = (obj: KubeObject): string[] => configMaps.validate(obj).map(errorString);
const update = (obj: KubeObject, old: KubeObject): string[] => [...configMaps.validate(obj), ...configMaps.validateUpdate(obj, old)].map(errorString);

test('discovery data and schema', () => {
  expect(configMaps.shortNames).toEqual(['cm']);
  expect(configMaps.namespaced).toBe(true);
  const props = configMaps.schema.properties!;
  expect(Object.keys(props)).toEqual(['apiVersion', 'kind', 'metadata', 'binaryData', 'data', 'immutable']);
  expect(props.binaryData!.additionalProperties).toEqual({ type: 'string', format: 'byte' });
  expect(props.data!.additionalProperties).toMatchObject({ type: 'string' });
});

test('a typical config map is valid and untouched', () => {
  const obj = cm({ data: { 'app.conf': 'x=1\n', KEY_NAME: '' }, binaryData: { 'blob.bin': 'AAEC' } });
  const before = structuredClone(obj);
  expect(validate(obj)).toEqual([]);
  expect(obj).toEqual(before);
});

test('keys must be config keys in both maps', () => {
  expect(validate(cm({ data: { '.': 'x' }, binaryData: { 'a/b': 'AA==' } }))).toEqual([
    `data[.]: Invalid value: ".": must not be '.'`,
    `binaryData[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
  ]);
});

test('a key may not be in data and binaryData', () => {
  expect(validate(cm({ data: { k: 'v' }, binaryData: { k: 'AA==' } }))).toEqual(['data[k]: Invalid value: "k": duplicate of key present in binaryData']);
});

test('1 MiB in total across both maps, counted in bytes', () => {
  const half = 'x'.repeat(512 * 1024);
  expect(validate(cm({ data: { a: half }, binaryData: { b: Buffer.alloc(512 * 1024).toString('base64') } }))).toEqual([]);
  const errs = configMaps.validate(cm({ data: { a: half, b: 'é'.repeat(256 * 1024) + 'x' } }));
  expect(toCauses(errs)).toEqual([{ reason: 'FieldValueTooLong', field: '', message: 'Too long: must have at most 1048576 bytes' }]);
});

test('immutable config maps keep their data', () => {
  const frozen = cm({ data: { a: '1' }, binaryData: { b: 'AA==' }, immutable: true });
  expect(update(cm({ data: { a: '1' }, binaryData: { b: 'AA==' }, immutable: true }), frozen)).toEqual([]);
  expect(update(cm({ data: { a: '2' }, binaryData: {}, immutable: true }), frozen)).toEqual([
    'data: Forbidden: field is immutable when `immutable` is set',
    'binaryData: Forbidden: field is immutable when `immutable` is set',
  ]);
  expect(update(cm({ data: { a: '1' }, binaryData: { b: 'AA==' } }), frozen)).toEqual(['immutable: Forbidden: field is immutable when `immutable` is set']);
  // Not yet immutable: anything goes, including setting the flag.
  expect(update(cm({ data: { z: '9' }, immutable: true }), cm({ data: { a: '1' } }))).toEqual([]);
});

test('NAME DATA AGE counts both maps', () => {
  expect(configMaps.table.columns.map((c) => c.name)).toEqual(['Name', 'Data', 'Age']);
  expect(configMaps.table.cells(cm({ data: { a: '', b: '' }, binaryData: { c: '' } }), new Date('2024-01-03T05:00:00Z'))).toEqual(['c', 3, '2d5h']);
  expect(configMaps.table.cells(cm(), new Date('2025-02-04T00:00:00Z'))).toEqual(['c', 0, '400d']);
});

test('only metadata fields are selectable', () => {
  expect(configMaps).not.toHaveProperty('selectableFields');
});
