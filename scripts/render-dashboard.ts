/**
 * Renders every panel of helm/dashboards/platform-apiserver.json as a PNG in docs/dashboard/, from a real
 * scrape of a load run, so docs/dashboard.md shows what an operator sees:
 *
 *   node --import tsx scripts/render-dashboard.ts [--no-build]
 *
 * It builds the server (dist/, unless --no-build), starts a real etcd (test/harness), two replicas on it,
 * and Debian's prometheus scraping both every second with the rules loaded (the same parts as
 * test/e2e/prometheus), drives a load in phases of rising and falling concurrency, then runs each panel's
 * PromQL through the query_range API (variables as Grafana sets them: every replica, `$__rate_interval`
 * 15 s) and draws it (scripts/panel-chart.ts). The section of docs/dashboard.md between the
 * `<!-- panels:begin -->` and `<!-- panels:end -->` markers is rewritten: one heading, image, description
 * and PromQL per panel. Every process started is stopped at the end, also on failure.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd, type EtcdCluster } from '../test/harness/etcd.js';
import { dashboardPanels, RULES_PATH, substitute, type Panel } from '../test/e2e/prometheus/dashboard-queries.js';
import { driveLoad, type LoadPhase } from '../test/e2e/prometheus/load.js';
import { SCRAPE_JOB, startPrometheus, type PrometheusServer } from '../test/e2e/prometheus/prometheus-server.js';
import { startReplicas, type ReplicaSet } from '../test/e2e/prometheus/replicas.js';
import { panelSpec, renderPng, type TargetSeries } from './panel-chart.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT_DIR = join(root, 'docs', 'dashboard');
const DOC = join(root, 'docs', 'dashboard.md');
const BEGIN = '<!-- panels:begin -->';
const END = '<!-- panels:end -->';
const RATE_INTERVAL = '15s';
const STEP_SECONDS = 2;
/** Idle, then a rising and falling load: the graphs show the server following it. */
const PHASES: readonly LoadPhase[] = [
  { durationMs: 15_000, workers: 1 },
  { durationMs: 20_000, workers: 4 },
  { durationMs: 20_000, workers: 8 },
  { durationMs: 15_000, workers: 2 },
];

const log = (line: string): void => {
  process.stderr.write(`render-dashboard: ${line}\n`);
};

async function main(): Promise<void> {
  if (!process.argv.includes('--no-build')) {
    log('building the server (tsc -p tsconfig.build.json)');
    const build = spawnSync(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
  }
  const panels = dashboardPanels(root);
  let etcd: EtcdCluster | undefined;
  let replicas: ReplicaSet | undefined;
  let prometheus: PrometheusServer | undefined;
  try {
    etcd = await startEtcd();
    replicas = await startReplicas({ repoRoot: root, count: 2, etcdServers: etcd.endpoints, etcdPrefix: '/render-dashboard', audit: true });
    log(`replicas at ${replicas.replicas.map((r) => r.url).join(', ')}`);
    prometheus = await startPrometheus({
      targets: replicas.replicas.map((r) => r.hostPort),
      token: replicas.token,
      caPem: replicas.caPem,
      ruleFiles: [join(root, RULES_PATH)],
    });
    await waitScraped(prometheus, replicas.replicas.length);
    const start = Date.now() / 1000;
    const report = await driveLoad(replicas.replicas, {
      token: replicas.token,
      caPem: replicas.caPem,
      phases: PHASES,
      onPhase: (i, p) => log(`load phase ${i + 1}/${PHASES.length}: ${p.workers} worker(s) per replica for ${p.durationMs / 1000} s`),
    });
    // The tail: the rates fall back and the last scrapes land.
    await new Promise((r) => setTimeout(r, 10_000));
    const end = Date.now() / 1000;
    const total = Object.values(report.requests).reduce((a, b) => a + b, 0);
    log(`load done: ${total} requests; rendering ${panels.length} panels`);

    rmSync(OUT_DIR, { recursive: true, force: true });
    mkdirSync(OUT_DIR, { recursive: true });
    const sections: string[] = [];
    let row = '';
    for (const [i, panel] of panels.entries()) {
      const targets: TargetSeries[] = [];
      for (const t of panel.targets) {
        const promql = substitute(t.expr, { job: SCRAPE_JOB, instance: '.+', rateInterval: RATE_INTERVAL });
        const answer = await prometheus.queryRange(promql, start, end, STEP_SECONDS);
        if (!answer.ok) throw new Error(`${panel.title} / ${t.refId}: ${answer.error}\n${promql}`);
        targets.push({ legendFormat: t.legendFormat, series: answer.series });
      }
      const file = `${String(i + 1).padStart(2, '0')}-${slug(panel.title)}.png`;
      writeFileSync(join(OUT_DIR, file), await renderPng(panelSpec(panel, targets, 'No data in this run.')));
      if (panel.row !== row) {
        row = panel.row;
        sections.push(`### ${row}\n`);
      }
      sections.push(section(panel, `dashboard/${file}`));
    }
    const summary = [
      `Rendered by \`scripts/render-dashboard.ts\` from Prometheus' scrape of two replicas on one etcd under a ${PHASES.reduce((a, p) => a + p.durationMs, 0) / 1000} s load`,
      `(${PHASES.map((p) => p.workers).join(', then ')} request loops per replica; ${total} requests in all), every 1 s; \`$__rate_interval\` = ${RATE_INTERVAL}.`,
      '',
    ].join('\n');
    writeDoc(`${summary}\n${sections.join('\n')}`);
    log(`wrote ${readdirSync(OUT_DIR).length} PNGs to ${OUT_DIR} and the panels of ${DOC}`);
  } finally {
    await prometheus?.stop();
    await replicas?.stop();
    await etcd?.stop();
  }
}

async function waitScraped(prometheus: PrometheusServer, count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const targets = await prometheus.targets();
    if (targets.filter((t) => t.health === 'up').length === count) return;
    if (Date.now() > deadline) throw new Error(`targets not up after 30 s: ${JSON.stringify(targets)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

function section(panel: Panel, image: string): string {
  const exprs = panel.targets.map((t) => t.expr).join('\n');
  return [
    `#### ${panel.title}`,
    '',
    `![${panel.title}](${image})`,
    '',
    panel.description,
    '',
    '```promql',
    exprs,
    '```',
    '',
  ].join('\n');
}

function writeDoc(panelsText: string): void {
  const doc = readFileSync(DOC, 'utf8');
  const b = doc.indexOf(BEGIN);
  const e = doc.indexOf(END);
  if (b < 0 || e < b) throw new Error(`${DOC} lacks the ${BEGIN} ... ${END} markers`);
  writeFileSync(DOC, `${doc.slice(0, b + BEGIN.length)}\n${panelsText}\n${doc.slice(e)}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`render-dashboard: ${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
