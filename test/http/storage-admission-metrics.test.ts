/**
 * The storage, admission and runtime metrics on `/metrics` of a real server, on both stores (etcd and the
 * embedded store report under the same names):
 *
 * - `etcd_request_duration_seconds_count` and `etcd_requests_total` rise by at least the store calls the
 *   requests made, under kube's operation names and `type` (`configmaps`, `leases.coordination.<domain>`);
 *   a write's create, a get without resourceVersion (read from the store), a paged list;
 * - `apiserver_storage_objects{resource}` follows the stored objects;
 * - the database size (`apiserver_storage_size_bytes{storage_cluster_id}`, the per-endpoint
 *   `apiserver_storage_db_total_size_in_bytes`) is above 0;
 * - admission: the validate step of an admitted CREATE (rejected="false"), and a ValidatingAdmissionPolicy
 *   denial: the step and the plugin with rejected="true", and the policy's check counter with
 *   enforcement_action="deny";
 * - Node.js runtime metrics (process CPU and memory, heap, GC, event-loop lag and its histogram);
 * - `promtool check metrics` finds nothing to say about the whole scrape's storage, admission and runtime
 *   families.
 *
 * Counts are compared before and after (other work of the server, such as controllers, only adds), and
 * values that appear asynchronously (the size poll, the GC observer, the cache's count) are awaited with a
 * bounded poll, never a sleep.
 */
import { spawnSync } from 'node:child_process';
import { backends, describeBackends, stopBackends, uniqueName, type ApiResponse, type TestApi } from './helpers.js';

const all = backends();
afterAll(() => stopBackends(all));

const DOMAIN = 'platform.io';
const COORDINATION = `coordination.${DOMAIN}`;
const ADMISSION = `admissionregistration.${DOMAIN}`;

type Labels = Record<string, string>;

/** The value of one series of a Prometheus text scrape, or undefined when it is absent. */
function sample(text: string, name: string, labels: Labels = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== '{' && line[name.length] !== ' ')) continue;
    const open = line.indexOf('{');
    const close = line.lastIndexOf('}');
    const seriesLabels: Labels = {};
    if (open === name.length) {
      for (const m of line.slice(open + 1, close).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) seriesLabels[m[1]!] = m[2]!;
    }
    if (Object.entries(labels).every(([k, v]) => seriesLabels[k] === v)) return Number(line.slice((open === name.length ? close : name.length) + 1).trim());
  }
  return undefined;
}

async function scrape(api: TestApi): Promise<string> {
  const res = await api.request('GET', '/metrics');
  if (res.status !== 200) throw new Error(`/metrics: ${res.status} ${res.text()}`);
  return res.text();
}

/** Scrapes until `ready` holds for the text (at most `limitMs`), between scrapes doing `between`. */
async function scrapeUntil(api: TestApi, what: string, ready: (text: string) => boolean, between: () => void = () => undefined, limitMs = 10_000): Promise<string> {
  const deadline = performance.now() + limitMs;
  for (;;) {
    const text = await scrape(api);
    if (ready(text)) return text;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    between();
    await new Promise((r) => setImmediate(r));
  }
}

function expectStatus(res: ApiResponse, code: number, what: string): void {
  if (res.status !== code) throw new Error(`${what}: expected ${code}, got ${res.status} ${res.text()}`);
}

const SCOPE = 'metrics-test/scope';

async function createNamespaceLabelled(api: TestApi, name: string): Promise<void> {
  const res = await api.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [SCOPE]: name } } } });
  expectStatus(res, 201, `namespace ${name}`);
}

const count = (text: string, name: string, labels: Labels): number => sample(text, name, labels) ?? 0;

