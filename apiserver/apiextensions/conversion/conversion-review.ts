/**
 * The ConversionReview exchanged with a conversion webhook, as Kubernetes v1.32 writes and reads it
 * (apiextensions-apiserver `webhook_converter.go`):
 *
 * - negotiation: the first of the definition's `conversionReviewVersions` the server knows (`v1`,
 *   `v1beta1`), else `no supported conversion review versions`;
 * - the request: `{kind: ConversionReview, apiVersion: <group>/<version>, request: {uid, desiredAPIVersion,
 *   objects}, response: {uid: "", convertedObjects: null, result: {metadata: {}}}}` (Go writes the empty
 *   response member too);
 * - the answer is decoded as the client's codec does: JSON or YAML, missing apiVersion/kind defaulted to the
 *   version sent, a review of the other version is `converting (...) to (...): unknown conversion`, Go's
 *   texts for syntax and type errors;
 * - checks: for v1, the answer's group/version/kind (`expected webhook response of ..., got ...`), a
 *   response (`no response provided`), the uid (`expected response.uid="a", got "b"`); for both, the result
 *   (its message, or `response.result.status was '<s>', not 'Success'`). v1beta1 answers are not checked
 *   for kind or uid, as upstream keeps them for compatibility;
 * - each converted object must decode as an unstructured object with a kind
 *   (`Object 'Kind' is missing in '<json>'`).
 */
import { parse as parseYaml } from 'yaml';
import { goJsonSyntaxError, goJsonValueType, goQuote } from './go-json.js';
import { parseApiVersion, type JsonObject } from './group-version.js';
import { isObject } from '../../api/json.js';

export type ReviewVersion = 'v1' | 'v1beta1';

/** The review version to send, or undefined when none of the definition's is known. */
export function negotiateReviewVersion(conversionReviewVersions: readonly string[]): ReviewVersion | undefined {
  for (const v of conversionReviewVersions) if (v === 'v1' || v === 'v1beta1') return v;
  return undefined;
}

export function conversionReviewRequest(group: string, version: ReviewVersion, uid: string, desiredAPIVersion: string, objects: readonly JsonObject[]): JsonObject {
  return {
    kind: 'ConversionReview',
    apiVersion: `${group}/${version}`,
    request: { uid, desiredAPIVersion, objects },
    response: { uid: '', convertedObjects: null, result: { metadata: {} } },
  };
}

/** A decode or check failure of the answer; the caller prefixes it. */
export class ReviewError extends Error {}

