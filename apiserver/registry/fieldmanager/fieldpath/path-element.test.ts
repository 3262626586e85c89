import { canonicalPE, comparePE, fieldPE, indexPE, keyPE, parsePE, pathString, PathElementError, valuePE } from './path-element.js';

describe('path elements', () => {
  test('serialized forms', () => {
    expect(fieldPE('spec')).toBe('f:spec');
    expect(keyPE({ protocol: 'TCP', containerPort: 80 })).toBe('k:{"containerPort":80,"protocol":"TCP"}');
    expect(valuePE('a')).toBe('v:"a"');
    expect(valuePE(3)).toBe('v:3');
    expect(indexPE(2)).toBe('i:2');
  });

  test('parse and canonicalize', () => {
    expect(parsePE('f:a.b')).toEqual({ kind: 'field', name: 'a.b' });
    expect(parsePE('k:{"b":1,"a":"x"}')).toEqual({ kind: 'key', fields: [['a', 'x'], ['b', 1]] });
    expect(parsePE('v:true')).toEqual({ kind: 'value', value: true });
    expect(parsePE('i:10')).toEqual({ kind: 'index', index: 10 });
    expect(canonicalPE('k:{"b":1, "a":"x"}')).toBe('k:{"a":"x","b":1}');
    expect(canonicalPE('v: "a"')).toBe('v:"a"');
  });

  test.each(['x:1', 'k:[1]', 'k:{', 'v:nope', 'i:-1', 'i:01', ''])('invalid element %j', (s) => {
    expect(() => parsePE(s)).toThrow(PathElementError);
  });

  test('printed like Kubernetes prints conflict paths', () => {
    expect(pathString(['f:data', 'f:k'])).toBe('.data.k');
    expect(pathString(['f:spec', 'f:containers', 'k:{"name":"web"}', 'f:image'])).toBe('.spec.containers[name="web"].image');
    expect(pathString(['f:ports', 'k:{"containerPort":80,"protocol":"TCP"}'])).toBe('.ports[containerPort=80,protocol="TCP"]');
    expect(pathString(['f:metadata', 'f:finalizers', 'v:"a/b"'])).toBe('.metadata.finalizers[="a/b"]');
    expect(pathString(['f:items', 'i:3'])).toBe('.items[3]');
  });

  test('order: fields, keys, values, indexes', () => {
    const sorted = ['i:1', 'v:"b"', 'k:{"name":"b"}', 'f:b', 'v:2', 'k:{"name":"a"}', 'f:a', 'v:"a"', 'i:0'].sort(comparePE);
    expect(sorted).toEqual(['f:a', 'f:b', 'k:{"name":"a"}', 'k:{"name":"b"}', 'v:2', 'v:"a"', 'v:"b"', 'i:0', 'i:1']);
  });
});
