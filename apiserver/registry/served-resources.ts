/**
 * The resources this server serves: one generic registry per kind, looked up by group, version and
 * resource from the request info. The built-in kinds are served from start-up; the kinds of each
 * CustomResourceDefinition are added and removed at runtime as one named set (`serveSet` / `removeSet`).
 *
 * One watch cache per key prefix: a kind served as a view of another resource's objects
 * (`KindStrategy.storedAs`, e.g. events.k8s.io Events over core `events`) and every version of one custom
 * resource share that prefix's cache. A cache lives as long as something served uses its prefix: replacing
 * a set with kinds on the same prefix (a CRD's spec changed) keeps it and its watchers; removing the last
 * user stops it, which ends its watchers.
 */
import type { WatchCache } from '../../storage/cache/types.js';
import type { Store } from '../../storage/interface.js';
import type { KubeObject } from '../api/object.js';
import { DEFAULT_ETCD_PREFIX, keyLayout } from './generic/keys.js';
import type { Naming } from '../naming/naming.js';
import { groupOf, storedResourceOf, type KindStrategy, type WriteHooks } from './kind-strategy.js';
import { createGenericRegistry, type GenericRegistry } from './generic/generic-registry.js';
import { qualifiedResource } from '../errors/constructors.js';

export interface ServedResource {
  readonly strategy: KindStrategy;
  readonly registry: GenericRegistry;
  /** The resolved group ('' for core). */
  readonly group: string;
  /** The set this resource belongs to: '' for the built-in kinds, a CRD's name for its versions. */
  readonly set: string;
}

export interface ServedResources {
  /** Everything served now; a new array after each change. */
  readonly all: readonly ServedResource[];
  /** The kinds of `all`; the same array until the served set changes (discovery and OpenAPI rebuild on a new one). */
  kinds(): readonly KindStrategy[];
  lookup(group: string, version: string, resource: string): ServedResource | undefined;
  /**
   * Serves `kinds` as the set `name`, replacing what that set served before (an empty list removes it).
   * Resources another set serves under the same group, version and resource are not taken over: the call
   * throws and changes nothing.
   */
  serveSet(name: string, kinds: readonly KindStrategy[], options?: SetOptions): void;
  /** Stops serving the set `name` (no-op when absent); watch caches nobody uses any more stop. */
  removeSet(name: string): void;
  /** Stops every watch cache (server shutdown). */
  stop(): void;
}

/** How the registries of a set are built. */
export interface SetOptions {
  /** The key segment after `--etcd-prefix` (custom resources: `<group>/<plural>`); default the stored resource. */
  readonly resourcePrefix?: string;
  /** The validation style of the registries (custom resources: `crd`). */
  readonly validationStyle?: 'crd' | 'builtin';
}

export interface ServeOptions {
  readonly store: Store;
  readonly naming: Naming;
  /** The built-in kinds, served from the start. */
  readonly kinds: readonly KindStrategy[];
  /** `--etcd-prefix`. */
  readonly prefix: string;
  /** `--runtime-config`: disabled group versions and resources of the built-in kinds are not served. */
  readonly enabled?: (group: string, version: string, resource: string) => boolean;
  /**
   * Makes the watch cache of one resource, given its key prefix (`/registry/secrets/`), resource name, the
   * store to read (`storeFor`'s) and kube's group-resource string of it (`secrets`, `deployments.apps`).
   * Without it, reads go to the store and watch is unavailable. Caches are stopped by `removeSet` / `stop`.
   */
  readonly watchCache?: (keyPrefix: string, resource: string, store: Store, type: string) => WatchCache<KubeObject>;
  /**
   * The store one stored resource's registry and watch cache use, given kube's group-resource string of
   * the stored resource (`pods`, `deployments.apps`): the server wraps `store` to time each call per
   * resource (storage/instrumented-store.ts). Default: `store` itself.
   */
  readonly storeFor?: (type: string) => Store;
  /**
   * Per stored resource: objects expire this many seconds after each write (`{ events: 3600 }` for
   * `--event-ttl`); applies to every kind stored as that resource.
   */
  readonly ttlSeconds?: Readonly<Record<string, number>>;
  /** Per stored resource of the built-in kinds: the server's asynchronous write step (`services`: allocation). */
  readonly writeHooks?: Readonly<Record<string, WriteHooks>>;
}

const BUILTIN_SET = '';

