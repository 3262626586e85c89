import { badRequest } from '../../errors/constructors.js';
import { decodeRequestObject } from './decode-object.js';
import type { RequestScope } from './request-scope.js';
import { addWarnings, respond } from './respond.js';
import { parseWriteOptions } from '../../request/query.js';
import { fieldManagerOf } from './field-manager.js';
import { requesterOf } from '../../authorization/access.js';
import { writeAdmissionOf } from './admission.js';
import { genericSubresourceOf } from '../../registry/kind-strategy.js';

/** PUT of an object or its status: 200, or 201 when the kind allows create-on-update and it created. */
export async function handleUpdate(scope: RequestScope): Promise<void> {
  const { info } = scope;
  const options = parseWriteOptions(scope.query, 'UpdateOptions');
  const { object, warnings } = await decodeRequestObject(scope, options.fieldValidation);
  const bodyName = object.metadata.name;
  if (bodyName !== undefined && bodyName !== '' && bodyName !== info.name) {
    throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${info.name})`);
  }
  object.metadata.name = info.name;
  const result = await scope.served.registry.update(info.namespace, info.name, object, {
    dryRun: options.dryRun,
    fieldManager: fieldManagerOf(scope, options.fieldManager),
    subresource: genericSubresourceOf(info.subresource),
    requester: requesterOf(scope.ctx.state),
    admission: writeAdmissionOf(scope, 'UpdateOptions', options),
    signal: scope.ctx.state.signal,
  });
  addWarnings(scope, [...warnings, ...result.warnings]);
  await respond(scope, result.created ? 201 : 200, { type: 'object', object: result.object });
}
