/**
 * Benchmark part 6 (`--only=auth`): what authentication and authorization cost. Two server processes
 * (embedded store) with the same flags but `--authorization-mode`: RBAC and AlwaysAllow. Both get the same
 * objects: 100 ClusterRoles, 1,000 RoleBindings over 10 namespaces (100 of them in the bench namespace),
 * and the bench user's own Role + RoleBinding granting get and create on ConfigMaps there.
 *
 *   throughput  as the non-admin bench user (a static token; access from its RoleBinding): GET of one
 *               ConfigMap through the cache (`resourceVersion=0`) and creates of ConfigMaps, c=64,
 *               keep-alive HTTPS, the two servers alternating; RBAC / AlwaysAllow (target >= 0.9x)
 *   reviews     SubjectAccessReview/s (POST authorization.<domain>/v1 subjectaccessreviews as the admin):
 *               allowed and denied on the RBAC server, next to the AlwaysAllow server
 *   tokens      GET /version on the RBAC server per credential: none (anonymous), static token, service
 *               account JWT (TokenRequest-issued), bootstrap token; the extra time per request over
 *               anonymous; and each authenticator's `authenticateToken` in process (bench/auth/authenticators.ts)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { bootstrapTokenSecretType } from '../apiserver/auth/bootstrap-token-secret.js';
import { naming } from '../apiserver/naming/naming.js';
import { timeAuthenticators, type AuthenticatorTiming } from './auth/authenticators.js';
import { benchClient, type BenchClient } from './http-client.js';
import { fmt, measure, table, type Measurement } from './measure.js';
import { buildServer, startServerProcess, type ServerMode, type ServerProcess } from './server-process.js';

export interface AuthBenchOptions {
  readonly scale?: number;
  readonly server?: ServerMode;
}

const names = naming('platform.io');
const RBAC = names.group('rbac');
const AUTHZ = `authorization.${names.domain}`;
const NAMESPACE = 'bench-auth';
/** The 1,000 RoleBindings spread over these (the bench namespace first). */
const BINDING_NAMESPACES = [NAMESPACE, ...Array.from({ length: 9 }, (_, i) => `bench-auth-${i + 1}`)];
const CLUSTER_ROLES = 100;
const ROLE_BINDINGS = 1000;
const CONCURRENCY = 64;
const ROUNDS = 5;
const BENCH_USER = 'bench-user';
const ADMIN_USER = 'bench-admin';
const MODES = ['RBAC', 'AlwaysAllow'] as const;
type Mode = (typeof MODES)[number];

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const configMapBody = (name: string): Buffer =>
  json({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { value: 'x'.repeat(1024) } });
