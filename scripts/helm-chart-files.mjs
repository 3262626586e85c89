#!/usr/bin/env node
/**
 * Copies the monitoring sources the chart ships into helm/platform-apiserver/files/ (Helm's .Files only sees
 * files inside the chart directory): helm/rules/platform-apiserver.rules.yaml (the PrometheusRule's groups)
 * and helm/dashboards/platform-apiserver.json (the dashboard ConfigMap). Run it after editing either:
 *
 *   node scripts/helm-chart-files.mjs           # copy
 *   node scripts/helm-chart-files.mjs --check   # exit 1 when a copy differs (test/helm/chart-generated.test.ts)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = join(root, 'helm', 'platform-apiserver', 'files');
const copies = [
  [join(root, 'helm', 'rules', 'platform-apiserver.rules.yaml'), join(files, 'platform-apiserver.rules.yaml')],
  [join(root, 'helm', 'dashboards', 'platform-apiserver.json'), join(files, 'platform-apiserver.json')],
];

const check = process.argv.includes('--check');
let stale = 0;
for (const [from, to] of copies) {
  const want = readFileSync(from);
  const same = existsSync(to) && Buffer.compare(readFileSync(to), want) === 0;
  if (same) continue;
  if (check) {
    stale++;
    process.stderr.write(`${relative(root, to)} differs from ${relative(root, from)}: run node scripts/helm-chart-files.mjs\n`);
  } else {
    writeFileSync(to, want);
    process.stdout.write(`wrote ${relative(root, to)}\n`);
  }
}
process.exit(stale > 0 ? 1 : 0);
