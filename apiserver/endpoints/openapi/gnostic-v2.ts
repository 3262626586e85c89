/**
 * Converts a Swagger 2.0 document (parsed JSON) into gnostic's `openapi_v2.Document` message, as gnostic's
 * own compiler (`openapi_v2.ParseDocument`, which kube-openapi runs on its JSON) does:
 * - maps become ordered `Named*` lists in document order (paths, definitions, properties, responses...);
 * - `x-` keys become `vendorExtension` entries whose `Any.yaml` is the value as YAML text (kubectl reads
 *   `x-kubernetes-group-version-kind` from there with a YAML 1.1 parser, so strings such as `y` or `on`
 *   are quoted);
 * - `$ref` is `_ref`; a string `type` is a one-element `TypeItem`; `items` an `ItemsItem` list;
 *   `additionalProperties` an `AdditionalPropertiesItem` (schema or boolean); `default`, `example` and
 *   `enum` values are `Any` YAML;
 * - parameters are a `ParametersItem` oneof: a JSON reference, a body parameter, or a non-body parameter
 *   chosen by `in` (header, formData, query, path); responses a `ResponseValue` oneof (response or reference).
 * Zero scalars are left out (proto3 does not encode them); message fields are kept even when empty.
 *
 * A key gnostic does not allow (outside `x-`) or a value of the wrong type throws `GnosticError` naming its
 * path, as `ParseDocument` fails on such documents (kube-openapi then has no protobuf form to serve).
 */
import { stringify } from 'yaml';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
/** A message as protobufjs encodes it: field name to value. */
export type Msg = { [field: string]: unknown };

export class GnosticError extends Error {}

const fail = (path: string, message: string): never => {
  throw new GnosticError(`${path} ${message}`);
};

function object(v: Json | undefined, path: string): JsonObject {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail(path, 'is not an object');
  return v;
}

function array(v: Json, path: string): Json[] {
  if (!Array.isArray(v)) return fail(path, 'is not an array');
  return v;
}

/** The value as YAML text: gnostic's `Any.yaml`. */
const any = (v: Json): Msg => ({ yaml: stringify(v, { version: '1.1', lineWidth: 0 }) });

/** How one JSON key becomes one message field. */
type Conv = (v: Json, path: string) => unknown;

const str: Conv = (v, path) => (typeof v === 'string' ? v : fail(path, 'is not a string'));
const bool: Conv = (v, path) => (typeof v === 'boolean' ? v : fail(path, 'is not a boolean'));
const num: Conv = (v, path) => (typeof v === 'number' ? v : fail(path, 'is not a number'));
const int: Conv = (v, path) => (typeof v === 'number' && Number.isInteger(v) ? v : fail(path, 'is not an integer'));
const strs: Conv = (v, path) => array(v, path).map((s, i) => str(s, `${path}[${i}]`));
const anyConv: Conv = (v) => any(v);
const anys: Conv = (v, path) => array(v, path).map(any);
const list = (c: Conv): Conv => (v, path) => array(v, path).map((item, i) => c(item, `${path}[${i}]`));
/** A JSON map as gnostic's ordered `additionalProperties` list of `{name, value}`. */
const namedMap = (c: Conv): Conv => (v, path) => ({
  additionalProperties: Object.entries(object(v, path)).map(([name, value]) => ({ name, value: c(value, `${path}.${name}`) })),
});

interface Shape {
  /** JSON key -> [field name, converter]. */
  readonly fields: Readonly<Record<string, readonly [string, Conv]>>;
  readonly required?: readonly string[];
  /** Whether `x-` keys are collected into `vendorExtension` (JsonReference has none). */
  readonly extensions?: boolean;
}

const isZero = (v: unknown): boolean => v === '' || v === false || v === 0 || (Array.isArray(v) && v.length === 0);

