/**
 * Overload, through a real server process (test/e2e/overload/server-process.ts) with small limits:
 * `--max-requests-inflight=20 --max-mutating-requests-inflight=10` (30 seats in all; API Priority and
 * Fairness on, as by default), `--request-timeout=4s` (so a queue waits at most 1 s),
 * `--min-request-timeout=1`.
 *
 * The slow work is real: Widgets are a custom resource stored as v2 and converted by an HTTPS conversion
 * webhook (test/http/conversion-webhook-server.ts) that answers after 100 ms, so every create of a v1 Widget
 * holds its seat for at least that long.
 *
 * - A flood of 10x the in-flight limit (300 concurrent clients, each sending its next create as soon as
 *   the last one was answered, ignoring Retry-After) from one user creating v1 Widgets, while an admin
 *   (system:masters), a health checker (anonymous /readyz, /livez, /healthz) and a second, quiet user
 *   doing the same slow creates keep being answered: their success rates and latencies are printed and
 *   asserted; the flood gets 429s with kube's Status and Retry-After, counted in the metrics; the
 *   server's RSS is sampled and bounded.
 * - A create whose conversion outlasts --request-timeout gets 504 Timeout, and the object is never
 *   written, even after the webhook answers.
 * - A watch without timeoutSeconds ends after a time in [min, 2 x min] of --min-request-timeout.
 */
import { convertedReview, startConversionWebhook, type ConversionWebhook, type Json } from '../../http/conversion-webhook-server.js';
import { startServerProcess, type Reply, type ServerProcess } from './server-process.js';

const GROUP = 'overload.example.com';
const WIDGETS_V1 = `/apis/${GROUP}/v1/namespaces/default/widgets`;
const WIDGETS_V2 = `/apis/${GROUP}/v2/namespaces/default/widgets`;
const MAX_INFLIGHT = 20;
const MAX_MUTATING = 10;
const FLOOD_CLIENTS = 10 * (MAX_INFLIGHT + MAX_MUTATING);
const FLOOD_MS = 6000;
const CONVERSION_DELAY_MS = 100;
const NOISY = 'noisy-user-token-0123456789';
const QUIET = 'quiet-user-token-0123456789';

let hook: ConversionWebhook;
let server: ServerProcess;
/** Conversions held until the test lets them go (the 504 case), by object name. */
const held = new Map<string, () => void>();

beforeAll(async () => {
  hook = await startConversionWebhook();
  hook.respond = (review, reply) => {
    const names = ((review.request?.objects ?? []) as Json[]).map((o) => o.metadata?.name as string);
    const answer = (): void => reply(200, convertedReview(review));
    const name = names.find((n) => n.startsWith('slow-'));
    if (name !== undefined) held.set(name, answer);
    else setTimeout(answer, CONVERSION_DELAY_MS);
  };
  server = await startServerProcess([
    `--max-requests-inflight=${MAX_INFLIGHT}`,
    `--max-mutating-requests-inflight=${MAX_MUTATING}`,
    '--request-timeout=4s',
    '--min-request-timeout=1',
  ], [`${NOISY},noisy,uid-noisy`, `${QUIET},quiet,uid-quiet`]);
  // The two users may do anything (RBAC), without being system:masters.
  const binding = await server.call('POST', '/apis/rbac.platform.io/v1/clusterrolebindings', server.adminToken, {
    apiVersion: 'rbac.platform.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'overload-users' },
    roleRef: { apiGroup: 'rbac.platform.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: ['noisy', 'quiet'].map((name) => ({ apiGroup: 'rbac.platform.io', kind: 'User', name })),
  });
  expect(binding.status).toBe(201);
  const crd = await server.call('POST', '/apis/apiextensions.platform.io/v1/customresourcedefinitions', server.adminToken, widgetCrd());
  expect(crd.status).toBe(201);
  await until(async () => (await server.call('GET', WIDGETS_V1, server.adminToken)).status === 200, 'the Widget resource to be served');
  for (let i = 0; i < 5; i++) {
    const res = await server.call('POST', WIDGETS_V2, server.adminToken, { apiVersion: `${GROUP}/v2`, kind: 'Widget', metadata: { name: `w${i}` }, spec: { host: 'h', port: 80 + i } });
    expect(res.status).toBe(201);
  }
}, 60_000);

afterAll(async () => {
  for (const release of held.values()) release();
  held.clear();
  await server?.stop();
  await hook?.close();
});

function widgetCrd(): Json {
  const schema = (props: Json) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } } });
  return {
    apiVersion: 'apiextensions.platform.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind: 'Widget', plural: 'widgets' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: false, schema: schema({ hostPort: { type: 'string' } }) },
        { name: 'v2', served: true, storage: true, schema: schema({ host: { type: 'string' }, port: { type: 'integer' } }) },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: hook.clientConfig } },
    },
  };
}

