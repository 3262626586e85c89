/**
 * `nodejs_eventloop_delay_seconds`: a loop blocked for ~150 ms shows up above the 0.1 s bucket; buckets
 * are cumulative and end at the count; later scrapes only add. prom-client's default families are on the
 * same registry, without the `_total` gauges promtool rejects.
 */
import { Registry } from 'prom-client';
import { eventLoopDelayHistogram, runtimeMetrics } from './runtime-metrics.js';

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const bucket = (text: string, le: string): number => value(text, `nodejs_eventloop_delay_seconds_bucket{le="${le}"}`) ?? NaN;
const total = (text: string): number => value(text, 'nodejs_eventloop_delay_seconds_count') ?? NaN;

/** Lets timers run until `registry` reports samples beyond `after` (bounded). */
async function samplesBeyond(registry: Registry, after: number): Promise<string> {
  const deadline = Date.now() + 5000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 20));
    const text = await registry.metrics();
    if (total(text) > after) return text;
    if (Date.now() > deadline) throw new Error('no event-loop samples');
  }
}

describe('nodejs_eventloop_delay_seconds', () => {
  it('puts a blocked loop above 0.1 s and keeps the buckets cumulative', async () => {
    const registry = new Registry();
    const histogram = eventLoopDelayHistogram(registry);
    try {
      const first = await samplesBeyond(registry, 0);
      const blockedBefore = total(first) - bucket(first, '0.1');
      // Block the loop for ~150 ms: the timer's next tick comes that late.
      const until = performance.now() + 150;
      while (performance.now() < until) {
        // busy
      }
      const text = await samplesBeyond(registry, total(first));
      expect(total(text) - bucket(text, '0.1')).toBeGreaterThanOrEqual(blockedBefore + 1);
      expect(bucket(text, '+Inf')).toBe(total(text));
      const les = ['0.001', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'];
      for (let i = 1; i < les.length; i++) expect(bucket(text, les[i]!)).toBeGreaterThanOrEqual(bucket(text, les[i - 1]!));
      expect(value(text, 'nodejs_eventloop_delay_seconds_sum')).toBeGreaterThanOrEqual(0.1);
      // A later scrape only adds.
      const later = await samplesBeyond(registry, total(text));
      for (const le of les) expect(bucket(later, le)).toBeGreaterThanOrEqual(bucket(text, le));
    } finally {
      histogram.stop();
    }
  });

  it("comes with prom-client's default families, minus the gauges named like counters", async () => {
    const registry = new Registry();
    const runtime = runtimeMetrics(registry);
    try {
      const text = await registry.metrics();
      for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_delay_seconds']) {
        expect(text).toContain(`# TYPE ${name} `);
      }
      expect(text).not.toContain('nodejs_active_handles_total');
      expect(text).not.toContain('nodejs_active_requests_total');
      expect(text).not.toContain('nodejs_active_resources_total');
    } finally {
      runtime.stop();
    }
  });
});