/** Converts `v` by `shape`: required keys, no unknown keys, zero scalars left out, then vendor extensions. */
function convert(shape: Shape, v: Json, path: string): Msg {
  const o = object(v, path);
  for (const key of shape.required ?? []) if (!(key in o)) fail(path, `is missing required property: ${key}`);
  const out: Msg = {};
  const vendor: Msg[] = [];
  for (const [key, value] of Object.entries(o)) {
    const field = shape.fields[key];
    if (field !== undefined) {
      const converted = field[1](value, `${path}.${key}`);
      if (!isZero(converted)) out[field[0]] = converted;
    } else if (key.startsWith('x-') && shape.extensions !== false) {
      vendor.push({ name: key, value: any(value) });
    } else {
      fail(path, `has invalid property: ${key}`);
    }
  }
  if (vendor.length > 0) out['vendorExtension'] = vendor;
  return out;
}

const shaped = (shape: () => Shape): Conv => {
  let s: Shape | undefined;
  return (v, path) => convert((s ??= shape()), v, path);
};

const externalDocs = shaped(() => ({ fields: { description: ['description', str], url: ['url', str] }, required: ['url'] }));
const xml = shaped(() => ({
  fields: { name: ['name', str], namespace: ['namespace', str], prefix: ['prefix', str], attribute: ['attribute', bool], wrapped: ['wrapped', bool] },
}));

/** The validation keywords shared by schemas, non-body parameters, items and headers. */
const primitiveFields: Record<string, readonly [string, Conv]> = {
  type: ['type', str], format: ['format', str], collectionFormat: ['collectionFormat', str], default: ['default', anyConv],
  maximum: ['maximum', num], exclusiveMaximum: ['exclusiveMaximum', bool], minimum: ['minimum', num],
  exclusiveMinimum: ['exclusiveMinimum', bool], maxLength: ['maxLength', int], minLength: ['minLength', int],
  pattern: ['pattern', str], maxItems: ['maxItems', int], minItems: ['minItems', int], uniqueItems: ['uniqueItems', bool],
  enum: ['enum', anys], multipleOf: ['multipleOf', num],
};
const primitivesItems: Conv = shaped(() => ({ fields: { ...primitiveFields, items: ['items', primitivesItems] } }));
const header = shaped(() => ({ fields: { ...primitiveFields, items: ['items', primitivesItems], description: ['description', str] }, required: ['type'] }));

const schema: Conv = shaped(() => ({
  fields: {
    $ref: ['_ref', str], format: ['format', str], title: ['title', str], description: ['description', str], default: ['default', anyConv],
    multipleOf: ['multipleOf', num], maximum: ['maximum', num], exclusiveMaximum: ['exclusiveMaximum', bool], minimum: ['minimum', num],
    exclusiveMinimum: ['exclusiveMinimum', bool], maxLength: ['maxLength', int], minLength: ['minLength', int], pattern: ['pattern', str],
    maxItems: ['maxItems', int], minItems: ['minItems', int], uniqueItems: ['uniqueItems', bool], maxProperties: ['maxProperties', int],
    minProperties: ['minProperties', int], required: ['required', strs], enum: ['enum', anys],
    additionalProperties: ['additionalProperties', (v, path) => (typeof v === 'boolean' ? { boolean: v } : { schema: schema(v, path) })],
    type: ['type', (v, path) => ({ value: typeof v === 'string' ? [v] : strs(v, path) })],
    items: ['items', (v, path) => ({ schema: Array.isArray(v) ? list(schema)(v, path) : [schema(v, path)] })],
    allOf: ['allOf', list(schema)], properties: ['properties', namedMap(schema)], discriminator: ['discriminator', str],
    readOnly: ['readOnly', bool], xml: ['xml', xml], externalDocs: ['externalDocs', externalDocs], example: ['example', anyConv],
  },
}));

const jsonReference = shaped(() => ({ fields: { $ref: ['_ref', str], description: ['description', str] }, required: ['$ref'], extensions: false }));

