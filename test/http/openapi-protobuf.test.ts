/**
 * `/openapi/v2` in protobuf over real servers on both backends, read back by protobufjs from a `.proto`
 * written here from gnostic's OpenAPIv2.proto field numbers (independent of the server's descriptor: proto
 * names, parsed from text). The decoded Document, turned back into Swagger JSON by the reader below (the
 * inverse of gnostic's compiler), must equal the JSON document the same server serves, in both domain
 * modes; the named lists keep the document's order. Also: both Accept names, the shared ETag, 304,
 * `Vary`, gzip, HEAD and 406; and the CBOR media types listed only with CBORServingAndStorage on.
 */
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';
import { resolveFeatureGates } from '../../apiserver/features/feature-gates.js';
import { backends, describeBackends, stopBackends, type TestApi } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const all = backends();
afterAll(() => stopBackends(all));

const ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const ACCEPT_NEW = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

// The messages a Kubernetes Swagger document uses (oauth2 schemes, Xml and FileSchema left out: protobufjs
// skips fields it does not know, and the round trip below would then fail).
const GNOSTIC_V2 = `
syntax = "proto3";
package openapi.v2;
message ProtoAny { string type_url = 1; bytes value = 2; }
message Any { ProtoAny value = 1; string yaml = 2; }
message NamedAny { string name = 1; Any value = 2; }
message Document {
  string swagger = 1; Info info = 2; string host = 3; string base_path = 4; repeated string schemes = 5;
  repeated string consumes = 6; repeated string produces = 7; Paths paths = 8; Definitions definitions = 9;
  repeated SecurityRequirement security = 12; SecurityDefinitions security_definitions = 13; repeated NamedAny vendor_extension = 16;
}
message Info { string title = 1; string version = 2; string description = 3; repeated NamedAny vendor_extension = 7; }
message Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
message NamedPathItem { string name = 1; PathItem value = 2; }
message PathItem {
  string _ref = 1; Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5; Operation options = 6;
  Operation head = 7; Operation patch = 8; repeated ParametersItem parameters = 9; repeated NamedAny vendor_extension = 10;
}
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5; repeated string produces = 6;
  repeated string consumes = 7; repeated ParametersItem parameters = 8; Responses responses = 9; repeated string schemes = 10;
  bool deprecated = 11; repeated NamedAny vendor_extension = 13;
}
message ParametersItem { oneof oneof { Parameter parameter = 1; JsonReference json_reference = 2; } }
message JsonReference { string _ref = 1; string description = 2; }
message Parameter { oneof oneof { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message BodyParameter {
  string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; repeated NamedAny vendor_extension = 6;
}
message NonBodyParameter {
  oneof oneof {
    SubSchema header_parameter_sub_schema = 1; QuerySubSchema form_data_parameter_sub_schema = 2;
    QuerySubSchema query_parameter_sub_schema = 3; SubSchema path_parameter_sub_schema = 4;
  }
}
message QuerySubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; bool allow_empty_value = 5; string type = 6;
  string format = 7; string collection_format = 9; Any default = 10; int64 max_length = 15; int64 min_length = 16;
  string pattern = 17; bool unique_items = 20; repeated Any enum = 21; repeated NamedAny vendor_extension = 23;
}
message SubSchema {
  bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; string format = 6;
  string collection_format = 8; Any default = 9; int64 max_length = 14; int64 min_length = 15; string pattern = 16;
  bool unique_items = 19; repeated Any enum = 20; repeated NamedAny vendor_extension = 22;
}
message Responses { repeated NamedResponseValue response_code = 1; repeated NamedAny vendor_extension = 2; }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message ResponseValue { oneof oneof { Response response = 1; JsonReference json_reference = 2; } }
message Response { string description = 1; SchemaItem schema = 2; repeated NamedAny vendor_extension = 5; }
message SchemaItem { oneof oneof { Schema schema = 1; } }
message Definitions { repeated NamedSchema additional_properties = 1; }
message NamedSchema { string name = 1; Schema value = 2; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5; double multiple_of = 6;
  double maximum = 7; bool exclusive_maximum = 8; double minimum = 9; bool exclusive_minimum = 10; int64 max_length = 11;
  int64 min_length = 12; string pattern = 13; int64 max_items = 14; int64 min_items = 15; bool unique_items = 16;
  int64 max_properties = 17; int64 min_properties = 18; repeated string required = 19; repeated Any enum = 20;
  AdditionalPropertiesItem additional_properties = 21; TypeItem type = 22; ItemsItem items = 23; repeated Schema all_of = 24;
  Properties properties = 25; string discriminator = 26; bool read_only = 27; Any example = 30; repeated NamedAny vendor_extension = 31;
}
message AdditionalPropertiesItem { oneof oneof { Schema schema = 1; bool boolean = 2; } }
message TypeItem { repeated string value = 1; }
message ItemsItem { repeated Schema schema = 1; }
message Properties { repeated NamedSchema additional_properties = 1; }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message StringArray { repeated string value = 1; }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message SecurityDefinitionsItem { oneof oneof { BasicSecurity basic_authentication_security = 1; ApiKeySecurity api_key_security = 2; } }
message BasicSecurity { string type = 1; string description = 2; repeated NamedAny vendor_extension = 3; }
message ApiKeySecurity { string type = 1; string name = 2; string in = 3; string description = 4; repeated NamedAny vendor_extension = 5; }
`;

