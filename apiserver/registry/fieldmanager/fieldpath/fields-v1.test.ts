import { decodeFieldsV1, encodeFieldsV1, FieldsV1Error } from './fields-v1.js';
import { FieldSet } from './set.js';

describe('FieldsV1', () => {
  const tree = {
    'f:data': { '.': {}, 'f:a': {}, 'f:b': {} },
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:containers': {
        'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} },
      },
      'f:finalizers': { 'v:"x"': {} },
    },
  };

  test('round trip', () => {
    const s = decodeFieldsV1(tree);
    expect(s.size()).toBe(9);
    expect(s.has(['f:data'])).toBe(true);
    expect(s.has(['f:metadata'])).toBe(false);
    expect(s.has(['f:spec', 'f:containers', 'k:{"name":"web"}'])).toBe(true);
    expect(encodeFieldsV1(s)).toEqual(tree);
  });

  test('"." comes first, then elements in structured-merge-diff order', () => {
    const s = FieldSet.of(['f:x', 'i:0'], ['f:x', 'v:"a"'], ['f:x', 'k:{"a":1}'], ['f:x', 'f:z'], ['f:x']);
    expect(Object.keys(encodeFieldsV1(s)['f:x']!)).toEqual(['.', 'f:z', 'k:{"a":1}', 'v:"a"', 'i:0']);
    expect(JSON.stringify(encodeFieldsV1(FieldSet.of(['f:b'], ['f:a'])))).toBe('{"f:a":{},"f:b":{}}');
  });

  test('keys are canonicalized on decode', () => {
    const s = decodeFieldsV1({ 'f:l': { 'k:{"b":2,"a":1}': {} } });
    expect(s.has(['f:l', 'k:{"a":1,"b":2}'])).toBe(true);
  });

  test('an empty set encodes to {}', () => {
    expect(encodeFieldsV1(new FieldSet())).toEqual({});
    expect(decodeFieldsV1({}).empty()).toBe(true);
  });

  test.each([[null], [[]], ['x'], [{ 'f:a': 1 }], [{ 'q:a': {} }], [{ 'f:a': { 'k:nope': {} } }]])('malformed %j is an error', (t) => {
    expect(() => decodeFieldsV1(t)).toThrow(FieldsV1Error);
  });
});
