/**
 * Namespace lifecycle on create (the NamespaceLifecycle admission of Kubernetes): objects cannot be created
 * in a namespace that does not exist (404 `namespaces "x" not found`) or is being deleted (403).
 */
import { forbidden } from '../../errors/constructors.js';
import { StatusError } from '../../errors/status-error.js';
import type { RequestScope } from './request-scope.js';

export async function checkNamespaceForCreate(scope: RequestScope, name: string): Promise<void> {
  const { served, info } = scope;
  if (!served.strategy.namespaced || info.namespace === '') return;
  const namespaces = scope.resources.lookup('', 'v1', 'namespaces');
  if (namespaces === undefined) return;
  const ns = await namespaces.registry.get('', info.namespace, { resourceVersion: '' });
  const phase = (ns.status as { phase?: string } | undefined)?.phase;
  if (phase === 'Terminating' || ns.metadata.deletionTimestamp !== undefined) {
    const err = forbidden(served.registry.context.gr, name, `unable to create new content in namespace ${info.namespace} because it is being terminated`);
    throw new StatusError(err.reason, err.message, {
      ...err.details,
      causes: [{ reason: 'NamespaceTerminating', message: `namespace ${info.namespace} is being terminated`, field: 'metadata.namespace' }],
    });
  }
}
