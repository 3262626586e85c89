import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';
import { naming } from '../../naming/naming.js';
import { testKinds } from '../discovery/test-kinds.js';
import { gnosticV2Descriptor } from './gnostic-v2-descriptor.js';
import { GnosticError, gnosticDocument } from './gnostic-v2.js';
import { openapiDocuments } from './openapi-documents.js';
import { chooseOpenAPIV2Form } from './openapi-v2-accept.js';
import { encodeOpenAPIV2Protobuf } from './openapi-v2-protobuf.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const PB = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const PB_NEW = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const base = { swagger: '2.0', info: { title: 't', version: 'v' }, paths: {} };
const withDefinition = (schema: unknown): any => gnosticDocument({ ...base, definitions: { D: schema } }).definitions;
const definition = (schema: unknown): any => withDefinition(schema).additionalProperties[0].value;
const withPath = (item: unknown): any => (gnosticDocument({ ...base, paths: { '/p': item } }) as any).paths.path[0].value;
const responses = { 200: { description: 'OK' } };

describe('chooseOpenAPIV2Form (kube-openapi rule)', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/json;as=Table;g=meta.k8s.io;v=v1', 'json'],
    [PB, 'protobuf'],
    [PB_NEW, 'protobuf'],
    [`application/json;q=0.5, ${PB}`, 'protobuf'],
    [`${PB};q=0.5, application/json`, 'json'],
    [`*/*, ${PB}`, 'protobuf'],
    [`application/*;q=0.9, ${PB_NEW};q=0.9`, 'protobuf'],
    ['text/html', undefined],
    ['application/vnd.kubernetes.protobuf', undefined],
    ['application/json;q=0', undefined],
  ])('%s -> %s', (accept, form) => {
    expect(chooseOpenAPIV2Form(accept)).toBe(form);
  });
});

