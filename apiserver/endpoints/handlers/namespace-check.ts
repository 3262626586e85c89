/**
 * Namespace lifecycle on create (the NamespaceLifecycle admission of Kubernetes): objects cannot be created
 * in a namespace that does not exist (404 `namespaces "x" not found`) or is being deleted (403).
 * On delete of a Namespace: `default` and the system and public namespaces may not be deleted (403, the
 * admission's immortal namespaces), and a second delete while the `kubernetes` finalizer is pending is 409
 * (the namespace REST storage of Kubernetes).
 */
import { conflict, forbidden } from '../../errors/constructors.js';
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

const stillRemovingContent =
  'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.';

export async function checkNamespaceForDelete(scope: RequestScope): Promise<void> {
  const { served, info, naming } = scope;
  if (served.strategy.group !== '' || served.strategy.resource !== 'namespaces' || info.subresource !== '') return;
  const gr = served.registry.context.gr;
  const name = info.name;
  if (name === 'default' || name === naming.systemNamespace || name === naming.publicNamespace) {
    throw forbidden(gr, name, 'this namespace may not be deleted');
  }
  const ns = await served.registry.get('', name, { resourceVersion: '' });
  const finalizers = (ns.spec as { finalizers?: unknown[] } | undefined)?.finalizers ?? [];
  if (ns.metadata.deletionTimestamp !== undefined && finalizers.length > 0) throw conflict(gr, name, stillRemovingContent);
}
