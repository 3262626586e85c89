import { listOptions } from './list-options.js';
import type { RequestScope } from './request-scope.js';
import { respond } from './respond.js';

/** GET of a collection (one namespace, or all namespaces when the request names none). */
export async function handleList(scope: RequestScope): Promise<void> {
  const list = await scope.served.registry.list(scope.info.namespace, listOptions(scope));
  await respond(scope, 200, { type: 'list', list }, true);
}
