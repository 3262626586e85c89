/**
 * The OpenAPI v3 -> CEL type mapping, every row of the spec's table, with Kubernetes' size rules
 * (k8s.io/apiserver/pkg/cel/common/schemas.go as of 1.32) and type names.
 */
import { Environment } from '@marcbachmann/cel-js';
import { MAX_REQUEST_SIZE_BYTES, schemaDeclType, type DeclType, type ListDecl, type MapDecl, type ObjectDecl } from './decl-type.js';
import { registerSchemaVariable } from './register.js';
import type { SchemaNode } from './schema-node.js';

const obj = (t: DeclType | undefined): ObjectDecl => {
  expect(t?.kind).toBe('object');
  return t as ObjectDecl;
};

describe('OpenAPI v3 -> CEL type mapping (spec table)', () => {
  test.each([
    ['object with properties', { type: 'object', properties: { a: { type: 'string' } } }, 'selfType'],
    ['object with additionalProperties', { type: 'object', additionalProperties: { type: 'integer' } }, 'map<string, int>'],
    ['x-int-or-string', { 'x-kubernetes-int-or-string': true }, 'dyn'],
    ['x-int-or-string with anyOf', { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }, 'dyn'],
    ['array', { type: 'array', items: { type: 'string' } }, 'list<string>'],
    ['array with list type map', { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } }, 'list<selfType.__idx__>'],
    ['array with list type set', { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }, 'list<string>'],
    ['boolean', { type: 'boolean' }, 'bool'],
    ['number', { type: 'number' }, 'double'],
    ['number, format float', { type: 'number', format: 'float' }, 'double'],
    ['integer', { type: 'integer' }, 'int'],
    ['integer, format int32', { type: 'integer', format: 'int32' }, 'int'],
    ['string', { type: 'string' }, 'string'],
    ['string, format byte', { type: 'string', format: 'byte' }, 'bytes'],
    ['string, format date', { type: 'string', format: 'date' }, 'google.protobuf.Timestamp'],
    ['string, format date-time', { type: 'string', format: 'date-time' }, 'google.protobuf.Timestamp'],
    ['string, format duration', { type: 'string', format: 'duration' }, 'google.protobuf.Duration'],
    ['string, unknown format', { type: 'string', format: 'uuid' }, 'string'],
  ] as const)('%s -> %s', (_row, schema, celType) => {
    expect(schemaDeclType(schema as SchemaNode)?.celType).toBe(celType);
  });

  test('null (nullable) keeps the type and admits null at run time', () => {
    const t = schemaDeclType({ type: 'string', nullable: true });
    expect(t).toMatchObject({ kind: 'string', nullable: true });
  });

  test('list types are kept: atomic by default, set, map with its keys', () => {
    const items = { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } };
    expect((schemaDeclType({ type: 'array', items }) as ListDecl).listType).toEqual({ type: 'atomic' });
    expect((schemaDeclType({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } }) as ListDecl).listType).toEqual({ type: 'set' });
    expect((schemaDeclType({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'port'], items }) as ListDecl).listType).toEqual({ type: 'map', keys: ['name', 'port'] });
  });

  test('x-platform-* extensions are read when the prefix says so, and only then', () => {
    const schema = { type: 'object', properties: { p: { 'x-platform-int-or-string': true }, l: { type: 'array', 'x-platform-list-type': 'set', items: { type: 'string' } } } };
    const platform = obj(schemaDeclType(schema, { extensionPrefix: 'x-platform-' }));
    expect(platform.fields.get('p')?.type.kind).toBe('int-or-string');
    expect((platform.fields.get('l')?.type as ListDecl).listType).toEqual({ type: 'set' });
    const kube = obj(schemaDeclType(schema));
    expect(kube.fields.has('p')).toBe(false); // no type, no int-or-string: not exposed
    expect((kube.fields.get('l')?.type as ListDecl).listType).toEqual({ type: 'atomic' });
  });
});

