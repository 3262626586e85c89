import type { Schema } from '../../../schema/schema.js';
import { encodeFieldsV1 } from './fields-v1.js';
import { ensureNamedFieldsAreMembers, FieldPathError, toFieldSet } from './from-object.js';
import { FieldSet } from './set.js';

const str: Schema = { type: 'string' };
const schema: Schema = {
  type: 'object',
  properties: {
    data: { type: 'object', additionalProperties: str },
    selector: { type: 'object', additionalProperties: str, 'x-kubernetes-map-type': 'atomic' },
    args: { type: 'array', items: str },
    finalizers: { type: 'array', items: str, 'x-kubernetes-list-type': 'set' },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' }, name: str } },
    },
    ref: { type: 'object', properties: { name: str }, 'x-kubernetes-map-type': 'atomic' },
    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    count: { type: 'integer' },
  },
};

describe('toFieldSet', () => {
  test('granular maps and structs, atomic lists and maps, sets, list maps with defaulted keys', () => {
    const obj = {
      data: { a: '1', b: '2' },
      selector: { x: 'y' },
      args: ['-v'],
      finalizers: ['a', 'b'],
      ports: [{ port: 80, name: 'http' }, { port: 53, protocol: 'UDP' }],
      ref: { name: 'r' },
      free: { deep: { x: 1 }, list: [1, 2] },
      count: 3,
    };
    expect(encodeFieldsV1(toFieldSet(obj, schema))).toEqual({
      'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
      'f:selector': {},
      'f:args': {},
      'f:finalizers': { '.': {}, 'v:"a"': {}, 'v:"b"': {} },
      'f:ports': {
        '.': {},
        'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {} },
        'k:{"port":53,"protocol":"UDP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} },
      },
      'f:ref': {},
      'f:free': { '.': {}, 'f:deep': { '.': {}, 'f:x': {} }, 'f:list': {} },
      'f:count': {},
    });
  });

  test('null values and empty containers are paths too', () => {
    expect(encodeFieldsV1(toFieldSet({ data: {}, count: null }, schema))).toEqual({ 'f:data': {}, 'f:count': {} });
  });

  test('a keyed element without its key is an error naming the list and element', () => {
    const bad = { spec: { ports: [{ name: 'x' }] } };
    const s: Schema = { type: 'object', properties: { spec: schema } };
    expect(() => toFieldSet(bad, s)).toThrow(new FieldPathError('.spec.ports: element 0: associative list with keys has an element that omits key field "port" (and doesn\'t have default value)'));
  });

  test('duplicates: refused in applied configurations, tolerated in live objects', () => {
    const dup = { finalizers: ['a', 'a'] };
    expect(() => toFieldSet(dup, schema)).toThrow('.finalizers: duplicate entries for key [="a"]');
    expect(toFieldSet(dup, schema, { allowDuplicates: true }).size()).toBe(2);
  });

  test('a set with an object element is an error', () => {
    expect(() => toFieldSet({ finalizers: [{}] }, schema)).toThrow(FieldPathError);
  });

  test('a value of the wrong type is a leaf', () => {
    expect(encodeFieldsV1(toFieldSet({ data: 'oops', args: { a: 1 } }, schema))).toEqual({ 'f:data': {}, 'f:args': {} });
  });
});

describe('ensureNamedFieldsAreMembers', () => {
  const s: Schema = {
    type: 'object',
    properties: { spec: { type: 'object', properties: { m: { type: 'object', additionalProperties: { type: 'object', properties: { a: str } } } } } },
  };
  test('declared fields with paths below become members; map keys and list elements do not', () => {
    const set = FieldSet.of(['f:spec', 'f:m', 'f:k1', 'f:a']);
    const e = ensureNamedFieldsAreMembers(set, s);
    expect(e.has(['f:spec'])).toBe(true);
    expect(e.has(['f:spec', 'f:m'])).toBe(true);
    expect(e.has(['f:spec', 'f:m', 'f:k1'])).toBe(false);
    expect(e.has(['f:spec', 'f:m', 'f:k1', 'f:a'])).toBe(true);
    expect(set.has(['f:spec'])).toBe(false);
  });
});
