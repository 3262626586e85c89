import type { RequestScope } from './request-scope.js';
import { respond } from './respond.js';

/** GET of one object (main resource or `status`: both read the whole object). */
export async function handleGet(scope: RequestScope): Promise<void> {
  const { info, served, query } = scope;
  const object = await served.registry.get(info.namespace, info.name, { resourceVersion: query.get('resourceVersion') ?? '' });
  await respond(scope, 200, { type: 'object', object }, true);
}
