/**
 * Request metrics and deprecation signals through a real server (memory backend; the metrics do not depend
 * on the store): the labels and values of `apiserver_request_total` and the histograms after a set of
 * requests (get, list, watch, create, apply, dry run, 404, an unknown resource, a verb kube folds into
 * `other`), the long-running gauge while a watch is open, watch events, in-flight gauges, a deprecated
 * CRD version (Warning header, `apiserver_requested_deprecated_apis`, the `platform.io/deprecated` audit
 * annotation), a failed TLS handshake, authentication and authorization attempts, `promtool check
 * metrics` on a real scrape, `--request-metrics=false`, and kubectl printing the deprecation Warning.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditLogDefaults } from '../../apiserver/config/audit-flags.js';
import { decodePolicy } from '../../apiserver/audit/policy.js';
import { naming } from '../../apiserver/naming/naming.js';
import { backends, createNamespace, stopBackends, uniqueName, type TestApi } from './helpers.js';
import { kubectlAsync as kubectl } from './kubectl-async.js';
import { openWatch } from './watch-client.js';
import { eventually } from '../server/helpers.js';

const memory = backends().filter((b) => b.name === 'memory');
const backend = memory[0] ?? backends()[0]!;
afterAll(() => stopBackends([backend]));

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition. */
function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, '$1');
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

class Scrape {
  constructor(readonly text: string, readonly samples: Sample[]) {}
  /** The sum of the samples of `name` whose labels include `labels`. */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.samples
      .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
      .reduce((a, s) => a + s.value, 0);
  }
  has(name: string, labels: Record<string, string> = {}): boolean {
    return this.samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  }
}

/** The exposition without one family (its HELP, TYPE and samples). */
function withoutFamily(text: string, name: string): string {
  return text.split('\n').filter((l) => !l.startsWith(`# HELP ${name} `) && !l.startsWith(`# TYPE ${name} `) && !l.startsWith(`${name}{`) && !l.startsWith(`${name} `)).join('\n');
}

async function scrape(api: TestApi): Promise<Scrape> {
  const res = await api.request('GET', '/metrics');
  expect(res.status).toBe(200);
  return new Scrape(res.text(), parseExposition(res.text()));
}

function gadgetCrd(apiGroup: string, domain: string) {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
  return {
    apiVersion: `apiextensions.${domain}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${apiGroup}` },
    spec: {
      group: apiGroup,
      names: { kind: 'Gadget', plural: 'gadgets' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1beta1', served: true, storage: false, deprecated: true, schema },
        { name: 'v1', served: true, storage: true, schema },
      ],
    },
  };
}

async function establishGadgets(api: TestApi, apiGroup: string, domain: string): Promise<void> {
  const crds = `/apis/apiextensions.${domain}/v1/customresourcedefinitions`;
  const res = await api.request('POST', crds, { body: gadgetCrd(apiGroup, domain) });
  expect(res.status).toBe(201);
  await eventually(async () => (await api.request('GET', `/apis/${apiGroup}/v1beta1/gadgets`)).status === 200, 'gadgets served', 10_000);
}

