import { deleteOptions } from './delete-options.js';
import { listOptions } from './list-options.js';
import { checkNamespaceForDelete } from './namespace-check.js';
import type { RequestScope } from './request-scope.js';
import { respond } from './respond.js';

/** DELETE of one object: a Success Status, or the object for kinds that return it; 200 or 202. */
export async function handleDelete(scope: RequestScope): Promise<void> {
  const options = await deleteOptions(scope);
  await checkNamespaceForDelete(scope);
  const result = await scope.served.registry.delete(scope.info.namespace, scope.info.name, options);
  const body = result.object.kind === 'Status' ? { type: 'raw' as const, value: result.object } : { type: 'object' as const, object: result.object as never };
  await respond(scope, result.code, body);
}

/** DELETE of a collection: the selected objects are deleted; the answer lists them as they were. */
export async function handleDeleteCollection(scope: RequestScope): Promise<void> {
  const list = listOptions(scope);
  const options = await deleteOptions(scope);
  const deleted = await scope.served.registry.deleteCollection(scope.info.namespace, list, options);
  await respond(scope, 200, { type: 'list', list: deleted });
}
