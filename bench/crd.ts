/**
 * Benchmark part 8: custom resources (issue 12).
 *
 *   create   POST custom resources whose schema has 20 CEL rules, the same schema without rules, and
 *            ConfigMaps of a similar size, at concurrency 64 on the embedded store; the three alternate
 *            over 3 rounds and the median of each is kept. Target: the 20-rule rate >= 0.7x ConfigMap's.
 *   serving  the time from a CustomResourceDefinition create on replica A to the first successful
 *            instance create on replica B (two server processes on one etcd): B learns the definition
 *            through its watch, serves it, and the client retries B until it answers 201.
 *   memory   the server's resident memory after 100 definitions with 1,000 instances each, against the
 *            same server with 100,000 ConfigMaps of the same size (each a fresh process; RSS from /proc
 *            after a settled GC-free pause: the median of 5 reads 200 ms apart).
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { startEtcd } from '../test/harness/etcd.js';
import { benchClient, type BenchClient } from './http-client.js';
import { fmt, measure, table, type Measurement } from './measure.js';
import { buildServer, startServerProcess, type ServerMode, type ServerProcess } from './server-process.js';

export interface CrdBenchOptions {
  readonly scale?: number;
  readonly server?: ServerMode;
}

const NAMESPACE = 'bench';
const CONCURRENCY = 64;
const ROUNDS = 3;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** The 20 rules: the kinds of checks real definitions make (bounds, formats, cross-field, lists, maps). */
const RULES: readonly { readonly rule: string; readonly message: string }[] = [
  { rule: 'self.replicas >= 0', message: 'replicas must not be negative' },
  { rule: 'self.replicas <= 1000', message: 'replicas at most 1000' },
  { rule: 'self.minReplicas <= self.replicas', message: 'minReplicas above replicas' },
  { rule: 'size(self.name) <= 63', message: 'name too long' },
  { rule: "self.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')", message: 'name must be a DNS label' },
  { rule: "self.mode in ['Fast', 'Safe', 'Off']", message: 'unknown mode' },
  { rule: "self.mode != 'Off' || self.replicas == 0", message: 'mode Off needs zero replicas' },
  { rule: 'self.ports.all(p, p > 0 && p < 65536)', message: 'ports must be 1-65535' },
  { rule: 'self.ports.size() <= 16', message: 'at most 16 ports' },
  { rule: 'self.tags.all(t, size(t) <= 32)', message: 'tags at most 32 characters' },
  { rule: "self.labels.all(k, !k.startsWith('kubernetes.io/'))", message: 'reserved label' },
  { rule: "!has(self.endpoint) || self.endpoint.startsWith('https://')", message: 'endpoint must be https' },
  { rule: 'self.weight >= 0 && self.weight <= 100', message: 'weight 0-100' },
  { rule: "self.timeout.endsWith('s')", message: 'timeout in seconds' },
  { rule: 'self.priority.isSorted() || true', message: 'priority' },
  { rule: 'self.ratio >= 0.0', message: 'ratio not negative' },
  { rule: 'self.owner.contains("@")', message: 'owner must be an email' },
  { rule: 'self.tags.exists_one(t, t == "primary") || !("primary" in self.tags)', message: 'primary at most once' },
  { rule: 'self.labels.size() <= 20', message: 'at most 20 labels' },
  { rule: 'self.enabled || self.replicas == 0', message: 'disabled needs zero replicas' },
];

function specSchema(withRules: boolean): Record<string, unknown> {
  return {
    type: 'object',
    required: ['replicas', 'minReplicas', 'name', 'mode', 'ports', 'tags', 'labels', 'weight', 'timeout', 'priority', 'ratio', 'owner', 'enabled'],
    properties: {
      replicas: { type: 'integer' },
      minReplicas: { type: 'integer' },
      name: { type: 'string', maxLength: 253 },
      mode: { type: 'string', maxLength: 16 },
      ports: { type: 'array', maxItems: 64, items: { type: 'integer' } },
      tags: { type: 'array', maxItems: 32, items: { type: 'string', maxLength: 64 } },
      labels: { type: 'object', maxProperties: 64, additionalProperties: { type: 'string', maxLength: 256 } },
      endpoint: { type: 'string', maxLength: 1024 },
      weight: { type: 'integer' },
      timeout: { type: 'string', maxLength: 16 },
      priority: { type: 'array', maxItems: 16, items: { type: 'integer' } },
      ratio: { type: 'number' },
      owner: { type: 'string', maxLength: 256 },
      enabled: { type: 'boolean' },
    },
    ...(withRules ? { 'x-kubernetes-validations': RULES } : {}),
  };
}

