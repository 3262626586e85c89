/**
 * DeleteOptions of delete and deletecollection: from the body when there is one (kubectl sends
 * `{"propagationPolicy":"Background"}`; `--dry-run=server` puts `"dryRun":["All"]` there), else from the
 * query. An empty body with `Content-Type: application/json` (client-node) counts as none. Typed Go
 * clients that prefer protobuf send the body in protobuf (a meta/v1 DeleteOptions in the envelope).
 *
 * Audited requests (`ctx.state.audit`) get the options of a body as their request object, as kube's delete
 * handlers log them: once decoded, before they are validated (so a 422 for an invalid combination still
 * shows them); options from the query are not logged.
 */
import { essence } from '../../codec/media-type.js';
import { decodeDeleteOptionsProtobuf } from '../../codec/protobuf/protobuf-codec.js';
import { ProtobufError } from '../../codec/protobuf/wire-reader.js';
import type { RequestAudit } from '../../audit/request-audit.js';
import { badRequest } from '../../errors/constructors.js';
import { isStatusError } from '../../errors/status-error.js';
import type { Naming } from '../../naming/naming.js';
import type { DeleteOptions } from '../../registry/generic/options.js';
import { decodeDeleteOptions } from '../../request/delete-options.js';
import { parseJsonStrict } from '../../schema/json-strict.js';
import { maxRequestBodyBytes } from '../../request/limits.js';
import { readBodyBytes } from './read-body.js';
import type { RequestScope } from './request-scope.js';

export async function deleteOptions(scope: RequestScope): Promise<DeleteOptions> {
  const bytes = await readBodyBytes(scope.ctx, maxRequestBodyBytes);
  const type = essence(scope.ctx.get('Content-Type'));
  let body: unknown;
  if (bytes.length > 0 && type.endsWith('.protobuf') && type.startsWith('application/vnd.')) {
    body = protobufBody(bytes);
  } else {
    const text = bytes.toString('utf8');
    body = text.trim() === '' ? undefined : parseJsonStrict(text, false).value;
  }
  const audit = scope.ctx.state.audit;
  if (body === undefined || audit === undefined) return decodeDeleteOptions(scope.query, body);
  return decodeAudited(scope.query, body, audit, scope.naming);
}

function decodeAudited(query: URLSearchParams, body: unknown, audit: RequestAudit, naming: Naming): DeleteOptions {
  let options: DeleteOptions;
  try {
    options = decodeDeleteOptions(query, body);
  } catch (err) {
    // 422: decoded but invalid, which kube has logged by then; a body that does not decode (400) is not logged.
    if (isStatusError(err) && err.code === 422) audit.requestObject(wireDeleteOptions(body as Record<string, unknown>, naming));
    throw err;
  }
  audit.requestObject(wireDeleteOptions(body as Record<string, unknown>, naming));
  return options;
}

/** The members of meta/v1 DeleteOptions, in the order Go encodes them. */
const deleteOptionsFields = ['gracePeriodSeconds', 'preconditions', 'orphanDependents', 'propagationPolicy', 'dryRun', 'ignoreStoreReadErrorWithClusterBreakingPotential'] as const;

/**
 * A decoded DeleteOptions body as kube's audit encodes it: kind and apiVersion first (the body's apiVersion,
 * else `meta.<domain>/v1`), then the known members that are set (an empty `dryRun` is left out); unknown
 * members are dropped, as Go's decoder drops them.
 */
function wireDeleteOptions(body: Record<string, unknown>, naming: Naming): Record<string, unknown> {
  const apiVersion = typeof body.apiVersion === 'string' && body.apiVersion !== '' ? body.apiVersion : `${naming.group('meta')}/v1`;
  const out: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion };
  for (const f of deleteOptionsFields) {
    const v = body[f];
    if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) continue;
    if (f === 'preconditions') {
      const { uid, resourceVersion } = v as Record<string, unknown>;
      out[f] = { ...(typeof uid === 'string' ? { uid } : {}), ...(typeof resourceVersion === 'string' ? { resourceVersion } : {}) };
    } else {
      out[f] = v;
    }
  }
  return out;
}

function protobufBody(bytes: Buffer): Record<string, unknown> {
  try {
    const d = decodeDeleteOptionsProtobuf(bytes);
    return { ...(d.apiVersion === '' ? {} : { apiVersion: d.apiVersion }), kind: d.kind, ...d.value };
  } catch (err) {
    if (err instanceof ProtobufError) throw badRequest(`the body of the request could not be decoded as protobuf: ${err.message}`);
    throw err;
  }
}
