import { StatusError } from '../errors/status-error.js';
import { decodeObject, decodeParsed, decodeYamlObject } from './decode.js';
import { kindSchema } from './object-meta-schema.js';
import { parseYamlStrict } from './yaml-strict.js';

const schema = kindSchema('test', { spec: { type: 'object', properties: { replicas: { type: 'integer' }, items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } } } });

function thrown(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

describe('decodeObject (JSON)', () => {
  const body = '{"apiVersion":"v1","kind":"T","metadata":{"name":"a","name":"b"},"spec":{"replicas":1,"foo":2,"items":[{"name":"x","bar":1}]}}';

  it('Strict: one 400 listing duplicates and unknown fields', () => {
    const err = thrown(() => decodeObject(body, schema, 'Strict'));
    expect(err.reason).toBe('BadRequest');
    expect(err.message).toBe('strict decoding error: duplicate field "metadata.name", unknown field "spec.foo", unknown field "spec.items[0].bar"');
  });

  it('Warn: warnings, pruned object, last duplicate wins', () => {
    const r = decodeObject(body, schema, 'Warn');
    expect(r.warnings).toEqual(['duplicate field "metadata.name"', 'unknown field "spec.foo"', 'unknown field "spec.items[0].bar"']);
    expect(r.object).toEqual({ apiVersion: 'v1', kind: 'T', metadata: { name: 'b' }, spec: { replicas: 1, items: [{ name: 'x' }] } });
  });

  it('Ignore: no warnings, still pruned', () => {
    const r = decodeObject(body, schema, 'Ignore');
    expect(r.warnings).toEqual([]);
    expect(r.object).toEqual({ apiVersion: 'v1', kind: 'T', metadata: { name: 'b' }, spec: { replicas: 1, items: [{ name: 'x' }] } });
  });

  it('Strict passes a clean body', () => {
    expect(decodeObject('{"metadata":{"name":"a"}}', schema, 'Strict')).toEqual({ object: { metadata: { name: 'a' } }, warnings: [] });
  });

  it('invalid JSON is 400 whatever the mode', () => {
    expect(thrown(() => decodeObject('{', schema, 'Ignore')).reason).toBe('BadRequest');
  });
});

describe('decodeYamlObject', () => {
  const body = ['apiVersion: v1', 'kind: T', 'metadata:', '  name: a', '  name: b', 'spec:', '  replicas: 1', '  items:', '  - name: x', '    bar: 1', '  foo: 2', ''].join('\n');

  it('Strict reports duplicates and unknown fields', () => {
    expect(thrown(() => decodeYamlObject(body, schema, 'Strict')).message).toBe(
      'strict decoding error: duplicate field "metadata.name", unknown field "spec.items[0].bar", unknown field "spec.foo"',
    );
  });

  it('Warn prunes and keeps the last duplicate', () => {
    const r = decodeYamlObject(body, schema, 'Warn');
    expect(r.warnings).toHaveLength(3);
    expect(r.object).toEqual({ apiVersion: 'v1', kind: 'T', metadata: { name: 'b' }, spec: { replicas: 1, items: [{ name: 'x' }] } });
  });

  it('invalid YAML and several documents are 400', () => {
    expect(thrown(() => decodeYamlObject('a: [1, 2', schema, 'Strict')).message).toMatch(/^error decoding YAML: /);
    expect(thrown(() => decodeYamlObject('a: 1\n---\nb: 2\n', schema, 'Strict')).message).toMatch(/^error decoding YAML: /);
  });

  it('reads YAML 1.1 booleans as Kubernetes does', () => {
    expect(parseYamlStrict('a: yes\nb: off\nc: "yes"\n').value).toEqual({ a: true, b: false, c: 'yes' });
  });

  it('reports duplicates in sequences of maps', () => {
    expect(parseYamlStrict('l:\n- a: 1\n- b: 1\n  b: 2\n').duplicateFields).toEqual(['l[1].b']);
  });

  it('refuses alias bombs', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 6; i++) lines.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`);
    expect(thrown(() => parseYamlStrict(lines.join('\n'))).reason).toBe('BadRequest');
  });
});

describe('decodeParsed', () => {
  it('feeds any codec', () => {
    const value = { spec: { foo: 1 } };
    expect(decodeParsed(value, ['x'], schema, 'Warn').warnings).toEqual(['duplicate field "x"', 'unknown field "spec.foo"']);
    expect(value).toEqual({ spec: {} });
  });
});
