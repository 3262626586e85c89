/**
 * Benchmark part 4: PATCH throughput by patch type, on ONE object through HTTP (embedded store, server as a
 * separate process). Every request changes the object (a counter goes into the value), so none is skipped
 * as a no-op, and each is a full read-modify-write: get, patch, decode against the schema, validate,
 * store. Two workloads on a PodTemplate with two containers of 10 env vars each:
 *
 *   label      change a label: `{"metadata":{"labels":{"rev":"<i>"}}}` — the same body as merge patch and
 *              as strategic merge patch, so the difference is the strategic merge machinery alone
 *   env value  change one env value of the first container: strategic merge patch as `kubectl apply` sends
 *              it (by key, with `$setElementOrder`), against the merge patch that must resend both
 *              containers whole (JSON merge patch replaces lists)
 *
 * at concurrency 1 (per-request cost) and 8 (the same object from 8 clients: conflicts are retried inside
 * the server). Rows alternate between rounds; the median of ROUNDS rounds counts. Patch types are a table;
 * the server-side apply rows send the smallest configuration that states the same change (the label; one
 * env var by container and env keys) with `force=true`, as the other rows' manager owns those fields.
 */
import { Agent, request } from 'node:https';
import { fmt, measure, table, type Measurement } from './measure.js';
import { buildServer, startServerProcess, type ServerMode, type ServerProcess } from './server-process.js';

export interface PatchBenchOptions {
  readonly scale?: number;
  readonly server?: ServerMode;
}

const NAMESPACE = 'bench-patch';
const NAME = 'web';
const ROUNDS = 3;
const ENV_VARS = 10;

const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
/** Apply rows take the fields back from the merge/strategic rows' Update manager every time: force. */
const APPLY_QUERY = '?fieldManager=bench-apply&force=true';

const env = (container: string, changed: string | undefined): { name: string; value: string }[] =>
  Array.from({ length: ENV_VARS }, (_, k) => ({ name: `${container.toUpperCase()}_${k}`, value: k === 0 && changed !== undefined ? changed : `value-${k}` }));

const containers = (changed: string | undefined) => [
  { name: 'app', image: 'nginx:1.27', env: env('app', changed), ports: [{ containerPort: 8080 }] },
  { name: 'sidecar', image: 'busybox:1.36', args: ['sleep', 'infinity'], env: env('sidecar', undefined) },
];

const podTemplate = {
  apiVersion: 'v1',
  kind: 'PodTemplate',
  metadata: { name: NAME, labels: { app: NAME } },
  template: { metadata: { labels: { app: NAME } }, spec: { containers: containers(undefined) } },
};

/** One patch to send: its media type and its body for request `i`. */
interface PatchKind {
  readonly workload: 'label' | 'env value';
  readonly type: string;
  readonly contentType: string;
  /** Query string of the PATCH (`?fieldManager=...` for apply). */
  readonly query?: string;
  body(i: number): Buffer;
}

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

const PATCH_KINDS: readonly PatchKind[] = [
  { workload: 'label', type: 'merge patch', contentType: MERGE, body: (i) => json({ metadata: { labels: { rev: String(i) } } }) },
  { workload: 'label', type: 'strategic merge patch', contentType: STRATEGIC, body: (i) => json({ metadata: { labels: { rev: String(i) } } }) },
  {
    workload: 'label',
    type: 'server-side apply (force)',
    contentType: APPLY,
    query: APPLY_QUERY,
    body: (i) => json({ apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: NAME, labels: { rev: String(i) } } }),
  },
  {
    workload: 'env value',
    type: 'merge patch (both containers resent)',
    contentType: MERGE,
    body: (i) => json({ template: { spec: { containers: containers(`v${i}`) } } }),
  },
  {
    workload: 'env value',
    type: 'strategic merge patch (by key, as kubectl apply)',
    contentType: STRATEGIC,
    body: (i) =>
      json({
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
            containers: [{ name: 'app', '$setElementOrder/env': env('app', undefined).map((e) => ({ name: e.name })), env: [{ name: 'APP_0', value: `v${i}` }] }],
          },
        },
      }),
  },
  {
    workload: 'env value',
    type: 'server-side apply (one env var by key, force)',
    contentType: APPLY,
    query: APPLY_QUERY,
    body: (i) =>
      json({ apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: NAME }, template: { spec: { containers: [{ name: 'app', env: [{ name: 'APP_0', value: `v${i}` }] }] } } }),
  },
];

