/**
 * Informers for the in-server controllers, after client-go's shared informers: one local copy of a
 * resource per leadership term, kept by a watch of the resource's watch cache that starts with the current
 * state (`sendInitialEvents`), shared by every controller that asks the factory for the same registry.
 *
 * Contract:
 * - `synced` resolves once the first state is loaded; handlers got `added` for each object by then.
 * - Events reach handlers in revision order. When the watch ends or fails (lagging, compaction, a store
 *   outage) the informer watches again from the current state after `rewatchDelayMs` and tells handlers
 *   the difference as `added`, `updated` (resourceVersion changed) and `deleted`: a controller never sees
 *   a gap, only a jump.
 * - Objects are the watch cache's SHARED objects (deep-frozen in tests): never change them; copy first. A
 *   metadata informer's are views (`metadataView`) sharing arrays with them: the same rule holds.
 * - A handler that throws is reported to `onError`; the others still run.
 * - Indexes are functions of an object to its index values, kept up to date with every event.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../api/object.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import { transientObject } from '../../storage/cache/cache-entry.js';
import type { CachedObject } from '../../storage/cache/types.js';
import { metadataView } from './metadata-view.js';

export interface InformerHandlers {
  added?(obj: KubeObject): void;
  updated?(old: KubeObject, obj: KubeObject): void;
  deleted?(obj: KubeObject): void;
}

export type IndexFunction = (obj: KubeObject) => readonly string[];

export interface Informer {
  /** Resolves once the first state is loaded (never rejects: failures go to `onError` and are retried). */
  readonly synced: Promise<void>;
  readonly hasSynced: boolean;
  /** The object `namespace/name` ('' namespace for cluster-scoped kinds), as last seen. */
  get(namespace: string, name: string): KubeObject | undefined;
  /** Every object, or those of one namespace (without a scan of the others). */
  list(namespace?: string): KubeObject[];
  /** Adds an index (idempotent by name: a second call with the same name keeps the first function). */
  addIndex(name: string, fn: IndexFunction): void;
  /** The objects whose index `name` yields `value`. Throws for an index never added. */
  byIndex(name: string, value: string): KubeObject[];
  /**
   * Registers handlers; returns the function that removes them. Registered after the first sync, the
   * handlers get `added` for every current object first (as client-go does for a late handler).
   */
  on(handlers: InformerHandlers): () => void;
}

/**
 * What an informer keeps of each object: all of it, or its metadata only (`metadataView`: kube's metadata
 * informers, for a reader of identities and owners such as the garbage collector). A metadata informer
 * reads each object without keeping it decoded in the watch cache (`transientObject`), so a resource only
 * the collector follows stays bytes there.
 */
export type InformerView = 'full' | 'metadata';

export interface InformerFactory {
  /** The one informer of `registry` and `view` (default 'full') for this factory, started on first use. */
  informer(registry: GenericRegistry, view?: InformerView): Informer;
  /**
   * Stops the informers of `registry` (a resource no longer served: its watch cache is gone) and forgets
   * them; a later `informer(registry)` starts a new one. Their users must have unsubscribed.
   */
  release(registry: GenericRegistry): Promise<void>;
  /** Ends every informer's watch. */
  stop(): Promise<void>;
}

export interface InformerFactoryOptions {
  readonly onError?: (err: unknown, resource: string) => void;
  /** Wait before watching again after a watch ended or failed. Default 1 s. */
  readonly rewatchDelayMs?: number;
}

export function createInformerFactory(o: InformerFactoryOptions = {}): InformerFactory {
  const abort = new AbortController();
  // One listener per informer (the garbage collector follows every served resource): not a leak.
  setMaxListeners(0, abort.signal);
  type Entry = { informer: Informer; done: Promise<void>; abort: AbortController };
  const informers: Record<InformerView, Map<GenericRegistry, Entry>> = { full: new Map(), metadata: new Map() };
  return {
    informer(registry, view = 'full') {
      let entry = informers[view].get(registry);
      if (entry === undefined) {
        const own = new AbortController();
        entry = { ...startInformer(registry, view, AbortSignal.any([abort.signal, own.signal]), o), abort: own };
        informers[view].set(registry, entry);
      }
      return entry.informer;
    },
    async release(registry) {
      const entries: Entry[] = [];
      for (const views of Object.values(informers)) {
        const entry = views.get(registry);
        if (entry === undefined) continue;
        views.delete(registry);
        entry.abort.abort();
        entries.push(entry);
      }
      await Promise.all(entries.map((e) => e.done));
    },
    async stop() {
      abort.abort();
      await Promise.all(Object.values(informers).flatMap((views) => [...views.values()].map((e) => e.done)));
    },
  };
}

const keyOf = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