const TYPE_META_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** The body as the client's universal decoder reads it: JSON when it starts with `{`, else YAML. */
function decodeBody(text: string): unknown {
  if (text.trimStart().startsWith('{')) {
    const syntax = goJsonSyntaxError(text);
    if (syntax !== undefined) throw new ReviewError(`couldn't get version/kind; json parse error: ${syntax}`);
    return JSON.parse(text) as unknown;
  }
  let value: unknown;
  try {
    value = parseYaml(text) as unknown;
  } catch (e) {
    const first = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    throw new ReviewError(`error converting YAML to JSON: yaml: ${first}`);
  }
  if (value === null || value === undefined) return {};
  if (!isObject(value)) {
    throw new ReviewError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonValueType(value)} into Go value of type ${TYPE_META_STRUCT}`);
  }
  return value;
}

function typeError(value: unknown, field: string, goType: string): ReviewError {
  return new ReviewError(`json: cannot unmarshal ${goJsonValueType(value)} into Go struct field ConversionReview.${field} of type ${goType}`);
}

/**
 * Decodes and checks the webhook's answer; returns the converted objects (raw JSON values, not yet
 * checked as objects: see `unstructuredObject`).
 */
export function readConversionReview(text: string, group: string, sent: ReviewVersion, uid: string): unknown[] {
  const body = decodeBody(text) as JsonObject;
  const apiVersion = typeof body['apiVersion'] === 'string' ? body['apiVersion'] : '';
  const kind = typeof body['kind'] === 'string' ? body['kind'] : '';
  // Defaults from the type decoded into, as Go's gvkWithDefaults.
  const parsed = parseApiVersion(apiVersion) ?? { group: '', version: '' };
  let actual = { group: parsed.group, version: parsed.version, kind: kind === '' ? 'ConversionReview' : kind };
  if (actual.version === '' && actual.group === '') actual = { ...actual, group, version: sent };
  else if (actual.version === '' && actual.group === group) actual = { ...actual, version: sent };
  if (actual.group !== group || actual.version !== sent || actual.kind !== 'ConversionReview') {
    const gv = actual.group === '' ? actual.version : `${actual.group}/${actual.version}`;
    if (actual.group === group && actual.kind === 'ConversionReview' && (actual.version === 'v1' || actual.version === 'v1beta1')) {
      throw new ReviewError(`converting (${actual.version}.ConversionReview) to (${sent}.ConversionReview): unknown conversion`);
    }
    throw new ReviewError(`no kind ${goQuote(actual.kind)} is registered for version ${goQuote(gv)}`);
  }

  const pkg = sent;
  const response = body['response'];
  if (response !== undefined && response !== null && !isObject(response)) throw typeError(response, 'response', `${pkg}.ConversionResponse`);
  const uidValue = isObject(response) ? response['uid'] : undefined;
  if (uidValue !== undefined && uidValue !== null && typeof uidValue !== 'string') throw typeError(uidValue, 'response.uid', 'types.UID');
  const objects = isObject(response) ? response['convertedObjects'] : undefined;
  if (objects !== undefined && objects !== null && !Array.isArray(objects)) throw typeError(objects, 'response.convertedObjects', '[]runtime.RawExtension');
  const result = isObject(response) ? response['result'] : undefined;
  if (result !== undefined && result !== null && !isObject(result)) throw typeError(result, 'response.result', 'v1.Status');
  const status = isObject(result) ? result['status'] : undefined;
  const message = isObject(result) ? result['message'] : undefined;
  if (status !== undefined && status !== null && typeof status !== 'string') throw typeError(status, 'response.result.status', 'string');
  if (message !== undefined && message !== null && typeof message !== 'string') throw typeError(message, 'response.result.message', 'string');

  if (sent === 'v1') {
    const expected = `${group}/v1, Kind=ConversionReview`;
    const gotGv = parseApiVersion(apiVersion) ?? { group: '', version: '' };
    const got = `${gotGv.group}/${gotGv.version}, Kind=${kind}`;
    if (got !== expected) throw new ReviewError(`expected webhook response of ${expected}, got ${got}`);
  }
  if (!isObject(response)) throw new ReviewError('no response provided');
  if (sent === 'v1') {
    const gotUid = typeof uidValue === 'string' ? uidValue : '';
    if (gotUid !== uid) throw new ReviewError(`expected response.uid=${goQuote(uid)}, got ${goQuote(gotUid)}`);
  }
  const statusText = typeof status === 'string' ? status : '';
  if (statusText !== 'Success') {
    if (typeof message === 'string' && message !== '') throw new ReviewError(message);
    throw new ReviewError(`response.result.status was '${statusText}', not 'Success'`);
  }
  return Array.isArray(objects) ? objects : [];
}

/** A converted object as `Unstructured.UnmarshalJSON` accepts it: a JSON object with a kind. */
export function unstructuredObject(raw: unknown): JsonObject {
  if (!isObject(raw)) {
    throw new ReviewError(`json: cannot unmarshal ${goJsonValueType(raw)} into Go value of type map[string]interface {}`);
  }
  if (typeof raw['kind'] !== 'string' || raw['kind'] === '') throw new ReviewError(`Object 'Kind' is missing in '${JSON.stringify(raw)}'`);
  return raw;
}
