import { ensureNamedFieldsAreMembers, toFieldSet } from './fieldpath/from-object.js';
import { decodeFieldsV1 } from './fieldpath/fields-v1.js';
import type { FieldSet } from './fieldpath/set.js';
import { pruneUnapplied } from './prune.js';
import { testSchema } from './testing/test-schema.js';

const set = (o: unknown): FieldSet => ensureNamedFieldsAreMembers(toFieldSet(o, testSchema), testSchema);
const prune = (merged: unknown, last: unknown, managed: FieldSet) => pruneUnapplied(merged, testSchema, set(last), ensureNamedFieldsAreMembers(managed, testSchema));

describe('pruneUnapplied', () => {
  test('what was applied last time and is owned by nobody now goes', () => {
    const merged = { data: { a: '1', b: '2' } };
    expect(prune(merged, { data: { a: '1', b: '2' } }, toFieldSet({ data: { a: '1' } }, testSchema))).toEqual({ data: { a: '1' } });
  });

  test('what someone else owns stays', () => {
    const managed = toFieldSet({ data: { a: '1' } }, testSchema).union(decodeFieldsV1({ 'f:data': { 'f:b': {} } }));
    expect(prune({ data: { a: '1', b: '2' } }, { data: { a: '1', b: '2' } }, managed)).toEqual({ data: { a: '1', b: '2' } });
  });

  test('what was never applied stays when someone owns it', () => {
    expect(prune({ data: { a: '1', z: '9' } }, { data: { a: '1' } }, decodeFieldsV1({ 'f:data': { 'f:z': {} } }))).toEqual({ data: { z: '9' } });
  });

  test('a map applied last time and owned by nobody now goes whole (unowned entries too, as upstream)', () => {
    expect(prune({ data: { a: '1', z: '9' }, spec: { replicas: 1 } }, { data: { a: '1' } }, decodeFieldsV1({ 'f:spec': { 'f:replicas': {} } }))).toEqual({ spec: { replicas: 1 } });
  });

  test('owning a field below keeps a struct field (named fields are members)', () => {
    const managed = decodeFieldsV1({ 'f:spec': { 'f:replicas': {} } });
    expect(prune({ spec: { replicas: 1, paused: true } }, { spec: { replicas: 1, paused: true } }, managed)).toEqual({ spec: { replicas: 1 } });
  });

  test('a list element owned by nobody goes with fields others own inside it', () => {
    const merged = { items: [{ name: 'a', value: '1' }, { name: 'b', value: '2' }] };
    const managed = toFieldSet({ items: [{ name: 'a', value: '1' }] }, testSchema).union(decodeFieldsV1({ 'f:items': { 'k:{"name":"b"}': { 'f:value': {} } } }));
    expect(prune(merged, merged, managed)).toEqual({ items: [{ name: 'a', value: '1' }] });
  });

  test('set values go one by one; an emptied list or map disappears', () => {
    expect(prune({ tags: ['a', 'b'], data: { x: '1' } }, { tags: ['a', 'b'], data: { x: '1' } }, decodeFieldsV1({ 'f:tags': { 'v:"b"': {} } }))).toEqual({ tags: ['b'] });
    expect(prune({ tags: ['a'], data: { k: 'v' } }, { tags: ['a'] }, decodeFieldsV1({ 'f:data': { 'f:k': {} } }))).toEqual({ data: { k: 'v' } });
  });
});
