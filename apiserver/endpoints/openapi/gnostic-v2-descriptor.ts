/**
 * The gnostic `openapi.v2` messages (google/gnostic-models `openapiv2/OpenAPIv2.proto`) as a protobufjs JSON
 * descriptor, written from their field numbers. This is the wire form of `/openapi/v2` in protobuf: kubectl
 * (client-go's `OpenAPISchema`) unmarshals the response body into `openapi_v2.Document`.
 *
 * Field names are the proto names in lowerCamelCase (`vendor_extension` -> `vendorExtension`); `_ref` keeps
 * its underscore. Each entry is `name:type=number`, with a leading `*` for `repeated`. Every message of the
 * file is here, so the descriptor decodes any Document, not only the ones we produce.
 */
import type { INamespace, IType } from 'protobufjs';

type FieldList = readonly string[];

function message(fields: FieldList, oneof?: readonly string[]): IType {
  const out: IType = { fields: {} };
  for (const entry of fields) {
    const m = /^(\*?)(\w+):([\w.]+)=(\d+)$/.exec(entry);
    if (m === null) throw new Error(`bad field entry ${entry}`);
    const [, repeated, name, type, id] = m as unknown as [string, string, string, string, string];
    out.fields[name] = { type, id: Number(id), ...(repeated === '*' ? { rule: 'repeated' } : {}) };
  }
  // gnostic names each of its oneofs `oneof`.
  if (oneof !== undefined) out.oneofs = { oneof: { oneof: [...oneof] } };
  return out;
}

/** Fields shared by the four non-body parameter sub-schemas and PrimitivesItems/Header, from `type` on. */
const primitive = (first: number): string[] => [
  `type:string=${first}`, `format:string=${first + 1}`, `items:PrimitivesItems=${first + 2}`, `collectionFormat:string=${first + 3}`,
  `default:Any=${first + 4}`, `maximum:double=${first + 5}`, `exclusiveMaximum:bool=${first + 6}`, `minimum:double=${first + 7}`,
  `exclusiveMinimum:bool=${first + 8}`, `maxLength:int64=${first + 9}`, `minLength:int64=${first + 10}`, `pattern:string=${first + 11}`,
  `maxItems:int64=${first + 12}`, `minItems:int64=${first + 13}`, `uniqueItems:bool=${first + 14}`, `*enum:Any=${first + 15}`,
  `multipleOf:double=${first + 16}`,
];
const paramHead = ['required:bool=1', 'in:string=2', 'description:string=3', 'name:string=4'];
/** `name` + `value` pairs: gnostic's ordered maps. */
const named = (value: string): IType => message(['name:string=1', `value:${value}=2`]);

