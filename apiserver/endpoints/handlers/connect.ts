/**
 * A kind's own sub-resource handler (`KindStrategy.connectSubresources`, registry/connect-subresource.ts):
 * POST .../<resource>/<name>/<sub> -> decode the body as the sub-resource's kind -> schema defaults and
 * schema validation (422) ->
 * the kind's `create` -> 201 with the answer in the sub-resource kind's representation. The response was
 * negotiated by the router before anything ran.
 */
import { apiVersionOf } from '../../api/object.js';
import { groupOf, noServerServices } from '../../registry/kind-strategy.js';
import type { ConnectSubresource } from '../../registry/connect-subresource.js';
import { parseWriteOptions } from '../../request/query.js';
import { applyDefaults } from '../../schema/defaults.js';
import { validateValue } from '../../schema/validate.js';
import { invalid } from '../../errors/constructors.js';
import { toCauses } from '../../validation/field-error.js';
import type { ServedResource } from '../../registry/served-resources.js';
import { decodeRequestObject } from './decode-object.js';
import type { RequestScope } from './request-scope.js';
import { addWarnings, respond } from './respond.js';
import { admissionOptions, writeAdmission } from './admission.js';

/**
 * The scope of a request as the sub-resource's kind: decoding, response negotiation and encoding use
 * that kind's identity and schema (its protobuf field numbers), the registry stays the parent's.
 */
export function connectScope(scope: RequestScope, sub: ConnectSubresource): RequestScope {
  const served: ServedResource = { ...scope.served, strategy: sub.kind, group: groupOf(sub.kind, scope.naming) };
  return { ...scope, served };
}

export async function handleConnectCreate(parentScope: RequestScope, sub: ConnectSubresource): Promise<void> {
  const scope = connectScope(parentScope, sub);
  const options = parseWriteOptions(scope.query, 'CreateOptions');
  const { object, warnings } = await decodeRequestObject(scope, options.fieldValidation);
  applyDefaults(object, sub.kind.schema);
  const errs = validateValue(object, sub.kind.schema, undefined, { style: parentScope.served.registry.context.validationStyle });
  if (errs.length > 0) throw invalid({ group: scope.served.group, kind: sub.kind.kind }, parentScope.info.name, toCauses(errs));
  // Admitted as a create of the sub-resource's kind under the parent's resource, as Kubernetes does.
  const admission = writeAdmission(parentScope, admissionOptions('CreateOptions', { dryRun: options.dryRun ? ['All'] : undefined }), options.dryRun, {
    kind: { group: scope.served.group, version: sub.kind.version, kind: sub.kind.kind },
  });
  await admission?.mutate(object, undefined);
  await admission?.validate(object, undefined);
  const resources = parentScope.resources;
  const fromCreate: string[] = [];
  const answer = await sub.create(parentScope.info.name, object, {
    naming: scope.naming,
    namespace: parentScope.info.namespace,
    dryRun: options.dryRun,
    user: scope.ctx.state.user,
    services: scope.services ?? noServerServices,
    parent: parentScope.served.registry,
    registry: (group, version, resource) => resources.lookup(group, version, resource)?.registry,
    warn: (message) => void fromCreate.push(message),
  });
  addWarnings(scope, [...warnings, ...fromCreate]);
  // A sub-resource that answers with a Status (pods/binding, as kube's BindingREST) sends it as is.
  if (answer.kind === 'Status') {
    await respond(scope, 201, { type: 'raw', value: answer });
    return;
  }
  answer.apiVersion = apiVersionOf(scope.served.group, sub.kind.version);
  answer.kind = sub.kind.kind;
  await respond(scope, 201, { type: 'object', object: answer });
}