/** Polls (every 50 ms, at most 30 s) until `probe` holds. */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Tally {
  readonly codes: Map<number, number>;
  readonly ms: number[];
  errors: number;
  sample429?: Reply;
}

const tally = (): Tally => ({ codes: new Map(), ms: [], errors: 0 });

/** Runs `one` back to back until `stop()` says so, recording codes and latencies. */
async function loop(t: Tally, stop: () => boolean, one: () => Promise<Reply>): Promise<void> {
  while (!stop()) {
    try {
      const r = await one();
      t.codes.set(r.status, (t.codes.get(r.status) ?? 0) + 1);
      t.ms.push(r.ms);
      if (r.status === 429 && t.sample429 === undefined) t.sample429 = r;
    } catch {
      t.errors++;
    }
  }
}

/** A v1 Widget with a generated name: stored as v2, so its create waits for the conversion webhook. */
const widget = (generateName: string): Json =>
  ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { generateName }, spec: { hostPort: 'example:443' } });

const total = (t: Tally): number => [...t.codes.values()].reduce((a, b) => a + b, 0) + t.errors;
const ok = (t: Tally): number => (t.codes.get(200) ?? 0) + (t.codes.get(201) ?? 0);
const rate = (t: Tally): number => ok(t) / Math.max(1, total(t));
function p99(t: Tally): number {
  const s = [...t.ms].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] ?? 0);
}
const describeTally = (name: string, t: Tally): string =>
  `${name}: ${total(t)} requests, ${(100 * rate(t)).toFixed(1)}% 2xx, codes ${JSON.stringify(Object.fromEntries(t.codes))}, errors ${t.errors}, p99 ${p99(t)} ms`;