const medianBy = (ms: readonly Measurement[]): Measurement => [...ms].sort((a, b) => a.opsPerSecond - b.opsPerSecond)[Math.floor(ms.length / 2)]!;
const alnum = (n: number): string => [...randomBytes(n)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

interface Side {
  readonly mode: Mode;
  readonly server: ServerProcess;
  readonly admin: BenchClient;
  readonly user: BenchClient;
}

interface Tokens {
  readonly serviceAccount: string;
  readonly bootstrap: string;
}

/** Runs part 6 and returns its markdown section. */
export async function benchAuth(options: AuthBenchOptions = {}): Promise<string> {
  const scale = options.scale ?? 1;
  const mode = options.server ?? 'dist';
  const n = (base: number): number => Math.max(10, Math.round(base * scale));
  if (mode === 'dist') buildServer();

  const dir = mkdtempSync(join(tmpdir(), 'bench-auth-'));
  const adminToken = alnum(32);
  const userToken = alnum(32);
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${adminToken},${ADMIN_USER},uid-admin,"system:masters"\n${userToken},${BENCH_USER},uid-bench-user\n`, { mode: 0o600 });

  const sides: Side[] = [];
  const extraClients: BenchClient[] = [];
  try {
    for (const m of MODES) {
      process.stderr.write(`bench: auth, server with --authorization-mode=${m}\n`);
      const server = await startServerProcess({
        mode,
        token: adminToken,
        args: [`--token-auth-file=${tokenFile}`, '--enable-bootstrap-token-auth', `--authorization-mode=${m}`],
      });
      const admin = benchClient({ url: server.url, token: adminToken, caPem: server.caPem, maxSockets: CONCURRENCY });
      const user = benchClient({ url: server.url, token: userToken, caPem: server.caPem, maxSockets: CONCURRENCY });
      sides.push({ mode: m, server, admin, user });
      await populate(admin);
    }
    const [rbac, allow] = sides as [Side, Side];
    // The RBAC index follows the watch caches: wait until the user's RoleBinding is in effect.
    await awaitAllowed(rbac.user);
    for (const s of sides) {
      await s.user.call('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/probe?resourceVersion=0`, 200);
      // And the user is refused what the binding does not grant (RBAC) / allowed (AlwaysAllow).
      await s.user.call('GET', `/api/v1/namespaces/${NAMESPACE}/secrets`, s.mode === 'RBAC' ? 403 : 200);
    }

    // Throughput as the bench user, the two servers alternating which goes first.
    process.stderr.write('bench: auth throughput\n');
    const get = (s: Side) => () => s.user.call('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/probe?resourceVersion=0`, 200);
    const create = (s: Side, tag: string) => (i: number) => s.user.call('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, 201, configMapBody(`${tag}-${i}`));
    for (const s of sides) {
      await measure(n(2000), 16, get(s));
      await measure(n(1000), 16, create(s, 'warm'));
    }
    const throughput: { operation: string; rbac: Measurement; allow: Measurement }[] = [];
    const alternate = async (operation: string, run: (s: Side, round: number) => Promise<Measurement>): Promise<void> => {
      const samples: Measurement[][] = [[], []];
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < 2; k++) {
          const i = (k + round) % 2;
          samples[i]!.push(await run(sides[i]!, round));
        }
      }
      throughput.push({ operation, rbac: medianBy(samples[0]!), allow: medianBy(samples[1]!) });
    };
    await alternate(`get through the cache, c=${CONCURRENCY}`, (s) => measure(n(8000), CONCURRENCY, get(s)));
    await alternate(`create, c=${CONCURRENCY}`, (s, round) => measure(n(4000), CONCURRENCY, create(s, `r${round}`)));

    // SubjectAccessReviews as the admin.
    process.stderr.write('bench: auth subjectaccessreviews\n');
    const sar = (spec: object): Buffer => json({ apiVersion: `${AUTHZ}/v1`, kind: 'SubjectAccessReview', spec });
    const allowedSar = sar({ user: BENCH_USER, resourceAttributes: { namespace: NAMESPACE, verb: 'get', resource: 'configmaps', name: 'probe' } });
    const deniedSar = sar({ user: 'user-7', groups: ['group-7'], resourceAttributes: { namespace: NAMESPACE, verb: 'delete', resource: 'secrets', name: 'x' } });
    const sarPath = `/apis/${AUTHZ}/v1/subjectaccessreviews`;
    const checkSar = async (s: Side, body: Buffer, allowed: boolean): Promise<void> => {
      const res = await s.admin.call('POST', sarPath, 201, body);
      const got = (JSON.parse(res.body.toString('utf8')) as { status?: { allowed?: boolean } }).status?.allowed === true;
      if (got !== allowed) throw new Error(`${s.mode}: SubjectAccessReview answered allowed=${got}, expected ${allowed}: ${res.body.toString('utf8')}`);
    };
    await checkSar(rbac, allowedSar, true);
    await checkSar(rbac, deniedSar, false);
    await checkSar(allow, deniedSar, true);
    const sarCases: { where: string; side: Side; body: Buffer }[] = [
      { where: 'RBAC server, allowed (bench-user get configmaps, from its RoleBinding)', side: rbac, body: allowedSar },
      { where: 'RBAC server, denied (a user with one RoleBinding elsewhere, delete secrets)', side: rbac, body: deniedSar },
      { where: 'AlwaysAllow server (the same denied review, allowed there)', side: allow, body: deniedSar },
    ];
    for (const c of sarCases) await measure(n(1000), 16, () => c.side.admin.call('POST', sarPath, 201, c.body));
    const sarRows = await rotate(sarCases.map((c) => () => measure(n(4000), CONCURRENCY, () => c.side.admin.call('POST', sarPath, 201, c.body))));

    // Token authentication over HTTP on the RBAC server: GET /version (public-info-viewer grants it to everyone).
    process.stderr.write('bench: auth tokens over HTTP\n');
    const tokens = await issueTokens(rbac);
    const tokenCases: { name: string; token: string }[] = [
      { name: 'none (anonymous)', token: '' },
      { name: `static token (${BENCH_USER})`, token: userToken },
      { name: 'service account JWT (TokenRequest, RS256)', token: tokens.serviceAccount },
      { name: 'bootstrap token', token: tokens.bootstrap },
    ];
    const tokenClients = tokenCases.map((t) => benchClient({ url: rbac.server.url, token: t.token, caPem: rbac.server.caPem, maxSockets: CONCURRENCY }));
    extraClients.push(...tokenClients);
    for (const c of tokenClients) await measure(n(2000), 16, () => c.call('GET', '/version', 200));
    const tokenRows = await rotate(tokenClients.map((c) => () => measure(n(8000), CONCURRENCY, () => c.call('GET', '/version', 200))));

    for (const c of extraClients.splice(0)) c.close();
    for (const s of sides.splice(0)) {
      s.admin.close();
      s.user.close();
      await s.server.stop();
    }

    // In process, with the servers gone.
    process.stderr.write('bench: auth authenticators in process\n');
    const timing = { rounds: 11, batch: Math.max(200, Math.round(4000 * Math.min(1, scale * 2))), staticTokens: 1000 };
    const inProcess = await timeAuthenticators(timing);

    return report({ throughput, sarCases: sarCases.map((c, i) => ({ where: c.where, m: sarRows[i]! })), tokenCases: tokenCases.map((t, i) => ({ name: t.name, m: tokenRows[i]! })), inProcess, timing, n });
  } finally {
    for (const c of extraClients) c.close();
    for (const s of sides) {
      s.admin.close();
      s.user.close();
      await s.server.stop();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ROUNDS rounds of every measurement, rotating which goes first; the median round of each. */
async function rotate(runs: readonly (() => Promise<Measurement>)[]): Promise<Measurement[]> {
  const samples: Measurement[][] = runs.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < runs.length; k++) {
      const i = (k + round) % runs.length;
      samples[i]!.push(await runs[i]!());
    }
  }
  return samples.map(medianBy);
}

