/**
 * Process and Node.js runtime metrics, which matter most for a single-threaded server: a blocked event
 * loop delays every request of the replica.
 *
 * prom-client's default set, on the server's registry:
 * - `process_cpu_user_seconds_total`, `process_cpu_system_seconds_total`, `process_cpu_seconds_total`,
 *   `process_resident_memory_bytes`, `process_virtual_memory_bytes`, `process_heap_bytes`,
 *   `process_open_fds`, `process_max_fds`, `process_start_time_seconds` (the names Go's process collector
 *   gives kube-apiserver, so its process panels work);
 * - `nodejs_eventloop_lag_seconds` (a gauge: the delay of one timer at scrape) and
 *   `nodejs_eventloop_lag_{min,max,mean,stddev,p50,p90,p99}_seconds` (gauges from `monitorEventLoopDelay`
 *   over the window since the previous scrape: prom-client resets it at each collection);
 * - `nodejs_gc_duration_seconds{kind}` (a histogram per GC kind: major, minor, incremental, weakcb);
 * - `nodejs_heap_size_total_bytes`, `nodejs_heap_size_used_bytes`, `nodejs_external_memory_bytes`,
 *   `nodejs_heap_space_size_{total,used,available}_bytes{space}`, `nodejs_active_handles{type}`,
 *   `nodejs_active_requests{type}`, `nodejs_active_resources{type}`, `nodejs_version_info` (not their
 *   `_total` gauges, which promtool rejects: a gauge must not end in `_total`).
 *
 * Added here: `nodejs_eventloop_delay_seconds`, a histogram of the event loop's delay (see
 * eventLoopDelayHistogram), because the percentile gauges above cannot be aggregated across replicas or
 * over a chosen window, and an SLO-style question ("how often was the loop blocked over 100 ms") needs
 * buckets.
 *
 * Each registry gets its own samplers; `stop()` ends the timer this module owns (prom-client's default
 * collectors have no stop: they keep one `monitorEventLoopDelay` and a GC observer, which do not hold the
 * process open).
 */
import { collectDefaultMetrics, type Registry } from 'prom-client';
import { HistogramFamily } from './metric-families.js';

/** Bounds of `nodejs_eventloop_delay_seconds`: 1 ms (noise) to 10 s (a stuck loop). */
export const EVENT_LOOP_DELAY_BUCKETS: readonly number[] = Object.freeze([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);

/** The period of the event-loop delay timers, in milliseconds (prom-client's default precision). */
const RESOLUTION_MS = 10;

export interface RuntimeMetrics {
  stop(): void;
}

export function runtimeMetrics(registry: Registry): RuntimeMetrics {
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: RESOLUTION_MS });
  // Gauges named like counters, which `promtool check metrics` rejects; their per-type siblings
  // (`nodejs_active_handles{type}` ...) stay and sum to the same.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  return eventLoopDelayHistogram(registry);
}

/**
 * `nodejs_eventloop_delay_seconds`: an unref'd 10 ms interval timer measures how late each of its ticks
 * runs (the time since the previous tick minus the 10 ms period) and observes that into the histogram,
 * so the buckets are exact. One sample is one tick (about 100 a second when idle); a loop blocked for a
 * second is one sample of ~1 s (the ticks it swallowed never ran). Cost: 100 timer callbacks a second,
 * each a clock read and a bucket increment.
 *
 * Why not fold Node's `monitorEventLoopDelay` into buckets: it offers percentiles only, and its `reset()`
 * (needed to take per-scrape windows) drops the next tick's delay, so a block right after a scrape would
 * be lost.
 */
export function eventLoopDelayHistogram(registry: Registry): RuntimeMetrics {
  const family = new HistogramFamily({
    name: 'nodejs_eventloop_delay_seconds',
    help: 'Event loop delay in seconds: how late a 10 ms interval timer runs, per tick.',
    labelNames: [],
    buckets: EVENT_LOOP_DELAY_BUCKETS,
    registry,
  });
  const cell = family.child();
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - RESOLUTION_MS;
    cell.observe(late > 0 ? late / 1000 : 0);
    last = now;
  }, RESOLUTION_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
