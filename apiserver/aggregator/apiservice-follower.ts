/**
 * Every replica's view of the APIServices, from the resource's watch cache (kube-aggregator's APIService
 * informer): a list, then a watch from its resourceVersion; whenever the watch ends, a fresh list (the
 * difference to what was known is reported as changes). `onChange` gets the whole current set and the
 * names that were added, changed (a new resourceVersion) or removed since the last call.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../api/object.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';

export type APIServiceMap = ReadonlyMap<string, KubeObject>;

export interface FollowerOptions {
  readonly registry: GenericRegistry;
  onChange(all: APIServiceMap, changed: ReadonlySet<string>): void;
  readonly onError?: (err: unknown) => void;
  /** Wait before listing again after the watch failed. Default 1 s. */
  readonly rewatchDelayMs?: number;
}

export interface Follower {
  /** Resolves after the first list was reported. */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

const nameOf = (o: KubeObject): string => o.metadata.name ?? '';

export function followAPIServices(o: FollowerOptions): Follower {
  const abort = new AbortController();
  const rewatchDelayMs = o.rewatchDelayMs ?? 1000;
  let current = new Map<string, KubeObject>();
  let markSynced: () => void = () => undefined;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));

  const replaceAll = (items: readonly KubeObject[]): void => {
    const next = new Map(items.map((i) => [nameOf(i), i] as const));
    const changed = new Set<string>();
    for (const [name, obj] of next) if (current.get(name)?.metadata.resourceVersion !== obj.metadata.resourceVersion) changed.add(name);
    for (const name of current.keys()) if (!next.has(name)) changed.add(name);
    current = next;
    o.onChange(current, changed);
  };

  const follow = async (): Promise<void> => {
    while (!abort.signal.aborted) {
      try {
        const list = await o.registry.list('', {});
        replaceAll(list.items);
        markSynced();
        const watcher = await o.registry.watch('', {
          resourceVersion: list.metadata.resourceVersion ?? '',
          sendInitialEvents: false,
          allowWatchBookmarks: false,
          deadline: Number.MAX_SAFE_INTEGER,
          signal: abort.signal,
        });
        try {
          for await (const event of watcher) {
            if (event.type === 'BOOKMARK') continue;
            const obj = event.object.object;
            const next = new Map(current);
            if (event.type === 'DELETED') next.delete(nameOf(obj));
            else next.set(nameOf(obj), obj);
            current = next;
            o.onChange(current, new Set([nameOf(obj)]));
          }
        } finally {
          watcher.close();
        }
      } catch (err) {
        if (!abort.signal.aborted) o.onError?.(err);
      }
      if (!abort.signal.aborted) await sleep(rewatchDelayMs, undefined, { signal: abort.signal }).catch(() => undefined);
    }
  };
  const following = follow();

  return {
    synced,
    async stop() {
      abort.abort();
      markSynced();
      await following;
    },
  };
}
