/**
 * What every verb of the generic registry shares: the kind's strategy, the store, the resolved names and
 * the key layout. Built once per kind by `createGenericRegistry`.
 */
import type { KubeObject } from '../../api/object.js';
import type { Requester } from '../../authorization/access.js';
import { apiVersionOf } from '../../api/object.js';
import type { GroupKind, GroupResource } from '../../errors/constructors.js';
import type { Naming } from '../../naming/naming.js';
import type { WatchCache } from '../../../storage/cache/types.js';
import type { Store } from '../../../storage/interface.js';
import { groupOf, storedResourceOf, type KindStrategy, type StrategyContext, type WriteHooks } from '../kind-strategy.js';
import { DEFAULT_ETCD_PREFIX, keyLayout, type KeyLayout } from './keys.js';
import { storedShape, type StoredShape } from './stored-shape.js';

export interface GenericRegistryConfig {
  readonly store: Store;
  readonly strategy: KindStrategy;
  readonly naming: Naming;
  /** `--etcd-prefix`; default `/registry`. */
  readonly prefix?: string;
  /**
   * The key segment(s) after the prefix. Default: the resource the kind is stored as (`secrets`; `events`
   * for events.k8s.io Events), as kube stores built-in kinds
   * whatever their group. Custom resources pass `<group>/<resource>`; nodes may pass kube's `minions`.
   */
  readonly resourcePrefix?: string;
  /** Wording of schema validation messages (see schema/validate.ts). Default `builtin`. */
  readonly validationStyle?: 'crd' | 'builtin';
  /** How many deletes a deletecollection runs at once. Default 16. */
  readonly deleteCollectionConcurrency?: number;
  /** The clock, for tests. */
  readonly now?: () => Date;
  /**
   * The resource's watch cache (over `store`, at `keys.base + '/'`). Without one, reads go to the store and
   * watch is not available (registries in unit tests).
   */
  readonly cache?: WatchCache<KubeObject>;
  /**
   * Written objects expire this many seconds after each create or update (the store deletes them), as
   * kube-apiserver keeps Events for `--event-ttl`. Unset: objects stay.
   */
  readonly ttlSeconds?: number;
  /** The server's asynchronous write step for this resource (Service allocation); see `WriteHooks`. */
  readonly writeHooks?: WriteHooks;
}

export interface RegistryContext {
  readonly store: Store;
  readonly strategy: KindStrategy;
  readonly naming: Naming;
  readonly keys: KeyLayout;
  readonly group: string;
  readonly gr: GroupResource;
  readonly gk: GroupKind;
  /** `v1` or `group/version`. */
  readonly apiVersion: string;
  readonly hasStatus: boolean;
  readonly validationStyle: 'crd' | 'builtin';
  readonly deleteCollectionConcurrency: number;
  readonly now: () => Date;
  /** The group of ListOptions / DeleteOptions (`meta.<domain>`). */
  readonly metaGroup: string;
  readonly cache: WatchCache<KubeObject> | undefined;
  /** Stored bytes and cache objects to the served shape and back (a view converts: `storedAs`). */
  readonly shape: StoredShape;
  /** The store options of every create and update (`ttlSeconds`). */
  readonly writeOptions: { readonly ttlSeconds?: number };
  /** See GenericRegistryConfig.writeHooks. */
  readonly writeHooks: WriteHooks | undefined;
}

export function registryContext(c: GenericRegistryConfig): RegistryContext {
  const s = c.strategy;
  const group = groupOf(s, c.naming);
  // A view's errors name the stored resource and kind, as Kubernetes' storage of a view does.
  const stored = s.storedAs?.kind ?? s;
  const storedGroup = groupOf(stored, c.naming);
  if (stored.namespaced !== s.namespaced) throw new Error(`${s.kind} is stored as ${stored.kind} of another scope`);
  return Object.freeze({
    store: c.store,
    strategy: s,
    naming: c.naming,
    keys: keyLayout(c.prefix ?? DEFAULT_ETCD_PREFIX, c.resourcePrefix ?? storedResourceOf(s), s.namespaced),
    group,
    gr: { group: storedGroup, resource: stored.resource },
    gk: { group: storedGroup, kind: stored.kind },
    apiVersion: apiVersionOf(group, s.version),
    hasStatus: s.subresources?.includes('status') === true,
    validationStyle: c.validationStyle ?? 'builtin',
    deleteCollectionConcurrency: Math.max(1, c.deleteCollectionConcurrency ?? 16),
    now: c.now ?? (() => new Date()),
    metaGroup: c.naming.group('meta'),
    cache: c.cache,
    shape: storedShape(s, c.naming),
    writeOptions: c.ttlSeconds !== undefined && c.ttlSeconds > 0 ? Object.freeze({ ttlSeconds: c.ttlSeconds }) : Object.freeze({}),
    writeHooks: c.writeHooks,
  });
}

export function strategyContext(
  ctx: RegistryContext,
  namespace: string,
  dryRun: boolean,
  subresource: string,
  operation: StrategyContext['operation'],
  requester?: Requester,
): StrategyContext {
  return {
    naming: ctx.naming,
    namespace: ctx.strategy.namespaced ? namespace : '',
    dryRun,
    subresource,
    operation,
    ...(requester === undefined ? {} : { requester }),
  };
}

/** The namespace a request addresses: '' for cluster-scoped kinds whatever the caller passed. */
export const requestNamespace = (ctx: RegistryContext, namespace: string): string => (ctx.strategy.namespaced ? namespace : '');

/** Sets apiVersion and kind to the strategy's (the handler already refused a mismatching kind). */
export function stampTypeMeta(ctx: RegistryContext, obj: KubeObject): void {
  obj.apiVersion = ctx.apiVersion;
  obj.kind = ctx.strategy.kind;
}