const paramHead: Record<string, readonly [string, Conv]> = {
  required: ['required', bool], in: ['in', str], description: ['description', str], name: ['name', str],
};
const nonBodyFields = { ...paramHead, ...primitiveFields, items: ['items', primitivesItems] as const };
const withEmptyValue = { ...nonBodyFields, allowEmptyValue: ['allowEmptyValue', bool] as const };
/** The non-body sub-schema by `in`; a path parameter must say `required`. */
const nonBody: Readonly<Record<string, readonly [string, Conv]>> = {
  header: ['headerParameterSubSchema', shaped(() => ({ fields: nonBodyFields }))],
  formData: ['formDataParameterSubSchema', shaped(() => ({ fields: withEmptyValue }))],
  query: ['queryParameterSubSchema', shaped(() => ({ fields: withEmptyValue }))],
  path: ['pathParameterSubSchema', shaped(() => ({ fields: nonBodyFields, required: ['required'] }))],
};
const bodyParameter = shaped(() => ({
  fields: { description: ['description', str], name: ['name', str], in: ['in', str], required: ['required', bool], schema: ['schema', schema] },
  required: ['in', 'name', 'schema'],
}));

function parameter(v: Json, path: string): Msg {
  const o = object(v, path);
  if (o['in'] === 'body') return { bodyParameter: bodyParameter(o, path) };
  for (const key of ['in', 'name', 'type']) if (!(key in o)) fail(path, `is missing required property: ${key}`);
  const sub = nonBody[String(o['in'])] ?? fail(`${path}.in`, `has unexpected value: ${JSON.stringify(o['in'])}`);
  return { nonBodyParameter: { [sub[0]]: sub[1](o, path) } };
}

const parametersItem: Conv = (v, path) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && '$ref' in v ? { jsonReference: jsonReference(v, path) } : { parameter: parameter(v, path) };

const response = shaped(() => ({
  fields: {
    description: ['description', str],
    // gnostic tries Schema first, and a Schema accepts every shape a FileSchema has.
    schema: ['schema', (v, path) => ({ schema: schema(v, path) })],
    headers: ['headers', namedMap(header)],
    examples: ['examples', namedMap(anyConv)],
  },
  required: ['description'],
}));
const responseValue: Conv = (v, path) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && '$ref' in v ? { jsonReference: jsonReference(v, path) } : { response: response(v, path) };

const responseCode = /^([0-9]{3})$|^(default)$/;
function responses(v: Json, path: string): Msg {
  const responseCodes: Msg[] = [];
  const vendor: Msg[] = [];
  for (const [key, value] of Object.entries(object(v, path))) {
    if (responseCode.test(key)) responseCodes.push({ name: key, value: responseValue(value, `${path}.${key}`) });
    else if (key.startsWith('x-')) vendor.push({ name: key, value: any(value) });
    else fail(path, `has invalid property: ${key}`);
  }
  return { ...(responseCodes.length > 0 ? { responseCode: responseCodes } : {}), ...(vendor.length > 0 ? { vendorExtension: vendor } : {}) };
}

/** A security requirement: scheme name -> list of scopes. */
const securityRequirement = namedMap((v, path) => ({ value: strs(v, path) }));

const operation = shaped(() => ({
  fields: {
    tags: ['tags', strs], summary: ['summary', str], description: ['description', str], externalDocs: ['externalDocs', externalDocs],
    operationId: ['operationId', str], produces: ['produces', strs], consumes: ['consumes', strs],
    parameters: ['parameters', list(parametersItem)], responses: ['responses', responses], schemes: ['schemes', strs],
    deprecated: ['deprecated', bool], security: ['security', list(securityRequirement)],
  },
  required: ['responses'],
}));

const pathItem = shaped(() => ({
  fields: {
    $ref: ['_ref', str], get: ['get', operation], put: ['put', operation], post: ['post', operation], delete: ['delete', operation],
    options: ['options', operation], head: ['head', operation], patch: ['patch', operation], parameters: ['parameters', list(parametersItem)],
  },
}));