function startInformer(registry: GenericRegistry, view: InformerView, signal: AbortSignal, o: InformerFactoryOptions): { informer: Informer; done: Promise<void> } {
  const resource = registry.context.gr.resource;
  const read = view === 'full' ? (c: CachedObject<KubeObject>) => c.object : (c: CachedObject<KubeObject>) => metadataView(transientObject(c));
  const items = new Map<string, KubeObject>();
  // The same objects by namespace: controllers ask for one namespace per event, which must not cost a scan of all.
  const byNamespace = new Map<string, Map<string, KubeObject>>();
  const handlers = new Set<InformerHandlers>();
  const indexes = new Map<string, { fn: IndexFunction; values: Map<string, Map<string, KubeObject>> }>();
  let hasSynced = false;
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));

  const report = (err: unknown): void => o.onError?.(err, resource);
  const each = (call: (h: InformerHandlers) => void): void => {
    for (const h of handlers) {
      try {
        call(h);
      } catch (err) {
        report(err);
      }
    }
  };
  const index = (obj: KubeObject, add: boolean): void => {
    const key = keyOf(obj);
    for (const { fn, values } of indexes.values()) {
      for (const v of fn(obj)) {
        let set = values.get(v);
        if (add) {
          if (set === undefined) values.set(v, (set = new Map()));
          set.set(key, obj);
        } else if (set !== undefined) {
          set.delete(key);
          if (set.size === 0) values.delete(v);
        }
      }
    }
  };
  const put = (obj: KubeObject): void => {
    const key = keyOf(obj);
    const old = items.get(key);
    if (old !== undefined) index(old, false);
    items.set(key, obj);
    const ns = obj.metadata.namespace ?? '';
    let inNs = byNamespace.get(ns);
    if (inNs === undefined) byNamespace.set(ns, (inNs = new Map()));
    inNs.set(key, obj);
    index(obj, true);
    if (old === undefined) each((h) => h.added?.(obj));
    else each((h) => h.updated?.(old, obj));
  };
  const remove = (obj: KubeObject): void => {
    const key = keyOf(obj);
    const old = items.get(key);
    if (old === undefined) return;
    index(old, false);
    items.delete(key);
    const inNs = byNamespace.get(old.metadata.namespace ?? '');
    inNs?.delete(key);
    if (inNs?.size === 0) byNamespace.delete(old.metadata.namespace ?? '');
    each((h) => h.deleted?.(obj));
  };

  /** Replaces the state with a freshly loaded one, telling handlers the difference. */
  const replace = (fresh: Map<string, KubeObject>): void => {
    for (const [key, old] of items) if (!fresh.has(key)) remove(old);
    for (const [key, obj] of fresh) {
      const old = items.get(key);
      if (old === undefined || old.metadata.resourceVersion !== obj.metadata.resourceVersion) put(obj);
    }
  };

  const run = async (): Promise<void> => {
    while (!signal.aborted) {
      try {
        const watcher = await registry.watch('', {
          resourceVersion: '',
          sendInitialEvents: true,
          allowWatchBookmarks: true,
          deadline: Number.MAX_SAFE_INTEGER,
          signal,
        });
        try {
          let initial: Map<string, KubeObject> | undefined = new Map();
          for await (const ev of watcher) {
            if (ev.type === 'BOOKMARK') {
              if (ev.initialEventsEnd === true && initial !== undefined) {
                replace(initial);
                initial = undefined;
                if (!hasSynced) {
                  hasSynced = true;
                  markSynced();
                }
              }
              continue;
            }
            const obj = read(ev.object);
            if (initial !== undefined) initial.set(keyOf(obj), obj);
            else if (ev.type === 'DELETED') remove(obj);
            else put(obj);
          }
        } finally {
          watcher.close();
        }
      } catch (err) {
        if (!signal.aborted) report(err);
      }
      if (!signal.aborted) await sleep(o.rewatchDelayMs ?? 1000, undefined, { signal }).catch(() => undefined);
    }
  };

  const informer: Informer = {
    synced,
    get hasSynced() {
      return hasSynced;
    },
    get: (namespace, name) => items.get(`${namespace}/${name}`),
    list: (namespace) => [...(namespace === undefined ? items : byNamespace.get(namespace) ?? []).values()],
    addIndex(name, fn) {
      if (indexes.has(name)) return;
      indexes.set(name, { fn, values: new Map() });
      const entry = indexes.get(name)!;
      for (const [key, obj] of items) {
        for (const v of fn(obj)) {
          let set = entry.values.get(v);
          if (set === undefined) entry.values.set(v, (set = new Map()));
          set.set(key, obj);
        }
      }
    },
    byIndex(name, value) {
      const entry = indexes.get(name);
      if (entry === undefined) throw new Error(`informer of ${resource}: no index ${name}`);
      const set = entry.values.get(value);
      return set === undefined ? [] : [...set.values()];
    },
    on(h) {
      handlers.add(h);
      if (hasSynced && h.added !== undefined) {
        for (const obj of items.values()) {
          try {
            h.added(obj);
          } catch (err) {
            report(err);
          }
        }
      }
      return () => void handlers.delete(h);
    },
  };
  return { informer, done: run() };
}
