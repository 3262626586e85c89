import type { WatchCacheOptions } from './types.js';

/** kube's defaults (see ../shared/facts/kube-apiserver-behaviour.md "Watch cache", "Defaults"). */
export const WATCH_CACHE_DEFAULTS = {
  freshnessTimeoutMs: 3_000,
  historyMinEvents: 100,
  historyMaxEvents: 102_400,
  historyWindowMs: 75_000,
  watcherQueueEvents: 1_000,
  tickMs: 1_000,
  bookmarkIntervalMs: 60_000,
  idleProgressMs: 5_000,
  freshnessProgressMs: 100,
  listPageSize: 10_000,
} as const;

/** The tunable options of `WatchCacheOptions`, every one set. */
export type WatchCacheSettings = { readonly [K in keyof typeof WATCH_CACHE_DEFAULTS]: number };

export function resolveSettings(options: WatchCacheOptions<unknown>): WatchCacheSettings {
  const d = WATCH_CACHE_DEFAULTS;
  return {
    freshnessTimeoutMs: options.freshnessTimeoutMs ?? d.freshnessTimeoutMs,
    historyMinEvents: options.historyMinEvents ?? d.historyMinEvents,
    historyMaxEvents: Math.max(1, options.historyMaxEvents ?? d.historyMaxEvents),
    historyWindowMs: options.historyWindowMs ?? d.historyWindowMs,
    watcherQueueEvents: Math.max(1, options.watcherQueueEvents ?? d.watcherQueueEvents),
    tickMs: options.tickMs ?? d.tickMs,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? d.bookmarkIntervalMs,
    idleProgressMs: options.idleProgressMs ?? d.idleProgressMs,
    freshnessProgressMs: options.freshnessProgressMs ?? d.freshnessProgressMs,
    listPageSize: options.listPageSize ?? d.listPageSize,
  };
}

/** A bookmark is sent this long before a watcher's deadline. */
const PRE_DEADLINE_BOOKMARK_MS = 2_000;

/** kube's cacheWatcher.nextBookmarkTime: every `interval`, and ~2 s before the deadline; none after it. */
export function nextBookmarkTime(now: number, interval: number, deadline: number | undefined): number {
  let at = now + interval;
  if (deadline !== undefined) at = Math.min(at, deadline - PRE_DEADLINE_BOOKMARK_MS);
  return at < now ? Infinity : at;
}