/** PATCH/POST over one keep-alive agent; throws unless the status is the expected one. */
function patchClient(server: ServerProcess, maxSockets: number) {
  const base = new URL(server.url);
  const agent = new Agent({ keepAlive: true, maxSockets, ca: server.caPem });
  const send = (method: string, path: string, contentType: string, body: Buffer, expect: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const headers = { Authorization: `Bearer ${server.token}`, Accept: 'application/json', 'Content-Type': contentType, 'Content-Length': body.length };
      const req = request({ host: base.hostname, port: base.port, method, path, agent, headers, timeout: 60_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          res.statusCode === expect
            ? resolve()
            : reject(new Error(`${method} ${path}: HTTP ${res.statusCode}, expected ${expect}: ${Buffer.concat(chunks).subarray(0, 500).toString('utf8')}`)));
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no response within 60 s`)));
      req.on('error', reject);
      req.end(body);
    });
  return { send, close: () => agent.destroy() };
}

/** Runs part 4 and returns its markdown section. */
export async function benchPatch(options: PatchBenchOptions = {}): Promise<string> {
  const scale = options.scale ?? 1;
  const mode = options.server ?? 'dist';
  const n = (base: number): number => Math.max(10, Math.round(base * scale));
  if (mode === 'dist') buildServer();
  process.stderr.write('bench: patch on embedded\n');
  const server = await startServerProcess({ mode });
  const client = patchClient(server, 8);
  const path = `/api/v1/namespaces/${NAMESPACE}/podtemplates`;
  try {
    await client.send('POST', '/api/v1/namespaces', 'application/json', json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }), 201);
    await client.send('POST', path, 'application/json', json(podTemplate), 201);
    let counter = 0;
    const patchOp = (kind: PatchKind) => (): Promise<void> => client.send('PATCH', `${path}/${NAME}${kind.query ?? ''}`, kind.contentType, kind.body(++counter), 200);
    for (const kind of PATCH_KINDS) await measure(n(300), 8, patchOp(kind)); // warm-up

    const rows: string[][] = [];
    for (const [concurrency, count] of [[1, n(1000)], [8, n(2000)]] as const) {
      const samples: Measurement[][] = PATCH_KINDS.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < PATCH_KINDS.length; k++) {
          const at = (k + round) % PATCH_KINDS.length;
          samples[at]!.push(await measure(count, concurrency, patchOp(PATCH_KINDS[at]!)));
        }
      }
      const median = (ms: Measurement[]): Measurement => [...ms].sort((a, b) => a.opsPerSecond - b.opsPerSecond)[Math.floor(ms.length / 2)]!;
      const baseline = new Map<string, number>();
      for (const [k, kind] of PATCH_KINDS.entries()) {
        const m = median(samples[k]!);
        if (!baseline.has(kind.workload)) baseline.set(kind.workload, m.opsPerSecond);
        const relative = m.opsPerSecond / baseline.get(kind.workload)!;
        rows.push([kind.workload, kind.type, String(concurrency), `${fmt(m.opsPerSecond)} ops/s`, `${fmt(relative * 100, 1)}%`, `${fmt(m.p50Ms, 2)} ms`, `${fmt(m.p99Ms, 2)} ms`, `${fmt(kind.body(1).length)} B`]);
      }
    }
    return [
      '### Part 4: patch throughput',
      '',
      `Server: a separate process on the embedded store (as part 2). One PodTemplate (two containers, ${ENV_VARS} env vars each) patched`
      + ` over and over; every patch changes it. Rows alternate, median of ${ROUNDS} rounds; "vs merge" is against the merge patch`
      + ' row of the same workload and concurrency; p50/p99 are request latencies.',
      '',
      table(['workload', 'patch', 'c', 'throughput', 'vs merge', 'p50', 'p99', 'body'], rows),
    ].join('\n');
  } finally {
    client.close();
    await server.stop();
  }
}