describe('request metrics', () => {
  let api: TestApi;
  let ns: string;
  let dir: string;
  let auditPath: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'request-metrics-'));
    auditPath = join(dir, 'audit.log');
    const policy = decodePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n', naming('platform.io'));
    api = await backend.start({ audit: { ...auditLogDefaults, policy, logPath: auditPath } as never });
    ns = await createNamespace(api);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('counts each request under kube\'s labels, with durations, SLI and sizes', async () => {
    const before = await scrape(api);
    const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('one') })).status).toBe(201);
    expect((await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('dry'), query: { dryRun: 'All' } })).status).toBe(201);
    const badDryRun = (await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('bad'), query: { dryRun: 'Some' } })).status;
    expect(badDryRun).toBeGreaterThanOrEqual(400);
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/one`)).status).toBe(200);
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps/missing`)).status).toBe(404);
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).status).toBe(200);
    expect((await api.request('GET', '/api/v1/configmaps')).status).toBe(200);
    const apply = await api.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/applied`, {
      body: JSON.stringify(cm('applied')),
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      query: { fieldManager: 'test' },
    });
    expect(apply.status).toBe(201);
    expect((await api.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/one`, { body: { data: { b: '2' } } })).status).toBe(200);
    expect((await api.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/one`)).status).toBe(200);
    // Unknown resources and sub-resources fold; so do unknown group versions.
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/nosuchthings`)).status).toBe(404);
    expect((await api.request('GET', '/apis/nosuch.example.com/v9/things/x')).status).toBe(404);
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/pods/p/nosuchsub`)).status).toBe(404);
    // A method kube reports as `other`; a non-resource path.
    expect((await api.request('OPTIONS', `/api/v1/namespaces/${ns}/configmaps`)).status).toBeGreaterThanOrEqual(400);
    expect((await api.request('GET', '/version')).status).toBe(200);
    const after = await scrape(api);

    const d = (labels: Record<string, string>, name = 'apiserver_request_total') => after.value(name, labels) - before.value(name, labels);
    const cms = { group: '', version: 'v1', resource: 'configmaps', subresource: '', component: 'apiserver' };
    expect(d({ ...cms, verb: 'POST', dry_run: '', scope: 'resource', code: '201' })).toBe(1);
    expect(d({ ...cms, verb: 'POST', dry_run: 'All', scope: 'resource', code: '201' })).toBe(1);
    expect(d({ ...cms, verb: 'POST', dry_run: 'invalid', scope: 'resource', code: String(badDryRun) })).toBe(1);
    expect(d({ ...cms, verb: 'GET', dry_run: '', scope: 'resource', code: '200' })).toBe(1);
    expect(d({ ...cms, verb: 'GET', scope: 'resource', code: '404' })).toBe(1);
    expect(d({ ...cms, verb: 'LIST', scope: 'namespace', code: '200' })).toBe(1);
    expect(d({ ...cms, verb: 'LIST', scope: 'cluster', code: '200' })).toBe(1);
    expect(d({ ...cms, verb: 'APPLY', scope: 'resource', code: '201' })).toBe(1);
    expect(d({ ...cms, verb: 'PATCH', scope: 'resource', code: '200' })).toBe(1);
    expect(d({ ...cms, verb: 'DELETE', scope: 'resource', code: '200' })).toBe(1);
    expect(d({ verb: 'LIST', group: '', version: '', resource: 'unknown', subresource: '', scope: 'namespace', code: '404' })).toBe(1);
    expect(d({ verb: 'GET', group: '', version: '', resource: 'unknown', subresource: '', scope: 'resource', code: '404' })).toBe(1);
    expect(d({ verb: 'GET', group: '', version: 'v1', resource: 'pods', subresource: 'unknown', scope: 'resource', code: '404' })).toBe(1);
    expect(d({ verb: 'other', resource: 'configmaps', scope: 'namespace' })).toBe(1);
    expect(d({ verb: 'GET', group: '', resource: '', subresource: '/version', scope: '', code: '200' })).toBe(1);
    // No label carries an object or namespace name.
    for (const s of after.samples) for (const v of Object.values(s.labels)) expect(v.includes(ns) || v === 'one' || v === 'applied').toBe(false);

    // Histograms: one observation per request (duration), the SLI without dry_run, sizes for GET and LIST only.
    expect(d({ ...cms, verb: 'LIST', scope: 'namespace', dry_run: '' }, 'apiserver_request_duration_seconds_count')).toBe(1);
    expect(after.has('apiserver_request_duration_seconds_bucket', { ...cms, verb: 'LIST', le: '0.005' })).toBe(true);
    expect(after.has('apiserver_request_duration_seconds_bucket', { ...cms, verb: 'LIST', le: '+Inf' })).toBe(true);
    expect(d({ ...cms, verb: 'POST', scope: 'resource' }, 'apiserver_request_sli_duration_seconds_count')).toBe(3);
    expect(after.has('apiserver_request_sli_duration_seconds_bucket', { ...cms, verb: 'POST', le: '0.05' })).toBe(true);
    expect(d({ ...cms, verb: 'LIST', scope: 'namespace' }, 'apiserver_response_sizes_count')).toBe(1);
    expect(d({ ...cms, verb: 'LIST', scope: 'namespace' }, 'apiserver_response_sizes_sum')).toBeGreaterThan(100);
    expect(after.has('apiserver_response_sizes_bucket', { le: '1e+06' })).toBe(true);
    expect(after.has('apiserver_response_sizes_count', { verb: 'POST' })).toBe(false);
  });

  it('keeps the long-running gauge while a watch is open and counts its events; WATCH stays out of the SLI', async () => {
    const labels = { verb: 'WATCH', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'namespace', component: 'apiserver' };
    const before = await scrape(api);
    const w = await openWatch(api, `/api/v1/namespaces/${ns}/configmaps`, { resourceVersion: '0' });
    try {
      expect(w.status).toBe(200);
      const open = await scrape(api);
      expect(open.value('apiserver_longrunning_requests', labels)).toBe(1);
      const created = await api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched' } } });
      expect(created.status).toBe(201);
      await w.until((e) => e.type === 'ADDED' && e.object.metadata.name === 'watched');
      const seen = await scrape(api);
      const kind = { group: '', version: 'v1', kind: 'ConfigMap' };
      const events = seen.value('apiserver_watch_events_total', kind) - before.value('apiserver_watch_events_total', kind);
      expect(events).toBeGreaterThanOrEqual(w.events.length);
      expect(seen.value('apiserver_watch_events_sizes_count', kind) - before.value('apiserver_watch_events_sizes_count', kind)).toBe(events);
      expect(seen.value('apiserver_watch_events_sizes_sum', kind) - before.value('apiserver_watch_events_sizes_sum', kind)).toBeGreaterThan(50 * events);
      // Scrapes are read-only requests in flight; kube reports each second's maximum.
      await eventually(async () => (await scrape(api)).value('apiserver_current_inflight_requests', { request_kind: 'readOnly' }) >= 1, 'readOnly in flight', 5000);
      expect((await scrape(api)).has('apiserver_current_inflight_requests', { request_kind: 'mutating' })).toBe(true);
    } finally {
      w.close();
    }
    await eventually(async () => (await scrape(api)).value('apiserver_longrunning_requests', labels) === 0, 'watch gauge back to 0', 5000);
    const after = await scrape(api);
    expect(after.value('apiserver_request_total', { ...labels, code: '200' }) - before.value('apiserver_request_total', { ...labels, code: '200' })).toBe(1);
    expect(after.has('apiserver_request_duration_seconds_count', { ...labels })).toBe(true);
    expect(after.has('apiserver_request_sli_duration_seconds_count', { verb: 'WATCH' })).toBe(false);
  });

  it('signals a deprecated CRD version: Warning header, the metric set to 1, the audit annotation', async () => {
    const apiGroup = `${uniqueName('dep')}.example.com`;
    await establishGadgets(api, apiGroup, 'platform.io');
    const base = `/apis/${apiGroup}/v1beta1/namespaces/${ns}/gadgets`;
    const res = await api.request('POST', base, { body: { apiVersion: `${apiGroup}/v1beta1`, kind: 'Gadget', metadata: { name: 'old' }, spec: { size: 1 } } });
    expect(res.status).toBe(201);
    expect(res.warnings()).toEqual([`299 - "${apiGroup}/v1beta1 Gadget is deprecated; use ${apiGroup}/v1 Gadget"`]);
    const missing = await api.request('GET', `${base}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.warnings()).toHaveLength(1);
    expect((await api.request('GET', `/apis/${apiGroup}/v1/namespaces/${ns}/gadgets/old`)).warnings()).toEqual([]);

    const m = await scrape(api);
    expect(m.value('apiserver_requested_deprecated_apis', { group: apiGroup, version: 'v1beta1', resource: 'gadgets', subresource: '', removed_release: '' })).toBe(1);
    expect(m.has('apiserver_requested_deprecated_apis', { group: apiGroup, version: 'v1' })).toBe(false);

    // The audit events of the v1beta1 requests carry the annotation (no removed-release: CRDs have none).
    const events = () => readFileSync(auditPath, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
    await eventually(async () => events().some((e) => e.requestURI === `${base}/nope` && e.stage === 'ResponseComplete'), 'audit event written', 10_000);
    // (The polls that waited for the CRD to be served were 404s of an unserved resource: not deprecated.)
    const annotated = events().filter((e) => e.stage === 'ResponseComplete' && e.objectRef?.apiGroup === apiGroup && e.requestURI.includes(`/namespaces/${ns}/`));
    const byVersion = (v: string) => annotated.filter((e) => e.objectRef.apiVersion === v);
    expect(byVersion('v1beta1').length).toBeGreaterThanOrEqual(2);
    for (const e of byVersion('v1beta1')) {
      expect(e.annotations).toMatchObject({ 'platform.io/deprecated': 'true' });
      expect(e.annotations['platform.io/removed-release']).toBeUndefined();
    }
    for (const e of byVersion('v1')) expect(e.annotations?.['platform.io/deprecated']).toBeUndefined();
  });

  it('counts authentication and authorization attempts by result', async () => {
    const before = await scrape(api);
    expect((await api.request('GET', '/api/v1/namespaces', { token: 'not-a-token' })).status).toBe(401);
    // Anonymous (no credentials, allowed) authenticates; RBAC then refuses it.
    expect((await api.request('GET', `/api/v1/namespaces/${ns}/secrets`, { token: null })).status).toBe(403);
    const after = await scrape(api);
    const d = (name: string, result: string) => after.value(name, { result }) - before.value(name, { result });
    expect(d('authentication_attempts', 'error')).toBe(1);
    expect(d('authentication_duration_seconds_count', 'error')).toBe(1);
    // The anonymous request and the first scrape.
    expect(d('authentication_attempts', 'success')).toBe(2);
    expect(d('authorization_attempts_total', 'denied') + d('authorization_attempts_total', 'no-opinion')).toBe(1);
    expect(d('authorization_attempts_total', 'allowed')).toBe(1);
    expect(d('authorization_duration_seconds_count', 'allowed')).toBe(1);
    // The 401 and the 403 are requests too, under the resource they asked for.
    expect(after.value('apiserver_request_total', { resource: 'namespaces', verb: 'LIST', code: '401' }) - before.value('apiserver_request_total', { resource: 'namespaces', verb: 'LIST', code: '401' })).toBe(1);
    expect(after.value('apiserver_request_total', { resource: 'secrets', verb: 'LIST', code: '403' }) - before.value('apiserver_request_total', { resource: 'secrets', verb: 'LIST', code: '403' })).toBe(1);
  });

  it('counts a failed TLS handshake', async () => {
    const before = (await scrape(api)).value('apiserver_tls_handshake_errors_total');
    const port = api.server.port;
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.on('error', reject);
      socket.on('close', () => resolve());
      socket.resume();
    });
    await eventually(async () => (await scrape(api)).value('apiserver_tls_handshake_errors_total') === before + 1, 'handshake error counted', 5000);
  });

  it('passes promtool check metrics on a real scrape (but for kube\'s own counter name without _total)', async () => {
    const text = (await scrape(api)).text;
    const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(run.error).toBeUndefined();
    // kube-apiserver's `authentication_attempts` is a counter without `_total`; the name is kept so existing
    // dashboards work, and it is the lint's only finding (exit 3 is promtool's "lint problems").
    expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
      status: 3,
      stdout: '',
      stderr: 'authentication_attempts counter metrics should have "_total" suffix\n',
    });
    const others = spawnSync('promtool', ['check', 'metrics'], { input: withoutFamily(text, 'authentication_attempts'), encoding: 'utf8' });
    expect({ status: others.status, stdout: others.stdout, stderr: others.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
  });
});

