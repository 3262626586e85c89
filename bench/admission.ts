/**
 * Benchmark part 9: ValidatingAdmissionPolicy (issue 13). ConfigMap creates at concurrency 64 on the
 * embedded store, with
 *   - no policy;
 *   - 10 policies bound that match ConfigMaps (each: a match condition, a variable, two validations);
 *   - 50 such policies;
 *   - 50 policies bound that match Secrets only (they must cost next to nothing for ConfigMaps).
 * Then the admission step alone, in process: the policy plugin's validate of one ConfigMap create with
 * the same policy sets (memory sources, the RBAC authorizer of the plugin's tests), p50 and p99 of 20,000
 * calls each: the admission latency a request pays.
 *
 * One server process; the policy sets are created and deleted between rows through the API (each row waits
 * until the server enforces exactly its set: a probe ConfigMap that every matching policy denies). The rows
 * alternate over 3 rounds and the median is kept. Targets: >= 0.8x of the no-policy rate with 10 matching,
 * >= 0.95x with 50 that do not match. The p99 column is the create's latency; the admission's own share is
 * the difference to the no-policy row.
 */
import { performance } from 'node:perf_hooks';
import { policyAdmission } from '../apiserver/admission/policy/policy-admission.js';
import { memorySource } from '../apiserver/admission/policy/sources.js';
import { memoryParams, namespaces, request, testAuthorizer } from '../apiserver/admission/policy/testing.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../apiserver/admission/policy/policy-types.js';
import { naming } from '../apiserver/naming/naming.js';
import { benchClient, type BenchClient } from './http-client.js';
import { fmt, measure, table, type Measurement } from './measure.js';
import { buildServer, startServerProcess, type ServerMode } from './server-process.js';

export interface AdmissionBenchOptions {
  readonly scale?: number;
  readonly server?: ServerMode;
}

const NAMESPACE = 'bench';
const CONCURRENCY = 64;
const ROUNDS = 3;
const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

/** A policy as operators write them: a match condition, a variable and two validations. */
function policy(name: string, resource: string): unknown {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: [resource] }] },
      matchConditions: [{ name: 'not-exempt', expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" }],
      variables: [{ name: 'keys', expression: 'has(object.data) ? object.data.size() : 0' }],
      validations: [
        { expression: 'variables.keys <= 64', message: 'at most 64 keys' },
        { expression: `!has(object.metadata.labels) || !('deny-${name}' in object.metadata.labels)`, message: `denied by ${name}` },
      ],
    },
  };
}

const binding = (name: string): unknown => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name },
  spec: { policyName: name, validationActions: ['Deny'] },
});

const configMap = (name: string, labels: Record<string, string> = {}): Buffer =>
  json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1', b: '2', c: 'x'.repeat(512) } });

interface PolicySet {
  readonly name: string;
  readonly count: number;
  readonly resource: 'configmaps' | 'secrets';
}

const SETS: readonly PolicySet[] = [
  { name: 'no policy', count: 0, resource: 'configmaps' },
  { name: '10 policies matching', count: 10, resource: 'configmaps' },
  { name: '50 policies matching', count: 50, resource: 'configmaps' },
  { name: '50 policies bound to Secrets', count: 50, resource: 'secrets' },
];

const setNames = (s: PolicySet): string[] => Array.from({ length: s.count }, (_, i) => `bench-${s.resource}-${i}`);

/** Creates the set's policies and bindings, and waits until the server enforces all of them. */
async function install(client: BenchClient, s: PolicySet): Promise<void> {
  for (const name of setNames(s)) {
    await client.call('POST', POLICIES, 201, json(policy(name, s.resource)));
    await client.call('POST', BINDINGS, 201, json(binding(name)));
  }
  if (s.count === 0 || s.resource !== 'configmaps') return;
  // The caches deliver policies in creation order: once the newest one denies its probe, all of them are in.
  const last = setNames(s).at(-1)!;
  const deadline = Date.now() + 30_000;
  for (let i = 0; ; i++) {
    try {
      await client.call('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, 422, configMap(`probe-${last}-${i}`, { [`deny-${last}`]: 'x' }));
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`policy set "${s.name}" not enforced after 30 s: ${String(err)}`);
    }
  }
}