/** Namespaces, the 100 ClusterRoles, the 1,000 RoleBindings, the bench user's grant and the probe ConfigMap. */
async function populate(c: BenchClient): Promise<void> {
  for (const ns of BINDING_NAMESPACES) {
    await c.call('POST', '/api/v1/namespaces', 201, json({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
  }
  const resources = ['pods', 'services', 'secrets', 'deployments', 'jobs', 'events', 'leases', 'endpoints'];
  await measure(CLUSTER_ROLES, 16, (i) => c.call('POST', `/apis/${RBAC}/v1/clusterroles`, 201, json({
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: { name: `bench-role-${i}` },
    rules: [
      { apiGroups: [''], resources: [resources[i % resources.length]!, `${resources[(i + 1) % resources.length]!}/status`], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['apps', 'batch'], resources: [resources[(i + 2) % resources.length]!], verbs: ['create', 'update', 'patch', 'delete'], resourceNames: [`name-${i}`] },
      { apiGroups: [`example-${i}.io`], resources: ['*'], verbs: ['*'] },
    ],
  })));
  await measure(ROLE_BINDINGS, 16, (i) => c.call('POST', `/apis/${RBAC}/v1/namespaces/${BINDING_NAMESPACES[i % BINDING_NAMESPACES.length]!}/rolebindings`, 201, json({
    apiVersion: `${RBAC}/v1`,
    kind: 'RoleBinding',
    metadata: { name: `bench-binding-${i}` },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: `bench-role-${i % CLUSTER_ROLES}` },
    subjects: [
      { kind: 'User', apiGroup: RBAC, name: `user-${i}` },
      { kind: 'Group', apiGroup: RBAC, name: `group-${i % 50}` },
      { kind: 'ServiceAccount', name: `sa-${i}`, namespace: BINDING_NAMESPACES[i % BINDING_NAMESPACES.length]! },
    ],
  })));
  await c.call('POST', `/apis/${RBAC}/v1/namespaces/${NAMESPACE}/roles`, 201, json({
    apiVersion: `${RBAC}/v1`,
    kind: 'Role',
    metadata: { name: 'bench-user' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create'] }],
  }));
  await c.call('POST', `/apis/${RBAC}/v1/namespaces/${NAMESPACE}/rolebindings`, 201, json({
    apiVersion: `${RBAC}/v1`,
    kind: 'RoleBinding',
    metadata: { name: 'bench-user' },
    roleRef: { apiGroup: RBAC, kind: 'Role', name: 'bench-user' },
    subjects: [{ kind: 'User', apiGroup: RBAC, name: BENCH_USER }],
  }));
  await c.call('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, 201, configMapBody('probe'));
}

/** Waits (bounded) until the bench user's GET is allowed: the RBAC index has caught up with the writes. */
async function awaitAllowed(user: BenchClient): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await user.call('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/probe`, 200);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

/** A TokenRequest-issued service account token and a bootstrap token, each checked to authenticate. */
async function issueTokens(s: Side): Promise<Tokens> {
  const c = s.admin;
  await c.call('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, 201, json({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bench-sa' } }));
  const tr = await c.call('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/bench-sa/token`, 201, json({
    apiVersion: `authentication.${names.domain}/v1`,
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  }));
  const serviceAccount = (JSON.parse(tr.body.toString('utf8')) as { status: { token: string } }).status.token;
  const id = alnum(6);
  const secret = alnum(16);
  await c.call('POST', `/api/v1/namespaces/${names.systemNamespace}/secrets`, 201, json({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}` },
    type: bootstrapTokenSecretType(names),
    stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true', expiration: new Date(Date.now() + 86_400_000).toISOString() },
  }));
  const tokens = { serviceAccount, bootstrap: `${id}.${secret}` };
  // Each must authenticate as its user (SelfSubjectReview), the bootstrap one once the secrets cache has it.
  const expect: [string, string][] = [[serviceAccount, `system:serviceaccount:${NAMESPACE}:bench-sa`], [tokens.bootstrap, `system:bootstrap:${id}`]];
  for (const [token, user] of expect) {
    const client = benchClient({ url: s.server.url, token, caPem: s.server.caPem, maxSockets: 1 });
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const res = await client.call('POST', `/apis/authentication.${names.domain}/v1/selfsubjectreviews`, 201,
          json({ apiVersion: `authentication.${names.domain}/v1`, kind: 'SelfSubjectReview' })).catch((err: unknown) => err as Error);
        if (!(res instanceof Error)) {
          const got = (JSON.parse(res.body.toString('utf8')) as { status?: { userInfo?: { username?: string } } }).status?.userInfo?.username;
          if (got !== user) throw new Error(`the token authenticated as ${String(got)}, expected ${user}`);
          break;
        }
        if (Date.now() > deadline) throw res;
        await sleep(100);
      }
    } finally {
      client.close();
    }
  }
  return tokens;
}

interface ReportInput {
  readonly throughput: readonly { operation: string; rbac: Measurement; allow: Measurement }[];
  readonly sarCases: readonly { where: string; m: Measurement }[];
  readonly tokenCases: readonly { name: string; m: Measurement }[];
  readonly inProcess: readonly AuthenticatorTiming[];
  readonly timing: { readonly rounds: number; readonly batch: number; readonly staticTokens: number };
  readonly n: (base: number) => number;
}

function report(r: ReportInput): string {
  const lat = (m: Measurement): string => `${fmt(m.p50Ms, 2)} / ${fmt(m.p99Ms, 2)} ms`;
  const rate = (m: Measurement, unit: string): string => `${fmt(m.opsPerSecond)} ${unit}`;
  const throughputRows = r.throughput.map((t) => {
    const ratio = t.rbac.opsPerSecond / t.allow.opsPerSecond;
    return [t.operation, rate(t.allow, 'ops/s'), rate(t.rbac, 'ops/s'), `${fmt(ratio, 2)}x ${ratio >= 0.9 ? '(met)' : '(MISSED)'}`, lat(t.allow), lat(t.rbac)];
  });
  const sarRows = r.sarCases.map((c) => [c.where, rate(c.m, 'reviews/s'), lat(c.m)]);
  const anon = r.tokenCases[0]!.m.opsPerSecond;
  const tokenRows = r.tokenCases.map((t, i) => [
    t.name, rate(t.m, 'gets/s'), lat(t.m), i === 0 ? '' : `${fmt(1e6 / t.m.opsPerSecond - 1e6 / anon, 1)} µs`,
  ]);
  const us = (ns: number): string => `${fmt(ns / 1000, ns < 10_000 ? 2 : 1)} µs`;
  const inRows = r.inProcess.map((t) => [t.name, us(t.ns), `${us(t.min)} – ${us(t.max)}`]);
  return [
    '### Part 6: authentication and authorization',
    '',
    `Two server processes (embedded store; \`--token-auth-file --enable-bootstrap-token-auth\`), one with \`--authorization-mode=RBAC\`, one with`
    + ` \`--authorization-mode=AlwaysAllow\`, each holding ${fmt(CLUSTER_ROLES)} ClusterRoles (3 rules each) and ${fmt(ROLE_BINDINGS)} RoleBindings`
    + ` (3 subjects each) over ${BINDING_NAMESPACES.length} namespaces, ${ROLE_BINDINGS / BINDING_NAMESPACES.length} of them in the bench namespace, plus the`
    + ` bench user's Role (get, create on configmaps) and RoleBinding. Requests as \`${BENCH_USER}\` (a static token, no groups), keep-alive HTTPS`
    + `, c=${CONCURRENCY}, median of ${ROUNDS} rounds with the servers (or rows) alternating which goes first.`,
    '',
    `#### Request throughput as a non-admin user, RBAC vs AlwaysAllow (${fmt(r.n(8000))} gets / ${fmt(r.n(4000))} creates per round)`,
    '',
    table(['operation', 'AlwaysAllow', 'RBAC', 'RBAC / AlwaysAllow (target >= 0.9x)', 'AlwaysAllow p50 / p99', 'RBAC p50 / p99'], throughputRows),
    '',
    `#### SubjectAccessReview/s (POST \`/apis/${AUTHZ}/v1/subjectaccessreviews\` as the admin, JSON, c=${CONCURRENCY}, ${fmt(r.n(4000))} per round)`,
    '',
    table(['review', 'rate', 'p50 / p99'], sarRows),
    '',
    `#### Token authentication: GET /version on the RBAC server per credential (c=${CONCURRENCY}, ${fmt(r.n(8000))} per round)`,
    '',
    table(['credential', 'rate', 'p50 / p99', 'extra per request vs anonymous (1/rate difference)'], tokenRows),
    '',
    `#### Token authenticators in process (\`authenticateToken\`, lookups from a Map instead of the watch cache; median of ${r.timing.rounds} rounds of ${fmt(r.timing.batch)} calls, rotating)`,
    '',
    table(['authenticator', 'per call (median)', 'rounds min – max'], inRows),
  ].join('\n');
}
