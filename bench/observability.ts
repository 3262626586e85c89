/**
 * Benchmark part 11: what observability costs (issue 16). One server process per configuration, all on the
 * embedded store and started at once, measured in alternating rounds so drift of the machine hits every
 * configuration alike:
 *   - metrics off (`--request-metrics=false`) and on (the default);
 *   - tracing at 1 per 10,000 and at 100% (`--tracing-config-file`, spans exported over OTLP/HTTP to a
 *     receiver in this process that answers every export with 200);
 *   - audit at Metadata for every request (`--audit-policy-file`, `--audit-log-path` in the data dir).
 * Workloads: GET of one ConfigMap through the watch cache (the cheapest request, so per-request overhead shows
 * most) and ConfigMap creates. Targets: metrics on >= 0.97x of off; tracing >= 0.9x at 1/10,000 and >= 0.75x
 * at 100%; audit at Metadata >= 0.9x (each against the default: metrics on, tracing and audit off).
 */
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchClient, type BenchClient } from './http-client.js';
import { cpuSeconds, fmt, measure, table } from './measure.js';
import { metricsFilterCost } from './metrics-filter.js';
import { buildServer, startServerProcess, type ServerMode, type ServerProcess } from './server-process.js';

export interface ObservabilityBenchOptions {
  readonly scale?: number;
  readonly server?: ServerMode;
}

const CONCURRENCY = 64;
const ROUNDS = 5;
const NAMESPACE = 'bench';

interface Config {
  readonly name: string;
  readonly args: (dir: string, otlp: string) => string[];
  /** The configuration the ratio is taken against ('' for none). */
  readonly against: string;
  readonly target?: number;
}

