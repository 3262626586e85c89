/**
 * The garbage collector's monitors, after kube's resyncMonitors: one informer subscription per served
 * resource that stores objects (every built-in kind and every custom resource), events excepted (kube's
 * ignored resources), one version per group and resource (the first served, as discovery's preferred one).
 * The served set is checked every `periodMs` (a comparison of one array reference: custom resources are
 * followed within that period as their definitions come and go); a resource no longer served is dropped,
 * a new one subscribed.
 *
 * Each event reaches `onEvent` with the object's identity under the monitored apiVersion and kind.
 */
import type { KubeObject } from '../../api/object.js';
import type { ServedResource, ServedResources } from '../../registry/served-resources.js';
import type { InformerFactory } from '../informer.js';
import type { Identity } from './graph.js';
import { apiVersionOf } from './owner-resolver.js';

export interface MonitorEvents {
  upsert(identity: Identity, obj: KubeObject, old: KubeObject | undefined): void;
  deleted(identity: Identity): void;
}

export interface ResourceMonitors {
  /** Resolves once every resource monitored now has loaded its first state. */
  synced(): Promise<void>;
  /** The group/resource keys monitored now. */
  monitored(): string[];
  stop(): void;
}

interface Monitor {
  readonly resource: ServedResource;
  readonly synced: Promise<void>;
  readonly unsubscribe: () => void;
}

/** kube's DefaultIgnoredResources: core and events.<domain> events. */
function ignored(r: ServedResource, eventsGroup: string): boolean {
  return r.strategy.resource === 'events' && (r.group === '' || r.group === eventsGroup);
}

export function startResourceMonitors(o: {
  readonly resources: ServedResources;
  readonly informers: InformerFactory;
  readonly eventsGroup: string;
  readonly events: MonitorEvents;
  readonly periodMs: number;
}): ResourceMonitors {
  const monitors = new Map<string, Monitor>();
  let seen: readonly ServedResource[] | undefined;

  const start = (r: ServedResource): Monitor => {
    const apiVersion = apiVersionOf(r);
    const kind = r.strategy.kind;
    const identity = (obj: KubeObject): Identity | undefined => {
      const uid = obj.metadata.uid;
      if (uid === undefined || uid === '') return undefined;
      return { apiVersion, kind, name: obj.metadata.name ?? '', uid, namespace: obj.metadata.namespace ?? '' };
    };
    const informer = o.informers.informer(r.registry, 'metadata');
    const unsubscribe = informer.on({
      added: (obj) => {
        const id = identity(obj);
        if (id !== undefined) o.events.upsert(id, obj, undefined);
      },
      updated: (old, obj) => {
        const id = identity(obj);
        if (id !== undefined) o.events.upsert(id, obj, old);
      },
      deleted: (obj) => {
        const id = identity(obj);
        if (id !== undefined) o.events.deleted(id);
      },
    });
    return { resource: r, synced: informer.synced, unsubscribe };
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
      // new registries over the cache it had, so the subscription already made still sees every event (a
      // definition deleted and created again has a new cache: subscribed anew).
      if (next !== undefined && next.strategy.version === m.resource.strategy.version && next.registry.context.cache === m.resource.registry.context.cache) continue;
      m.unsubscribe();
      monitors.delete(key);
      // Its watch cache is gone with the old definition: stop re-watching it.
      void o.informers.release(m.resource.registry);
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
    stop() {
      clearInterval(timer);
      for (const m of monitors.values()) m.unsubscribe();
      monitors.clear();
    },
  };
}