describe('gnosticDocument (as gnostic compiles JSON)', () => {
  it('keeps map order in named lists and puts x- keys in vendorExtension as YAML 1.1 text', () => {
    const doc = gnosticDocument({ ...base, definitions: { B: { type: 'string' }, A: { type: 'integer' } }, 'x-top': { a: [1, 'y'] } });
    expect(doc.definitions).toEqual({ additionalProperties: [{ name: 'B', value: { type: { value: ['string'] } } }, { name: 'A', value: { type: { value: ['integer'] } } }] });
    const ext = (doc.vendorExtension as any[])[0];
    expect(ext.name).toBe('x-top');
    // "y" is a boolean in YAML 1.1: it must come out quoted so kubectl's parser reads a string.
    expect(ext.value.yaml).toMatch(/["']y["']/);
    expect(parseYaml(ext.value.yaml, { version: '1.1' })).toEqual({ a: [1, 'y'] });
  });

  it('maps schema keywords: _ref, TypeItem, ItemsItem, AdditionalPropertiesItem, Any values, zero scalars left out', () => {
    expect(definition({ $ref: '#/definitions/X', description: 'd' })).toEqual({ _ref: '#/definitions/X', description: 'd' });
    expect(definition({ type: ['string', 'null'] }).type).toEqual({ value: ['string', 'null'] });
    expect(definition({ type: 'array', items: { type: 'string' } }).items).toEqual({ schema: [{ type: { value: ['string'] } }] });
    expect(definition({ items: [{ type: 'string' }, { type: 'integer' }] }).items.schema).toHaveLength(2);
    expect(definition({ additionalProperties: false }).additionalProperties).toEqual({ boolean: false });
    expect(definition({ additionalProperties: { type: 'string' } }).additionalProperties).toEqual({ schema: { type: { value: ['string'] } } });
    const s = definition({ default: { a: 1 }, enum: ['on', 2], example: 'x', uniqueItems: false, minLength: 0, maxLength: 5, required: [], properties: {} });
    expect(parseYaml(s.default.yaml)).toEqual({ a: 1 });
    expect(s.enum.map((a: any) => parseYaml(a.yaml, { version: '1.1' }))).toEqual(['on', 2]);
    expect(s).not.toHaveProperty('uniqueItems');
    expect(s).not.toHaveProperty('minLength');
    expect(s).not.toHaveProperty('required');
    expect(s.maxLength).toBe(5);
    // An empty message is still a message (Go encodes a non-nil pointer).
    expect(s.properties).toEqual({ additionalProperties: [] });
  });

  it('chooses the parameter and response oneofs', () => {
    const item = withPath({
      get: {
        parameters: [
          { $ref: '#/parameters/p' },
          { name: 'body', in: 'body', schema: { type: 'object' } },
          { name: 'q', in: 'query', type: 'string', allowEmptyValue: true },
          { name: 'h', in: 'header', type: 'string' },
          { name: 'f', in: 'formData', type: 'array', items: { type: 'string' }, collectionFormat: 'csv' },
        ],
        responses: { 200: { description: 'OK', schema: { type: 'string' } }, default: { $ref: '#/responses/e' }, 'x-r': 1 },
      },
      parameters: [{ name: 'n', in: 'path', required: true, type: 'string' }],
    });
    const [ref, body, query, header, form] = item.get.parameters;
    expect(ref).toEqual({ jsonReference: { _ref: '#/parameters/p' } });
    expect(body.parameter.bodyParameter).toEqual({ name: 'body', in: 'body', schema: { type: { value: ['object'] } } });
    expect(query.parameter.nonBodyParameter.queryParameterSubSchema).toEqual({ name: 'q', in: 'query', type: 'string', allowEmptyValue: true });
    expect(header.parameter.nonBodyParameter).toHaveProperty('headerParameterSubSchema');
    expect(form.parameter.nonBodyParameter.formDataParameterSubSchema.items).toEqual({ type: 'string' });
    expect(item.parameters[0].parameter.nonBodyParameter.pathParameterSubSchema).toMatchObject({ required: true, in: 'path' });
    expect(item.get.responses.responseCode.map((r: any) => [r.name, Object.keys(r.value)[0]])).toEqual([['200', 'response'], ['default', 'jsonReference']]);
    expect(item.get.responses.responseCode[0].value.response.schema).toEqual({ schema: { type: { value: ['string'] } } });
    expect(item.get.responses.vendorExtension).toEqual([{ name: 'x-r', value: { yaml: '1\n' } }]);
  });

  it('reads security schemes by type and flow', () => {
    const doc = gnosticDocument({
      ...base,
      securityDefinitions: {
        basic: { type: 'basic' },
        key: { type: 'apiKey', name: 'authorization', in: 'header' },
        oauth: { type: 'oauth2', flow: 'accessCode', authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: { read: 'Read' } },
      },
      security: [{ key: [] }],
    });
    expect((doc.securityDefinitions as any).additionalProperties.map((d: any) => Object.keys(d.value)[0])).toEqual([
      'basicAuthenticationSecurity', 'apiKeySecurity', 'oauth2AccessCodeSecurity',
    ]);
    expect((doc.securityDefinitions as any).additionalProperties[2].value.oauth2AccessCodeSecurity.scopes).toEqual({ additionalProperties: [{ name: 'read', value: 'Read' }] });
    expect(doc.security).toEqual([{ additionalProperties: [{ name: 'key', value: { value: [] } }] }]);
  });

  it.each([
    ['an unknown schema keyword', { ...base, definitions: { D: { nullable: true } } }, '$root.definitions.D has invalid property: nullable'],
    ['a missing info', { swagger: '2.0', paths: {} }, '$root is missing required property: info'],
    ['a wrong scalar type', { ...base, definitions: { D: { maxLength: 'x' } } }, '$root.definitions.D.maxLength is not an integer'],
    ['an unknown parameter location', { ...base, paths: { '/p': { get: { parameters: [{ name: 'c', in: 'cookie', type: 'string' }], responses } } } }, 'has unexpected value: "cookie"'],
    ['a path key without a slash', { ...base, paths: { p: {} } }, '$root.paths has invalid property: p'],
    ['an operation without responses', { ...base, paths: { '/p': { get: {} } } }, '$root.paths./p.get is missing required property: responses'],
    ['a bad response code', { ...base, paths: { '/p': { get: { responses: { 2000: { description: 'x' } } } } } }, 'has invalid property: 2000'],
  ])('rejects %s as gnostic does', (_, doc, message) => {
    expect(() => gnosticDocument(doc)).toThrow(GnosticError);
    expect(() => gnosticDocument(doc)).toThrow(message);
  });
});

describe('encodeOpenAPIV2Protobuf', () => {
  const Document = protobuf.Root.fromJSON(gnosticV2Descriptor).lookupType('openapi.v2.Document');

  it('encodes what the conversion built: decoding gives the same message back, oneof false included', () => {
    const json = { ...base, definitions: { D: { type: 'object', additionalProperties: false, maxProperties: 3 } } };
    const bytes = encodeOpenAPIV2Protobuf(Buffer.from(JSON.stringify(json)));
    const back = Document.toObject(Document.decode(bytes), { longs: Number, defaults: false });
    expect(back).toEqual(gnosticDocument(json));
    expect(back['definitions'].additionalProperties[0].value.additionalProperties).toEqual({ boolean: false });
  });

  it('encodes the served v2 document once per document set, with the JSON ETag', () => {
    const docs = openapiDocuments(testKinds, naming('k8s.io'), undefined, { strategicMergePatch: () => true });
    const pb = docs.v2Protobuf();
    expect(docs.v2Protobuf()).toBe(pb);
    expect(pb.etag).toBe(docs.v2().etag);
    const back: any = Document.toObject(Document.decode(pb.bytes), { longs: Number, defaults: false });
    expect(back.swagger).toBe('2.0');
    expect(back.definitions.additionalProperties.map((d: any) => d.name)).toEqual(Object.keys(JSON.parse(docs.v2().bytes.toString()).definitions));
  });
});
