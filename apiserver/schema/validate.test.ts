import { errorString, FieldPath } from '../validation/field-error.js';
import type { Schema } from './schema.js';
import { validateValue } from './validate.js';

const messages = (value: unknown, schema: Schema, style?: 'crd' | 'builtin'): string[] =>
  validateValue(value, schema, FieldPath.root('spec'), { style }).map(errorString);

const obj = (properties: Record<string, Schema>, extra: Partial<Schema> = {}): Schema => ({ type: 'object', properties, ...extra });

describe('validateValue: types', () => {
  it.each<[string, unknown, Schema, string[]]>([
    ['string for integer', { replicas: 'x' }, obj({ replicas: { type: 'integer' } }), ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']],
    ['float for integer', { replicas: 1.5 }, obj({ replicas: { type: 'integer' } }), ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"']],
    ['integer for number is fine', { n: 2 }, obj({ n: { type: 'number' } }), []],
    ['object for string', { s: {} }, obj({ s: { type: 'string' } }), ['spec.s: Invalid value: "object": spec.s in body must be of type string: "object"']],
    ['array for object', { o: [] }, obj({ o: { type: 'object' } }), ['spec.o: Invalid value: "array": spec.o in body must be of type object: "array"']],
    ['boolean', { b: 'true' }, obj({ b: { type: 'boolean' } }), ['spec.b: Invalid value: "string": spec.b in body must be of type boolean: "string"']],
    ['null, not nullable', { s: null }, obj({ s: { type: 'string' } }), ['spec.s: Invalid value: "null": spec.s in body must be of type string: "null"']],
    ['null, nullable', { s: null }, obj({ s: { type: 'string', nullable: true } }), []],
    ['int-or-string ok', { p: 'http', q: 80 }, obj({ p: { 'x-kubernetes-int-or-string': true }, q: { 'x-kubernetes-int-or-string': true } }), []],
    ['int-or-string bad', { p: true }, obj({ p: { 'x-kubernetes-int-or-string': true } }), ['spec.p: Invalid value: "boolean": spec.p in body must be of type integer,string: "boolean"']],
    ['int32 range', { i: 2147483648 }, obj({ i: { type: 'integer', format: 'int32' } }), ['spec.i: Invalid value: 2147483648: spec.i in body must be of type int32: "2147483648"']],
    ['int64 unsafe', { i: 2 ** 60 }, obj({ i: { type: 'integer', format: 'int64' } }), [`spec.i: Invalid value: ${2 ** 60}: spec.i in body must be of type int64: "${2 ** 60}"`]],
    ['wrong type stops descent', { o: 'x' }, obj({ o: obj({ a: { type: 'string' } }, { required: ['a'] }) }), ['spec.o: Invalid value: "string": spec.o in body must be of type object: "string"']],
  ])('%s', (_n, value, schema, expected) => {
    expect(messages(value, schema)).toEqual(expected);
  });
});

describe('validateValue: keywords', () => {
  it.each<[string, unknown, Schema, string[]]>([
    ['required', {}, obj({ a: { type: 'string' } }, { required: ['a'] }), ['spec.a: Required value']],
    ['enum', { m: 'c' }, obj({ m: { type: 'string', enum: ['a', 'b'] } }), ['spec.m: Unsupported value: "c": supported values: "a", "b"']],
    ['enum ok', { m: 'a' }, obj({ m: { type: 'string', enum: ['a', 'b'] } }), []],
    ['maxLength', { s: 'abcd' }, obj({ s: { type: 'string', maxLength: 3 } }), ['spec.s: Too long: may not be more than 3 bytes']],
    ['maxLength counts code points', { s: '😀😀😀' }, obj({ s: { type: 'string', maxLength: 3 } }), []],
    ['minLength', { s: '' }, obj({ s: { type: 'string', minLength: 1 } }), ['spec.s: Invalid value: "": spec.s in body should be at least 1 chars long']],
    ['pattern', { s: 'A' }, obj({ s: { type: 'string', pattern: '^[a-z]+$' } }), ["spec.s: Invalid value: \"A\": spec.s in body should match '^[a-z]+$'"]],
    ['byte', { b: 'not base64!' }, obj({ b: { type: 'string', format: 'byte' } }), ['spec.b: Invalid value: "not base64!": spec.b in body must be of type byte: "not base64!"']],
    ['byte ok', { b: 'aGVsbG8=' }, obj({ b: { type: 'string', format: 'byte' } }), []],
    ['date-time', { t: '2024-02-30T00:00:00Z' }, obj({ t: { type: 'string', format: 'date-time' } }), ['spec.t: Invalid value: "2024-02-30T00:00:00Z": spec.t in body must be of type date-time: "2024-02-30T00:00:00Z"']],
    ['date-time ok', { t: '2024-02-29T10:00:00.5+02:00' }, obj({ t: { type: 'string', format: 'date-time' } }), []],
    ['unknown format accepted', { t: 'x' }, obj({ t: { type: 'string', format: 'quantity' } }), []],
    ['minimum', { n: -1 }, obj({ n: { type: 'integer', minimum: 0 } }), ['spec.n: Invalid value: -1: spec.n in body should be greater than or equal to 0']],
    ['exclusiveMinimum', { n: 0 }, obj({ n: { type: 'integer', minimum: 0, exclusiveMinimum: true } }), ['spec.n: Invalid value: 0: spec.n in body should be greater than 0']],
    ['maximum', { n: 11 }, obj({ n: { type: 'number', maximum: 10 } }), ['spec.n: Invalid value: 11: spec.n in body should be less than or equal to 10']],
    ['exclusiveMaximum', { n: 10 }, obj({ n: { type: 'number', maximum: 10, exclusiveMaximum: true } }), ['spec.n: Invalid value: 10: spec.n in body should be less than 10']],
    ['multipleOf', { n: 7 }, obj({ n: { type: 'integer', multipleOf: 5 } }), ['spec.n: Invalid value: 7: spec.n in body should be a multiple of 5']],
    ['maxItems', { l: [1, 2, 3] }, obj({ l: { type: 'array', items: { type: 'integer' }, maxItems: 2 } }), ['spec.l: Too many: 3: must have at most 2 items']],
    ['minItems', { l: [] }, obj({ l: { type: 'array', items: { type: 'integer' }, minItems: 1 } }), ['spec.l: Invalid value: []: spec.l in body should have at least 1 items']],
    ['uniqueItems', { l: [{ a: 1, b: 2 }, { b: 2, a: 1 }] }, obj({ l: { type: 'array', items: { type: 'object' }, uniqueItems: true } }), ['spec.l: Invalid value: [{"a":1,"b":2},{"b":2,"a":1}]: spec.l in body shouldn\'t contain duplicates']],
    ['maxProperties', { m: { a: '1', b: '2' } }, obj({ m: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 } }), ['spec.m: Too many: 2: must have at most 1 items']],
    ['minProperties', { m: {} }, obj({ m: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1 } }), ['spec.m: Invalid value: {}: spec.m in body should have at least 1 properties']],
    ['map values', { m: { a: 1 } }, obj({ m: { type: 'object', additionalProperties: { type: 'string' } } }), ['spec.m.a: Invalid value: "integer": spec.m.a in body must be of type string: "integer"']],
    ['array items path', { l: ['a', 2] }, obj({ l: { type: 'array', items: { type: 'string' } } }), ['spec.l[1]: Invalid value: "integer": spec.l[1] in body must be of type string: "integer"']],
    ['list-type set', { l: ['a', 'b', 'a'] }, obj({ l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } }), ['spec.l[2]: Duplicate value: "a"']],
    ['list-type set: 1 and "1" differ', { l: [1, '1'] }, obj({ l: { type: 'array', items: { 'x-kubernetes-int-or-string': true }, 'x-kubernetes-list-type': 'set' } }), []],
    [
      'list-type map duplicates and missing keys',
      { l: [{ name: 'a', port: 1 }, { name: 'a', port: 1 }, { name: 'b' }] },
      obj({ l: { type: 'array', items: obj({ name: { type: 'string' }, port: { type: 'integer' } }), 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'port'] } }),
      ['spec.l[1]: Duplicate value: {"name":"a","port":1}', 'spec.l[2].port: Required value'],
    ],
    ['allOf', { n: 5 }, obj({ n: { type: 'integer', allOf: [{ minimum: 10 }] } }), ['spec.n: Invalid value: 5: spec.n in body should be greater than or equal to 10']],
    ['anyOf', { n: 5 }, obj({ n: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: 1 }] } }), ['spec.n: Invalid value: 5: spec.n in body must validate at least one schema (anyOf)']],
    ['oneOf (two match)', { n: 5 }, obj({ n: { type: 'integer', oneOf: [{ minimum: 1 }, { maximum: 10 }] } }), ['spec.n: Invalid value: 5: spec.n in body must validate one and only one schema (oneOf)']],
    ['oneOf ok', { n: 5 }, obj({ n: { type: 'integer', oneOf: [{ minimum: 1 }, { maximum: 1 }] } }), []],
    ['not', { s: 'x' }, obj({ s: { type: 'string', not: { enum: ['x'] } } }), ['spec.s: Invalid value: "x": spec.s in body must not validate the schema (not)']],
    ['embedded resource', { t: { metadata: {} } }, obj({ t: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }), ['spec.t.apiVersion: Required value: must not be empty', 'spec.t.kind: Required value: must not be empty']],
  ])('%s', (_n, value, schema, expected) => {
    expect(messages(value, schema)).toEqual(expected);
  });

  it('builtin style drops the path prefix', () => {
    expect(messages({ n: -1 }, obj({ n: { type: 'integer', minimum: 0 } }), 'builtin')).toEqual(['spec.n: Invalid value: -1: must be greater than or equal to 0']);
    expect(messages({ n: 'x' }, obj({ n: { type: 'integer' } }), 'builtin')).toEqual(['spec.n: Invalid value: "string": must be of type integer: "string"']);
  });

  it('works without a base path', () => {
    expect(validateValue({ a: 1 }, obj({ a: { type: 'string' } })).map(errorString)).toEqual(['a: Invalid value: "integer": a in body must be of type string: "integer"']);
  });

  it('reports every error in one walk', () => {
    const s = obj({ a: { type: 'string' }, b: { type: 'integer', minimum: 0 }, c: obj({ d: { type: 'boolean' } }, { required: ['e'] }) });
    expect(validateValue({ a: 1, b: -1, c: { d: 1 } }, s)).toHaveLength(4);
  });
});
