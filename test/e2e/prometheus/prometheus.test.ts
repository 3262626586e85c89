/**
 * Issue 16's acceptance test of the dashboard and the rules, against a real scrape: a real etcd, two
 * replicas of the built server on it (auditing at Metadata level), and Debian's `prometheus` on loopback
 * scraping both replicas' `/metrics` over HTTPS (bearer token, the replicas' CA) every second, with the
 * rules file loaded and evaluated every second. After a short load on both replicas (load.ts), through
 * Prometheus' query API:
 *
 * - `rate(apiserver_request_total[1m])` is non-zero for each replica;
 * - `promtool check rules` accepts the rules file, and the PrometheusRule carries the same groups;
 * - every PromQL expression of the dashboard (its variables replaced as Grafana does: the job, every
 *   replica, `$__rate_interval` = 1m) parses and returns a finite value, except the few listed in
 *   CONDITIONAL, which can only have data under a condition the load does not create, and must parse;
 * - every rule is loaded and evaluated without error; every recording rule returns data; every alert
 *   parses, and the inputs of its comparisons return data (an alert itself has data only while firing),
 *   except those listed in CONDITIONAL.
 *
 * Every wait is a poll with a deadline; every process started is stopped in afterAll.
 */
import { join, resolve } from 'node:path';
import { etcdAvailable, startEtcd, type EtcdCluster } from '../../harness/etcd.js';
import {
  alertInputs, dashboardPanels, prometheusRuleGroups, rulesFileGroups, rulesOf, RULES_PATH, substitute,
} from './dashboard-queries.js';
import { driveLoad } from './load.js';
import { prometheusAvailable, promtoolCheckRules, SCRAPE_JOB, startPrometheus, type PrometheusServer, type QueryAnswer } from './prometheus-server.js';
import { startReplicas, type ReplicaSet } from './replicas.js';

const repoRoot = resolve(__dirname, '..', '..', '..');

/**
 * Expressions that have data only under a condition the load does not create, keyed by where they are
 * (`<panel title> / <refId>` or `rule <name>`): they must parse, and may be empty.
 */
const CONDITIONAL: Readonly<Record<string, string>> = {
  'Audit events / B': 'apiserver_audit_error_total has series only once an audit backend failed to write or dropped an event',
  'rule PlatformApiserverAuditEventsDropped': 'apiserver_audit_error_total has series only once an audit backend failed to write or dropped an event',
};

/** How long data may take to appear after the load: a few scrape and evaluation intervals of 1 s. */
const DATA_DEADLINE_MS = 20_000;

const describePrometheus: jest.Describe = (etcdAvailable() && prometheusAvailable()) || process.env.CI ? describe : describe.skip;

