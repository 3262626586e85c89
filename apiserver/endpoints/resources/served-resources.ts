/**
 * The resources this server serves: one generic registry per kind, looked up by group, version and
 * resource from the request info. Built once at start-up (custom resources will add to it later).
 *
 * One watch cache per key prefix: a kind served as a view of another resource's objects
 * (`KindStrategy.storedAs`, e.g. events.k8s.io Events over core `events`) shares that resource's cache,
 * whichever of them is enabled.
 */
import type { WatchCache } from '../../../storage/cache/types.js';
import type { Store } from '../../../storage/interface.js';
import type { KubeObject } from '../../api/object.js';
import { DEFAULT_ETCD_PREFIX, keyLayout } from '../../registry/generic/keys.js';
import type { Naming } from '../../naming/naming.js';
import { groupOf, storedResourceOf, type KindStrategy } from '../../registry/kind-strategy.js';
import { createGenericRegistry, type GenericRegistry } from '../../registry/generic/generic-registry.js';

export interface ServedResource {
  readonly strategy: KindStrategy;
  readonly registry: GenericRegistry;
  /** The resolved group ('' for core). */
  readonly group: string;
}

export interface ServedResources {
  readonly all: readonly ServedResource[];
  lookup(group: string, version: string, resource: string): ServedResource | undefined;
}

export interface ServeOptions {
  readonly store: Store;
  readonly naming: Naming;
  readonly kinds: readonly KindStrategy[];
  /** `--etcd-prefix`. */
  readonly prefix: string;
  /** `--runtime-config`: disabled group versions and resources are not served. */
  readonly enabled?: (group: string, version: string, resource: string) => boolean;
  /**
   * Makes the watch cache of one resource, given its key prefix (`/registry/secrets/`) and resource name.
   * Without it, reads go to the store and watch is unavailable.
   */
  readonly watchCache?: (keyPrefix: string, resource: string) => WatchCache<KubeObject>;
  /**
   * Per stored resource: objects expire this many seconds after each write (`{ events: 3600 }` for
   * `--event-ttl`); applies to every kind stored as that resource.
   */
  readonly ttlSeconds?: Readonly<Record<string, number>>;
}

export function serveResources(o: ServeOptions): ServedResources {
  const byKey = new Map<string, ServedResource>();
  const all: ServedResource[] = [];
  const caches = new Map<string, WatchCache<KubeObject>>();
  const cacheOf = (keyPrefix: string, resource: string): WatchCache<KubeObject> | undefined => {
    if (o.watchCache === undefined) return undefined;
    let cache = caches.get(keyPrefix);
    if (cache === undefined) {
      cache = o.watchCache(keyPrefix, resource);
      caches.set(keyPrefix, cache);
    }
    return cache;
  };
  for (const strategy of o.kinds) {
    const group = groupOf(strategy, o.naming);
    if (o.enabled !== undefined && !o.enabled(group, strategy.version, strategy.resource)) continue;
    const storedResource = storedResourceOf(strategy);
    const keyPrefix = keyLayout(o.prefix ?? DEFAULT_ETCD_PREFIX, storedResource, strategy.namespaced).collectionPrefix('');
    // A virtual kind (the reviews) stores nothing: no cache, no store watch.
    const cache = strategy.virtual === undefined ? cacheOf(keyPrefix, storedResource) : undefined;
    const ttlSeconds = o.ttlSeconds?.[storedResource];
    const registry = createGenericRegistry({
      store: o.store,
      strategy,
      naming: o.naming,
      prefix: o.prefix,
      ...(cache === undefined ? {} : { cache }),
      ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
    });
    const served: ServedResource = { strategy, registry, group };
    byKey.set(`${group}/${strategy.version}/${strategy.resource}`, served);
    all.push(served);
  }
  return {
    all,
    lookup: (group, version, resource) => byKey.get(`${group}/${version}/${resource}`),
  };
}