describe('--request-metrics=false', () => {
  it('records no request, watch or authentication series; the families are still served', async () => {
    const api = await backend.start({ requestMetrics: false });
    await api.request('GET', '/api/v1/namespaces');
    await api.request('GET', '/api/v1/namespaces', { token: 'not-a-token' });
    const m = await scrape(api);
    expect(m.text).toContain('# TYPE apiserver_request_total counter');
    expect(m.has('apiserver_request_total')).toBe(false);
    expect(m.has('apiserver_request_duration_seconds_count')).toBe(false);
    expect(m.value('authentication_attempts')).toBe(0);
    expect(m.value('apiserver_current_inflight_requests')).toBe(0);
  });
});

describe('authentication failures', () => {
  it('counts a request without credentials where anonymous access is off as a failure', async () => {
    const api = await backend.start({ anonymousAuth: false });
    const before = await scrape(api);
    expect((await api.request('GET', '/api/v1/namespaces', { token: null })).status).toBe(401);
    const after = await scrape(api);
    expect(after.value('authentication_attempts', { result: 'failure' }) - before.value('authentication_attempts', { result: 'failure' })).toBe(1);
    expect(after.value('authentication_attempts', { result: 'error' }) - before.value('authentication_attempts', { result: 'error' })).toBe(0);
  });
});

