/**
 * DeleteOptions of delete and deletecollection: from the body when there is one (kubectl sends
 * `{"propagationPolicy":"Background"}`; `--dry-run=server` puts `"dryRun":["All"]` there), else from the
 * query. An empty body with `Content-Type: application/json` (client-node) counts as none. Typed Go
 * clients that prefer protobuf send the body in protobuf (a meta/v1 DeleteOptions in the envelope).
 */
import { essence } from '../../codec/media-type.js';
import { decodeDeleteOptionsProtobuf } from '../../codec/protobuf/protobuf-codec.js';
import { ProtobufError } from '../../codec/protobuf/wire-reader.js';
import { badRequest } from '../../errors/constructors.js';
import type { DeleteOptions } from '../../registry/generic/options.js';
import { decodeDeleteOptions } from '../../request/delete-options.js';
import { parseJsonStrict } from '../../schema/json-strict.js';
import { maxRequestBodyBytes } from '../../server/app.js';
import { readBodyBytes } from './read-body.js';
import type { RequestScope } from './request-scope.js';

export async function deleteOptions(scope: RequestScope): Promise<DeleteOptions> {
  const bytes = await readBodyBytes(scope.ctx, maxRequestBodyBytes);
  const type = essence(scope.ctx.get('Content-Type'));
  if (bytes.length > 0 && type.endsWith('.protobuf') && type.startsWith('application/vnd.')) {
    return decodeDeleteOptions(scope.query, protobufBody(bytes));
  }
  const text = bytes.toString('utf8');
  const body = text.trim() === '' ? undefined : parseJsonStrict(text, false).value;
  return decodeDeleteOptions(scope.query, body);
}

function protobufBody(bytes: Buffer): Record<string, unknown> {
  try {
    const d = decodeDeleteOptionsProtobuf(bytes);
    return { kind: d.kind, ...d.value };
  } catch (err) {
    if (err instanceof ProtobufError) throw badRequest(`the body of the request could not be decoded as protobuf: ${err.message}`);
    throw err;
  }
}