function paths(v: Json, path: string): Msg {
  const items: Msg[] = [];
  const vendor: Msg[] = [];
  for (const [key, value] of Object.entries(object(v, path))) {
    if (key.startsWith('/')) items.push({ name: key, value: pathItem(value, `${path}.${key}`) });
    else if (key.startsWith('x-')) vendor.push({ name: key, value: any(value) });
    else fail(path, `has invalid property: ${key}`);
  }
  return { ...(vendor.length > 0 ? { vendorExtension: vendor } : {}), ...(items.length > 0 ? { path: items } : {}) };
}

const scopes = namedMap(str);
/** Security schemes, told apart by `type` (and `flow` for oauth2). */
function securityDefinitionsItem(v: Json, path: string): Msg {
  const o = object(v, path);
  const base = { type: ['type', str], description: ['description', str] } as const;
  const oauth = { ...base, flow: ['flow', str], scopes: ['scopes', scopes] } as const;
  switch (o['type'] === 'oauth2' ? `oauth2/${String(o['flow'])}` : o['type']) {
    case 'basic':
      return { basicAuthenticationSecurity: convert({ fields: base, required: ['type'] }, o, path) };
    case 'apiKey':
      return { apiKeySecurity: convert({ fields: { ...base, name: ['name', str], in: ['in', str] }, required: ['in', 'name', 'type'] }, o, path) };
    case 'oauth2/implicit':
      return { oauth2ImplicitSecurity: convert({ fields: { ...oauth, authorizationUrl: ['authorizationUrl', str] } }, o, path) };
    case 'oauth2/password':
      return { oauth2PasswordSecurity: convert({ fields: { ...oauth, tokenUrl: ['tokenUrl', str] } }, o, path) };
    case 'oauth2/application':
      return { oauth2ApplicationSecurity: convert({ fields: { ...oauth, tokenUrl: ['tokenUrl', str] } }, o, path) };
    case 'oauth2/accessCode':
      return {
        oauth2AccessCodeSecurity: convert({ fields: { ...oauth, authorizationUrl: ['authorizationUrl', str], tokenUrl: ['tokenUrl', str] } }, o, path),
      };
    default:
      return fail(path, 'contains an invalid SecurityDefinitionsItem');
  }
}

const contact = shaped(() => ({ fields: { name: ['name', str], url: ['url', str], email: ['email', str] } }));
const license = shaped(() => ({ fields: { name: ['name', str], url: ['url', str] }, required: ['name'] }));

const info = shaped(() => ({
  fields: {
    title: ['title', str], version: ['version', str], description: ['description', str], termsOfService: ['termsOfService', str],
    contact: ['contact', contact], license: ['license', license],
  },
  required: ['title', 'version'],
}));

const tag = shaped(() => ({
  fields: { name: ['name', str], description: ['description', str], externalDocs: ['externalDocs', externalDocs] },
  required: ['name'],
}));

const documentShape: Shape = {
  fields: {
    swagger: ['swagger', str], info: ['info', info], host: ['host', str], basePath: ['basePath', str], schemes: ['schemes', strs],
    consumes: ['consumes', strs], produces: ['produces', strs], paths: ['paths', paths], definitions: ['definitions', namedMap(schema)],
    parameters: ['parameters', namedMap((v, path) => parameter(v, path))], responses: ['responses', namedMap(response)],
    security: ['security', list(securityRequirement)], securityDefinitions: ['securityDefinitions', namedMap(securityDefinitionsItem)],
    tags: ['tags', list(tag)], externalDocs: ['externalDocs', externalDocs],
  },
  required: ['info', 'paths', 'swagger'],
};

/** The `openapi.v2.Document` message of a parsed Swagger 2.0 document; throws GnosticError where gnostic would. */
export function gnosticDocument(doc: unknown): Msg {
  return convert(documentShape, doc as Json, '$root');
}
