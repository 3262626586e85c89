/**
 * Keeps an `RbacIndex` current from the watch caches of the four RBAC resources: one cache watcher per
 * resource, started from the cache's state (a synthetic ADDED per object, then an initial-events-end
 * bookmark, then every change). No store read per request and no extra store watch: the caches the API
 * serves from are the source.
 *
 * `ready()` resolves once every resource's state has been applied, so the server can wait for it before
 * it listens (system:masters is allowed without the index; everyone else would be refused until then).
 * A watcher that ends (a compaction re-list of the cache, a slow-watcher cut, an unavailable cache) is
 * restarted from the state; objects missing from the new state are removed when its initial events end,
 * so permissions never lapse in between.
 */
import type { CachedObject, WatchCache } from '../../storage/cache/types.js';
import type { KubeObject } from '../api/object.js';
import type { BindingObject, RoleObject } from './rbac-types.js';
import type { BindingKind, RbacIndex } from './rbac-index.js';

export interface RbacSource {
  readonly cache: WatchCache<KubeObject>;
  /** The resource's collection prefix in the store (`/registry/roles/`). */
  readonly keyPrefix: string;
}

export interface RbacSources {
  readonly roles: RbacSource;
  readonly clusterRoles: RbacSource;
  readonly roleBindings: RbacSource;
  readonly clusterRoleBindings: RbacSource;
}

export interface RbacFeed {
  /** Resolves when the index holds every RBAC object of the caches' first states. */
  ready(): Promise<void>;
  readonly synced: boolean;
  stop(): void;
}

interface Applier {
  set(obj: KubeObject): void;
  remove(namespace: string, name: string): void;
}

const RETRY_MS = 500;

function appliers(index: RbacIndex): Record<keyof RbacSources, Applier> {
  const binding = (kind: BindingKind, namespaced: boolean): Applier => ({
    set: (o) => index.setBinding(kind, namespaced ? o.metadata.namespace ?? '' : '', o as BindingObject),
    remove: (ns, name) => index.deleteBinding(kind, ns, name),
  });
  return {
    roles: {
      set: (o) => index.setRole(o.metadata.namespace ?? '', o.metadata.name ?? '', (o as RoleObject).rules),
      remove: (ns, name) => index.deleteRole(ns, name),
    },
    clusterRoles: {
      set: (o) => index.setClusterRole(o.metadata.name ?? '', (o as RoleObject).rules),
      remove: (_ns, name) => index.deleteClusterRole(name),
    },
    roleBindings: binding('RoleBinding', true),
    clusterRoleBindings: binding('ClusterRoleBinding', false),
  };
}

export function startRbacFeed(index: RbacIndex, sources: RbacSources, onError: (err: unknown) => void = () => undefined): RbacFeed {
  const abort = new AbortController();
  const pending = new Set<keyof RbacSources>(Object.keys(sources) as (keyof RbacSources)[]);
  let markReady: () => void = () => undefined;
  const readyPromise = new Promise<void>((resolve) => (markReady = resolve));
  const apply = appliers(index);

  const follow = async (name: keyof RbacSources): Promise<void> => {
    const { cache, keyPrefix } = sources[name];
    const applier = apply[name];
    /** key -> [namespace, name] of what the index holds from this resource. */
    const held = new Map<string, readonly [string, string]>();
    const put = (c: CachedObject<KubeObject>): void => {
      applier.set(c.object);
      held.set(c.key, [c.object.metadata.namespace ?? '', c.object.metadata.name ?? '']);
    };
    const drop = (key: string): void => {
      const at = held.get(key);
      if (at === undefined) return;
      applier.remove(at[0], at[1]);
      held.delete(key);
    };
    while (!abort.signal.aborted) {
      const seen = new Set<string>();
      let initial = true;
      try {
        const watcher = cache.watch({ keyPrefix, start: { kind: 'state', revision: 0 }, initialEventsEndBookmark: true, signal: abort.signal });
        for await (const ev of watcher) {
          if (ev.type === 'BOOKMARK') {
            if (initial && ev.initialEventsEnd === true) {
              initial = false;
              for (const key of [...held.keys()]) if (!seen.has(key)) drop(key);
              if (pending.delete(name) && pending.size === 0) markReady();
            }
            continue;
          }
          if (ev.type === 'DELETED') drop(ev.object.key);
          else put(ev.object);
          if (initial) seen.add(ev.object.key);
        }
      } catch (err) {
        if (!abort.signal.aborted) onError(err);
      }
      if (abort.signal.aborted) return;
      await new Promise((r) => setTimeout(r, RETRY_MS).unref());
    }
  };

  for (const name of [...pending]) void follow(name);
  return {
    ready: () => readyPromise,
    get synced() {
      return pending.size === 0;
    },
    stop: () => abort.abort(),
  };
}
