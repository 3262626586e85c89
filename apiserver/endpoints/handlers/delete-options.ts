/**
 * DeleteOptions of delete and deletecollection: from the body when there is one (kubectl sends
 * `{"propagationPolicy":"Background"}`; `--dry-run=server` puts `"dryRun":["All"]` there), else from the
 * query. An empty body with `Content-Type: application/json` (client-node) counts as none.
 */
import type { DeleteOptions } from '../../registry/generic/options.js';
import { decodeDeleteOptions } from '../../request/delete-options.js';
import { parseJsonStrict } from '../../schema/json-strict.js';
import { maxRequestBodyBytes } from '../../server/app.js';
import { readBody } from './read-body.js';
import type { RequestScope } from './request-scope.js';

export async function deleteOptions(scope: RequestScope): Promise<DeleteOptions> {
  const text = await readBody(scope.ctx, maxRequestBodyBytes);
  const body = text.trim() === '' ? undefined : parseJsonStrict(text, false).value;
  return decodeDeleteOptions(scope.query, body);
}