function metric(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.split(',').every((kv) => l.includes(kv)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('overload', () => {
  it('a flood of 10x the in-flight limit from one user leaves the admin, health probes and a quiet user served, with bounded memory', async () => {
    const rssBefore = server.rssKiB();
    let rssPeak = rssBefore;
    let stopped = false;
    const stop = (): boolean => stopped;
    const noisy = tally();
    const admin = tally();
    const health = tally();
    const quiet = tally();
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, server.rssKiB())), 200);
    const probes = ['/readyz', '/livez', '/healthz'];
    let probe = 0;
    const runs = [
      ...Array.from({ length: FLOOD_CLIENTS }, () => loop(noisy, stop, () => server.call('POST', WIDGETS_V1, NOISY, widget('flood-')))),
      loop(admin, stop, () => server.call('GET', '/api/v1/namespaces/default/configmaps', server.adminToken)),
      loop(health, stop, () => server.call('GET', probes[probe++ % probes.length]!, undefined)),
      loop(quiet, stop, () => server.call('POST', WIDGETS_V1, QUIET, widget('quiet-'))),
    ];
    // The flood's first answers prove it is running; then it goes on for FLOOD_MS.
    await until(async () => total(noisy) > 0, 'the flood to start');
    await new Promise((r) => setTimeout(r, FLOOD_MS));
    stopped = true;
    await Promise.all(runs);
    clearInterval(sampler);
    const rssAfter = server.rssKiB();

    const summary = [
      describeTally('flood (noisy user, 300 clients)', noisy),
      describeTally('admin (system:masters)', admin),
      describeTally('health checker (anonymous)', health),
      describeTally('quiet user (the same slow creates)', quiet),
      `conversion webhook calls: ${hook.reviews.length}`,
      `server RSS: ${Math.round(rssBefore / 1024)} MiB before, ${Math.round(rssPeak / 1024)} MiB peak, ${Math.round(rssAfter / 1024)} MiB after`,
    ].join('\n');
    console.log(`overload figures\n${summary}`);

    expect(noisy.errors).toBe(0);
    expect(noisy.codes.get(429) ?? 0).toBeGreaterThan(0);
    expect(ok(noisy)).toBeGreaterThan(0);
    expect([...noisy.codes.keys()].every((c) => c === 201 || c === 429)).toBe(true);
    // Exempt: never refused, never an error.
    expect(rate(admin)).toBe(1);
    expect(rate(health)).toBe(1);
    expect(total(admin)).toBeGreaterThan(20);
    expect(total(health)).toBeGreaterThan(20);
    // A second user of the same level is served between the noisy user's requests (fair queuing): most of its
    // requests succeed while almost all of the noisy user's are refused. (Its few refusals, if any, are queue
    // waits over 1 s on a machine the flood's client shares.)
    expect(total(quiet)).toBeGreaterThanOrEqual(4);
    expect(rate(quiet)).toBeGreaterThanOrEqual(0.75);
    expect(rate(quiet)).toBeGreaterThan(10 * rate(noisy));
    expect(rssPeak).toBeLessThan(512 * 1024);

    // kube's 429: a Status, Retry-After: 1, and the classification headers.
    const r = noisy.sample429!;
    expect(r.headers['retry-after']).toBe('1');
    expect(JSON.parse(r.body)).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Too many requests, please try again later.', reason: 'TooManyRequests', details: { retryAfterSeconds: 1 }, code: 429,
    });
    expect(r.headers['x-kubernetes-pf-flowschema-uid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.headers['x-kubernetes-pf-prioritylevel-uid']).toMatch(/^[0-9a-f-]{36}$/);

    // The metrics count the refusals; nothing is left queued or executing once the flood is over.
    const text = (await server.call('GET', '/metrics', server.adminToken)).body;
    const gd = 'flow_schema="global-default",priority_level="global-default"';
    const rejected = ['queue-full', 'time-out', 'concurrency-limit', 'cancelled']
      .reduce((sum, reason) => sum + metric(text, 'apiserver_flowcontrol_rejected_requests_total', `${gd},reason="${reason}"`), 0);
    // Both users' refusals (the same flow schema and level).
    const refused = (noisy.codes.get(429) ?? 0) + (quiet.codes.get(429) ?? 0);
    expect(rejected).toBe(refused);
    expect(metric(text, 'apiserver_dropped_requests_total', 'request_kind="mutating"')).toBe(refused);
    expect(metric(text, 'apiserver_flowcontrol_current_inqueue_requests', gd)).toBe(0);
    expect(metric(text, 'apiserver_flowcontrol_current_executing_requests', gd)).toBe(0);
    expect(metric(text, 'apiserver_flowcontrol_nominal_limit_seats', 'priority_level="global-default"')).toBe(3);
    expect(metric(text, 'apiserver_flowcontrol_dispatched_requests_total', 'flow_schema="exempt",priority_level="exempt"')).toBeGreaterThanOrEqual(total(admin));
  }, 60_000);

  it('answers 504 at --request-timeout and never writes the object afterwards', async () => {
    const body = (name: string) => ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec: { hostPort: 'example:443' } });
    const res = await server.call('POST', WIDGETS_V1, server.adminToken, body('slow-write'));
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body)).toMatchObject({
      kind: 'Status', status: 'Failure', reason: 'Timeout', code: 504,
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
    });
    expect(res.ms).toBeGreaterThanOrEqual(3900);
    // The conversion (the last step before the store write) is still waiting; let it finish now.
    expect(held.has('slow-write')).toBe(true);
    held.get('slow-write')!();
    held.delete('slow-write');
    // A later write through the same path is stored: the handler of the first has long seen the answer.
    const after = await server.call('POST', WIDGETS_V1, server.adminToken, body('after-timeout'));
    expect(after.status).toBe(201);
    expect((await server.call('GET', `${WIDGETS_V2}/after-timeout`, server.adminToken)).status).toBe(200);
    expect((await server.call('GET', `${WIDGETS_V2}/slow-write`, server.adminToken)).status).toBe(404);
    const list = JSON.parse((await server.call('GET', WIDGETS_V2, server.adminToken)).body) as { items: Json[] };
    expect(list.items.map((i) => i.metadata.name)).not.toContain('slow-write');
  }, 30_000);

  it('ends a watch without timeoutSeconds after a time between --min-request-timeout and twice that', async () => {
    const times = await Promise.all([0, 1, 2].map(async () => {
      const r = await server.call('GET', '/api/v1/namespaces/default/configmaps?watch=true', server.adminToken);
      expect(r.status).toBe(200);
      return r.ms;
    }));
    console.log(`watch durations with --min-request-timeout=1: ${times.map((t) => Math.round(t)).join(', ')} ms`);
    for (const t of times) {
      expect(t).toBeGreaterThanOrEqual(1000);
      expect(t).toBeLessThan(2000 + 500);
    }
    // With timeoutSeconds the client's choice wins.
    const explicit = await server.call('GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=3', server.adminToken);
    expect(explicit.ms).toBeGreaterThanOrEqual(3000);
  }, 30_000);
});