describePrometheus('the dashboard and the rules against a Prometheus scraping two replicas under load', () => {
  let etcd: EtcdCluster | undefined;
  let replicas: ReplicaSet | undefined;
  let prometheus: PrometheusServer | undefined;
  let instances: string[] = [];

  beforeAll(async () => {
    etcd = await startEtcd();
    replicas = await startReplicas({
      repoRoot,
      count: 2,
      etcdServers: etcd.endpoints,
      etcdPrefix: `/prometheus-e2e-${process.pid}`,
      audit: true,
    });
    instances = replicas.replicas.map((r) => r.hostPort);
    prometheus = await startPrometheus({
      targets: instances,
      token: replicas.token,
      caPem: replicas.caPem,
      ruleFiles: [join(repoRoot, RULES_PATH)],
    });
    // Both targets scraped successfully before the load starts, so the load's first requests are counted
    // from a scraped baseline (rate() needs two samples).
    await until('both replicas scraped', async () => {
      const targets = await prometheus!.targets();
      const up = targets.filter((t) => t.health === 'up').map((t) => t.instance);
      return instances.every((i) => up.includes(i)) || `targets: ${JSON.stringify(targets)}`;
    });
    await driveLoad(replicas.replicas, { token: replicas.token, caPem: replicas.caPem, phases: [{ durationMs: 6000, workers: 3 }] });
  }, 120_000);

  afterAll(async () => {
    await prometheus?.stop();
    await replicas?.stop();
    await etcd?.stop();
  }, 60_000);

  it('sees a non-zero rate(apiserver_request_total[1m]) for each replica', async () => {
    const promql = `sum by (instance) (rate(apiserver_request_total{job="${SCRAPE_JOB}"}[1m]))`;
    await until('a request rate for both replicas', async () => {
      const answer = await prometheus!.query(promql);
      if (!answer.ok) throw new Error(`${promql}: ${answer.error}`);
      const rates = Object.fromEntries(answer.series.map((s) => [s.metric.instance, Number(s.values[0]![1])]));
      return instances.every((i) => (rates[i] ?? 0) > 0) || `rates: ${JSON.stringify(rates)}`;
    });
  });

  it('promtool accepts the rules file, and the PrometheusRule holds the same groups', () => {
    const check = promtoolCheckRules(join(repoRoot, RULES_PATH));
    expect(check.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(check.status).toBe(0);
    const wrapped = prometheusRuleGroups(repoRoot);
    expect(wrapped.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(wrapped.kind).toBe('PrometheusRule');
    // scripts/prometheus-rule.mjs generates it: a difference means the rules file was edited without it.
    expect(wrapped.groups).toEqual(rulesFileGroups(repoRoot));
  });

  it('every dashboard expression parses and returns data', async () => {
    const panels = dashboardPanels(repoRoot);
    expect(panels.length).toBeGreaterThan(20);
    const expressions = panels.flatMap((p) => p.targets.map((t) => ({
      where: `${p.title} / ${t.refId}`,
      promql: substitute(t.expr, { job: SCRAPE_JOB, instance: '.+', rateInterval: '1m' }),
    })));
    expect(expressions.every((e) => !e.promql.includes('$'))).toBe(true);
    await expectData(expressions);
  });

  it('every rule evaluates without error; recording rules and the inputs of alerts return data', async () => {
    const rules = rulesOf(repoRoot);
    // Prometheus loaded every rule of the file and has evaluated each without error.
    await until('every rule evaluated', async () => {
      const states = await prometheus!.rules();
      const bad = states.filter((s) => s.health !== 'ok');
      return (states.length === rules.length && bad.length === 0) || `loaded ${states.length}/${rules.length}; not ok: ${JSON.stringify(bad)}`;
    });
    // Alerts parse. An alert's expression has data only while its condition holds, which a healthy run
    // should not create (whether one holds under a loaded CI machine is not asserted: its inputs are, below).
    for (const alert of rules.filter((r) => r.kind === 'alert')) {
      const answer = await prometheus!.query(alert.expr);
      if (!answer.ok) throw new Error(`alert ${alert.name} does not parse: ${answer.error}\n${alert.expr}`);
    }
    await expectData([
      ...rules.filter((r) => r.kind === 'record').map((r) => ({ where: `rule ${r.name}`, promql: r.expr })),
      // The recorded series themselves, as Prometheus stored them.
      ...rules.filter((r) => r.kind === 'record').map((r) => ({ where: `recorded ${r.name}`, promql: r.name })),
      ...rules.filter((r) => r.kind === 'alert').flatMap((r) => alertInputs(r.expr).map((promql) => ({ where: `rule ${r.name}`, promql }))),
    ]);
  });

  /**
   * Polls every expression until each returns a finite value (or, for CONDITIONAL ones, parses), up to
   * DATA_DEADLINE_MS; then fails listing those that never did, with Prometheus' answer.
   */
  async function expectData(expressions: readonly { where: string; promql: string }[]): Promise<void> {
    const pending = new Map(expressions.map((e) => [`${e.where}: ${e.promql}`, e]));
    const last = new Map<string, string>();
    const deadline = Date.now() + DATA_DEADLINE_MS;
    for (;;) {
      for (const [key, e] of pending) {
        const answer = await prometheus!.query(e.promql);
        if (!answer.ok) throw new Error(`${e.where} does not parse: ${answer.error}\n${e.promql}`);
        if (CONDITIONAL[e.where] !== undefined || hasFiniteValue(answer)) pending.delete(key);
        else last.set(key, answer.series.length === 0 ? 'no series' : `only non-finite values: ${JSON.stringify(answer.series.slice(0, 3))}`);
      }
      if (pending.size === 0) return;
      if (Date.now() > deadline) {
        throw new Error(`no data after ${DATA_DEADLINE_MS} ms for ${pending.size} expression(s):\n${[...pending.keys()].map((k) => `- ${k}\n  (${last.get(k)})`).join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
});

function hasFiniteValue(answer: QueryAnswer): boolean {
  return answer.ok && answer.series.some((s) => s.values.some(([, v]) => Number.isFinite(Number(v))));
}

/** Polls `check` (true, or a description of the state so far) until true or 30 s pass. */
async function until(what: string, check: () => Promise<true | string>): Promise<void> {
  const deadline = Date.now() + 30_000;
  let state: true | string = '';
  while ((state = await check()) !== true) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${state}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
