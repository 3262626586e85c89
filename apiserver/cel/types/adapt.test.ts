/**
 * JSON -> CEL value adaptation under schema types (Kubernetes' UnstructuredToVal), every row of the
 * mapping, and the untyped adaptation of admission's `object`.
 */
import { CelEvalError } from '../errors.js';
import { Duration, listTypeOf, Timestamp, type CelList, type CelMap, type CelObject } from '../values/value.js';
import { adaptUntyped, adaptValue, SchemaMap, SchemaObject } from './adapt.js';
import { schemaDeclType, type DeclType } from './decl-type.js';
import type { SchemaNode } from './schema-node.js';

const decl = (s: object, opts = {}): DeclType => schemaDeclType(s as SchemaNode, opts)!;

describe('scalars', () => {
  test.each([
    ['integer from a JSON number', { type: 'integer' }, 42, 42n],
    ['integer beyond 2^53 from a lossless parser', { type: 'integer' }, 9007199254740993n, 9007199254740993n],
    ['integer at int64 max', { type: 'integer' }, 9223372036854775807n, 9223372036854775807n],
    ['negative integer', { type: 'integer' }, -7, -7n],
    ['number', { type: 'number' }, 1.5, 1.5],
    ['number written as an integer', { type: 'number' }, 2, 2],
    ['number from a bigint', { type: 'number' }, 3n, 3],
    ['boolean', { type: 'boolean' }, true, true],
    ['string', { type: 'string' }, 'héllo', 'héllo'],
    ['int-or-string holding an int', { 'x-kubernetes-int-or-string': true }, 80, 80n],
    ['int-or-string holding a string', { 'x-kubernetes-int-or-string': true }, '50%', '50%'],
    ['int-or-string holding a big int', { 'x-kubernetes-int-or-string': true }, 2n ** 60n, 2n ** 60n],
    ['nullable null', { type: 'string', nullable: true }, null, null],
  ] as const)('%s', (_name, schema, json, value) => {
    expect(adaptValue(json, decl(schema))).toEqual(value);
  });

  test('bytes: base64 decoded to a Uint8Array', () => {
    const v = adaptValue('aGVsbG8=', decl({ type: 'string', format: 'byte' }));
    expect(v).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(v as Uint8Array).toString()).toBe('hello');
    expect(adaptValue('', decl({ type: 'string', format: 'byte' }))).toEqual(new Uint8Array(0));
  });

  test.each([
    ['date-time with nanoseconds', 'date-time', '2024-01-02T03:04:05.123456789Z', new Timestamp(1704164645n, 123456789)],
    ['date-time without fraction', 'date-time', '1970-01-01T00:00:00Z', new Timestamp(0n, 0)],
    ['date-time with a numeric offset', 'date-time', '2024-01-02T05:04:05.5+02:00', new Timestamp(1704164645n, 500000000)],
    ['date-time before the epoch', 'date-time', '1969-12-31T23:59:59.25Z', new Timestamp(-1n, 250000000)],
    ['date-time year 1', 'date-time', '0001-01-01T00:00:00Z', new Timestamp(-62135596800n, 0)],
    ['date-time year 9999', 'date-time', '9999-12-31T23:59:59.999999999Z', new Timestamp(253402300799n, 999999999)],
    ['date: midnight UTC', 'date', '2024-02-29', new Timestamp(1709164800n, 0)],
  ] as const)('timestamp: %s', (_name, format, json, value) => {
    expect(adaptValue(json, decl({ type: 'string', format }))).toEqual(value);
  });

  test.each([
    ['1h30m', new Duration(5400n, 0)],
    ['1.5s', new Duration(1n, 500000000)],
    ['-1.5s', new Duration(-1n, -500000000)],
    ['300ms', new Duration(0n, 300000000)],
    ['1µs', new Duration(0n, 1000)],
    ['2ns', new Duration(0n, 2)],
    ['0', new Duration(0n, 0)],
    ['2562047h47m16.854775807s', new Duration(9223372036n, 854775807)],
    ['3d', new Duration(259200n, 0)],
    ['1 week', new Duration(604800n, 0)],
  ] as const)('duration %s', (json, value) => {
    expect(adaptValue(json, decl({ type: 'string', format: 'duration' }))).toEqual(value);
  });

  test.each([
    ['null without nullable', { type: 'string' }, null, 'invalid data, got null for schema with nullable=false'],
    ['fraction for an integer', { type: 'integer' }, 1.5, 'invalid data, expected int, got float64'],
    ['integer beyond int64', { type: 'integer' }, 2n ** 63n, 'invalid data, expected int, got int64'],
    ['string for an integer', { type: 'integer' }, '1', 'invalid data, expected int, got string'],
    ['number for a string', { type: 'string' }, 1, 'invalid data, expected string, got int64'],
    ['bool for int-or-string', { 'x-kubernetes-int-or-string': true }, true, 'invalid data, expected XIntOrString value to be either a string or integer'],
    ['bad base64', { type: 'string', format: 'byte' }, 'a', 'Invalid byte formatted string a: illegal base64 data'],
    ['bad date-time', { type: 'string', format: 'date-time' }, '2024-13-01T00:00:00Z', 'Invalid date-time formatted string'],
    ['bad date', { type: 'string', format: 'date' }, '2023-02-29', 'Invalid date formatted string'],
    ['bad duration', { type: 'string', format: 'duration' }, 'soon', 'Invalid duration soon'],
    ['duration beyond int64 nanoseconds', { type: 'string', format: 'duration' }, '2562048h', 'Invalid duration 2562048h'],
    ['array for an object', { type: 'object', properties: {} }, [], 'invalid data, expected a map for the provided schema with type=object'],
    ['object for an array', { type: 'array', items: { type: 'string' } }, {}, 'invalid data, expected an array for the provided schema with type=array'],
  ] as const)('invalid data throws CelEvalError: %s', (_name, schema, json, message) => {
    expect(() => adaptValue(json, decl(schema))).toThrow(CelEvalError);
    expect(() => adaptValue(json, decl(schema))).toThrow(message);
  });
});