const tracingConfig = (dir: string, otlp: string, perMillion: number): string => {
  const file = join(dir, `tracing-${perMillion}.yaml`);
  writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nendpoint: ${otlp}\nsamplingRatePerMillion: ${perMillion}\n`);
  return file;
};

const configs: readonly Config[] = [
  { name: 'metrics off', args: () => ['--request-metrics=false'], against: '' },
  { name: 'default (metrics on)', args: () => [], against: 'metrics off', target: 0.97 },
  { name: 'tracing 1/10,000', args: (d, o) => [`--tracing-config-file=${tracingConfig(d, o, 100)}`], against: 'default (metrics on)', target: 0.9 },
  { name: 'tracing 100%', args: (d, o) => [`--tracing-config-file=${tracingConfig(d, o, 1_000_000)}`], against: 'default (metrics on)', target: 0.75 },
  {
    name: 'audit Metadata',
    args: (d) => {
      const policy = join(d, 'audit-policy.yaml');
      writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n');
      return [`--audit-policy-file=${policy}`, `--audit-log-path=${join(d, 'audit.log')}`];
    },
    against: 'default (metrics on)',
    target: 0.9,
  },
];

/** An OTLP/HTTP receiver that accepts every export (and counts the bytes, to show spans did arrive). */
async function otlpSink(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server: Server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': req.headers['content-type'] ?? 'application/json' });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    bytes: () => bytes,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

export async function benchObservability(o: ObservabilityBenchOptions = {}): Promise<string> {
  const scale = o.scale ?? 1;
  const mode = o.server ?? 'dist';
  if (mode === 'dist') buildServer();
  const nGet = Math.max(500, Math.round(60_000 * scale));
  const nCreate = Math.max(200, Math.round(15_000 * scale));
  const dir = mkdtempSync(join(tmpdir(), 'bench-observability-'));
  const sink = await otlpSink();
  const servers = new Map<string, { server: ServerProcess; client: BenchClient }>();
  const gets = new Map<string, number[]>(configs.map((c) => [c.name, []]));
  const creates = new Map<string, number[]>(configs.map((c) => [c.name, []]));
  // The server's CPU (user + system) per request: steadier than throughput when the load generator and the
  // other servers share the two cores.
  const getCpu = new Map<string, number[]>(configs.map((c) => [c.name, []]));
  const createCpu = new Map<string, number[]>(configs.map((c) => [c.name, []]));
  const auditBytes = { value: 0 };
  let k = 0;
  try {
    for (const c of configs) {
      const server = await startServerProcess({ mode, args: c.args(dir, sink.url) });
      const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: CONCURRENCY });
      servers.set(c.name, { server, client });
      await client.call('POST', '/api/v1/namespaces', 201, json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }));
      await client.call('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, 201, json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'read-me' }, data: { k: 'v'.repeat(1024) } }));
    }
    const getPath = `/api/v1/namespaces/${NAMESPACE}/configmaps/read-me?resourceVersion=0`;
    const createPath = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
    const body = (name: string): Buffer => json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v'.repeat(1024) } });
    // Warm-up (JIT, caches) of every server before anything is measured.
    for (const { client } of servers.values()) {
      await measure(2000, CONCURRENCY, () => client.call('GET', getPath, 200));
      await measure(500, CONCURRENCY, () => client.call('POST', createPath, 201, body(`w${k++}`)));
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = [...configs.slice(round % configs.length), ...configs.slice(0, round % configs.length)];
      for (const c of order) {
        const { client, server } = servers.get(c.name)!;
        let cpu0 = cpuSeconds(server.pid);
        gets.get(c.name)!.push((await measure(nGet, CONCURRENCY, () => client.call('GET', getPath, 200))).opsPerSecond);
        getCpu.get(c.name)!.push(((cpuSeconds(server.pid) - cpu0) / nGet) * 1e6);
        cpu0 = cpuSeconds(server.pid);
        creates.get(c.name)!.push((await measure(nCreate, CONCURRENCY, () => client.call('POST', createPath, 201, body(`o${k++}`)))).opsPerSecond);
        createCpu.get(c.name)!.push(((cpuSeconds(server.pid) - cpu0) / nCreate) * 1e6);
      }
    }
    // The log and its rotated backups (`--audit-log-maxsize` rotates at 100 MB).
    auditBytes.value = readdirSync(dir).filter((f) => f.startsWith('audit') && f.endsWith('.log')).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
  } finally {
    for (const { client, server } of servers.values()) {
      client.close();
      await server.stop();
    }
    await sink.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const rate = (m: Map<string, number[]>, name: string): number => median(m.get(name)!);
  const ratio = (m: Map<string, number[]>, c: Config): string => (c.against === '' ? '' : `${fmt(rate(m, c.name) / rate(m, c.against), 2)}x`);
  // CPU per request the other way round: the baseline's over this configuration's (higher is better, as throughput).
  const cpuRatio = (m: Map<string, number[]>, c: Config): string => (c.against === '' ? '' : `${fmt(rate(m, c.against) / rate(m, c.name), 2)}x`);
  const rows = configs.map((c) => [
    c.name,
    fmt(rate(gets, c.name)),
    ratio(gets, c),
    fmt(rate(getCpu, c.name), 1),
    cpuRatio(getCpu, c),
    fmt(rate(creates, c.name)),
    ratio(creates, c),
    fmt(rate(createCpu, c.name), 1),
    cpuRatio(createCpu, c),
    c.target === undefined ? '' : `>= ${c.target}x of ${c.against}`,
  ]);
  const filter = await metricsFilterCost();
  return [
    '### Part 11: the cost of metrics, tracing and audit',
    '',
    `One server process per configuration (embedded store), concurrency ${CONCURRENCY}; GET of one 1 KiB ConfigMap through the cache (${fmt(nGet)} per round) and 1 KiB ConfigMap creates (${fmt(nCreate)} per round); median of ${ROUNDS} rounds, configurations alternating in a rotating order; the server's CPU (user + system, /proc) per request, and the baseline's CPU over the configuration's as a ratio. Tracing exports over OTLP/HTTP to a receiver in the bench process (${fmt(sink.bytes() / 1024)} KiB received); the audit log at Metadata (with its rotated backups) grew to ${fmt(auditBytes.value / 1024)} KiB.`,
    '',
    `The request metrics filter in process (bench/metrics-filter.ts, best of 3 × 200,000): ${fmt(filter.perRequestNs)} ns per request over a bare \`await next()\`, ${fmt(filter.recordNs)} ns of it the recording (target: a few hundred nanoseconds).`,
    '',
    table(['configuration', 'GET/s', 'ratio', 'server CPU µs per GET', 'ratio (CPU)', 'creates/s', 'ratio', 'server CPU µs per create', 'ratio (CPU)', 'target'], rows),
  ].join('\n');
}