const Document = protobuf.parse(GNOSTIC_V2, { keepCase: true }).root.lookupType('openapi.v2.Document');
const decode = (bytes: Buffer): any => Document.toObject(Document.decode(bytes), { longs: Number, defaults: false });

// ---- The reader: a decoded gnostic Document back to Swagger JSON. ----
type M = Record<string, any>;
/** kubectl reads `Any.yaml` with a YAML 1.1 parser. */
const fromAny = (a: M): unknown => parseYaml(a.yaml, { version: '1.1' });
const named = (list: M[] | undefined, f: (v: M) => unknown): M => Object.fromEntries((list ?? []).map((p) => [p.name, f(p.value ?? {})]));
function copy(from: M, out: M, names: Record<string, string>): M {
  for (const [proto, json] of Object.entries(names)) if (from[proto] !== undefined) out[json] = from[proto];
  for (const e of from.vendor_extension ?? []) out[e.name] = fromAny(e.value);
  return out;
}

function schema(s: M): M {
  const out: M = {};
  if (s.default !== undefined) out.default = fromAny(s.default);
  if (s.enum !== undefined) out.enum = s.enum.map(fromAny);
  if (s.example !== undefined) out.example = fromAny(s.example);
  const ap = s.additional_properties;
  if (ap !== undefined) out.additionalProperties = ap.schema !== undefined ? schema(ap.schema) : ap.boolean;
  if (s.type !== undefined) out.type = s.type.value.length === 1 ? s.type.value[0] : s.type.value;
  if (s.items !== undefined) out.items = s.items.schema.length === 1 ? schema(s.items.schema[0]) : s.items.schema.map(schema);
  if (s.all_of !== undefined) out.allOf = s.all_of.map(schema);
  if (s.properties !== undefined) out.properties = named(s.properties.additional_properties, schema);
  return copy(s, out, {
    _ref: '$ref', format: 'format', title: 'title', description: 'description', multiple_of: 'multipleOf', maximum: 'maximum',
    exclusive_maximum: 'exclusiveMaximum', minimum: 'minimum', exclusive_minimum: 'exclusiveMinimum', max_length: 'maxLength',
    min_length: 'minLength', pattern: 'pattern', max_items: 'maxItems', min_items: 'minItems', unique_items: 'uniqueItems',
    max_properties: 'maxProperties', min_properties: 'minProperties', required: 'required', discriminator: 'discriminator',
    read_only: 'readOnly',
  });
}

