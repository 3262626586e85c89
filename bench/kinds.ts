/**
 * Benchmark part 10: the workload kinds of issue 14. Creates per second at concurrency 64 on the embedded
 * store, one server process, for
 *   - a ConfigMap whose JSON is as large as the StatefulSet's (the baseline: the generic path with the
 *     cheapest validation), and one as large as the StatefulSet once stored (defaults and managedFields);
 *   - a StatefulSet and a Job with a realistic pod template (two containers with ports, env, resources,
 *     probes, volume mounts and a security context; a volume claim template for the StatefulSet), so the
 *     shared pod template defaulting and validation is what the ratio measures;
 *   - a Service of type NodePort, which allocates a cluster IP and a node port per create (and a ClusterIP
 *     Service, which allocates only the IP).
 * The rows alternate over 3 rounds; the median is kept. Target: StatefulSet and Job at >= 0.8x of the
 * ConfigMap. Services are deleted after each row so the ranges never run out (a /16 and a node port
 * range of 20,001 ports hold every create of a row).
 */
import { benchClient } from './http-client.js';
import { cpuSeconds, fmt, measure, table, type Measurement } from './measure.js';
import { buildServer, startServerProcess, type ServerMode } from './server-process.js';

export interface KindsBenchOptions {
  readonly scale?: number;
  readonly server?: ServerMode;
}

const NAMESPACE = 'bench';
const CONCURRENCY = 64;
const ROUNDS = 3;

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

/** A pod template as applications write them. */
function podTemplate(app: string, restartPolicy: string): unknown {
  const container = (name: string, image: string, port: number) => ({
    name,
    image,
    imagePullPolicy: 'IfNotPresent',
    args: ['--port', String(port), '--log-level=info'],
    ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }],
    env: [
      { name: 'APP', value: app },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'GOMAXPROCS', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1' } } },
    ],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi' } },
    ...(restartPolicy === 'Always'
      ? {
          readinessProbe: { httpGet: { path: '/ready', port }, periodSeconds: 5 },
          livenessProbe: { tcpSocket: { port }, initialDelaySeconds: 10 },
        }
      : {}),
    volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'config', mountPath: '/etc/app', readOnly: true }],
    securityContext: { runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  });
  return {
    metadata: { labels: { app, tier: 'backend' }, annotations: { 'example.com/team': 'storage' } },
    spec: {
      restartPolicy,
      terminationGracePeriodSeconds: 30,
      containers: [container('server', 'registry.example.com/app/server:1.4.2', 8080), container('sidecar', 'registry.example.com/app/proxy:2.1.0', 9090)],
      volumes: [
        ...(restartPolicy === 'Always' ? [] : [{ name: 'data', emptyDir: {} }]),
        { name: 'config', configMap: { name: `${app}-config` } },
      ],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'storage', effect: 'NoSchedule' }],
    },
  };
}

const statefulSet = (name: string): unknown => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name, labels: { app: 'db' } },
  spec: {
    serviceName: 'db',
    replicas: 3,
    selector: { matchLabels: { app: 'db' } },
    template: podTemplate('db', 'Always'),
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } }],
  },
});

const job = (name: string): unknown => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, labels: { app: 'report' } },
  spec: { completions: 5, parallelism: 2, backoffLimit: 4, template: podTemplate('report', 'Never') },
});

/** A ConfigMap whose JSON has `bytes` bytes (to within a few). */
function configMap(name: string, bytes: number): unknown {
  const empty = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload: '' } }).length;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { payload: 'x'.repeat(Math.max(0, bytes - empty)) } };
}

const service = (name: string, type: 'ClusterIP' | 'NodePort'): unknown => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, labels: { app: 'web' } },
  spec: { type, selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
});

