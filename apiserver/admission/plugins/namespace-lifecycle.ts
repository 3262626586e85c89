/**
 * NamespaceLifecycle, the first plugin of the chain (Kubernetes' admission of the same name, mutating phase):
 * - CREATE of namespaced content: the namespace must exist (404 `namespaces "x" not found`) and not be
 *   Terminating (403 with the NamespaceTerminating cause). The access reviews (kinds that store nothing)
 *   are exempt, as in Kubernetes.
 * - DELETE of a Namespace: `default` and the system and public namespaces may not be deleted (403); a
 *   second delete while the `kubernetes` finalizer is pending is 409 (Kubernetes' namespace storage says
 *   so; here it is checked with the rest).
 *
 * As Kubernetes' plugin reads its informer, the create check reads the namespace from the watch cache (no
 * store round trip per create). The cache may lag a write by a moment, so the store is asked instead when
 * the cache does not have the namespace (created a moment ago) and, for 30 s, for a namespace this server
 * was asked to delete (Kubernetes' forceLiveLookup), so a create right after a delete is refused at once. A
 * delete through another replica is seen once this replica's cache has it, as in Kubernetes.
 */
import type { KubeObject } from '../../api/object.js';
import type { ServedResources } from '../../registry/served-resources.js';
import { conflict, forbidden } from '../../errors/constructors.js';
import { isStatusError, StatusError } from '../../errors/status-error.js';
import type { Naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import type { AdmissionAttributes } from '../attributes.js';
import type { AdmissionPlugin } from '../plugin.js';

/** How long after a delete request a namespace is read from the store (Kubernetes' forceLiveLookupTTL). */
const LIVE_LOOKUP_MS = 30_000;

const stillRemovingContent =
  'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.';

export function namespaceLifecycle(resources: ServedResources, naming: Naming): AdmissionPlugin {
  /** namespace name -> until when to look it up in the store. */
  const liveLookups = new Map<string, number>();
  const namespaces = (): GenericRegistry | undefined => resources.lookup('', 'v1', 'namespaces')?.registry;

  const forceLiveLookup = (name: string): void => {
    const now = Date.now();
    // Expired entries are dropped here: deletes are rare.
    for (const [n, until] of liveLookups) if (until <= now) liveLookups.delete(n);
    liveLookups.set(name, now + LIVE_LOOKUP_MS);
  };

  /** The namespace from the watch cache, or from the store when the cache may not be current for it. */
  const namespaceForCreate = async (registry: GenericRegistry, name: string): Promise<KubeObject> => {
    const until = liveLookups.get(name);
    if (until !== undefined && until > Date.now()) return registry.get('', name, { resourceVersion: '' });
    if (until !== undefined) liveLookups.delete(name);
    try {
      return await registry.get('', name, { resourceVersion: '0' });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return registry.get('', name, { resourceVersion: '' });
      throw err;
    }
  };

  const admitCreate = async (a: AdmissionAttributes): Promise<void> => {
    if (a.namespace === '') return;
    const served = resources.lookup(a.resource.group, a.resource.version, a.resource.resource);
    if (served === undefined || !served.strategy.namespaced || served.strategy.virtual !== undefined) return;
    const registry = namespaces();
    if (registry === undefined) return;
    const ns = await namespaceForCreate(registry, a.namespace);
    const phase = (ns.status as { phase?: string } | undefined)?.phase;
    if (phase === 'Terminating' || ns.metadata.deletionTimestamp !== undefined) {
      const err = forbidden(served.registry.context.gr, a.name, `unable to create new content in namespace ${a.namespace} because it is being terminated`);
      throw new StatusError(err.reason, err.message, {
        ...err.details,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${a.namespace} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  };

  const admitDelete = (a: AdmissionAttributes): void => {
    if (a.resource.group !== '' || a.resource.resource !== 'namespaces' || a.subresource !== '') return;
    const gr = { group: '', resource: 'namespaces' };
    const name = a.name;
    if (name === 'default' || name === naming.systemNamespace || name === naming.publicNamespace) throw forbidden(gr, name, 'this namespace may not be deleted');
    forceLiveLookup(name);
    const ns = a.oldObject;
    const finalizers = (ns?.spec as { finalizers?: unknown[] } | undefined)?.finalizers ?? [];
    if (ns?.metadata.deletionTimestamp !== undefined && finalizers.length > 0) throw conflict(gr, name, stillRemovingContent);
  };

  return {
    name: 'NamespaceLifecycle',
    operations: ['CREATE', 'DELETE'],
    async admit(a) {
      if (a.operation === 'CREATE') await admitCreate(a);
      else admitDelete(a);
    },
  };
}
