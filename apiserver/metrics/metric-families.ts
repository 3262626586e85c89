/**
 * Metric families whose series are resolved once and then updated by plain field writes, for the request
 * path (a few hundred nanoseconds per request, issue 16). prom-client's own `labels(...)` children hash
 * and validate every label on every `inc`/`observe`; here `child(values)` does that once per label tuple
 * and returns a cell (`{ value }`, or a histogram's bucket counts) that callers keep in their own
 * pre-resolved structures (apiserver/metrics/request-metrics.ts). The families register in the server's
 * prom-client `Registry` like any metric and are rendered by it (`get()` returns prom-client's
 * MetricObject shape), so the exposition format, escaping and HELP/TYPE lines are prom-client's.
 *
 * Contracts:
 * - `child` is the only place that looks label values up (a Map by the joined values); it is meant for
 *   the first use of a tuple, never per request. The same tuple always yields the same cell.
 * - Label values are given in `labelNames` order; callers bound their cardinality (no user or object names).
 * - Histogram buckets follow Prometheus' `le` (value <= bound) with `+Inf` last; `le` values are written as
 *   Go's client does (`strconv.FormatFloat(b, 'g', -1, 64)`: `0.005`, `1`, `1e+06`) so series match
 *   kube-apiserver's exactly.
 */
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;

interface MetricValue {
  readonly labels: Labels;
  readonly value: number;
  readonly metricName?: string;
}

interface MetricObject {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly values: MetricValue[];
  readonly aggregator: 'sum';
}

export interface FamilyOptions {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly registry: Registry;
}

/** A counter series: `value` only grows. */
export class CounterCell {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(by = 1): void {
    this.value += by;
  }
}

/** A gauge series. */
export class GaugeCell {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(): void {
    this.value++;
  }
  dec(): void {
    this.value--;
  }
  set(v: number): void {
    this.value = v;
  }
}

/** A histogram series: per-bucket (not cumulative) counts, the last one for values above every bound. */
export class HistogramCell {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly labels: Labels, private readonly bounds: Float64Array) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(v: number): void {
    const bounds = this.bounds;
    let i = 0;
    // Linear: request latencies and sizes land in the first buckets, so this ends after a step or two.
    while (i < bounds.length && v > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

abstract class Family<C extends { readonly labels: Labels }> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum' as const;
  protected readonly labelNames: readonly string[];
  protected readonly cells = new Map<string, C>();

  constructor(o: FamilyOptions) {
    this.name = o.name;
    this.help = o.help;
    this.labelNames = o.labelNames;
    // The registry's metric contract is structural (name, help, type, get); prom-client's typings name its classes.
    o.registry.registerMetric(this as never);
  }

  /** The cell of one label tuple (values in `labelNames` order), made on first use. */
  child(...values: string[]): C {
    if (values.length !== this.labelNames.length) {
      throw new Error(`${this.name}: ${this.labelNames.length} label values expected, got ${values.length}`);
    }
    const key = values.join('\u0000');
    let cell = this.cells.get(key);
    if (cell === undefined) {
      const labels: Labels = {};
      this.labelNames.forEach((n, i) => (labels[n] = values[i]!));
      cell = this.make(labels);
      this.cells.set(key, cell);
    }
    return cell;
  }

  protected abstract make(labels: Labels): C;

  /** prom-client's Registry calls this; values are zeroed, series stay (callers hold their cells). */
  abstract reset(): void;
}

/** A family of single-value series (counters and gauges): rendered and reset alike. */
abstract class ValueFamily<C extends { readonly labels: Labels; value: number }> extends Family<C> {
  abstract readonly type: 'counter' | 'gauge';
  reset(): void {
    for (const c of this.cells.values()) c.value = 0;
  }
  get(): Promise<MetricObject> {
    const values: MetricValue[] = [];
    for (const c of this.cells.values()) values.push({ labels: c.labels, value: c.value });
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }
}

export class CounterFamily extends ValueFamily<CounterCell> {
  readonly type = 'counter' as const;
  protected make(labels: Labels): CounterCell {
    return new CounterCell(labels);
  }
}

export class GaugeFamily extends ValueFamily<GaugeCell> {
  readonly type = 'gauge' as const;
  protected make(labels: Labels): GaugeCell {
    return new GaugeCell(labels);
  }
}

export interface HistogramOptions extends FamilyOptions {
  /** Upper bounds, ascending, without `+Inf`. */
  readonly buckets: readonly number[];
}

export class HistogramFamily extends Family<HistogramCell> {
  readonly type = 'histogram' as const;
  private readonly bounds: Float64Array;
  private readonly les: readonly string[];

  constructor(o: HistogramOptions) {
    super(o);
    for (let i = 1; i < o.buckets.length; i++) {
      if (!(o.buckets[i]! > o.buckets[i - 1]!)) throw new Error(`${o.name}: buckets must be ascending`);
    }
    this.bounds = Float64Array.from(o.buckets);
    this.les = [...o.buckets.map(goFloat), '+Inf'];
  }

  protected make(labels: Labels): HistogramCell {
    return new HistogramCell(labels, this.bounds);
  }

  reset(): void {
    for (const c of this.cells.values()) {
      c.counts.fill(0);
      c.sum = 0;
      c.count = 0;
    }
  }

  get(): Promise<MetricObject> {
    const values: MetricValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const c of this.cells.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.les.length; i++) {
        cumulative += c.counts[i]!;
        values.push({ metricName: bucketName, labels: { ...c.labels, le: this.les[i]! }, value: cumulative });
      }
      values.push({ metricName: `${this.name}_sum`, labels: c.labels, value: c.sum });
      values.push({ metricName: `${this.name}_count`, labels: c.labels, value: c.count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }
}

/** `n` buckets from `start`, each `factor` times the previous (Prometheus' ExponentialBuckets). */
export function exponentialBuckets(start: number, factor: number, n: number): number[] {
  const out: number[] = [];
  let b = start;
  for (let i = 0; i < n; i++, b *= factor) out.push(b);
  return out;
}

/**
 * A float as Go's `strconv.FormatFloat(f, 'g', -1, 64)` (how client_golang writes `le`): the shortest
 * digits, in exponent form when the decimal exponent is below -4 or at least 6 (the shortest form always
 * switches at 6), with a sign and at least two exponent digits: `0.005`, `100000`, `1e+06`, `1.5e-05`.
 */
export function goFloat(f: number): string {
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : f < 0 ? '-Inf' : 'NaN';
  if (f === 0) return '0';
  const [mantissa, expText] = f.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const abs = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
  }
  return String(f);
}
