import { compareObjects } from './compare.js';
import { encodeFieldsV1 } from './fieldpath/fields-v1.js';
import { testSchema } from './testing/test-schema.js';

const diff = (a: unknown, b: unknown) => {
  const c = compareObjects(a, b, testSchema);
  return { added: encodeFieldsV1(c.added), modified: encodeFieldsV1(c.modified), removed: encodeFieldsV1(c.removed) };
};

describe('compareObjects', () => {
  test('a new map is added with everything in it; a changed scalar is modified; a missing one removed', () => {
    expect(diff({ spec: { replicas: 1, paused: true } }, { spec: { replicas: 2 }, data: { a: '1' } })).toEqual({
      added: { 'f:data': { '.': {}, 'f:a': {} } },
      modified: { 'f:spec': { 'f:replicas': {} } },
      removed: { 'f:spec': { 'f:paused': {} } },
    });
  });

  test('identical objects: nothing', () => {
    const o = { data: { a: '1' }, items: [{ name: 'x', value: '1' }], tags: ['a'] };
    expect(diff(o, structuredClone(o))).toEqual({ added: {}, modified: {}, removed: {} });
  });

  test('list map elements compare by key, whatever their position', () => {
    expect(diff({ items: [{ name: 'a', value: '1' }, { name: 'b' }] }, { items: [{ name: 'c' }, { name: 'a', value: '2' }] })).toEqual({
      added: { 'f:items': { 'k:{"name":"c"}': { '.': {}, 'f:name': {} } } },
      modified: { 'f:items': { 'k:{"name":"a"}': { 'f:value': {} } } },
      removed: { 'f:items': { 'k:{"name":"b"}': { '.': {}, 'f:name': {} } } },
    });
  });

  test('set elements are added or removed, never modified', () => {
    expect(diff({ tags: ['a', 'b'] }, { tags: ['b', 'c'] })).toEqual({
      added: { 'f:tags': { 'v:"c"': {} } },
      modified: {},
      removed: { 'f:tags': { 'v:"a"': {} } },
    });
  });

  test('atomic lists and maps are one leaf', () => {
    expect(diff({ args: ['a'], selector: { x: '1' } }, { args: ['a', 'b'], selector: { x: '2' } })).toEqual({
      added: {},
      modified: { 'f:args': {}, 'f:selector': {} },
      removed: {},
    });
  });

  test('empty and absent containers are leaves: {} where nothing was is added, {} to {} is nothing', () => {
    expect(diff({}, { data: {} }).added).toEqual({ 'f:data': {} });
    expect(diff({ data: {} }, { data: {} })).toEqual({ added: {}, modified: {}, removed: {} });
    expect(diff({ data: {} }, {}).removed).toEqual({ 'f:data': {} });
  });

  test('a type change is a modification of the node, its old children removed and new ones added', () => {
    expect(diff({ free: { x: { a: 1 } } }, { free: { x: 'flat' } })).toEqual({
      added: {},
      modified: { 'f:free': { 'f:x': {} } },
      removed: { 'f:free': { 'f:x': { 'f:a': {} } } },
    });
  });

  test('deduced (preserve-unknown) values: maps granular, lists atomic', () => {
    expect(diff({ free: { m: { a: 1 }, l: [1] } }, { free: { m: { a: 1, b: 2 }, l: [1, 2] } })).toEqual({
      added: { 'f:free': { 'f:m': { 'f:b': {} } } },
      modified: { 'f:free': { 'f:l': {} } },
      removed: {},
    });
  });
});
