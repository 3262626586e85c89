import { deleteOptions } from './delete-options.js';
import { listOptions } from './list-options.js';
import { admissionOptions, writeAdmission } from './admission.js';
import type { DeleteOptions } from '../../registry/generic/options.js';
import type { RequestScope } from './request-scope.js';
import { addWarnings, respond } from './respond.js';
import { deleteWarnings } from '../../registry/generic/delete-propagation.js';

/** DELETE of one object: a Success Status, or the object for kinds that return it; 200 or 202. */
export async function handleDelete(scope: RequestScope): Promise<void> {
  const options = await deleteOptions(scope);
  // kube warns before deleting (a Job left to its orphaning default), whatever the outcome.
  addWarnings(scope, deleteWarnings(scope.served.registry.context, options));
  const result = await scope.served.registry.delete(scope.info.namespace, scope.info.name, { ...options, admission: deleteAdmission(scope, options), signal: scope.ctx.state.signal });
  const body = result.object.kind === 'Status' ? { type: 'raw' as const, value: result.object } : { type: 'object' as const, object: result.object as never };
  await respond(scope, result.code, body);
}

/**
 * DELETE of a collection: the selected objects are deleted, and the answer is a Success Status naming the
 * resource, as document 2's operation table says (Kubernetes answers the list of deleted objects instead;
 * no stock client reads that body: docs/differences.md).
 */
export async function handleDeleteCollection(scope: RequestScope): Promise<void> {
  const list = listOptions(scope);
  const options = await deleteOptions(scope);
  addWarnings(scope, deleteWarnings(scope.served.registry.context, options));
  // Each object is admitted as its own DELETE, as Kubernetes' delete collection does.
  await scope.served.registry.deleteCollection(scope.info.namespace, list, { ...options, admission: deleteAdmission(scope, options), signal: scope.ctx.state.signal });
  const { apiGroup: group, resource } = scope.info;
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { ...(group === '' ? {} : { group }), kind: resource } };
  await respond(scope, 200, { type: 'raw', value: status });
}

function deleteAdmission(scope: RequestScope, o: DeleteOptions) {
  const fields = {
    dryRun: o.dryRun === true ? ['All'] : undefined,
    gracePeriodSeconds: o.gracePeriodSeconds,
    preconditions: o.preconditions,
    propagationPolicy: o.propagationPolicy,
    orphanDependents: o.orphanDependents,
  };
  return writeAdmission(scope, admissionOptions('DeleteOptions', fields), o.dryRun === true);
}
