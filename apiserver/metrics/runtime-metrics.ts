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
 * Each registry gets its own samplers; `stop()` ends the one this module owns (prom-client's default
 * collectors have no stop: they sample on scrape and keep one `monitorEventLoopDelay` and a GC observer,
 * which do not hold the process open).
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { collectDefaultMetrics, type Registry } from 'prom-client';
import { goFloat } from './metric-families.js';

/** Bounds of `nodejs_eventloop_delay_seconds`: 1 ms (noise) to 10 s (a stuck loop). */
export const EVENT_LOOP_DELAY_BUCKETS: readonly number[] = Object.freeze([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);

/** The sampling timer of the event loop delay, in milliseconds (prom-client's default precision). */
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
 * `nodejs_eventloop_delay_seconds`: Node's event-loop delay sampler (`monitorEventLoopDelay`, a timer
 * every 10 ms whose lateness is recorded in an HDR histogram) folded into Prometheus buckets at each
 * scrape, then reset. One sample is one 10 ms tick, so counts weigh time, and a loop blocked for a second
 * is one sample of ~1 s (the ticks it swallowed never ran), as Node measures it.
 *
 * The sampler gives percentiles, not buckets: a bucket's count is the sample count times the highest
 * percentile whose delay is within the bound (HDR percentiles are exact to ~1%, finer towards the tail).
 * The sampler's own 10 ms period is subtracted, so an idle loop reads ~0, not 10 ms.
 */
export function eventLoopDelayHistogram(registry: Registry): RuntimeMetrics {
  const name = 'nodejs_eventloop_delay_seconds';
  const sampler: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  sampler.enable();
  const cumulative = new Float64Array(EVENT_LOOP_DELAY_BUCKETS.length);
  const les = EVENT_LOOP_DELAY_BUCKETS.map(goFloat);
  let count = 0;
  let sum = 0;
  const fold = (): void => {
    const n = sampler.count;
    if (n === 0) return;
    const points = [...sampler.percentiles.entries()].sort((a, b) => a[0] - b[0]);
    for (let i = 0; i < EVENT_LOOP_DELAY_BUCKETS.length; i++) {
      const limitNs = (EVENT_LOOP_DELAY_BUCKETS[i]! * 1000 + RESOLUTION_MS) * 1e6;
      let fraction = 0;
      for (const [percentile, ns] of points) {
        if (ns > limitNs) break;
        fraction = percentile / 100;
      }
      cumulative[i]! += Math.round(fraction * n);
    }
    count += n;
    sum += Math.max(0, sampler.mean / 1e9 - RESOLUTION_MS / 1000) * n;
    sampler.reset();
  };
  const metric = {
    name,
    help: 'Event loop delay in seconds (the lateness of a 10 ms timer), from monitorEventLoopDelay, bucketed at each scrape.',
    type: 'histogram' as const,
    aggregator: 'sum' as const,
    get: async () => {
      fold();
      const values: { metricName: string; labels: Record<string, string>; value: number }[] = les.map((le, i) => ({
        metricName: `${name}_bucket`,
        labels: { le },
        value: Math.min(cumulative[i]!, count),
      }));
      values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf' }, value: count });
      values.push({ metricName: `${name}_sum`, labels: {}, value: sum });
      values.push({ metricName: `${name}_count`, labels: {}, value: count });
      return { name, help: metric.help, type: metric.type, values, aggregator: metric.aggregator };
    },
    reset: () => {
      cumulative.fill(0);
      count = 0;
      sum = 0;
      sampler.reset();
    },
  };
  registry.registerMetric(metric as never);
  return { stop: () => sampler.disable() };
}
