import { StatusError } from '../errors/status-error.js';
import { kindSchema } from './object-meta-schema.js';
import { prune, pruneReporting } from './prune.js';
import type { Schema } from './schema.js';
import { duplicateFieldMessage, strictDecodingError, unknownFieldMessage, unknownFields } from './unknown-fields.js';

const container: Schema = { type: 'object', properties: { name: { type: 'string' }, ports: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' } } } } } };
const schema = kindSchema('test', {
  spec: {
    type: 'object',
    properties: {
      replicas: { type: 'integer' },
      containers: { type: 'array', items: container },
      byName: { type: 'object', additionalProperties: container },
      anything: { type: 'object', additionalProperties: true },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
      port: { 'x-kubernetes-int-or-string': true },
      template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', properties: { x: { type: 'string' } } } } },
      empty: { type: 'object' },
      scalar: { type: 'string' },
    },
  },
});

describe('unknownFields', () => {
  it('finds nothing in a conforming object', () => {
    const obj = { apiVersion: 'v1', kind: 'T', metadata: { name: 'a', labels: { x: 'y' }, annotations: { 'a/b': 'c' } }, spec: { replicas: 1 } };
    expect(unknownFields(obj, schema)).toEqual([]);
  });

  it.each<[string, unknown, string[]]>([
    ['top level', { foo: 1 }, ['foo']],
    ['under spec', { spec: { foo: 1, bar: { x: 1 } } }, ['spec.foo', 'spec.bar']],
    ['in array elements', { spec: { containers: [{ name: 'a' }, { name: 'b', foo: 1 }] } }, ['spec.containers[1].foo']],
    ['nested arrays', { spec: { containers: [{ ports: [{ port: 1, proto: 'x' }] }] } }, ['spec.containers[0].ports[0].proto']],
    ['in map values, never the keys', { spec: { byName: { web: { name: 'w', foo: 1 } } } }, ['spec.byName.web.foo']],
    ['metadata', { metadata: { name: 'a', foo: 1, labels: { anything: 'ok' } } }, ['metadata.foo']],
    ['owner references', { metadata: { ownerReferences: [{ uid: 'u', foo: 1 }] } }, ['metadata.ownerReferences[0].foo']],
    ['managedFields keep fieldsV1', { metadata: { managedFields: [{ fieldsV1: { 'f:spec': {} }, foo: 1 }] } }, ['metadata.managedFields[0].foo']],
    ['additionalProperties true', { spec: { anything: { a: { b: 1 } } } }, []],
    ['preserve-unknown-fields keeps unknown, walks known', { spec: { free: { x: 1, known: { a: 'a', b: 1 } } } }, ['spec.free.known.b']],
    ['int-or-string', { spec: { port: 'http' } }, []],
    ['embedded resource metadata', { spec: { template: { apiVersion: 'v1', kind: 'X', metadata: { name: 'a', foo: 1 }, spec: { y: 1 }, z: 1 } } }, ['spec.template.metadata.foo', 'spec.template.spec.y', 'spec.template.z']],
    ['object without properties', { spec: { empty: { a: 1 } } }, ['spec.empty.a']],
    ['wrong types are left to validation', { spec: { scalar: { a: 1 }, containers: { a: 1 } } }, []],
    ['prototype names are fields too', { spec: { constructor: 1, toString: 2 } }, ['spec.constructor', 'spec.toString']],
  ])('%s', (_name, obj, paths) => {
    const before = JSON.stringify(obj);
    expect(unknownFields(obj, schema)).toEqual(paths);
    expect(JSON.stringify(obj)).toBe(before);
  });
});

describe('prune', () => {
  it('removes unknown fields in place and keeps the rest', () => {
    const obj = {
      metadata: { name: 'a', foo: 1 },
      spec: { replicas: 2, foo: 1, containers: [{ name: 'c', bar: 2 }], free: { x: 1, known: { a: 'a', b: 1 } }, anything: { q: 1 } },
      extra: true,
    };
    prune(obj, schema);
    expect(obj).toEqual({
      metadata: { name: 'a' },
      spec: { replicas: 2, containers: [{ name: 'c' }], free: { x: 1, known: { a: 'a' } }, anything: { q: 1 } },
    });
  });

  it('reports what it removed', () => {
    const obj = { spec: { foo: 1, containers: [{ bar: 1 }] } };
    expect(pruneReporting(obj, schema)).toEqual(['spec.foo', 'spec.containers[0].bar']);
    expect(obj).toEqual({ spec: { containers: [{}] } });
  });

  it('ignores scalars and null', () => {
    expect(() => prune(null, schema)).not.toThrow();
    expect(() => prune(3, schema)).not.toThrow();
  });
});

describe('messages', () => {
  it('formats Kubernetes messages', () => {
    expect(unknownFieldMessage('spec.foo')).toBe('unknown field "spec.foo"');
    expect(duplicateFieldMessage('metadata.name')).toBe('duplicate field "metadata.name"');
    const err = strictDecodingError([unknownFieldMessage('spec.foo'), duplicateFieldMessage('x')]);
    expect(err).toBeInstanceOf(StatusError);
    expect(err.reason).toBe('BadRequest');
    expect(err.message).toBe('strict decoding error: unknown field "spec.foo", duplicate field "x"');
  });
});
