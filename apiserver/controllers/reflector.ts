/**
 * Follows one resource's watch cache for an in-server reader, after client-go's reflector: a watch of all
 * namespaces that starts with the current state (`sendInitialEvents`), then every change in revision order.
 * When the watch ends or fails (lagging, compaction, a store outage) it is opened again from the current
 * state after `rewatchDelayMs`, and the reader is handed that state whole (`replace`): telling what changed
 * meanwhile is the reader's, against whatever it kept.
 *
 * `read` turns the cache's object into what the reader takes (the object itself, or a transient decode for a
 * reader that keeps a few fields). Ends when `signal` is aborted; errors (the sink's included) go to
 * `onError` and the watch is opened again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../api/object.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import type { CachedObject } from '../../storage/cache/types.js';

export interface ReflectorSink<T> {
  /** The whole current state: after the first watch opened, and again after each re-watch. */
  replace(state: readonly T[]): void;
  /** An object added or changed (ADDED, MODIFIED) after the state. */
  upsert(obj: T): void;
  /** An object deleted, as last stored. */
  remove(obj: T): void;
}

export interface ReflectorOptions {
  readonly onError?: (err: unknown) => void;
  /** Wait before watching again after a watch ended or failed. Default 1 s. */
  readonly rewatchDelayMs?: number;
}

export async function reflect<T>(
  registry: GenericRegistry,
  read: (c: CachedObject<KubeObject>) => T,
  sink: ReflectorSink<T>,
  signal: AbortSignal,
  o: ReflectorOptions = {},
): Promise<void> {
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
        let initial: T[] | undefined = [];
        for await (const ev of watcher) {
          if (ev.type === 'BOOKMARK') {
            if (ev.initialEventsEnd === true && initial !== undefined) {
              const state = initial;
              initial = undefined;
              sink.replace(state);
            }
            continue;
          }
          const obj = read(ev.object);
          if (initial !== undefined) initial.push(obj);
          else if (ev.type === 'DELETED') sink.remove(obj);
          else sink.upsert(obj);
        }
      } finally {
        watcher.close();
      }
    } catch (err) {
      if (!signal.aborted) o.onError?.(err);
    }
    if (!signal.aborted) await sleep(o.rewatchDelayMs ?? 1000, undefined, { signal }).catch(() => undefined);
  }
}