function parameter(item: M): M {
  if (item.json_reference !== undefined) return { $ref: item.json_reference._ref };
  const { body_parameter: body, non_body_parameter: nonBody } = item.parameter;
  if (body !== undefined) {
    return copy(body, { ...(body.schema === undefined ? {} : { schema: schema(body.schema) }) }, { description: 'description', name: 'name', in: 'in', required: 'required' });
  }
  const sub = nonBody.query_parameter_sub_schema ?? nonBody.path_parameter_sub_schema ?? nonBody.header_parameter_sub_schema ?? nonBody.form_data_parameter_sub_schema;
  const out: M = {};
  if (sub.default !== undefined) out.default = fromAny(sub.default);
  if (sub.enum !== undefined) out.enum = sub.enum.map(fromAny);
  return copy(sub, out, {
    required: 'required', in: 'in', description: 'description', name: 'name', allow_empty_value: 'allowEmptyValue', type: 'type',
    format: 'format', collection_format: 'collectionFormat', max_length: 'maxLength', min_length: 'minLength', pattern: 'pattern',
    unique_items: 'uniqueItems',
  });
}

function operation(op: M): M {
  const responses = named(op.responses?.response_code, (v) =>
    v.json_reference !== undefined
      ? { $ref: v.json_reference._ref }
      : copy(v.response, { ...(v.response.schema === undefined ? {} : { schema: schema(v.response.schema.schema) }) }, { description: 'description' }));
  const out: M = { responses: copy(op.responses ?? {}, responses, {}) };
  if (op.parameters !== undefined) out.parameters = op.parameters.map(parameter);
  return copy(op, out, {
    tags: 'tags', summary: 'summary', description: 'description', operation_id: 'operationId', produces: 'produces', consumes: 'consumes',
    schemes: 'schemes', deprecated: 'deprecated',
  });
}

function pathItem(p: M): M {
  const out: M = {};
  for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']) if (p[method] !== undefined) out[method] = operation(p[method]);
  if (p.parameters !== undefined) out.parameters = p.parameters.map(parameter);
  return copy(p, out, { _ref: '$ref' });
}

function swagger(d: M): M {
  const out: M = {
    info: copy(d.info, {}, { title: 'title', version: 'version', description: 'description' }),
    paths: copy(d.paths, named(d.paths.path, pathItem), {}),
    definitions: named(d.definitions?.additional_properties, schema),
  };
  if (d.security !== undefined) out.security = d.security.map((r: M) => named(r.additional_properties, (v) => v.value ?? []));
  if (d.security_definitions !== undefined) {
    out.securityDefinitions = named(d.security_definitions.additional_properties, (v) => {
      const s = v.api_key_security ?? v.basic_authentication_security;
      return copy(s, {}, { type: 'type', name: 'name', in: 'in', description: 'description' });
    });
  }
  return copy(d, out, { swagger: 'swagger', host: 'host', base_path: 'basePath', schemes: 'schemes', consumes: 'consumes', produces: 'produces' });
}

/**
 * What proto3 cannot carry: zero scalars (false, 0, "") and empty repeated fields, outside extension and
 * Any values. A security requirement's scope list is a StringArray message, present even when empty.
 */
function withoutZeroValues(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutZeroValues);
  if (v === null || typeof v !== 'object') return v;
  const out: M = {};
  for (const [k, child] of Object.entries(v)) {
    if (k.startsWith('x-') || k === 'default' || k === 'example' || k === 'enum' || k === 'security') out[k] = child;
    else if (child !== false && child !== 0 && child !== '' && !(Array.isArray(child) && child.length === 0)) out[k] = withoutZeroValues(child);
  }
  return out;
}

async function v2Both(api: TestApi): Promise<{ json: any; jsonEtag: string; bytes: Buffer; res: Awaited<ReturnType<TestApi['request']>> }> {
  const jsonRes = await api.request('GET', '/openapi/v2', { headers: { Accept: 'application/json' } });
  expect(jsonRes.status).toBe(200);
  const res = await api.request('GET', '/openapi/v2', { headers: { Accept: ACCEPT }, query: { timeout: '32s' } });
  expect(res.status).toBe(200);
  return { json: jsonRes.json(), jsonEtag: jsonRes.headers.etag as string, bytes: res.raw, res };
}

