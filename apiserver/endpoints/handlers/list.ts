import { badRequest } from '../../errors/constructors.js';
import { listOptions } from './list-options.js';
import type { RequestScope } from './request-scope.js';
import { respond } from './respond.js';

/** GET of a collection (one namespace, or all namespaces when the request names none). */
export async function handleList(scope: RequestScope): Promise<void> {
  const list = await scope.served.registry.list(scope.info.namespace, listOptions(scope));
  await respond(scope, 200, { type: 'list', list }, true);
}

/** Watches arrive with the list-and-watch issue; until then they are refused clearly, not served wrongly. */
export async function handleWatch(): Promise<void> {
  throw badRequest('watch is not supported by this server yet');
}
