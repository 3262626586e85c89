/**
 * What the plugin reads, from what the server has: watch caches and served resources.
 *
 * - `watchCacheSource(cache, keyPrefix)`: an ObjectSource over a watch cache (its state, the
 *   initial-events-end bookmark as SYNCED, then its events);
 * - `registrySource(registry)`: the same over a served kind's registry (its cache, every namespace, the
 *   served shape of each object);
 * - `memorySource()`: an ObjectSource the caller fills (tests, static configuration);
 * - `servedParams(served)`: the ParamLookup of every served resource, found by kind at each request (a
 *   custom resource served later is found then; one that goes is "not found" again);
 * - `registryNamespaces(registry)`: the Namespace of a name, from the cache, then from the store when the
 *   cache does not have it yet (Kubernetes' lister-then-client).
 */
import type { KubeObject } from '../../api/object.js';
import type { ServedResources } from '../../registry/served-resources.js';
import { StatusError } from '../../errors/status-error.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import type { StoredShape } from '../../registry/generic/stored-shape.js';
import type { CachedObject, WatchCache } from '../../../storage/cache/types.js';
import type { GroupVersionKind } from '../attributes.js';
import type { ParamLookup, ParamSource } from './params.js';
import type { ObjectSource, SourceEvent } from './policy-source.js';

/** Follows `cache` under `keyPrefix`; `served` turns a cached object into the served one (a view's conversion). */
export function watchCacheSource(
  cache: WatchCache<KubeObject>,
  keyPrefix: string,
  served: (c: CachedObject<KubeObject>) => KubeObject | Promise<KubeObject> = (c) => c.object,
): ObjectSource {
  return {
    async *watch(signal): AsyncIterable<SourceEvent> {
      const w = cache.watch({ keyPrefix, start: { kind: 'state', revision: 0 }, initialEventsEndBookmark: true, signal });
      try {
        for await (const ev of w) {
          if (ev.type === 'BOOKMARK') {
            if (ev.initialEventsEnd === true) yield { type: 'SYNCED' };
            continue;
          }
          yield { type: ev.type, object: await served(ev.object) };
        }
      } finally {
        w.close();
      }
    },
  };
}

const servedObject = (shape: StoredShape) => async (c: CachedObject<KubeObject>): Promise<KubeObject> => (shape.converts ? (await shape.cached(c)).object : c.object);

export function registrySource(registry: GenericRegistry): ObjectSource {
  const ctx = registry.context;
  if (ctx.cache === undefined) throw new Error(`${ctx.gr.resource} has no watch cache to follow`);
  return watchCacheSource(ctx.cache, ctx.keys.collectionPrefix(''), servedObject(ctx.shape));
}

export interface MemorySource extends ObjectSource {
  /** Adds or replaces an object (by name). */
  set(object: KubeObject): void;
  delete(name: string): void;
}

/** An ObjectSource the caller fills; every watcher sees the current objects, SYNCED, then the changes. */
export function memorySource(initial: readonly KubeObject[] = []): MemorySource {
  const objects = new Map<string, KubeObject>(initial.map((o) => [o.metadata.name ?? '', o]));
  const listeners = new Set<(ev: SourceEvent) => void>();
  const emit = (ev: SourceEvent): void => {
    for (const l of listeners) l(ev);
  };
  return {
    set(object) {
      const name = object.metadata.name ?? '';
      const type = objects.has(name) ? 'MODIFIED' : 'ADDED';
      objects.set(name, object);
      emit({ type, object });
    },
    delete(name) {
      const object = objects.get(name);
      if (object === undefined) return;
      objects.delete(name);
      emit({ type: 'DELETED', object });
    },
    async *watch(signal) {
      const queue: SourceEvent[] = [...[...objects.values()].map((object) => ({ type: 'ADDED' as const, object })), { type: 'SYNCED' }];
      let wake: (() => void) | undefined;
      const listener = (ev: SourceEvent): void => {
        queue.push(ev);
        wake?.();
      };
      const onAbort = (): void => wake?.();
      listeners.add(listener);
      signal.addEventListener('abort', onAbort);
      try {
        while (!signal.aborted) {
          const ev = queue.shift();
          if (ev !== undefined) {
            yield ev;
            continue;
          }
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        listeners.delete(listener);
        signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

/** The param source of one served registry (its watch cache; the store when it has none). */
export function registryParams(registry: GenericRegistry): ParamSource {
  const ctx = registry.context;
  const cache = ctx.cache;
  const served = servedObject(ctx.shape);
  return {
    namespaced: ctx.strategy.namespaced,
    async get(namespace, name) {
      if (cache === undefined) {
        try {
          return await registry.get(namespace, name);
        } catch (e) {
          if (e instanceof StatusError && e.reason === 'NotFound') return undefined;
          throw e;
        }
      }
      const hit = (await cache.get(ctx.keys.objectKey(namespace, name), 0)).object;
      return hit === undefined ? undefined : served(hit);
    },
    async list(namespace, selector) {
      if (cache === undefined) {
        return (await registry.list(namespace, { labelSelector: selector })).items;
      }
      const res = await cache.list({
        keyPrefix: ctx.keys.collectionPrefix(namespace),
        minRevision: 0,
        ...(selector.empty ? {} : { matches: (o: KubeObject) => selector.matches(ctx.shape.selectable(o).metadata.labels ?? {}) }),
      });
      return Promise.all(res.items.map(served));
    },
  };
}

/** Every served resource, by the kind a paramKind names; the param source of each is made once. */
export function servedParams(served: ServedResources): ParamLookup {
  const sources = new WeakMap<GenericRegistry, ParamSource>();
  return (kind: GroupVersionKind) => {
    const r = served.all.find((s) => s.group === kind.group && s.strategy.version === kind.version && s.strategy.kind === kind.kind);
    if (r === undefined) return undefined;
    let source = sources.get(r.registry);
    if (source === undefined) sources.set(r.registry, (source = registryParams(r.registry)));
    return source;
  };
}

/** The namespaces registry as the plugin's namespace lookup. */
export function registryNamespaces(registry: GenericRegistry): (name: string) => Promise<KubeObject | undefined> {
  const ctx = registry.context;
  return async (name) => {
    if (ctx.cache !== undefined) {
      const hit = (await ctx.cache.get(ctx.keys.objectKey('', name), 0)).object;
      if (hit !== undefined) return hit.object;
    }
    try {
      return await registry.get('', name, { resourceVersion: '' });
    } catch (e) {
      if (e instanceof StatusError && e.reason === 'NotFound') return undefined;
      throw e;
    }
  };
}
