/**
 * Decodes the object body of create and update: JSON or YAML by Content-Type (protobuf bodies come with
 * the media-type issue: 415 until then), `apiVersion`/`kind` defaulted from the URL when omitted and a
 * mismatch refused (400), then unknown and duplicate fields per `fieldValidation` (schema/decode.ts), a
 * Strict failure worded as kube's create and update word it.
 */
import type { KubeObject } from '../../api/object.js';
import { apiVersionOf } from '../../api/object.js';
import { requestContentType, type BodyFormat } from '../../codec/request-content-type.js';
import { badRequest } from '../../errors/constructors.js';
import { isStatusError } from '../../errors/status-error.js';
import { decodeParsed, type FieldValidation } from '../../schema/decode.js';
import { parseJsonStrict } from '../../schema/json-strict.js';
import { parseYamlStrict } from '../../schema/yaml-strict.js';
import { maxRequestBodyBytes } from '../../server/app.js';
import { readBody } from './read-body.js';
import type { RequestScope } from './request-scope.js';

const OBJECT_FORMATS: readonly BodyFormat[] = ['json', 'yaml'];

export interface DecodedRequestObject {
  readonly object: KubeObject;
  readonly warnings: string[];
}

export async function decodeRequestObject(scope: RequestScope, fieldValidation: FieldValidation): Promise<DecodedRequestObject> {
  const format = requestContentType(scope.ctx.get('Content-Type') || undefined, OBJECT_FORMATS, scope.naming);
  const text = await readBody(scope.ctx, maxRequestBodyBytes);
  if (text.trim() === '') throw badRequest('the body of the request was empty');
  const detect = fieldValidation !== 'Ignore';
  const { value, duplicateFields } = format === 'yaml' ? parseYamlStrict(text, detect) : parseJsonStrict(text, detect);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`the body of the request must be an object, got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`);
  }
  const obj = value as Record<string, unknown>;
  checkTypeMeta(scope, obj);
  const decoded = decodeAs(scope, obj, duplicateFields, fieldValidation);
  const object = decoded.object as KubeObject;
  object.metadata ??= {};
  return { object, warnings: decoded.warnings };
}

/**
 * Unknown and duplicate fields per `fieldValidation`. A Strict failure names the kind the body could not be
 * decoded as, as kube's create and update do (`ConfigMap in version "v1" cannot be handled as a ConfigMap:
 * strict decoding error: unknown field "datax"`); patch reports the bare strict decoding error.
 */
function decodeAs(scope: RequestScope, obj: Record<string, unknown>, duplicateFields: readonly string[], fieldValidation: FieldValidation) {
  const { strategy } = scope.served;
  try {
    return decodeParsed(obj, duplicateFields, strategy.schema, fieldValidation);
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