const v2: Record<string, IType> = {
  AdditionalPropertiesItem: message(['schema:Schema=1', 'boolean:bool=2'], ['schema', 'boolean']),
  Any: message(['value:google.protobuf.Any=1', 'yaml:string=2']),
  ApiKeySecurity: message(['type:string=1', 'name:string=2', 'in:string=3', 'description:string=4', '*vendorExtension:NamedAny=5']),
  BasicAuthenticationSecurity: message(['type:string=1', 'description:string=2', '*vendorExtension:NamedAny=3']),
  BodyParameter: message([
    'description:string=1', 'name:string=2', 'in:string=3', 'required:bool=4', 'schema:Schema=5', '*vendorExtension:NamedAny=6',
  ]),
  Contact: message(['name:string=1', 'url:string=2', 'email:string=3', '*vendorExtension:NamedAny=4']),
  Default: message(['*additionalProperties:NamedAny=1']),
  Definitions: message(['*additionalProperties:NamedSchema=1']),
  Document: message([
    'swagger:string=1', 'info:Info=2', 'host:string=3', 'basePath:string=4', '*schemes:string=5', '*consumes:string=6',
    '*produces:string=7', 'paths:Paths=8', 'definitions:Definitions=9', 'parameters:ParameterDefinitions=10',
    'responses:ResponseDefinitions=11', '*security:SecurityRequirement=12', 'securityDefinitions:SecurityDefinitions=13',
    '*tags:Tag=14', 'externalDocs:ExternalDocs=15', '*vendorExtension:NamedAny=16',
  ]),
  Examples: message(['*additionalProperties:NamedAny=1']),
  ExternalDocs: message(['description:string=1', 'url:string=2', '*vendorExtension:NamedAny=3']),
  FileSchema: message([
    'format:string=1', 'title:string=2', 'description:string=3', 'default:Any=4', '*required:string=5', 'type:string=6',
    'readOnly:bool=7', 'externalDocs:ExternalDocs=8', 'example:Any=9', '*vendorExtension:NamedAny=10',
  ]),
  FormDataParameterSubSchema: message([...paramHead, 'allowEmptyValue:bool=5', ...primitive(6), '*vendorExtension:NamedAny=23']),
  Header: message([...primitive(1), 'description:string=18', '*vendorExtension:NamedAny=19']),
  HeaderParameterSubSchema: message([...paramHead, ...primitive(5), '*vendorExtension:NamedAny=22']),
  Headers: message(['*additionalProperties:NamedHeader=1']),
  Info: message([
    'title:string=1', 'version:string=2', 'description:string=3', 'termsOfService:string=4', 'contact:Contact=5',
    'license:License=6', '*vendorExtension:NamedAny=7',
  ]),
  ItemsItem: message(['*schema:Schema=1']),
  JsonReference: message(['_ref:string=1', 'description:string=2']),
  License: message(['name:string=1', 'url:string=2', '*vendorExtension:NamedAny=3']),
  NamedAny: named('Any'),
  NamedHeader: named('Header'),
  NamedParameter: named('Parameter'),
  NamedPathItem: named('PathItem'),
  NamedResponse: named('Response'),
  NamedResponseValue: named('ResponseValue'),
  NamedSchema: named('Schema'),
  NamedSecurityDefinitionsItem: named('SecurityDefinitionsItem'),
  NamedString: named('string'),
  NamedStringArray: named('StringArray'),
  NonBodyParameter: message(
    [
      'headerParameterSubSchema:HeaderParameterSubSchema=1', 'formDataParameterSubSchema:FormDataParameterSubSchema=2',
      'queryParameterSubSchema:QueryParameterSubSchema=3', 'pathParameterSubSchema:PathParameterSubSchema=4',
    ],
    ['headerParameterSubSchema', 'formDataParameterSubSchema', 'queryParameterSubSchema', 'pathParameterSubSchema'],
  ),
  Oauth2AccessCodeSecurity: message([
    'type:string=1', 'flow:string=2', 'scopes:Oauth2Scopes=3', 'authorizationUrl:string=4', 'tokenUrl:string=5',
    'description:string=6', '*vendorExtension:NamedAny=7',
  ]),
  Oauth2ApplicationSecurity: message([
    'type:string=1', 'flow:string=2', 'scopes:Oauth2Scopes=3', 'tokenUrl:string=4', 'description:string=5', '*vendorExtension:NamedAny=6',
  ]),
  Oauth2ImplicitSecurity: message([
    'type:string=1', 'flow:string=2', 'scopes:Oauth2Scopes=3', 'authorizationUrl:string=4', 'description:string=5',
    '*vendorExtension:NamedAny=6',
  ]),
  Oauth2PasswordSecurity: message([
    'type:string=1', 'flow:string=2', 'scopes:Oauth2Scopes=3', 'tokenUrl:string=4', 'description:string=5', '*vendorExtension:NamedAny=6',
  ]),
  Oauth2Scopes: message(['*additionalProperties:NamedString=1']),
  Operation: message([
    '*tags:string=1', 'summary:string=2', 'description:string=3', 'externalDocs:ExternalDocs=4', 'operationId:string=5',
    '*produces:string=6', '*consumes:string=7', '*parameters:ParametersItem=8', 'responses:Responses=9', '*schemes:string=10',
    'deprecated:bool=11', '*security:SecurityRequirement=12', '*vendorExtension:NamedAny=13',
  ]),
  Parameter: message(['bodyParameter:BodyParameter=1', 'nonBodyParameter:NonBodyParameter=2'], ['bodyParameter', 'nonBodyParameter']),
  ParameterDefinitions: message(['*additionalProperties:NamedParameter=1']),
  ParametersItem: message(['parameter:Parameter=1', 'jsonReference:JsonReference=2'], ['parameter', 'jsonReference']),
  PathItem: message([
    '_ref:string=1', 'get:Operation=2', 'put:Operation=3', 'post:Operation=4', 'delete:Operation=5', 'options:Operation=6',
    'head:Operation=7', 'patch:Operation=8', '*parameters:ParametersItem=9', '*vendorExtension:NamedAny=10',
  ]),
  PathParameterSubSchema: message([...paramHead, ...primitive(5), '*vendorExtension:NamedAny=22']),
  Paths: message(['*vendorExtension:NamedAny=1', '*path:NamedPathItem=2']),
  PrimitivesItems: message([...primitive(1), '*vendorExtension:NamedAny=18']),
  Properties: message(['*additionalProperties:NamedSchema=1']),
  QueryParameterSubSchema: message([...paramHead, 'allowEmptyValue:bool=5', ...primitive(6), '*vendorExtension:NamedAny=23']),
  Response: message([
    'description:string=1', 'schema:SchemaItem=2', 'headers:Headers=3', 'examples:Examples=4', '*vendorExtension:NamedAny=5',
  ]),
  ResponseDefinitions: message(['*additionalProperties:NamedResponse=1']),
  ResponseValue: message(['response:Response=1', 'jsonReference:JsonReference=2'], ['response', 'jsonReference']),
  Responses: message(['*responseCode:NamedResponseValue=1', '*vendorExtension:NamedAny=2']),
  Schema: message([
    '_ref:string=1', 'format:string=2', 'title:string=3', 'description:string=4', 'default:Any=5', 'multipleOf:double=6',
    'maximum:double=7', 'exclusiveMaximum:bool=8', 'minimum:double=9', 'exclusiveMinimum:bool=10', 'maxLength:int64=11',
    'minLength:int64=12', 'pattern:string=13', 'maxItems:int64=14', 'minItems:int64=15', 'uniqueItems:bool=16',
    'maxProperties:int64=17', 'minProperties:int64=18', '*required:string=19', '*enum:Any=20',
    'additionalProperties:AdditionalPropertiesItem=21', 'type:TypeItem=22', 'items:ItemsItem=23', '*allOf:Schema=24',
    'properties:Properties=25', 'discriminator:string=26', 'readOnly:bool=27', 'xml:Xml=28', 'externalDocs:ExternalDocs=29',
    'example:Any=30', '*vendorExtension:NamedAny=31',
  ]),
  SchemaItem: message(['schema:Schema=1', 'fileSchema:FileSchema=2'], ['schema', 'fileSchema']),
  SecurityDefinitions: message(['*additionalProperties:NamedSecurityDefinitionsItem=1']),
  SecurityDefinitionsItem: message(
    [
      'basicAuthenticationSecurity:BasicAuthenticationSecurity=1', 'apiKeySecurity:ApiKeySecurity=2',
      'oauth2ImplicitSecurity:Oauth2ImplicitSecurity=3', 'oauth2PasswordSecurity:Oauth2PasswordSecurity=4',
      'oauth2ApplicationSecurity:Oauth2ApplicationSecurity=5', 'oauth2AccessCodeSecurity:Oauth2AccessCodeSecurity=6',
    ],
    [
      'basicAuthenticationSecurity', 'apiKeySecurity', 'oauth2ImplicitSecurity', 'oauth2PasswordSecurity', 'oauth2ApplicationSecurity',
      'oauth2AccessCodeSecurity',
    ],
  ),
  SecurityRequirement: message(['*additionalProperties:NamedStringArray=1']),
  StringArray: message(['*value:string=1']),
  Tag: message(['name:string=1', 'description:string=2', 'externalDocs:ExternalDocs=3', '*vendorExtension:NamedAny=4']),
  TypeItem: message(['*value:string=1']),
  VendorExtension: message(['*additionalProperties:NamedAny=1']),
  Xml: message([
    'name:string=1', 'namespace:string=2', 'prefix:string=3', 'attribute:bool=4', 'wrapped:bool=5', '*vendorExtension:NamedAny=6',
  ]),
};

/** The descriptor root: `openapi.v2.*` and the `google.protobuf.Any` it imports. */
export const gnosticV2Descriptor: INamespace = {
  nested: {
    openapi: { nested: { v2: { nested: v2 } } },
    google: { nested: { protobuf: { nested: { Any: message(['typeUrl:string=1', 'value:bytes=2']) } } } },
  },
};