describe('kubectl and a deprecated CRD version (k8s.io)', () => {
  let api: TestApi;
  let home: string;
  beforeAll(async () => {
    api = await backend.start({ groupDomain: 'k8s.io' });
    home = mkdtempSync(join(tmpdir(), 'request-metrics-kubectl-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('prints the Warning line', async () => {
    const apiGroup = `${uniqueName('kdep')}.example.com`;
    const space = await createNamespace(api);
    await establishGadgets(api, apiGroup, 'k8s.io');
    const manifest = join(home, 'gadget.json');
    writeFileSync(manifest, JSON.stringify({ apiVersion: `${apiGroup}/v1beta1`, kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 2 } }));
    const kc = ['--kubeconfig', api.server.kubeconfigPath!, '-n', space];
    const created = await kubectl([...kc, 'create', '-f', manifest], home);
    expect(created.status).toBe(0);
    expect(created.stderr).toContain(`Warning: ${apiGroup}/v1beta1 Gadget is deprecated; use ${apiGroup}/v1 Gadget`);
    const got = await kubectl([...kc, 'get', `gadgets.v1beta1.${apiGroup}`, 'g', '-o', 'jsonpath={.spec.size}'], home);
    expect(got).toMatchObject({ status: 0, stdout: '2' });
    expect(got.stderr).toContain(`Warning: ${apiGroup}/v1beta1 Gadget is deprecated; use ${apiGroup}/v1 Gadget`);
    const m = await scrape(api);
    expect(m.value('apiserver_requested_deprecated_apis', { group: apiGroup, version: 'v1beta1', resource: 'gadgets' })).toBe(1);
  }, 60_000);
});
