import { checkNamespaceForCreate } from './namespace-check.js';
import { decodeRequestObject } from './decode-object.js';
import type { RequestScope } from './request-scope.js';
import { addWarnings, respond } from './respond.js';
import { parseWriteOptions } from '../../request/query.js';
import { fieldManagerOf } from './field-manager.js';

/** POST to a collection: decode -> namespace lifecycle -> registry create -> 201 with the object. */
export async function handleCreate(scope: RequestScope): Promise<void> {
  const options = parseWriteOptions(scope.query, 'CreateOptions');
  const { object, warnings } = await decodeRequestObject(scope, options.fieldValidation);
  await checkNamespaceForCreate(scope, object.metadata.name ?? '');
  const result = await scope.served.registry.create(scope.info.namespace, object, { dryRun: options.dryRun, fieldManager: fieldManagerOf(scope, options.fieldManager) });
  addWarnings(scope, [...warnings, ...result.warnings]);
  await respond(scope, 201, { type: 'object', object: result.object });
}
