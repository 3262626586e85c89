/**
 * Informers for the in-server controllers, after client-go's shared informers: one local copy of a
 * resource per leadership term, kept by a reflector (reflector.ts: a watch of the resource's watch cache that
 * starts with the current state), shared by every controller that asks the factory for the same registry.
 *
 * Contract:
 * - `synced` resolves once the first state is loaded; handlers got `added` for each object by then.
 * - Events reach handlers in revision order. When the watch ends or fails (lagging, compaction, a store
 *   outage) the informer watches again from the current state after `rewatchDelayMs` and tells handlers
 *   the difference as `added`, `updated` (resourceVersion changed) and `deleted`: a controller never sees
 *   a gap, only a jump.
 * - Objects are the watch cache's SHARED objects (deep-frozen in tests): never change them; copy first.
 * - A handler that throws is reported to `onError`; the others still run.
 * - Indexes are functions of an object to its index values, kept up to date with every event.
 */
import { setMaxListeners } from 'node:events';
import type { KubeObject } from '../api/object.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import { reflect } from './reflector.js';

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

export interface InformerFactory {
  /** The one informer of `registry` for this factory, started on first use. */
  informer(registry: GenericRegistry): Informer;
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
  // One listener per informer, a resource each: not a leak.
  setMaxListeners(0, abort.signal);
  const informers = new Map<GenericRegistry, { informer: Informer; done: Promise<void> }>();
  return {
    informer(registry) {
      let entry = informers.get(registry);
      if (entry === undefined) informers.set(registry, (entry = startInformer(registry, abort.signal, o)));
      return entry.informer;
    },
    async stop() {
      abort.abort();
      await Promise.all([...informers.values()].map((e) => e.done));
    },
  };
}

const keyOf = (obj: KubeObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

function startInformer(registry: GenericRegistry, signal: AbortSignal, o: InformerFactoryOptions): { informer: Informer; done: Promise<void> } {
  const resource = registry.context.gr.resource;
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

  /** Replaces the state with a freshly loaded one, telling handlers the difference; the first one syncs. */
  const replace = (state: readonly KubeObject[]): void => {
    const fresh = new Map(state.map((obj) => [keyOf(obj), obj]));
    for (const [key, old] of items) if (!fresh.has(key)) remove(old);
    for (const [key, obj] of fresh) {
      const old = items.get(key);
      if (old === undefined || old.metadata.resourceVersion !== obj.metadata.resourceVersion) put(obj);
    }
    if (!hasSynced) {
      hasSynced = true;
      markSynced();
    }
  };

  const done = reflect(registry, (c) => c.object, { replace, upsert: put, remove }, signal, { onError: report, rewatchDelayMs: o.rewatchDelayMs });

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
  return { informer, done };
}