describe('lists', () => {
  test('set and map lists are tagged with their list type; atomic lists are not', () => {
    const set = adaptValue(['a', 'b'], decl({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } })) as CelList;
    expect([...set]).toEqual(['a', 'b']);
    expect(listTypeOf(set)).toEqual({ type: 'set' });
    const map = adaptValue([{ name: 'x', port: 1 }], decl({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } })) as CelList;
    expect(listTypeOf(map)).toEqual({ type: 'map', keys: ['name'] });
    expect((map[0] as CelObject).field('port')).toBe(1n);
    const atomic = adaptValue([1, 2], decl({ type: 'array', items: { type: 'integer' } })) as CelList;
    expect([...atomic]).toEqual([1n, 2n]);
    expect(listTypeOf(atomic)).toEqual({ type: 'atomic' });
  });
});

describe('objects', () => {
  const schema = {
    type: 'object',
    properties: {
      metadata: { type: 'object', properties: { name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } } },
      spec: {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
        properties: {
          'max-replicas': { type: 'integer' },
          namespace: { type: 'string' },
          optional: { type: 'string' },
          blob: { 'x-kubernetes-preserve-unknown-fields': true },
          template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
      labels: { type: 'object', additionalProperties: { type: 'integer', nullable: true } },
    },
  };
  const json = {
    apiVersion: 'example.io/v1',
    kind: 'Widget',
    metadata: { name: 'w', labels: { a: 'b' } },
    spec: { 'max-replicas': 3, namespace: 'ns', optional: null, blob: { any: 1 }, extra: true, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'x' }, spec: {} } },
    labels: { one: 1, none: null },
  };
  const self = adaptValue(json, decl(schema, { resourceRoot: true })) as CelObject;

  test('an object is a CelObject named by its schema path', () => {
    expect(self).toBeInstanceOf(SchemaObject);
    expect(self.typeName).toBe('selfType');
    expect((self.field('spec') as CelObject).typeName).toBe('selfType.spec');
  });

  test('fields are read by escaped CEL name; values are adapted under their schema and memoized', () => {
    const spec = self.field('spec') as CelObject;
    expect(spec.field('max__dash__replicas')).toBe(3n);
    expect(spec.field('__namespace__')).toBe('ns');
    expect(spec.field('max-replicas')).toBeUndefined();
    expect(spec.field('namespace')).toBeUndefined();
    expect(self.field('spec')).toBe(spec);
  });

  test('a null property is unset; undeclared and unknown-typed properties are no fields', () => {
    const spec = self.field('spec') as CelObject;
    expect(spec.hasField('optional')).toBe(false);
    expect(spec.field('optional')).toBeUndefined();
    expect(spec.hasField('blob')).toBe(false);
    expect(spec.hasField('extra')).toBe(false);
    expect([...spec.fieldNames()]).toEqual(['max__dash__replicas', '__namespace__', 'template']);
    expect((spec as SchemaObject).json).toBe(json.spec);
  });

  test('root and embedded resources expose apiVersion, kind, metadata.name only of the metadata', () => {
    expect(self.field('apiVersion')).toBe('example.io/v1');
    expect(self.field('kind')).toBe('Widget');
    const meta = self.field('metadata') as CelObject;
    expect(meta.field('name')).toBe('w');
    expect(meta.hasField('labels')).toBe(false);
    expect(meta.hasField('generateName')).toBe(false);
    const template = (self.field('spec') as CelObject).field('template') as CelObject;
    expect(template.field('kind')).toBe('Pod');
    expect((template.field('metadata') as CelObject).field('name')).toBe('p');
    expect((template.field('metadata') as CelObject).hasField('namespace')).toBe(false);
    expect(template.hasField('spec')).toBe(false);
  });

  test('additionalProperties: a string-keyed CelMap; null values are CEL null when nullable', () => {
    const labels = self.field('labels') as CelMap;
    expect(labels).toBeInstanceOf(SchemaMap);
    expect(labels.size).toBe(2);
    expect(labels.get('one')).toBe(1n);
    expect(labels.get('none')).toBeNull();
    expect(labels.has('none')).toBe(true);
    expect(labels.get('missing')).toBeUndefined();
    expect(labels.get(1n)).toBeUndefined();
    expect([...labels.keys()]).toEqual(['one', 'none']);
  });

  test('an invalid field value throws at its access, not before', () => {
    const t = decl({ type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string' } } });
    const o = adaptValue({ n: 'x', s: 'ok' }, t) as CelObject;
    expect(o.field('s')).toBe('ok');
    expect(() => o.field('n')).toThrow('invalid data, expected int, got string');
  });

  test('oldSelf adapts the same way, to an equal-shaped but separate view', () => {
    const t = decl(schema, { resourceRoot: true });
    const old = adaptValue(json, t) as CelObject;
    expect(old).not.toBe(self);
    expect(old.typeName).toBe(self.typeName);
    expect((old.field('spec') as CelObject).field('max__dash__replicas')).toBe(3n);
  });
});

describe('untyped adaptation (dyn: admission object, oldObject, params)', () => {
  test.each([
    ['integral number -> int', 3, 3n],
    ['fraction -> double', 1.5, 1.5],
    ['integral beyond 2^53 as a JS number -> double', 2 ** 60, 2 ** 60],
    ['bigint from a lossless parser -> int', 2n ** 62n, 2n ** 62n],
    ['bigint beyond int64 -> double', 2n ** 64n, 2 ** 64],
    ['string', 's', 's'],
    ['bool', false, false],
    ['null', null, null],
  ] as const)('%s', (_name, json, value) => {
    expect(adaptUntyped(json)).toEqual(value);
  });

  test('objects are string-keyed maps, arrays atomic lists, adapted on access', () => {
    const m = adaptUntyped({ spec: { replicas: 2, ratio: 0.5, tags: ['a', 1] } }) as CelMap;
    const spec = m.get('spec') as CelMap;
    expect(spec.get('replicas')).toBe(2n);
    expect(spec.get('ratio')).toBe(0.5);
    const tags = spec.get('tags') as CelList;
    expect([...tags]).toEqual(['a', 1n]);
    expect(listTypeOf(tags)).toEqual({ type: 'atomic' });
    expect(m.get('missing')).toBeUndefined();
  });
});
