import { Registry } from 'prom-client';
import { CounterFamily, GaugeFamily, HistogramFamily, exponentialBuckets, goFloat } from './metric-families.js';

describe('metric families', () => {
  it('formats le as Go\'s client (strconv g, shortest)', () => {
    expect([0.005, 0.025, 1, 1.25, 60, 1000, 100000, 1e6, 1e9, 131072, 0.0001, 0.000015, 1234567].map(goFloat)).toEqual([
      '0.005', '0.025', '1', '1.25', '60', '1000', '100000', '1e+06', '1e+09', '131072', '0.0001', '1.5e-05', '1.234567e+06',
    ]);
    expect(exponentialBuckets(1024, 2, 8)).toEqual([1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072]);
  });

  it('renders through a prom-client Registry: one cell per label tuple, cumulative buckets, le inclusive', async () => {
    const registry = new Registry();
    const c = new CounterFamily({ registry, name: 'x_total', help: 'Counts "x".', labelNames: ['a', 'b'] });
    const g = new GaugeFamily({ registry, name: 'y', help: 'Gauge.', labelNames: [] });
    const h = new HistogramFamily({ registry, name: 'z_seconds', help: 'Hist.', labelNames: ['v'], buckets: [0.1, 1] });
    expect(c.child('1', 'q"uote')).toBe(c.child('1', 'q"uote'));
    c.child('1', 'q"uote').inc();
    c.child('1', 'q"uote').inc(2);
    g.child().set(7);
    const cell = h.child('GET');
    for (const v of [0.1, 0.5, 1, 3]) cell.observe(v);
    expect(() => c.child('only-one')).toThrow('2 label values expected');
    expect(await registry.metrics()).toBe([
      '# HELP x_total Counts "x".',
      '# TYPE x_total counter',
      'x_total{a="1",b="q\\"uote"} 3',
      '',
      '# HELP y Gauge.',
      '# TYPE y gauge',
      'y 7',
      '',
      '# HELP z_seconds Hist.',
      '# TYPE z_seconds histogram',
      'z_seconds_bucket{v="GET",le="0.1"} 1',
      'z_seconds_bucket{v="GET",le="1"} 3',
      'z_seconds_bucket{v="GET",le="+Inf"} 4',
      'z_seconds_sum{v="GET"} 4.6',
      'z_seconds_count{v="GET"} 4',
      '',
    ].join('\n'));
    registry.resetMetrics();
    expect(c.child('1', 'q"uote').value).toBe(0);
    expect(cell.count).toBe(0);
  });

  it('refuses buckets out of order', () => {
    expect(() => new HistogramFamily({ registry: new Registry(), name: 'h', help: 'h', labelNames: [], buckets: [1, 1] })).toThrow('ascending');
  });
});
