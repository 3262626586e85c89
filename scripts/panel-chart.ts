/**
 * Draws one dashboard panel as a PNG from the range-query answers of its targets: a Vega-Lite line chart
 * (one line per series, named by the target's legend format as Grafana names them), rendered to SVG by
 * Vega in Node (no canvas) and rasterized by resvg. The y axis is scaled to a readable unit (ms below a
 * second, KiB/MiB for bytes, percent for ratios) named in the axis title; threshold values become dashed
 * rules, on a logarithmic axis as the dashboard draws that panel. A panel without data says so.
 */
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { legendOf, type Panel } from '../test/e2e/prometheus/dashboard-queries.js';
import type { Series } from '../test/e2e/prometheus/prometheus-server.js';

export interface TargetSeries {
  readonly legendFormat: string;
  readonly series: readonly Series[];
}

const WIDTH = 760;
const HEIGHT = 260;
const FONT = 'DejaVu Sans';

/** How values of a Grafana unit are shown: a factor and the axis title. */
function scaleFor(unit: string, max: number): { factor: number; title: string } {
  switch (unit) {
    case 's':
      return max < 1 ? { factor: 1000, title: 'milliseconds' } : { factor: 1, title: 'seconds' };
    case 'bytes':
      if (max >= 2 ** 30) return { factor: 2 ** -30, title: 'GiB' };
      if (max >= 2 ** 20) return { factor: 2 ** -20, title: 'MiB' };
      return max >= 2 ** 10 ? { factor: 2 ** -10, title: 'KiB' } : { factor: 1, title: 'bytes' };
    case 'percentunit':
      return { factor: 100, title: 'percent' };
    case 'reqps':
      return { factor: 1, title: 'requests / s' };
    case 'ops':
      return { factor: 1, title: 'operations / s' };
    case 'eps':
      return { factor: 1, title: 'events / s' };
    case 'cps':
      return { factor: 1, title: 'per second' };
    default:
      return { factor: 1, title: '' };
  }
}

/** The Vega-Lite spec of a panel. `note` is shown when there are no points. */
export function panelSpec(panel: Panel, targets: readonly TargetSeries[], note: string): TopLevelSpec {
  // Every series gets a point at every step of the panel: null where Prometheus had no value or NaN (a
  // histogram without observations in the window), so the line breaks there as Grafana's does instead of
  // bridging the gap.
  const steps = [...new Set(targets.flatMap((t) => t.series.flatMap((s) => s.values.map(([at]) => at))))].sort((a, b) => a - b);
  const points: { t: number; v: number | null; series: string }[] = [];
  for (const target of targets) {
    for (const s of target.series) {
      const name = legendOf(target.legendFormat, s.metric);
      const byStep = new Map(s.values.map(([at, v]) => [at, Number(v)]));
      for (const at of steps) {
        const n = byStep.get(at);
        points.push({ t: at * 1000, v: n !== undefined && Number.isFinite(n) ? n : null, series: name });
      }
    }
  }
  const base = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: WIDTH,
    height: HEIGHT,
    background: 'white',
    padding: 12,
    title: { text: panel.title, subtitle: panel.row, anchor: 'start' as const, fontSize: 15, subtitleColor: '#666' },
    config: { font: FONT, axis: { labelFontSize: 11, titleFontSize: 11, gridColor: '#e6e6e6' }, legend: { labelFontSize: 11, labelLimit: 420 }, view: { stroke: '#ccc' } },
  };
  if (!points.some((p) => p.v !== null)) {
    return {
      ...base,
      data: { values: [{ text: note }] },
      mark: { type: 'text', fontSize: 13, color: '#888' },
      encoding: { text: { field: 'text' } },
    } as TopLevelSpec;
  }
  const max = Math.max(...points.map((p) => p.v ?? 0), ...panel.thresholds);
  const { factor, title } = scaleFor(panel.unit, max);
  const log = panel.thresholds.length > 0;
  // A logarithmic axis has no zero: zeros break the line rather than fall to minus infinity.
  const values = points.map((p) => ({ ...p, v: p.v === null || (log && p.v <= 0) ? null : p.v * factor }));
  const y = {
    field: 'v',
    type: 'quantitative' as const,
    title,
    scale: log ? { type: 'log' as const } : { zero: true },
    // Plain decimals (0.3, 250, 1,500): SI prefixes would print 300m for 0.3 s, and ~g 1e+3 for 1000.
    axis: { format: ',~r' },
  };
  const lines = {
    data: { values },
    mark: { type: 'line' as const, strokeWidth: 1.6, interpolate: 'linear' as const },
    encoding: {
      x: { field: 't', type: 'temporal' as const, title: 'time (UTC)', axis: { format: '%H:%M:%S', labelAngle: 0 } },
      y,
      color: { field: 'series', type: 'nominal' as const, title: null, legend: { orient: 'bottom' as const, columns: 2, symbolType: 'stroke' } },
    },
  };
  if (!log) return { ...base, ...lines } as TopLevelSpec;
  const rules = {
    data: { values: panel.thresholds.map((v) => ({ v: v * factor, label: `SLO ${v} s` })) },
    layer: [
      { mark: { type: 'rule' as const, strokeDash: [6, 4], color: '#d44a3a' }, encoding: { y: { field: 'v', type: 'quantitative' as const } } },
      {
        mark: { type: 'text' as const, align: 'left' as const, dx: 4, dy: -7, color: '#d44a3a', fontSize: 11 },
        encoding: { y: { field: 'v', type: 'quantitative' as const }, x: { value: 0 }, text: { field: 'label' } },
      },
    ],
  };
  return { ...base, layer: [lines, rules] } as TopLevelSpec;
}

/** Renders a Vega-Lite spec to PNG bytes. */
export async function renderPng(spec: TopLevelSpec): Promise<Buffer> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  const png = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 1.5 },
    font: { loadSystemFonts: true, defaultFontFamily: FONT },
    background: 'white',
  }).render().asPng();
  return Buffer.from(png);
}