function crd(plural: string, kind: string, group: string, withRules: boolean): Buffer {
  return Buffer.from(JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { plural, kind },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema(withRules) } } } }],
    },
  }));
}

const SPEC = {
  replicas: 3, minReplicas: 1, name: 'frontend-cache', mode: 'Safe', ports: [80, 443, 8080, 8443], tags: ['primary', 'web', 'eu-west'],
  labels: { app: 'shop', tier: 'frontend', team: 'payments' }, endpoint: 'https://shop.example.com/api', weight: 50, timeout: '30s',
  priority: [1, 2, 3], ratio: 0.75, owner: 'team@example.com', enabled: true,
};

const instance = (apiVersion: string, kind: string, name: string): Buffer =>
  Buffer.from(JSON.stringify({ apiVersion, kind, metadata: { name }, spec: SPEC }));
/** A ConfigMap about as large as the instance (its spec as string values). */
const configMap = (name: string): Buffer =>
  Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: Object.fromEntries(Object.entries(SPEC).map(([k, v]) => [k, JSON.stringify(v)])) }));

async function waitEstablished(client: BenchClient, name: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = JSON.parse((await client.call('GET', `${CRDS}/${name}`, 200)).body.toString('utf8'));
    if ((got.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > deadline) throw new Error(`${name} not Established after 30 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Retries `path` until it answers 201 (404 while the other replica does not serve it yet). */
async function createWhenServed(client: BenchClient, path: string, body: Buffer): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await client.call('POST', path, 201, body);
      return;
    } catch (err) {
      if (!/\b404\b/.test(String(err)) || Date.now() > deadline) throw err;
    }
  }
}

const rssBytes = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? 0 : Number(m[1]) * 1024;
};

async function settledRss(pid: number): Promise<number> {
  const reads: number[] = [];
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 200));
    reads.push(rssBytes(pid));
  }
  return reads.sort((a, b) => a - b)[2]!;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mib = (b: number): string => fmt(b / 2 ** 20, 1);

export async function benchCrd(o: CrdBenchOptions = {}): Promise<string> {
  const scale = o.scale ?? 1;
  const mode = o.server ?? 'dist';
  if (mode === 'dist') buildServer();
  const out: string[] = ['### Part 8: custom resources', ''];

  // ---- create rate ----
  {
    const server = await startServerProcess({ mode, args: ['--group-domain=k8s.io'] });
    const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: CONCURRENCY });
    try {
      await client.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })));
      await client.call('POST', CRDS, 201, crd('ruled', 'Ruled', 'bench.example.com', true));
      await client.call('POST', CRDS, 201, crd('plains', 'Plain', 'bench.example.com', false));
      await waitEstablished(client, 'ruled.bench.example.com');
      await waitEstablished(client, 'plains.bench.example.com');
      const n = Math.max(200, Math.round(3000 * scale));
      const targets = [
        { name: 'custom resource, 20 CEL rules', path: `/apis/bench.example.com/v1/namespaces/${NAMESPACE}/ruled`, body: (i: string) => instance('bench.example.com/v1', 'Ruled', i) },
        { name: 'custom resource, same schema without rules', path: `/apis/bench.example.com/v1/namespaces/${NAMESPACE}/plains`, body: (i: string) => instance('bench.example.com/v1', 'Plain', i) },
        { name: 'ConfigMap', path: `/api/v1/namespaces/${NAMESPACE}/configmaps`, body: configMap },
      ];
      // Warm-up: the first requests of each resource compile rules, load caches, fill socket pools.
      for (const t of targets) await measure(200, CONCURRENCY, (i) => client.call('POST', t.path, 201, t.body(`warm-${i}`)));
      const results = new Map<string, Measurement[]>(targets.map((t) => [t.name, []]));
      for (let round = 0; round < ROUNDS; round++) {
        for (const t of targets) results.get(t.name)!.push(await measure(n, CONCURRENCY, (i) => client.call('POST', t.path, 201, t.body(`r${round}-${i}`))));
      }
      const med = (name: string) => {
        const ms = results.get(name)!;
        const rate = median(ms.map((m) => m.opsPerSecond));
        return { rate, m: ms.find((x) => x.opsPerSecond === rate)! };
      };
      const base = med('ConfigMap').rate;
      out.push(`#### Create (embedded store, concurrency ${CONCURRENCY}, ${fmt(n)} creates per round, median of ${ROUNDS} alternating rounds)`, '');
      out.push(table(['object', 'creates/s', 'vs ConfigMap', 'p50 ms', 'p99 ms'], targets.map((t) => {
        const { rate, m } = med(t.name);
        return [t.name, fmt(rate), `${fmt((rate / base) * 100, 1)}%`, fmt(m.p50Ms, 1), fmt(m.p99Ms, 1)];
      })), '');
    } finally {
      client.close();
      await server.stop();
    }
  }

  // ---- definition to first instance, through another replica ----
  {
    const cluster = await startEtcd();
    const args = ['--group-domain=k8s.io', `--etcd-servers=${cluster.endpoints.join(',')}`];
    let a: ServerProcess | undefined;
    let b: ServerProcess | undefined;
    try {
      a = await startServerProcess({ mode, args });
      b = await startServerProcess({ mode, args });
      const ca = benchClient({ url: a.url, token: a.token, caPem: a.caPem, maxSockets: 4 });
      const cb = benchClient({ url: b.url, token: b.token, caPem: b.caPem, maxSockets: 4 });
      try {
        await ca.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })));
        const trials = Math.max(5, Math.round(20 * scale));
        const times: number[] = [];
        for (let i = 0; i < trials; i++) {
          const plural = `things${i}`;
          const t0 = performance.now();
          await ca.call('POST', CRDS, 201, crd(plural, `Thing${i}`, 'latency.example.com', true));
          await createWhenServed(cb, `/apis/latency.example.com/v1/namespaces/${NAMESPACE}/${plural}`, instance('latency.example.com/v1', `Thing${i}`, 'first'));
          times.push(performance.now() - t0);
        }
        const sorted = [...times].sort((x, y) => x - y);
        out.push(`#### Definition created on replica A to the first instance created on replica B (two server processes, one etcd; ${trials} definitions with the 20-rule schema)`, '');
        out.push(table(['median ms', 'p90 ms', 'max ms'], [[fmt(median(times), 1), fmt(sorted[Math.floor(sorted.length * 0.9)] ?? 0, 1), fmt(sorted[sorted.length - 1]!, 1)]]), '');
      } finally {
        ca.close();
        cb.close();
      }
    } finally {
      await a?.stop();
      await b?.stop();
      await cluster.stop();
    }
  }

  // ---- memory ----
  {
    const definitions = Math.max(2, Math.round(100 * scale));
    const perDefinition = Math.max(10, Math.round(1000 * scale));
    const rows: string[][] = [];
    for (const what of ['custom resources', 'ConfigMaps'] as const) {
      const server = await startServerProcess({ mode, args: ['--group-domain=k8s.io'] });
      const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: CONCURRENCY });
      try {
        await client.call('POST', '/api/v1/namespaces', 201, Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })));
        const before = await settledRss(server.pid);
        const t0 = performance.now();
        for (let d = 0; d < definitions; d++) {
          let path = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
          let body = (i: number) => configMap(`cm-${d}-${i}`);
          if (what === 'custom resources') {
            const plural = `kinds${d}`;
            await client.call('POST', CRDS, 201, crd(plural, `Kind${d}`, 'memory.example.com', true));
            await waitEstablished(client, `${plural}.memory.example.com`);
            path = `/apis/memory.example.com/v1/namespaces/${NAMESPACE}/${plural}`;
            body = (i: number) => instance('memory.example.com/v1', `Kind${d}`, `o-${i}`);
          }
          await measure(perDefinition, CONCURRENCY, (i) => client.call('POST', path, 201, body(i)));
        }
        const seconds = (performance.now() - t0) / 1000;
        const after = await settledRss(server.pid);
        rows.push([
          what === 'custom resources' ? `${fmt(definitions)} definitions x ${fmt(perDefinition)} instances` : `${fmt(definitions * perDefinition)} ConfigMaps`,
          mib(before), mib(after), mib(after - before), fmt((after - before) / (definitions * perDefinition)), fmt(seconds, 1),
        ]);
      } finally {
        client.close();
        await server.stop();
      }
    }
    out.push(`#### Memory (embedded store; resident set of the server process before and after loading; objects of the create rows)`, '');
    out.push(table(['loaded', 'RSS before MiB', 'RSS after MiB', 'growth MiB', 'bytes per object', 'load s'], rows), '');
  }
  return out.join('\n');
}
