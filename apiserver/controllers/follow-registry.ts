/**
 * How a controller built on `passLoop` follows its resource: list (all namespaces), ask for a pass, then ask
 * for one after every watch event; list and watch again whenever the watch ends or fails (an error goes to
 * `onError` and the next attempt waits `rewatchDelayMs`). Ends when the loop has stopped; `signal` (aborted
 * by the controller's stop) ends a running watch and the wait.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import type { PassLoop } from './pass-loop.js';

export interface FollowOptions {
  readonly onError?: (err: unknown) => void;
  /** Wait before listing again after the watch ended or failed. Default 1 s. */
  readonly rewatchDelayMs?: number;
}

export async function followRegistry(registry: GenericRegistry, loop: PassLoop, signal: AbortSignal, o: FollowOptions = {}): Promise<void> {
  while (!loop.stopped) {
    try {
      const list = await registry.list('', {});
      loop.kick();
      const watcher = await registry.watch('', {
        resourceVersion: list.metadata.resourceVersion ?? '',
        sendInitialEvents: false,
        allowWatchBookmarks: false,
        deadline: Number.MAX_SAFE_INTEGER,
        signal,
      });
      try {
        for await (const _event of watcher) loop.kick();
      } finally {
        watcher.close();
      }
    } catch (err) {
      if (!loop.stopped) o.onError?.(err);
    }
    if (!loop.stopped) await sleep(o.rewatchDelayMs ?? 1000, undefined, { signal }).catch(() => undefined);
  }
}