export function serveResources(o: ServeOptions): ServedResources {
  const prefix = o.prefix ?? DEFAULT_ETCD_PREFIX;
  /** The resources of each set, in serving order. */
  const sets = new Map<string, ServedResource[]>();
  const byKey = new Map<string, ServedResource>();
  /** Watch caches by key prefix, with the sets using each. */
  const caches = new Map<string, { readonly cache: WatchCache<KubeObject>; readonly users: Set<string> }>();
  let all: readonly ServedResource[] = [];
  let kinds: readonly KindStrategy[] = [];

  const keyOf = (group: string, version: string, resource: string): string => `${group}/${version}/${resource}`;

  const cacheFor = (set: string, keyPrefix: string, resource: string, store: Store, type: string): WatchCache<KubeObject> | undefined => {
    if (o.watchCache === undefined) return undefined;
    let entry = caches.get(keyPrefix);
    if (entry === undefined) {
      entry = { cache: o.watchCache(keyPrefix, resource, store, type), users: new Set() };
      caches.set(keyPrefix, entry);
    }
    entry.users.add(set);
    return entry.cache;
  };

  /** Drops `set` as a user of every cache it no longer uses (those whose prefix is not in `keep`). */
  const releaseCaches = (set: string, keep: ReadonlySet<string>): void => {
    for (const [keyPrefix, entry] of caches) {
      if (keep.has(keyPrefix) || !entry.users.delete(set) || entry.users.size > 0) continue;
      caches.delete(keyPrefix);
      entry.cache.stop();
    }
  };

  const publish = (): void => {
    all = Object.freeze([...sets.values()].flat());
    kinds = Object.freeze(all.map((r) => r.strategy));
  };

  const build = (set: string, strategies: readonly KindStrategy[], options: SetOptions, filter: boolean): { resources: ServedResource[]; prefixes: Set<string> } => {
    const resources: ServedResource[] = [];
    const prefixes = new Set<string>();
    for (const strategy of strategies) {
      const group = groupOf(strategy, o.naming);
      if (filter && o.enabled !== undefined && !o.enabled(group, strategy.version, strategy.resource)) continue;
      const storedResource = storedResourceOf(strategy);
      const resourcePrefix = options.resourcePrefix ?? storedResource;
      const keyPrefix = keyLayout(prefix, resourcePrefix, strategy.namespaced).collectionPrefix('');
      const storedGroup = strategy.storedAs === undefined ? group : groupOf(strategy.storedAs.kind, o.naming);
      const type = qualifiedResource({ group: storedGroup, resource: storedResource });
      const store = o.storeFor?.(type) ?? o.store;
      // A virtual kind (the reviews) stores nothing: no cache, no store watch.
      const cache = strategy.virtual === undefined ? cacheFor(set, keyPrefix, storedResource, store, type) : undefined;
      if (cache !== undefined) prefixes.add(keyPrefix);
      const ttlSeconds = o.ttlSeconds?.[storedResource];
      const writeHooks = set === BUILTIN_SET ? o.writeHooks?.[storedResource] : undefined;
      const registry = createGenericRegistry({
        store,
        strategy,
        naming: o.naming,
        prefix,
        ...(options.resourcePrefix === undefined ? {} : { resourcePrefix: options.resourcePrefix }),
        ...(options.validationStyle === undefined ? {} : { validationStyle: options.validationStyle }),
        ...(cache === undefined ? {} : { cache }),
        ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
        ...(writeHooks === undefined ? {} : { writeHooks }),
      });
      resources.push({ strategy, registry, group, set });
    }
    return { resources, prefixes };
  };

  const install = (set: string, resources: readonly ServedResource[]): void => {
    for (const r of sets.get(set) ?? []) byKey.delete(keyOf(r.group, r.strategy.version, r.strategy.resource));
    if (resources.length === 0) sets.delete(set);
    else sets.set(set, [...resources]);
    for (const r of resources) byKey.set(keyOf(r.group, r.strategy.version, r.strategy.resource), r);
    publish();
  };

  install(BUILTIN_SET, build(BUILTIN_SET, o.kinds, {}, true).resources);

  return {
    get all() {
      return all;
    },
    kinds: () => kinds,
    lookup: (group, version, resource) => byKey.get(keyOf(group, version, resource)),
    serveSet(name, strategies, options = {}) {
      if (name === BUILTIN_SET) throw new Error('the built-in set cannot be replaced');
      for (const s of strategies) {
        const taken = byKey.get(keyOf(groupOf(s, o.naming), s.version, s.resource));
        if (taken !== undefined && taken.set !== name) {
          throw new Error(`${s.resource}.${groupOf(s, o.naming)}/${s.version} is already served by ${taken.set === '' ? 'a built-in kind' : taken.set}`);
        }
      }
      const { resources, prefixes } = build(name, strategies, options, false);
      install(name, resources);
      releaseCaches(name, prefixes);
    },
    removeSet(name) {
      if (name === BUILTIN_SET || !sets.has(name)) return;
      install(name, []);
      releaseCaches(name, new Set());
    },
    stop() {
      for (const { cache } of caches.values()) cache.stop();
      caches.clear();
    },
  };
}
