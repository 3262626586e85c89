/**
 * Namespace lifecycle on create (the NamespaceLifecycle admission of Kubernetes): objects cannot be created
 * in a namespace that does not exist (404 `namespaces "x" not found`) or is being deleted (403).
 * On delete of a Namespace: `default` and the system and public namespaces may not be deleted (403, the
 * admission's immortal namespaces), and a second delete while the `kubernetes` finalizer is pending is 409
 * (the namespace REST storage of Kubernetes).
 *
 * As kube's admission reads its informer, the create check reads the namespace from the watch cache (no
 * store round trip per create). The cache may lag a write by a moment, so the store is asked instead when
 * the cache does not have the namespace (created a moment ago) and, for 30 s, for a namespace this server
 * was asked to delete (kube's forceLiveLookup), so a create right after a delete is refused at once. A
 * delete through another replica is seen once this replica's cache has it, as in Kubernetes.
 */
import { conflict, forbidden } from '../../errors/constructors.js';
import { StatusError, isStatusError } from '../../errors/status-error.js';
import type { KubeObject } from '../../api/object.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import type { RequestScope } from './request-scope.js';

/** How long after a delete request a namespace is read from the store (kube's forceLiveLookupTTL). */
const LIVE_LOOKUP_MS = 30_000;
/** Per namespaces registry (one per server): namespace name -> until when to look it up in the store. */
const liveLookups = new WeakMap<GenericRegistry, Map<string, number>>();

function liveLookupsOf(registry: GenericRegistry): Map<string, number> {
  let m = liveLookups.get(registry);
  if (m === undefined) liveLookups.set(registry, (m = new Map()));
  return m;
}

/** Reads `name` from the store for the next 30 s (expired entries are dropped here: deletes are rare). */
function forceLiveLookup(registry: GenericRegistry, name: string): void {
  const live = liveLookupsOf(registry);
  const now = Date.now();
  for (const [n, until] of live) if (until <= now) live.delete(n);
  live.set(name, now + LIVE_LOOKUP_MS);
}

/** The namespace from the watch cache, or from the store when the cache may not be current for it. */
async function namespaceForCreate(registry: GenericRegistry, name: string): Promise<KubeObject> {
  const live = liveLookupsOf(registry);
  const until = live.get(name);
  if (until !== undefined && until > Date.now()) return registry.get('', name, { resourceVersion: '' });
  if (until !== undefined) live.delete(name);
  try {
    return await registry.get('', name, { resourceVersion: '0' });
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return registry.get('', name, { resourceVersion: '' });
    throw err;
  }
}

export async function checkNamespaceForCreate(scope: RequestScope, name: string): Promise<void> {
  const { served, info } = scope;
  if (!served.strategy.namespaced || info.namespace === '') return;
  const namespaces = scope.resources.lookup('', 'v1', 'namespaces');
  if (namespaces === undefined) return;
  const ns = await namespaceForCreate(namespaces.registry, info.namespace);
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
  forceLiveLookup(served.registry, name);
  const ns = await served.registry.get('', name, { resourceVersion: '' });
  const finalizers = (ns.spec as { finalizers?: unknown[] } | undefined)?.finalizers ?? [];
  if (ns.metadata.deletionTimestamp !== undefined && finalizers.length > 0) throw conflict(gr, name, stillRemovingContent);
}
