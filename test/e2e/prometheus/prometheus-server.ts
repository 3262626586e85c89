/**
 * A Debian `prometheus` (2.42, `/usr/bin/prometheus`) on a free loopback port with its configuration and
 * TSDB in a temporary directory, and a small client of its HTTP API (`/api/v1/query`, `query_range`,
 * `targets`, `rules`). Used by the acceptance test (`prometheus.test.ts`) and by
 * `scripts/render-dashboard.ts`.
 *
 * The scrape job is `platform-apiserver` (the job the dashboard defaults to and the rules select): the
 * replicas' `/metrics` over HTTPS with a bearer token from a file, verified against the CA given. Every
 * process started here is stopped by `stop()`; a process-exit hook kills leftovers should the runner die
 * first.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePorts } from '../../harness/ports.js';

/** The scrape job's name: the dashboard's default `job` and the rules' selector. */
export const SCRAPE_JOB = 'platform-apiserver';

export interface PrometheusOptions {
  /** `host:port` of every replica to scrape. */
  readonly targets: readonly string[];
  /** The bearer token the scrape sends. */
  readonly token: string;
  /** PEM of the CA that signs every target's serving certificate. */
  readonly caPem: string;
  /** Scrape and rule evaluation interval. Default `1s`. */
  readonly interval?: string;
  /** Rule files (absolute paths) to load and evaluate. */
  readonly ruleFiles?: readonly string[];
}

/** One sample series of a query answer. */
export interface Series {
  readonly metric: Record<string, string>;
  /** `[unix seconds, value as text]` pairs; one pair for an instant query. */
  readonly values: readonly (readonly [number, string])[];
}

/** A successful answer of the query API, or the error Prometheus gave. */
export type QueryAnswer =
  | { readonly ok: true; readonly resultType: string; readonly series: readonly Series[] }
  | { readonly ok: false; readonly errorType: string; readonly error: string };

export interface RuleState {
  readonly group: string;
  readonly name: string;
  readonly type: 'recording' | 'alerting';
  readonly query: string;
  readonly health: string;
  readonly lastError?: string;
  /** Alerting rules: inactive, pending or firing. */
  readonly state?: string;
}

export interface TargetState {
  readonly instance: string;
  readonly health: string;
  readonly lastError: string;
}

export interface PrometheusServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** An instant query at `time` (unix seconds; default now). */
  query(promql: string, time?: number): Promise<QueryAnswer>;
  /** A range query over [start, end] (unix seconds) every `step` seconds. */
  queryRange(promql: string, start: number, end: number, step: number): Promise<QueryAnswer>;
  targets(): Promise<TargetState[]>;
  rules(): Promise<RuleState[]>;
  /** SIGTERM, SIGKILL after 5 s; removes the temporary directory. Idempotent. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Whether Debian's `prometheus` and `promtool` are on PATH (`make deps` installs them). */
export function prometheusAvailable(): boolean {
  return spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).status === 0
    && spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Starts Prometheus and resolves once `/-/ready` answers 200 (its rules loaded, the scrape running). */
export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), 'prometheus-test-'));
  const tokenFile = join(dir, 'token');
  const caFile = join(dir, 'ca.crt');
  writeFileSync(tokenFile, options.token, { mode: 0o600 });
  writeFileSync(caFile, options.caPem);
  const interval = options.interval ?? '1s';
  const config = {
    global: { scrape_interval: interval, scrape_timeout: interval, evaluation_interval: interval },
    rule_files: [...(options.ruleFiles ?? [])],
    scrape_configs: [{
      job_name: SCRAPE_JOB,
      scheme: 'https',
      metrics_path: '/metrics',
      authorization: { type: 'Bearer', credentials_file: tokenFile },
      // The serving certificates name 127.0.0.1 (apiserver/tls/sans.ts): verified, not skipped.
      tls_config: { ca_file: caFile },
      static_configs: [{ targets: [...options.targets] }],
    }],
  };
  const configFile = join(dir, 'prometheus.yml');
  writeFileSync(configFile, stringify(config));
  const [port] = await freePorts(1);
  const url = `http://127.0.0.1:${port}`;
  const child = spawn('prometheus', [
    `--config.file=${configFile}`,
    `--storage.tsdb.path=${join(dir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`,
    '--storage.tsdb.retention.time=1h',
    '--log.level=warn',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  live.add(child);
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { log = (log + c).slice(-20_000); });
  const exited = new Promise<void>((r) => child.once('exit', () => {
    live.delete(child);
    r();
  }));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (running()) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  // Queries are POSTed (long expressions stay out of the URL); the listing endpoints are GET only.
  const api = async (path: string, params?: Record<string, string>): Promise<any> => {
    const res = await fetch(`${url}${path}`, {
      method: params === undefined ? 'GET' : 'POST',
      ...(params === undefined ? {} : { body: new URLSearchParams(params) }),
      signal: AbortSignal.timeout(10_000),
    });
    return res.json();
  };
  const answer = (body: any): QueryAnswer => body.status === 'success'
    ? {
      ok: true,
      resultType: body.data.resultType,
      series: (body.data.result as any[]).map((r) => ({ metric: r.metric, values: r.values ?? (r.value === undefined ? [] : [r.value]) })),
    }
    : { ok: false, errorType: String(body.errorType), error: String(body.error) };

  try {
    const deadline = Date.now() + 30_000;
    let last = '';
    for (;;) {
      if (!running()) throw new Error(`prometheus exited during start-up (${child.exitCode ?? child.signalCode})`);
      try {
        const res = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) });
        if (res.status === 200) break;
        last = `status ${res.status}`;
      } catch (err) {
        last = String(err);
      }
      if (Date.now() > deadline) throw new Error(`prometheus not ready after 30 s: ${last}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}; log:\n${log.split('\n').slice(-15).join('\n')}`);
  }

  return {
    url,
    query: async (promql, time) => answer(await api('/api/v1/query', { query: promql, ...(time === undefined ? {} : { time: String(time) }) })),
    queryRange: async (promql, start, end, step) => answer(await api('/api/v1/query_range', { query: promql, start: String(start), end: String(end), step: String(step) })),
    async targets() {
      const body = await api('/api/v1/targets?state=active');
      return (body.data.activeTargets as any[]).map((t) => ({ instance: t.labels.instance, health: t.health, lastError: t.lastError }));
    },
    async rules() {
      const body = await api('/api/v1/rules');
      return (body.data.groups as any[]).flatMap((g) => (g.rules as any[]).map((r) => ({
        group: g.name,
        name: r.name,
        type: r.type,
        query: r.query,
        health: r.health,
        ...(r.lastError ? { lastError: r.lastError } : {}),
        ...(r.state === undefined ? {} : { state: r.state }),
      })));
    },
    stop,
  };
}

/** `promtool check rules <file>`: its exit status and output. */
export function promtoolCheckRules(file: string): { status: number | null; output: string } {
  const res = spawnSync('promtool', ['check', 'rules', file], { encoding: 'utf8', timeout: 30_000 });
  return { status: res.status, output: `${res.stdout}${res.stderr}` };
}