async function uninstall(client: BenchClient, s: PolicySet): Promise<void> {
  for (const name of setNames(s)) {
    await client.call('DELETE', `${BINDINGS}/${name}`, 200);
    await client.call('DELETE', `${POLICIES}/${name}`, 200);
  }
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchAdmission(o: AdmissionBenchOptions = {}): Promise<string> {
  const scale = o.scale ?? 1;
  const mode = o.server ?? 'dist';
  if (mode === 'dist') buildServer();
  const server = await startServerProcess({ mode, args: ['--group-domain=k8s.io'] });
  const client = benchClient({ url: server.url, token: server.token, caPem: server.caPem, maxSockets: CONCURRENCY });
  const n = Math.max(200, Math.round(4000 * scale));
  const results = new Map<string, Measurement[]>(SETS.map((s) => [s.name, []]));
  let k = 0;
  try {
    await client.call('POST', '/api/v1/namespaces', 201, json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }));
    const path = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
    await measure(500, CONCURRENCY, () => client.call('POST', path, 201, configMap(`warm-${k++}`)));
    for (let round = 0; round < ROUNDS; round++) {
      // The order rotates per round, so no row always follows the previous row's policy deletions (each
      // one re-indexes the policies in force; 1,000 warm-up creates per row let that settle too).
      for (const s of [...SETS.slice(round % SETS.length), ...SETS.slice(0, round % SETS.length)]) {
        await install(client, s);
        await measure(1000, CONCURRENCY, () => client.call('POST', path, 201, configMap(`warm-${k++}`)));
        results.get(s.name)!.push(await measure(n, CONCURRENCY, () => client.call('POST', path, 201, configMap(`cm-${k++}`))));
        await uninstall(client, s);
      }
    }
  } finally {
    client.close();
    await server.stop();
  }
  const latencyRows: string[][] = [];
  for (const s of SETS) latencyRows.push([s.name, ...(await admissionLatency(s, Math.max(2000, Math.round(20_000 * scale)))).map((x) => fmt(x, 1))]);
  const base = median(results.get('no policy')!.map((m) => m.opsPerSecond));
  const baseP99 = median(results.get('no policy')!.map((m) => m.p99Ms));
  const rows = SETS.map((s) => {
    const ms = results.get(s.name)!;
    const rate = median(ms.map((m) => m.opsPerSecond));
    const p50 = median(ms.map((m) => m.p50Ms));
    const p99 = median(ms.map((m) => m.p99Ms));
    return [s.name, fmt(rate), `${fmt((rate / base) * 100, 1)}%`, fmt(p50, 1), fmt(p99, 1), s.count === 0 ? '' : fmt(p99 - baseP99, 1)];
  });
  return [
    '### Part 9: ValidatingAdmissionPolicy',
    '',
    `#### ConfigMap creates (embedded store, concurrency ${CONCURRENCY}, ${fmt(n)} creates per row and round, median of ${ROUNDS} rounds, rows alternating in a rotating order)`,
    '',
    table(['policies bound', 'creates/s', 'vs no policy', 'p50 ms', 'p99 ms', 'p99 above no policy ms'], rows),
    '',
    '#### The admission step alone (in process: the policy plugin validating one ConfigMap create, 20,000 calls per row)',
    '',
    table(['policies bound', 'p50 µs', 'p99 µs', 'mean µs'], latencyRows),
  ].join('\n');
}

/** p50, p99 and mean microseconds of the plugin's validate for one ConfigMap create under the set `s`. */
async function admissionLatency(s: PolicySet, calls: number): Promise<number[]> {
  const policies = setNames(s).map((name) => ({ ...(policy(name, s.resource) as object), metadata: { name, uid: `uid-${name}`, generation: 1 } }) as ValidatingAdmissionPolicy);
  const bindings = setNames(s).map((name) => ({ ...(binding(name) as object), metadata: { name, uid: `uid-b-${name}`, generation: 1 } }) as ValidatingAdmissionPolicyBinding);
  const plugin = policyAdmission({
    policies: memorySource(policies),
    bindings: memorySource(bindings),
    params: memoryParams([]),
    namespaces: async (name) => namespaces[name],
    authorizer: testAuthorizer(),
    naming: naming('k8s.io'),
  });
  plugin.start();
  try {
    await plugin.ready();
    for (let i = 0; i < 1000; i++) await plugin.validate(request());
    const times = new Float64Array(calls);
    for (let i = 0; i < calls; i++) {
      const a = request();
      const t0 = performance.now();
      await plugin.validate(a);
      times[i] = (performance.now() - t0) * 1000;
    }
    const sorted = Array.from(times).sort((x, y) => x - y);
    const mean = sorted.reduce((x, y) => x + y, 0) / calls;
    return [sorted[Math.floor(calls * 0.5)]!, sorted[Math.floor(calls * 0.99)]!, mean];
  } finally {
    await plugin.stop();
  }
}