describeBackends(all, (b) => {
  let api: TestApi;
  let ns: string;
  beforeAll(async () => {
    api = await b.start();
    ns = uniqueName('metrics');
    // Labelled with its own name, so a policy binding can select it.
    await createNamespaceLabelled(api, ns);
  });

  it('times store calls per operation and resource under kube 1.32 names, with the embedded store too', async () => {
    const before = await scrape(api);
    const cm = uniqueName('cm');
    expectStatus(await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cm }, data: { a: 'b' } } }), 201, 'create');
    // No resourceVersion: a consistent read from the store.
    expectStatus(await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/${cm}`), 200, 'get');
    // A page: read from the store.
    expectStatus(await api.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { query: { limit: '1' } }), 200, 'list');
    const lease = { apiVersion: `${COORDINATION}/v1`, kind: 'Lease', metadata: { name: uniqueName('l') }, spec: { holderIdentity: 'a' } };
    expectStatus(await api.request('POST', `/apis/${COORDINATION}/v1/namespaces/${ns}/leases`, { body: lease }), 201, 'lease');
    const after = await scrape(api);

    for (const [operation, type] of [
      ['create', 'configmaps'],
      ['get', 'configmaps'],
      ['list', 'configmaps'],
      ['create', `leases.${COORDINATION}`],
    ] as const) {
      const labels = { operation, type };
      const rose = (name: string): boolean => count(after, name, labels) >= count(before, name, labels) + 1;
      expect({ labels, timed: rose('etcd_request_duration_seconds_count'), counted: rose('etcd_requests_total') }).toEqual({ labels, timed: true, counted: true });
      // Every call lands in a bucket: the +Inf bucket equals the count.
      expect(sample(after, 'etcd_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(sample(after, 'etcd_request_duration_seconds_count', labels));
      // kube's first bucket bound, written as Go writes it.
      expect(sample(after, 'etcd_request_duration_seconds_bucket', { ...labels, le: '0.005' })).toBeDefined();
    }
    // A create of a name that exists is an answer (409), not a failed etcd request.
    const errorsBefore = count(after, 'etcd_request_errors_total', { operation: 'create', type: 'configmaps' });
    expectStatus(await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cm } } }), 409, 'duplicate');
    const afterDuplicate = await scrape(api);
    expect(count(afterDuplicate, 'etcd_requests_total', { operation: 'create', type: 'configmaps' })).toBeGreaterThan(count(after, 'etcd_requests_total', { operation: 'create', type: 'configmaps' }));
    expect(count(afterDuplicate, 'etcd_request_errors_total', { operation: 'create', type: 'configmaps' })).toBe(errorsBefore);
  });

  it('reports the stored objects per resource and the database size', async () => {
    const created: string[] = [];
    for (let i = 0; i < 3; i++) {
      const name = uniqueName('obj');
      expectStatus(await api.request('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { k: 'v' } } }), 201, 'secret');
      created.push(name);
    }
    const list = (await api.request('GET', '/api/v1/secrets')).json();
    const stored = list.items.length as number;
    expect(stored).toBeGreaterThanOrEqual(3);
    const text = await scrapeUntil(api, 'apiserver_storage_objects of secrets', (t) => (sample(t, 'apiserver_storage_objects', { resource: 'secrets' }) ?? 0) >= stored);
    expect(sample(text, 'apiserver_storage_objects', { resource: 'secrets' })).toBeGreaterThanOrEqual(stored);
    // A deleted object is counted out.
    expectStatus(await api.request('DELETE', `/api/v1/namespaces/${ns}/secrets/${created[0]}`), 200, 'delete');
    const fewer = await scrapeUntil(api, 'one secret fewer', (t) => sample(t, 'apiserver_storage_objects', { resource: 'secrets' }) === sample(text, 'apiserver_storage_objects', { resource: 'secrets' })! - 1);
    expect(sample(fewer, 'apiserver_storage_objects', { resource: 'secrets' })).toBe(sample(text, 'apiserver_storage_objects', { resource: 'secrets' })! - 1);

    const cluster = b.name === 'etcd' ? 'etcd-0' : 'embedded-0';
    const sized = await scrapeUntil(api, 'the storage size', (t) => (sample(t, 'apiserver_storage_size_bytes', { storage_cluster_id: cluster }) ?? 0) > 0);
    expect(sample(sized, 'apiserver_storage_size_bytes', { storage_cluster_id: cluster })).toBeGreaterThan(0);
    const perEndpoint = sized.split('\n').filter((l) => l.startsWith('apiserver_storage_db_total_size_in_bytes{'));
    expect(perEndpoint.length).toBeGreaterThanOrEqual(1);
    for (const line of perEndpoint) expect(Number(line.split(' ').pop())).toBeGreaterThan(0);
    if (b.name === 'etcd') expect(perEndpoint[0]).toMatch(/endpoint="https?:\/\/127\.0\.0\.1:\d+"/);
  });

  it("counts a custom resource's objects under <plural>.<group> and drops the series when its definition goes", async () => {
    const group = `${uniqueName('g')}.example.com`;
    const crd = {
      apiVersion: `apiextensions.${DOMAIN}/v1`,
      kind: 'CustomResourceDefinition',
      metadata: { name: `gizmos.${group}` },
      spec: {
        group,
        names: { kind: 'Gizmo', plural: 'gizmos' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-platform-preserve-unknown-fields': true } } }],
      },
    };
    expectStatus(await api.request('POST', `/apis/apiextensions.${DOMAIN}/v1/customresourcedefinitions`, { body: crd }), 201, 'crd');
    const path = `/apis/${group}/v1/namespaces/${ns}/gizmos`;
    const deadline = performance.now() + 10_000;
    for (;;) {
      const res = await api.request('POST', path, { body: { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name: 'one' } } });
      if (res.status === 201) break;
      if (performance.now() > deadline) throw new Error(`custom resource not served: ${res.status} ${res.text()}`);
      await new Promise((r) => setImmediate(r));
    }
    const type = `gizmos.${group}`;
    const counted = await scrapeUntil(api, 'the gizmo counted', (t) => sample(t, 'apiserver_storage_objects', { resource: type }) === 1);
    expect(sample(counted, 'etcd_requests_total', { operation: 'create', type })).toBeGreaterThanOrEqual(1);
    expectStatus(await api.request('DELETE', `/apis/apiextensions.${DOMAIN}/v1/customresourcedefinitions/gizmos.${group}`), 200, 'delete crd');
    const gone = await scrapeUntil(api, 'the gizmo series dropped', (t) => sample(t, 'apiserver_storage_objects', { resource: type }) === undefined);
    expect(sample(gone, 'apiserver_storage_objects', { resource: 'secrets' })).toBeGreaterThan(0);
  });

  it('times admission steps and plugins, and counts a ValidatingAdmissionPolicy denial', async () => {
    const admitted = { type: 'validate', operation: 'CREATE', rejected: 'false' };
    const before = await scrape(api);
    expectStatus(await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('ok') } } }), 201, 'admitted');
    const afterAdmit = await scrape(api);
    const step = 'apiserver_admission_step_admission_duration_seconds_count';
    const plugin = 'apiserver_admission_controller_admission_duration_seconds_count';
    expect(count(afterAdmit, step, admitted)).toBeGreaterThanOrEqual(count(before, step, admitted) + 1);
    expect(count(afterAdmit, step, { ...admitted, type: 'admit' })).toBeGreaterThanOrEqual(count(before, step, { ...admitted, type: 'admit' }) + 1);
    expect(count(afterAdmit, plugin, { name: 'NamespaceLifecycle', type: 'admit', operation: 'CREATE', rejected: 'false' })).toBeGreaterThanOrEqual(
      count(before, plugin, { name: 'NamespaceLifecycle', type: 'admit', operation: 'CREATE', rejected: 'false' }) + 1,
    );
    expect(count(afterAdmit, plugin, { name: 'ValidatingAdmissionPolicy', type: 'validate', operation: 'CREATE', rejected: 'false' })).toBeGreaterThanOrEqual(1);

    // A policy that denies ConfigMaps labelled deny=yes, bound to this test's namespace only.
    const policy = uniqueName('policy');
    const binding = `${policy}-binding`;
    expectStatus(
      await api.request('POST', `/apis/${ADMISSION}/v1/validatingadmissionpolicies`, {
        body: {
          apiVersion: `${ADMISSION}/v1`,
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name: policy },
          spec: {
            failurePolicy: 'Fail',
            matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
            validations: [{ expression: "!has(object.metadata.labels) || !('deny' in object.metadata.labels)", message: 'no deny label' }],
          },
        },
      }),
      201,
      'policy',
    );
    expectStatus(
      await api.request('POST', `/apis/${ADMISSION}/v1/validatingadmissionpolicybindings`, {
        body: {
          apiVersion: `${ADMISSION}/v1`,
          kind: 'ValidatingAdmissionPolicyBinding',
          metadata: { name: binding },
          spec: { policyName: policy, validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { [SCOPE]: ns } } } },
        },
      }),
      201,
      'binding',
    );
    const denied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('no'), labels: { deny: 'yes' } } };
    // In force once a dry run is denied (policies arrive through watch caches).
    const deadline = performance.now() + 10_000;
    for (;;) {
      const probe = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: denied, query: { dryRun: 'All' } });
      if (probe.status === 422) break;
      if (performance.now() > deadline) throw new Error(`policy not in force: ${probe.status} ${probe.text()}`);
      await new Promise((r) => setImmediate(r));
    }
    const beforeDeny = await scrape(api);
    const res = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: denied });
    expect(res.status).toBe(422);
    expect(res.json().message).toContain(`ValidatingAdmissionPolicy '${policy}' with binding '${binding}' denied request: no deny label`);
    const afterDeny = await scrape(api);
    const rejected = { type: 'validate', operation: 'CREATE', rejected: 'true' };
    expect(count(afterDeny, step, rejected)).toBe(count(beforeDeny, step, rejected) + 1);
    expect(count(afterDeny, plugin, { name: 'ValidatingAdmissionPolicy', ...rejected })).toBe(count(beforeDeny, plugin, { name: 'ValidatingAdmissionPolicy', ...rejected }) + 1);
    const check = { policy, policy_binding: binding, error_type: 'no_error', enforcement_action: 'deny' };
    expect(count(afterDeny, 'apiserver_validating_admission_policy_check_total', check)).toBe(count(beforeDeny, 'apiserver_validating_admission_policy_check_total', check) + 1);
    expect(count(afterDeny, 'apiserver_validating_admission_policy_check_duration_seconds_count', check)).toBe(count(afterDeny, 'apiserver_validating_admission_policy_check_total', check));
    // A plain admit is not a counted check (as kube): nothing with enforcement_action="allow" for this policy.
    expect(sample(afterDeny, 'apiserver_validating_admission_policy_check_total', { policy, enforcement_action: 'allow' })).toBeUndefined();
  });

  it('exposes process and Node.js runtime metrics', async () => {
    let garbage: unknown[] = [];
    let allocated = 0;
    const text = await scrapeUntil(
      api,
      'GC and event-loop samples',
      (t) => sample(t, 'nodejs_gc_duration_seconds_count') !== undefined && (sample(t, 'nodejs_eventloop_delay_seconds_count') ?? 0) > 0,
      // Young-generation garbage, so a scavenge happens and the GC observer reports it.
      () => {
        garbage = Array.from({ length: 200_000 }, (_, i) => ({ i }));
        allocated += garbage.length;
      },
    );
    expect(allocated).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'process_start_time_seconds')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toBeDefined();
    expect(text).toMatch(/^nodejs_gc_duration_seconds_bucket\{le="0\.001",kind="(minor|major|incremental|weakcb)"\} \d+/m);
    // The event-loop histogram: cumulative buckets up to +Inf = count.
    const inf = sample(text, 'nodejs_eventloop_delay_seconds_bucket', { le: '+Inf' });
    expect(inf).toBe(sample(text, 'nodejs_eventloop_delay_seconds_count'));
    expect(sample(text, 'nodejs_eventloop_delay_seconds_bucket', { le: '0.001' })).toBeLessThanOrEqual(inf!);
    expect(sample(text, 'nodejs_eventloop_delay_seconds_bucket', { le: '10' })).toBeLessThanOrEqual(inf!);
  });

  it('records no store or admission timings with --request-metrics=false (the families stay)', async () => {
    const quiet = await b.start({ requestMetrics: false });
    const name = uniqueName('quiet');
    expectStatus(await quiet.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } }), 201, 'namespace');
    expectStatus(await quiet.request('POST', `/api/v1/namespaces/${name}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } }), 201, 'configmap');
    const text = await scrape(quiet);
    expect(text).toContain('# TYPE etcd_request_duration_seconds histogram');
    expect(text).toContain('# TYPE apiserver_admission_step_admission_duration_seconds histogram');
    expect(text).not.toMatch(/^etcd_requests_total\{/m);
    expect(text).not.toMatch(/^apiserver_admission_step_admission_duration_seconds_count\{/m);
    // The stored objects and the runtime are still reported.
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    await quiet.server.close();
  });

  it('passes promtool check metrics for the storage, admission and runtime families', async () => {
    const text = await scrape(api);
    const mine = /^(# (HELP|TYPE) )?(etcd_|apiserver_storage_|apiserver_admission_|apiserver_validating_admission_policy_|process_|nodejs_)/;
    const families = text.split('\n').filter((l) => mine.test(l)).join('\n') + '\n';
    expect(families).toContain('etcd_request_duration_seconds_bucket');
    const r = spawnSync('promtool', ['check', 'metrics'], { input: families, encoding: 'utf8' });
    expect({ status: r.status, out: `${r.stdout}${r.stderr}`.trim() }).toEqual({ status: 0, out: '' });
  });
});