describeBackends(all, (b) => {
  for (const domain of ['platform.io', 'k8s.io'] as const) {
    describe(`--group-domain=${domain}`, () => {
      let api: TestApi;
      beforeAll(async () => {
        api = await b.start({ groupDomain: domain });
      });

      it('decodes, with an independent .proto, to the same document as the JSON, lists in document order', async () => {
        const { json, bytes, res } = await v2Both(api);
        expect(res.headers['content-type']).toBe(ACCEPT_NEW);
        const doc = decode(bytes);
        expect(doc.paths.path.map((p: M) => p.name)).toEqual(Object.keys(json.paths));
        expect(doc.definitions.additional_properties.map((d: M) => d.name)).toEqual(Object.keys(json.definitions));
        const back = swagger(doc);
        const expected = withoutZeroValues(json) as M;
        // Several paths and definitions first, for readable failures; then the whole document.
        for (const path of ['/api/v1/namespaces/{namespace}/configmaps/{name}', '/api/v1/namespaces', '/api/v1/watch/namespaces/{namespace}/secrets']) {
          expect(back.paths[path]).toEqual(expected.paths[path]);
        }
        const core = domain === 'k8s.io' ? 'io.k8s.api.core.v1' : 'io.platform.api.core.v1';
        const meta = domain === 'k8s.io' ? 'io.k8s.apimachinery.pkg.apis.meta.v1' : 'io.platform.apimachinery.pkg.apis.meta.v1';
        for (const def of [`${core}.ConfigMap`, `${core}.SecretList`, `${core}.PodTemplate`, `${meta}.ObjectMeta`, `${meta}.DeleteOptions`]) {
          expect(back.definitions[def]).toEqual(expected.definitions[def]);
        }
        expect(back).toEqual(expected);
      });

      it('carries the shapes kubectl reads: GVK extensions as YAML, parameter oneofs, $ref as _ref, maps', async () => {
        const { bytes } = await v2Both(api);
        const doc = decode(bytes);
        const item = doc.paths.path.find((p: M) => p.name === '/api/v1/namespaces/{namespace}/configmaps/{name}').value;
        const patch = item.patch;
        // kubectl's query-parameter verifier: a PATCH whose GVK extension (YAML) names the kind, with fieldValidation.
        const gvk = patch.vendor_extension.find((e: M) => e.name === 'x-kubernetes-group-version-kind');
        expect(parseYaml(gvk.value.yaml, { version: '1.1' })).toEqual({ group: '', version: 'v1', kind: 'ConfigMap' });
        expect(patch.parameters[0].parameter.body_parameter).toMatchObject({ name: 'body', in: 'body', required: true });
        expect(patch.parameters[0].parameter.body_parameter.schema._ref).toMatch(/\.meta\.v1\.Patch$/);
        const names = patch.parameters.slice(1).map((p: M) => p.parameter.non_body_parameter.query_parameter_sub_schema.name);
        expect(names).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);
        expect(item.parameters[0].parameter.non_body_parameter.path_parameter_sub_schema).toMatchObject({ name: 'name', in: 'path', required: true });
        expect(patch.consumes).toEqual([
          'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml',
        ]);
        const pb = domain === 'k8s.io' ? 'application/vnd.kubernetes.protobuf' : 'application/vnd.platform.protobuf';
        expect(patch.produces).toEqual(['application/json', 'application/yaml', pb]);
        expect(patch.responses.response_code.map((r: M) => r.name)).toEqual(['200', '201', '401']);

        const cm = doc.definitions.additional_properties.find((d: M) => d.name.endsWith('.core.v1.ConfigMap')).value;
        expect(cm.type.value).toEqual(['object']);
        const prop = (s: M, name: string): M => s.properties.additional_properties.find((p: M) => p.name === name).value;
        expect(prop(cm, 'data').additional_properties.schema.type.value).toEqual(['string']);
        expect(prop(cm, 'metadata')._ref).toMatch(/^#\/definitions\/.*\.meta\.v1\.ObjectMeta$/);
        const cmGvk = cm.vendor_extension.find((e: M) => e.name === 'x-kubernetes-group-version-kind');
        expect(parseYaml(cmGvk.value.yaml, { version: '1.1' })).toEqual([{ group: '', version: 'v1', kind: 'ConfigMap' }]);
        expect(doc.security_definitions.additional_properties[0]).toMatchObject({
          name: 'BearerToken', value: { api_key_security: { type: 'apiKey', name: 'authorization', in: 'header' } },
        });
      });

      it('shares the JSON ETag, answers If-None-Match with 304, and says Vary: Accept', async () => {
        const { jsonEtag, res } = await v2Both(api);
        expect(res.headers.etag).toBe(jsonEtag);
        expect(res.headers.vary).toContain('Accept');
        for (const accept of [ACCEPT, ACCEPT_NEW]) {
          const again = await api.request('GET', '/openapi/v2', { headers: { Accept: accept, 'If-None-Match': jsonEtag } });
          expect(again.status).toBe(304);
          expect(again.raw.length).toBe(0);
          const stale = await api.request('GET', '/openapi/v2', { headers: { Accept: accept, 'If-None-Match': '"0123"' } });
          expect(stale.status).toBe(200);
          expect(stale.headers['content-type']).toBe(ACCEPT_NEW);
          expect(stale.raw.equals(res.raw)).toBe(true);
        }
      });

      it('gzips for clients that accept it; HEAD has the headers and no body', async () => {
        const { bytes } = await v2Both(api);
        const gz = await api.request('GET', '/openapi/v2', { headers: { Accept: ACCEPT, 'Accept-Encoding': 'gzip' } });
        expect(gz.headers['content-encoding']).toBe('gzip');
        expect(gunzipSync(gz.raw).equals(bytes)).toBe(true);
        const head = await api.request('HEAD', '/openapi/v2', { headers: { Accept: ACCEPT } });
        expect(head.status).toBe(200);
        expect(head.headers['content-type']).toBe(ACCEPT_NEW);
        expect(head.raw.length).toBe(0);
      });

      it('answers 406 with a Status for media types it does not serve; */* is JSON', async () => {
        const res = await api.request('GET', '/openapi/v2', { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
        expect(res.status).toBe(406);
        expect(res.json()).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
        const wildcard = await api.request('GET', '/openapi/v2', { headers: { Accept: '*/*' } });
        expect(wildcard.headers['content-type']).toBe('application/json');
      });
    });
  }

  describe('--feature-gates=CBORServingAndStorage=true', () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await b.start({ groupDomain: 'k8s.io', features: resolveFeatureGates(new Map([['CBORServingAndStorage', true]])) });
    });

    it('lists the CBOR forms in both documents and in the protobuf form', async () => {
      const { json, bytes } = await v2Both(api);
      const path = '/api/v1/namespaces/{namespace}/configmaps';
      expect(json.paths[path].get.produces).toEqual([
        'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor',
        'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch', 'application/cbor-seq',
      ]);
      expect(json.paths[`${path}/{name}`].patch.consumes).toContain('application/apply-patch+cbor');
      const item = decode(bytes).paths.path.find((p: M) => p.name === `${path}/{name}`).value;
      expect(item.patch.consumes).toEqual(json.paths[`${path}/{name}`].patch.consumes);
      const root = (await api.request('GET', '/openapi/v3')).json();
      const v3 = (await api.request('GET', root.paths['api/v1'].serverRelativeURL)).json();
      expect(Object.keys(v3.paths[`${path}/{name}`].patch.requestBody.content)).toContain('application/apply-patch+cbor');
      expect(Object.keys(v3.paths[`${path}/{name}`].get.responses['200'].content)).toContain('application/cbor');
    });
  });
});
