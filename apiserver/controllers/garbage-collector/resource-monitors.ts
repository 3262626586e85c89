/**
 * The garbage collector's monitors, after kube's resyncMonitors: one reflector (../reflector.ts) per served
 * resource that stores objects (every built-in kind and every custom resource), events excepted (kube's
 * ignored resources), one version per group and resource (the first served, as discovery's preferred one).
 * The served set is checked every `periodMs` (a comparison of one array reference: custom resources are
 * followed within that period as their definitions come and go); a resource no longer served is dropped,
 * a new one followed.
 *
 * Kube's monitors are metadata informers, each keeping a copy of every object's metadata; these keep
 * nothing: the graph holds what the collector needs of each object, and the previous state an update is
 * compared with (graph-builder.ts). Each object is read without keeping the watch cache's copy decoded
 * (`transientObject`), so a resource only the collector follows stays bytes there. Every event reaches
 * `events` with the object's identity under the monitored apiVersion and kind.
 */
import type { KubeObject } from '../../api/object.js';
import type { ServedResource, ServedResources } from '../../registry/served-resources.js';
import { transientObject } from '../../../storage/cache/cache-entry.js';
import { reflect } from '../reflector.js';
import type { Identity } from './graph.js';
import { apiVersionOf } from './owner-resolver.js';

export interface MonitorEvents {
  /** The resource's whole state: its first, and again after each re-watch. */
  replace(apiVersion: string, kind: string, state: readonly { readonly identity: Identity; readonly obj: KubeObject }[]): void;
  upsert(identity: Identity, obj: KubeObject): void;
  deleted(identity: Identity): void;
}

export interface ResourceMonitors {
  /** Resolves once every resource monitored now has loaded its first state. */
  synced(): Promise<void>;
  /** The group/resource keys monitored now. */
  monitored(): string[];
  /** Ends every watch; resolves once their loops have ended. */
  stop(): Promise<void>;
}

interface Monitor {
  readonly resource: ServedResource;
  readonly synced: Promise<void>;
  readonly abort: AbortController;
}

/** kube's DefaultIgnoredResources: core and events.<domain> events. */
function ignored(r: ServedResource, eventsGroup: string): boolean {
  return r.strategy.resource === 'events' && (r.group === '' || r.group === eventsGroup);
}

export function startResourceMonitors(o: {
  readonly resources: ServedResources;
  readonly eventsGroup: string;
  readonly events: MonitorEvents;
  readonly periodMs: number;
  readonly onError?: (err: unknown, resource: string) => void;
  /** Wait before watching a resource again after its watch ended or failed. Default 1 s. */
  readonly rewatchDelayMs?: number;
}): ResourceMonitors {
  const monitors = new Map<string, Monitor>();
  /** The watch loops still running, dropped monitors' included (stop() waits for them). */
  const running = new Set<Promise<void>>();
  let seen: readonly ServedResource[] | undefined;

  const start = (r: ServedResource): Monitor => {
    const apiVersion = apiVersionOf(r);
    const kind = r.strategy.kind;
    const identity = (obj: KubeObject): Identity | undefined => {
      const uid = obj.metadata.uid;
      if (uid === undefined || uid === '') return undefined;
      return { apiVersion, kind, name: obj.metadata.name ?? '', uid, namespace: obj.metadata.namespace ?? '' };
    };
    const abort = new AbortController();
    let markSynced!: () => void;
    const synced = new Promise<void>((resolve) => (markSynced = resolve));
    const done = reflect(r.registry, transientObject, {
      replace(state) {
        const withIdentity: { identity: Identity; obj: KubeObject }[] = [];
        for (const obj of state) {
          const id = identity(obj);
          if (id !== undefined) withIdentity.push({ identity: id, obj });
        }
        o.events.replace(apiVersion, kind, withIdentity);
        markSynced();
      },
      upsert(obj) {
        const id = identity(obj);
        if (id !== undefined) o.events.upsert(id, obj);
      },
      remove(obj) {
        const id = identity(obj);
        if (id !== undefined) o.events.deleted(id);
      },
    }, abort.signal, { onError: (err) => o.onError?.(err, r.strategy.resource), rewatchDelayMs: o.rewatchDelayMs });
    running.add(done);
    void done.finally(() => running.delete(done));
    return { resource: r, synced, abort };
  };

  const sync = (): void => {
    if (seen === o.resources.all) return;
    seen = o.resources.all;
    const wanted = new Map<string, ServedResource>();
    for (const r of seen) {
      if (r.strategy.virtual !== undefined || ignored(r, o.eventsGroup)) continue;
      const key = `${r.strategy.resource}.${r.group}`;
      if (!wanted.has(key)) wanted.set(key, r);
    }
    for (const [key, m] of monitors) {
      const next = wanted.get(key);
      // Kept while the same version is served from the same watch cache: a CRD's changed definition serves
      // new registries over the cache it had, so the watch already open still sees every event (a
      // definition deleted and created again has a new cache: followed anew).
      if (next !== undefined && next.strategy.version === m.resource.strategy.version && next.registry.context.cache === m.resource.registry.context.cache) continue;
      // Its watch cache is gone with the old definition: stop re-watching it.
      m.abort.abort();
      monitors.delete(key);
    }
    for (const [key, r] of wanted) if (!monitors.has(key)) monitors.set(key, start(r));
  };

  sync();
  const timer = setInterval(sync, o.periodMs);
  timer.unref();

  return {
    async synced() {
      sync();
      await Promise.all([...monitors.values()].map((m) => m.synced));
    },
    monitored: () => [...monitors.keys()],
    async stop() {
      clearInterval(timer);
      for (const m of monitors.values()) m.abort.abort();
      monitors.clear();
      await Promise.all(running);
    },
  };
}
