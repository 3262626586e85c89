/**
 * The watch cache's metrics (issue 4: watchers per resource, events dispatched, cache size, freshness
 * wait, watchers terminated for being slow), bound to prom-client under kube-apiserver's names where one
 * exists, so existing dashboards read them.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { WatchCacheMetrics } from '../../storage/cache/types.js';

export function watchCacheMetrics(registry: Registry): WatchCacheMetrics {
  const registers = [registry];
  const watchers = new Gauge({
    name: 'apiserver_registered_watchers',
    help: 'Number of currently registered watchers for a given resource',
    labelNames: ['resource'],
    registers,
  });
  const dispatched = new Counter({
    name: 'apiserver_watch_cache_events_dispatched_total',
    help: 'Counter of events dispatched in watch cache broken by resource type.',
    labelNames: ['resource'],
    registers,
  });
  const terminated = new Counter({
    name: 'apiserver_terminated_watchers_total',
    help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
    labelNames: ['resource'],
    registers,
  });
  const objects = new Gauge({
    name: 'apiserver_watch_cache_objects',
    help: 'Number of objects held by the watch cache broken by resource type.',
    labelNames: ['resource'],
    registers,
  });
  const readWait = new Histogram({
    name: 'apiserver_watch_cache_read_wait_seconds',
    help: 'Histogram of time spent waiting for a watch cache to become fresh.',
    labelNames: ['resource', 'outcome'],
    buckets: [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3],
    registers,
  });
  return {
    watcherAdded: (resource) => watchers.inc({ resource }),
    watcherRemoved: (resource) => watchers.dec({ resource }),
    eventsDispatched: (resource, count) => dispatched.inc({ resource }, count),
    slowWatcherTerminated: (resource) => terminated.inc({ resource }),
    cacheSize: (resource, n) => objects.set({ resource }, n),
    freshnessWait: (resource, seconds, outcome) => readWait.observe({ resource, outcome }, seconds),
  };
}
