/**
 * The resources this server serves: one generic registry per kind, looked up by group, version and
 * resource from the request info. Built once at start-up (custom resources will add to it later).
 */
import type { WatchCache } from '../../../storage/cache/types.js';
import type { Store } from '../../../storage/interface.js';
import type { KubeObject } from '../../api/object.js';
import { DEFAULT_ETCD_PREFIX, keyLayout } from '../../registry/generic/keys.js';
import type { Naming } from '../../naming/naming.js';
import { groupOf, type KindStrategy } from '../../registry/kind-strategy.js';
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
}

export function serveResources(o: ServeOptions): ServedResources {
  const byKey = new Map<string, ServedResource>();
  const all: ServedResource[] = [];
  for (const strategy of o.kinds) {
    const group = groupOf(strategy, o.naming);
    if (o.enabled !== undefined && !o.enabled(group, strategy.version, strategy.resource)) continue;
    const keyPrefix = keyLayout(o.prefix ?? DEFAULT_ETCD_PREFIX, strategy.resource, strategy.namespaced).collectionPrefix('');
    const cache = o.watchCache?.(keyPrefix, strategy.resource);
    const registry = createGenericRegistry({ store: o.store, strategy, naming: o.naming, prefix: o.prefix, ...(cache === undefined ? {} : { cache }) });
    const served: ServedResource = { strategy, registry, group };
    byKey.set(`${group}/${strategy.version}/${strategy.resource}`, served);
    all.push(served);
  }
  return {
    all,
    lookup: (group, version, resource) => byKey.get(`${group}/${version}/${resource}`),
  };
}
