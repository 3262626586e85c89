import { writeAdmission, writeAdmissionOf, admissionOptions } from './admission.js';
import { decodeRequestObject } from './decode-object.js';
import type { RequestScope } from './request-scope.js';
import { addWarnings, respond } from './respond.js';
import { parseWriteOptions } from '../../request/query.js';
import { fieldManagerOf } from './field-manager.js';
import { requesterOf } from '../../authorization/access.js';
import { noServerServices } from '../../registry/kind-strategy.js';
import { createVirtual } from '../../registry/generic/virtual-create.js';

/**
 * POST to a collection: decode -> registry create (admission around the kind's pipeline) -> 201 with the
 * object. A virtual kind (the reviews) is admitted, then answers 201 with what the kind computed, as the
 * request's user.
 */
export async function handleCreate(scope: RequestScope): Promise<void> {
  const options = parseWriteOptions(scope.query, 'CreateOptions');
  const { object, warnings } = await decodeRequestObject(scope, options.fieldValidation);
  if (scope.served.strategy.virtual !== undefined) {
    // Stored nowhere, still admitted (NamespaceLifecycle exempts these kinds, as Kubernetes does).
    const admission = writeAdmission(scope, admissionOptions('CreateOptions', { dryRun: options.dryRun ? ['All'] : undefined }), options.dryRun);
    await admission?.mutate(object, undefined);
    await admission?.validate(object, undefined);
    const answer = await createVirtual(scope.served.registry.context, scope.info.namespace, object, {
      dryRun: options.dryRun,
      user: scope.ctx.state.user,
      services: scope.services ?? noServerServices,
      registry: (group, version, resource) => scope.resources.lookup(group, version, resource)?.registry,
    });
    addWarnings(scope, warnings);
    await respond(scope, 201, answer.kind === 'Status' ? { type: 'raw', value: answer } : { type: 'object', object: answer });
    return;
  }
  const result = await scope.served.registry.create(scope.info.namespace, object, {
    dryRun: options.dryRun,
    fieldManager: fieldManagerOf(scope, options.fieldManager),
    requester: requesterOf(scope.ctx.state),
    admission: writeAdmissionOf(scope, 'CreateOptions', options),
    signal: scope.ctx.state.signal,
  });
  addWarnings(scope, [...warnings, ...result.warnings]);
  await respond(scope, 201, { type: 'object', object: result.object });
}
