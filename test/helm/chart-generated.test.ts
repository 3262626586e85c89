/**
 * The chart's generated and copied files are current: the monitoring sources in files/ equal helm/rules and
 * helm/dashboards (and render into the PrometheusRule and the dashboard ConfigMap unchanged), and the
 * README's values table is what scripts/helm-values-table.mjs makes of values.schema.json and values.yaml.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { findManifest, renderChart, repoRoot } from './render.js';

function runScript(script: string, ...args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', script), ...args], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

describe('the chart\'s generated files', () => {
  it('files/ holds the current rules and dashboard (node scripts/helm-chart-files.mjs)', () => {
    const r = runScript('helm-chart-files.mjs', '--check');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('the README values table is current (node scripts/helm-values-table.mjs)', () => {
    const r = runScript('helm-values-table.mjs', '--check');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const readme = readFileSync(join(repoRoot, 'helm', 'platform-apiserver', 'README.md'), 'utf8');
    // One row per leaf: spot-check a nested value and its default.
    expect(readme).toContain('| `server.shutdownDelaySeconds` | integer | `20` |');
    expect(readme).toContain('| `etcd.mode` | string ("bundled", "external") | `"bundled"` |');
  });

  it('renders the PrometheusRule groups and the dashboard exactly as the sources', () => {
    const rendered = renderChart();
    const rules = parse(readFileSync(join(repoRoot, 'helm', 'rules', 'platform-apiserver.rules.yaml'), 'utf8')) as { groups: unknown[] };
    expect((findManifest(rendered, 'PrometheusRule').spec as { groups: unknown[] }).groups).toEqual(rules.groups);
    const dashboard = readFileSync(join(repoRoot, 'helm', 'dashboards', 'platform-apiserver.json'), 'utf8');
    const cm = findManifest(rendered, 'ConfigMap', 'release-name-platform-apiserver-dashboard');
    expect(JSON.parse((cm.data as Record<string, string>)['platform-apiserver.json'] ?? '')).toEqual(JSON.parse(dashboard));
    expect(cm.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
  });
});
