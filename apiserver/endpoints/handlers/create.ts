import { checkNamespaceForCreate } from './namespace-check.js';
import { decodeRequestObject } from './decode-object.js';
import type { RequestScope } from './request-scope.js';
import { addWarnings, respond } from './respond.js';
import { parseWriteOptions } from '../../request/query.js';
import { fieldManagerOf } from './field-manager.js';
import { requesterOf } from '../../authorization/access.js';
import { noServerServices } from '../../registry/kind-strategy.js';
import { createVirtual } from '../../registry/generic/virtual-create.js';

/**
 * POST to a collection: decode -> namespace lifecycle -> registry create -> 201 with the object.
 * A virtual kind (the reviews) skips namespace lifecycle (kube's admission exempts access reviews; nothing
 * is written into the namespace) and answers 201 with what the kind computed, as the request's user.
 */
export async function handleCreate(scope: RequestScope): Promise<void> {
  const options = parseWriteOptions(scope.query, 'CreateOptions');
  const { object, warnings } = await decodeRequestObject(scope, options.fieldValidation);
  if (scope.served.strategy.virtual !== undefined) {
    const answer = await createVirtual(scope.served.registry.context, scope.info.namespace, object, {
      dryRun: options.dryRun,
      user: scope.ctx.state.user,
      services: scope.services ?? noServerServices,
    });
    addWarnings(scope, warnings);
    await respond(scope, 201, { type: 'object', object: answer });
    return;
  }
  await checkNamespaceForCreate(scope, object.metadata.name ?? '');
  const result = await scope.served.registry.create(scope.info.namespace, object, {
    dryRun: options.dryRun,
    fieldManager: fieldManagerOf(scope, options.fieldManager),
    requester: requesterOf(scope.ctx.state),
  });
  addWarnings(scope, [...warnings, ...result.warnings]);
  await respond(scope, 201, { type: 'object', object: result.object });
}