describe('objects', () => {
  test('fields under escaped names, type names per schema path, unescapable names dropped', () => {
    const t = obj(
      schemaDeclType({
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { 'max-replicas': { type: 'integer' }, namespace: { type: 'string' } } },
          items: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
          labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
          'bad name': { type: 'string' },
          '1st': { type: 'string' },
        },
      }),
    );
    expect([...t.fields.keys()]).toEqual(['spec', 'items', 'labels']);
    const spec = obj(t.fields.get('spec')!.type);
    expect(spec.name).toBe('selfType.spec');
    expect([...spec.fields.keys()]).toEqual(['max__dash__replicas', '__namespace__']);
    expect(spec.fields.get('max__dash__replicas')?.property).toBe('max-replicas');
    expect(spec.properties.get('namespace')?.name).toBe('__namespace__');
    expect(t.fields.get('items')!.type.celType).toBe('list<selfType.items.__idx__>');
    expect(t.fields.get('labels')!.type.celType).toBe('map<string, selfType.labels.__elem__>');
  });

  test('the root of a resource and embedded resources declare apiVersion, kind, metadata.name and metadata.generateName only', () => {
    const root = obj(
      schemaDeclType(
        {
          type: 'object',
          properties: {
            metadata: { type: 'object' },
            spec: { type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } },
          },
        },
        { resourceRoot: true },
      ),
    );
    expect([...root.fields.keys()].sort()).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect([...obj(root.fields.get('metadata')!.type).fields.keys()]).toEqual(['name', 'generateName']);
    const template = obj(obj(root.fields.get('spec')!.type).fields.get('template')!.type);
    expect(template.embeddedResource).toBe(true);
    expect([...template.fields.keys()].sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(template.name).toBe('selfType.spec.template');
  });

  test('preserve-unknown-fields: an object with only its declared properties; no type: not exposed', () => {
    const t = obj(
      schemaDeclType({
        type: 'object',
        properties: {
          open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          partly: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'string' } } },
          anything: { 'x-kubernetes-preserve-unknown-fields': true },
          listOfAnything: { type: 'array', items: { 'x-kubernetes-preserve-unknown-fields': true } },
          mapOfAnything: { type: 'object', additionalProperties: { 'x-kubernetes-preserve-unknown-fields': true } },
        },
      }),
    );
    expect([...t.fields.keys()]).toEqual(['open', 'partly']);
    expect(obj(t.fields.get('open')!.type).fields.size).toBe(0);
    expect(obj(t.fields.get('open')!.type).preserveUnknownFields).toBe(true);
    expect([...obj(t.fields.get('partly')!.type).fields.keys()]).toEqual(['known']);
  });

  test('the checker sees int-or-string as dyn: type(x) tests pass, int and string operations both check', () => {
    const t = schemaDeclType({ type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true } } })!;
    const env = new Environment({ enableOptionalTypes: true });
    registerSchemaVariable(env, 'self', t);
    for (const rule of ['type(self.port) == string ? self.port.matches("^[0-9]+%$") : self.port < 100', 'type(self.port) == int', 'self.port == 1 || self.port == "a"']) {
      expect(env.check(rule)).toMatchObject({ valid: true, type: 'bool' });
    }
  });
});

describe("size estimates (Kubernetes' MaxElements and MinSerializedSize)", () => {
  const max = MAX_REQUEST_SIZE_BYTES - 2;
  test.each([
    ['string without maxLength', { type: 'string' }, max, 2],
    ['string with maxLength 10 (4 bytes per code point)', { type: 'string', maxLength: 10 }, 40, 2],
    ['string enum: longest value in bytes', { type: 'string', enum: ['a', 'ccc', 'bb'] }, 3, 2],
    ['bytes with maxLength', { type: 'string', format: 'byte', maxLength: 10 }, 10, 2],
    ['bytes without maxLength', { type: 'string', format: 'byte' }, max, 2],
    ['duration', { type: 'string', format: 'duration' }, 32, 3],
    ['date', { type: 'string', format: 'date' }, 12, 12],
    ['date-time', { type: 'string', format: 'date-time' }, 32, 21],
    ['int-or-string (1.32: maxLength ignored)', { 'x-kubernetes-int-or-string': true, maxLength: 5 }, max, 1],
    ['boolean', { type: 'boolean' }, 0, 4],
    ['integer', { type: 'integer' }, 0, 1],
    ['number', { type: 'number' }, 0, 1],
    ['list with maxItems', { type: 'array', maxItems: 7, items: { type: 'string' } }, 7, 2],
    ['list of strings without maxItems: request / (2 + 1)', { type: 'array', items: { type: 'string' } }, Math.floor(max / 3), 2],
    ['list of ints: request / (1 + 1)', { type: 'array', items: { type: 'integer' } }, Math.floor(max / 2), 2],
    ['map with maxProperties', { type: 'object', maxProperties: 4, additionalProperties: { type: 'string' } }, 4, 2],
    ['map of strings: request / (2 + 6)', { type: 'object', additionalProperties: { type: 'string' } }, Math.floor(max / 8), 2],
    ['object: 2 + required props without default (name + value + 4)', { type: 'object', required: ['ab', 'c', 'd'], properties: { ab: { type: 'string' }, c: { type: 'integer', default: 1 }, d: { type: 'boolean' }, e: { type: 'string' } } }, 0, 2 + (2 + 2 + 4) + (1 + 4 + 4)],
  ] as const)('%s', (_name, schema, maxElements, minSerializedSize) => {
    const t = schemaDeclType(schema as SchemaNode)!;
    expect(t.maxElements).toBe(maxElements);
    expect(t.minSerializedSize).toBe(minSerializedSize);
  });

  test('a list of objects is bounded by the objects\' smallest size', () => {
    const t = schemaDeclType({ type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } }) as ListDecl;
    // object: 2 + len("name") 4 + "" 2 + 4 = 12; list: (3 MiB - 2) / 13
    expect(t.elem.minSerializedSize).toBe(12);
    expect(t.maxElements).toBe(Math.floor(max / 13));
    expect((schemaDeclType({ type: 'object', additionalProperties: { type: 'integer' } }) as MapDecl).maxElements).toBe(Math.floor(max / 7));
  });
});
