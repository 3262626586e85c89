/**
 * Decodes the object body of create and update: JSON, YAML, protobuf (kinds with field numbers) or CBOR
 * (gate CBORServingAndStorage) by Content-Type, `apiVersion`/`kind` defaulted from the URL when omitted (protobuf: when the envelope
 * leaves them empty) and a mismatch refused (400), then unknown and duplicate fields per
 * `fieldValidation` (schema/decode.ts; a protobuf field number the schema lacks is an unknown field
 * `path.#n`), a Strict failure worded as kube's create and update word it. A malformed protobuf body is a
 * 400 naming what is wrong.
 */
import type { KubeObject } from '../../api/object.js';
import { apiVersionOf } from '../../api/object.js';
import { requestContentType, type BodyFormat } from '../../codec/request-content-type.js';
import { badRequest } from '../../errors/constructors.js';
import { isStatusError } from '../../errors/status-error.js';
import { decodeCborObject } from '../../codec/cbor/decode.js';
import { decodeProtobuf, servesProtobuf } from '../../codec/protobuf/protobuf-codec.js';
import { ProtobufError } from '../../codec/protobuf/wire-reader.js';
import { decodeParsed, type FieldValidation } from '../../schema/decode.js';
import { parseJsonStrict } from '../../schema/json-strict.js';
import { parseYamlStrict } from '../../schema/yaml-strict.js';
import { maxRequestBodyBytes } from '../../request/limits.js';
import { readBodyBytes } from './read-body.js';
import type { RequestScope } from './request-scope.js';

/** What create and update take: JSON, YAML, protobuf for kinds with field numbers, CBOR behind its gate. */
function bodyFormats(protobuf: boolean, cbor: boolean): readonly BodyFormat[] {
  const formats: BodyFormat[] = ['json', 'yaml'];
  if (protobuf) formats.push('protobuf');
  if (cbor) formats.push('cbor');
  return formats;
}

export interface DecodedRequestObject {
  readonly object: KubeObject;
  readonly warnings: string[];
}

export async function decodeRequestObject(scope: RequestScope, fieldValidation: FieldValidation): Promise<DecodedRequestObject> {
  const decoded = await decodeBody(scope, fieldValidation);
  // The audit log's requestObject (and objectRef name/namespace), as decoded, before admission and defaults.
  scope.ctx.state.audit?.requestObject(decoded.object);
  return decoded;
}

async function decodeBody(scope: RequestScope, fieldValidation: FieldValidation): Promise<DecodedRequestObject> {
  const { schema } = scope.served.strategy;
  const accepted = bodyFormats(servesProtobuf(schema), scope.features.enabled('CBORServingAndStorage'));
  const format = requestContentType(scope.ctx.get('Content-Type') || undefined, accepted, scope.naming);
  const bytes = await readBodyBytes(scope.ctx, maxRequestBodyBytes);
  if (format === 'protobuf') return decodeProtobufObject(scope, bytes, fieldValidation);
  if (bytes.length === 0 || (format !== 'cbor' && bytes.toString('utf8').trim() === '')) throw badRequest('the body of the request was empty');
  const detect = fieldValidation !== 'Ignore';
  const { value, duplicateFields } =
    format === 'cbor' ? decodeCborObject(bytes, schema) : format === 'yaml' ? parseYamlStrict(bytes.toString('utf8'), detect) : parseJsonStrict(bytes.toString('utf8'), detect);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`the body of the request must be an object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
  }
  const obj = value as Record<string, unknown>;
  checkTypeMeta(scope, obj);
  return finish(decodeAs(scope, obj, duplicateFields, fieldValidation, []));
}

function decodeProtobufObject(scope: RequestScope, bytes: Buffer, fieldValidation: FieldValidation): DecodedRequestObject {
  if (bytes.length === 0) throw badRequest('the body of the request was empty');
  let decoded;
  try {
    decoded = decodeProtobuf(bytes, scope.served.strategy.schema);
  } catch (err) {
    if (err instanceof ProtobufError) throw badRequest(`the body of the request could not be decoded as protobuf: ${err.message}`);
    throw err;
  }
  // apiVersion and kind first, as in a JSON body.
  const obj: Record<string, unknown> = { apiVersion: decoded.apiVersion, kind: decoded.kind, ...decoded.value };
  checkTypeMeta(scope, obj);
  return finish(decodeAs(scope, obj, [], fieldValidation, decoded.unknown));
}

function finish(decoded: { object: unknown; warnings: string[] }): DecodedRequestObject {
  const object = decoded.object as KubeObject;
  object.metadata ??= {};
  return { object, warnings: decoded.warnings };
}

/**
 * Unknown and duplicate fields per `fieldValidation`. A Strict failure names the kind the body could not be
 * decoded as, as kube's create and update do (`ConfigMap in version "v1" cannot be handled as a ConfigMap:
 * strict decoding error: unknown field "datax"`); patch reports the bare strict decoding error.
 */
function decodeAs(scope: RequestScope, obj: Record<string, unknown>, duplicateFields: readonly string[], fieldValidation: FieldValidation, codecUnknown: readonly string[]) {
  const { strategy } = scope.served;
  try {
    // Go's decoder refuses an ObjectMeta that is not an object before anything reads it (null is skipped).
    const meta = obj.metadata;
    if (meta !== undefined && meta !== null && (typeof meta !== 'object' || Array.isArray(meta))) {
      const type = typeof meta === 'string' ? 'string' : typeof meta === 'boolean' ? 'bool' : Array.isArray(meta) ? 'array' : 'number';
      throw badRequest(`json: cannot unmarshal ${type} into Go struct field ${strategy.kind}.metadata of type v1.ObjectMeta`);
    }
    const kindUnknown = strategy.unknownFields?.(obj, scope.naming) ?? [];
    return decodeParsed(obj, duplicateFields, strategy.schema, fieldValidation, kindUnknown.length === 0 ? codecUnknown : [...codecUnknown, ...kindUnknown]);
  } catch (err) {
    if (isStatusError(err) && err.reason === 'BadRequest') {
      throw badRequest(`${strategy.kind} in version "${strategy.version}" cannot be handled as a ${strategy.kind}: ${err.message}`);
    }
    throw err;
  }
}

/** Defaults apiVersion and kind from the URL (clients may omit them) and refuses other kinds. */
function checkTypeMeta(scope: RequestScope, obj: Record<string, unknown>): void {
  const { strategy, group } = scope.served;
  const expectedVersion = apiVersionOf(group, strategy.version);
  const kind = obj.kind;
  const apiVersion = obj.apiVersion;
  if (kind === undefined || kind === '') obj.kind = strategy.kind;
  else if (kind !== strategy.kind) {
    throw badRequest(`the kind of the object (${String(kind)}) does not match the kind of the resource (${strategy.kind})`);
  }
  if (apiVersion === undefined || apiVersion === '') obj.apiVersion = expectedVersion;
  else if (apiVersion !== expectedVersion) {
    throw badRequest(`the API version in the data (${String(apiVersion)}) does not match the expected API version (${expectedVersion})`);
  }
}