interface Row {
  readonly name: string;
  readonly path: string;
  readonly body: (name: string) => Buffer;
  /** Collection to empty after each round (allocations are finite). */
  readonly cleanup?: boolean;
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchKinds(o: KindsBenchOptions = {}): Promise<string> {
  const scale = o.scale ?? 1;
  const mode = o.server ?? 'dist';
  if (mode === 'dist') buildServer();
  const server = await startServerProcess({ mode, args: ['--group-domain=k8s.io', '--service-cluster-ip-range=10.96.0.0/16', '--service-node-port-range=20000-40000'] });
  const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: CONCURRENCY });
  const n = Math.max(200, Math.round(3000 * scale));
  const nsPath = (resource: string, group = '/api/v1') => `${group}/namespaces/${NAMESPACE}/${resource}`;
  const stsBytes = JSON.stringify(statefulSet('sts-000000')).length;
  const jobBytes = JSON.stringify(job('job-000000')).length;
  const rows: Row[] = [];
  const results = new Map<string, Measurement[]>();
  const cpu = new Map<string, number[]>();
  let k = 0;
  try {
    await client.call('POST', '/api/v1/namespaces', 201, json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }));
    // The StatefulSet as stored (defaults and managedFields added): a second ConfigMap row of that size shows
    // what the bytes alone cost.
    const stored = (await client.call('POST', nsPath('statefulsets', '/apis/apps/v1'), 201, json(statefulSet('probe')))).body.length;
    rows.push(
      { name: `ConfigMap (${fmt(stsBytes)} bytes)`, path: nsPath('configmaps'), body: (name) => json(configMap(name, stsBytes)) },
      { name: `ConfigMap (${fmt(stored)} bytes: the StatefulSet as stored)`, path: nsPath('configmaps'), body: (name) => json(configMap(name, stored)) },
      { name: `StatefulSet (${fmt(stsBytes)} bytes)`, path: nsPath('statefulsets', '/apis/apps/v1'), body: (name) => json(statefulSet(name)) },
      { name: `Job (${fmt(jobBytes)} bytes)`, path: nsPath('jobs', '/apis/batch/v1'), body: (name) => json(job(name)) },
      { name: 'Service ClusterIP (allocates an IP)', path: nsPath('services'), body: (name) => json(service(name, 'ClusterIP')), cleanup: true },
      { name: 'Service NodePort (an IP and a port)', path: nsPath('services'), body: (name) => json(service(name, 'NodePort')), cleanup: true },
    );
    for (const r of rows) {
      results.set(r.name, []);
      cpu.set(r.name, []);
    }
    // Warm the server up on every row first (JIT, caches): otherwise the first measured row pays for it.
    for (const r of rows) {
      await measure(1000, CONCURRENCY, () => client.call('POST', r.path, 201, r.body(`w${k++}`)));
      if (r.cleanup === true) await client.call('DELETE', r.path, 200);
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const r of [...rows.slice(round % rows.length), ...rows.slice(0, round % rows.length)]) {
        await measure(300, CONCURRENCY, () => client.call('POST', r.path, 201, r.body(`w${k++}`)));
        const cpu0 = cpuSeconds(server.pid);
        results.get(r.name)!.push(await measure(n, CONCURRENCY, () => client.call('POST', r.path, 201, r.body(`o${k++}`))));
        cpu.get(r.name)!.push(((cpuSeconds(server.pid) - cpu0) / n) * 1e6);
        // Node ports are finite: free them before the next row.
        if (r.cleanup === true) await client.call('DELETE', r.path, 200);
      }
    }
  } finally {
    client.close();
    await server.stop();
  }
  const base = median(results.get(rows[0]!.name)!.map((m) => m.opsPerSecond));
  const baseCpu = median(cpu.get(rows[0]!.name)!);
  const out = rows.map((r) => {
    const ms = results.get(r.name)!;
    const rate = median(ms.map((m) => m.opsPerSecond));
    const us = median(cpu.get(r.name)!);
    return [r.name, fmt(rate), `${fmt(rate / base, 2)}x`, fmt(us), `${fmt(baseCpu / us, 2)}x`, fmt(median(ms.map((m) => m.p50Ms)), 1), fmt(median(ms.map((m) => m.p99Ms)), 1)];
  });
  return [
    '### Part 10: workload kinds and Service allocation',
    '',
    `Creates on the embedded store, concurrency ${CONCURRENCY}, ${fmt(n)} creates per row and round, median of ${ROUNDS} rounds, rows alternating in a rotating order; the server's CPU (user + system, /proc) per create, and the ConfigMap's CPU over the row's as a ratio. Sizes are the request bodies. Target: StatefulSet and Job >= 0.8x of the ConfigMap of the same size.`,
    '',
    table(['kind', 'creates/s', 'vs ConfigMap', 'server CPU µs per create', 'vs ConfigMap (CPU)', 'p50 ms', 'p99 ms'], out),
  ].join('\n');
}
