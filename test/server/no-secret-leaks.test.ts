/**
 * Issue 10, "secrets never leak": a server with every kind of credential (a static token file, a service
 * account and its TokenRequest JWT, a bootstrap token with `--enable-bootstrap-token-auth`, a Secret with
 * data) is driven through the auth paths: valid and invalid bearer tokens of each kind, TokenRequest,
 * TokenReview, impersonation (allowed and refused), Forbidden answers, bad Secret writes (undecodable data,
 * invalid keys, broken JSON, conflicts), a credential in a query string, and /metrics. Then everything the
 * server wrote is searched for every secret value: its log (every level, captured in memory), anything
 * written to this process's stdout and stderr meanwhile, every error body and every response's headers,
 * the TokenReview statuses, and the /metrics text. None may appear.
 *
 * The server runs in process (its logger captured), so a leak found here names the line that carries it.
 * Responses whose purpose is to hand a secret to an authorized caller (the TokenRequest's token, the
 * Secret read back by the admin, the TokenReview's echo of the spec it was sent) are not searched: that
 * is delivery, not leakage.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { apiRequest, type ApiRequestOptions, type ApiResponse } from '../http/helpers.js';
import { eventually, memoryLogger, startTestServer, stopAll, tempDir } from './helpers.js';

const AUTH = 'authentication.platform.io';
const SYSTEM_NS = 'platform-system';
const ns = 'leaks';

const hex = (n: number): string => randomBytes(n).toString('hex');
const alnum = (n: number): string => {
  const chars = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(n)].map((b) => chars[b % chars.length]).join('');
};

// The secrets. Random, so that finding one anywhere can only mean it was copied there.
const adminToken = `adm-${hex(20)}`;
const aliceToken = `ali-${hex(20)}`;
const wrongStatic = `bad-${hex(20)}`;
const bootId = alnum(6);
const bootSecret = alnum(16);
const bootToken = `${bootId}.${bootSecret}`;
const wrongBootSecret = alnum(16);
const secretValue = `s3cr3t-${hex(16)}`;
const secretBytes = randomBytes(24); // binary data: its base64 is what travels
const stringDataValue = `pw-${hex(16)}`;
const rejectedValue = `rejected-${hex(16)}`; // in writes the server refuses

let server: RunningServer;
let dataDir: string;
let log: ReturnType<typeof memoryLogger>;
/** What the server wrote that is searched, with where it came from. */
const written: { where: string; text: string }[] = [];
/** Secrets known only once the server made them (the JWT, the keys): label -> value. */
const secrets = new Map<string, string>([
  ['static admin token', adminToken],
  ['static alice token', aliceToken],
  ['presented invalid static token', wrongStatic],
  ['bootstrap token', bootToken],
  ['bootstrap token secret part', bootSecret],
  ['presented wrong bootstrap secret', wrongBootSecret],
  ['Secret data value', secretValue],
  ['Secret data value, base64', Buffer.from(secretValue).toString('base64')],
  ['Secret binary data, base64', secretBytes.toString('base64')],
  ['Secret stringData value', stringDataValue],
  ['Secret stringData value, base64', Buffer.from(stringDataValue).toString('base64')],
  ['value of a refused write', rejectedValue],
]);

/** Hooks this process's stdout and stderr for the duration of the test (anything printed on the side). */
const original = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
function captureStdio(): void {
  for (const [name, stream, write] of [['stdout', process.stdout, original.out], ['stderr', process.stderr, original.err]] as const) {
    (stream as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) => {
      written.push({ where: name, text: String(chunk) });
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    };
  }
}
function restoreStdio(): void {
  process.stdout.write = original.out;
  process.stderr.write = original.err;
}

/**
 * A request whose error body and headers are recorded for the search. `deliver` marks a success whose
 * body carries a secret on purpose (then only its headers are searched).
 */
async function send(token: string | null, method: string, path: string, o: ApiRequestOptions & { deliver?: boolean } = {}): Promise<ApiResponse> {
  const res = await apiRequest({ url: server.url, ca: server.caPem! }, method, path, { ...o, token });
  const where = `${method} ${path} -> ${res.status}`;
  written.push({ where: `${where} (headers)`, text: JSON.stringify(res.headers) });
  if (res.status >= 400 || o.deliver !== true) written.push({ where: `${where} (body)`, text: res.text() });
  return res;
}
const admin = (method: string, path: string, o: ApiRequestOptions & { deliver?: boolean } = {}) => send(adminToken, method, path, o);

async function must(res: Promise<ApiResponse>, status: number): Promise<ApiResponse> {
  const r = await res;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text()}`);
  return r;
}

const whoami = (token: string, headers: Record<string, string> = {}) =>
  send(token, 'POST', `/apis/${AUTH}/v1/selfsubjectreviews`, { headers, body: { apiVersion: `${AUTH}/v1`, kind: 'SelfSubjectReview' } });

beforeAll(async () => {
  captureStdio();
  dataDir = tempDir();
  const tokens = join(dataDir, 'tokens.csv');
  writeFileSync(tokens, `${adminToken},admin,admin-uid,"system:masters"\n${aliceToken},alice,alice-uid\n`);
  log = memoryLogger('trace');
  server = await startTestServer({ dataDir, tokenAuthFile: tokens, enableBootstrapTokenAuth: true }, { logger: log.logger });
  // The server's private keys (the service account signing key, the serving key, the CA key): every line
  // of their PEM bodies is a secret too.
  const pki = join(dataDir, 'pki');
  for (const f of readdirSync(pki).filter((n) => n.endsWith('.key'))) {
    const body = readFileSync(join(pki, f), 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('-----'));
    body.forEach((line, i) => { if (line.length >= 16) secrets.set(`${f} line ${i + 1}`, line); });
  }
}, 60_000);
afterAll(async () => {
  restoreStdio();
  await stopAll();
});

it('no token, key or Secret value appears in anything the server wrote', async () => {
  expect([...secrets.keys()].some((k) => k.startsWith('sa.key'))).toBe(true);

  // A namespace, a service account, a Secret with data and stringData.
  await must(admin('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } }), 201);
  await must(admin('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } } }), 201);
  await must(admin('POST', `/api/v1/namespaces/${ns}/secrets`, { deliver: true, body: {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' },
    data: { password: Buffer.from(secretValue).toString('base64'), blob: secretBytes.toString('base64') },
    stringData: { other: stringDataValue },
  } }), 201);
  const read = await must(admin('GET', `/api/v1/namespaces/${ns}/secrets/creds`, { deliver: true }), 200);
  expect(Buffer.from(read.json().data.password, 'base64').toString()).toBe(secretValue); // it is really there

  // TokenRequest: the service account's JWT (bound to the Secret).
  const creds = read.json();
  const tr = await must(admin('POST', `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { deliver: true, body: {
    apiVersion: `${AUTH}/v1`, kind: 'TokenRequest',
    spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'creds', uid: creds.metadata.uid } },
  } }), 201);
  const jwt: string = tr.json().status.token;
  const [jwtHead, jwtClaims, jwtSig] = jwt.split('.') as [string, string, string];
  secrets.set('service account JWT', jwt);
  secrets.set('service account JWT signature', jwtSig);
  // Refused TokenRequests: alice may not; a bad spec.
  await must(send(aliceToken, 'POST', `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { body: { apiVersion: `${AUTH}/v1`, kind: 'TokenRequest', spec: {} } }), 403);
  await must(admin('POST', `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { body: { apiVersion: `${AUTH}/v1`, kind: 'TokenRequest', spec: { expirationSeconds: 1 } } }), 422);

  // The bootstrap token Secret.
  await must(admin('POST', `/api/v1/namespaces/${SYSTEM_NS}/secrets`, { deliver: true, body: {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${bootId}` }, type: 'bootstrap.platform.io/token',
    stringData: { 'token-id': bootId, 'token-secret': bootSecret, 'usage-bootstrap-authentication': 'true' },
  } }), 201);

  // Valid bearer tokens of each kind.
  await eventually(async () => (await whoami(bootToken)).status === 201, 'the bootstrap token to authenticate');
  expect((await whoami(adminToken)).json().status.userInfo.username).toBe('admin');
  expect((await whoami(aliceToken)).json().status.userInfo.username).toBe('alice');
  expect((await whoami(jwt)).json().status.userInfo.username).toBe(`system:serviceaccount:${ns}:robot`);
  expect((await whoami(bootToken)).json().status.userInfo.username).toBe(`system:bootstrap:${bootId}`);
  await must(send(jwt, 'GET', `/api/v1/namespaces/${ns}/configmaps`), 403);
  await must(send(bootToken, 'GET', '/api/v1/namespaces'), 403);

  // Invalid bearer tokens of each kind.
  const forgedClaims = JSON.parse(Buffer.from(jwtClaims, 'base64url').toString());
  forgedClaims.sub = 'system:serviceaccount:platform-system:admin';
  const forged = `${jwtHead}.${Buffer.from(JSON.stringify(forgedClaims)).toString('base64url')}.${jwtSig}`;
  secrets.set('forged JWT', forged);
  const otherAudience = (await must(admin('POST', `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`, { deliver: true, body: {
    apiVersion: `${AUTH}/v1`, kind: 'TokenRequest', spec: { audiences: ['vault'] },
  } }), 201)).json().status.token as string;
  secrets.set('JWT for another audience', otherAudience);
  secrets.set('JWT for another audience, signature', otherAudience.split('.')[2]!);
  const invalid: [string, string][] = [
    ['unknown static token', wrongStatic],
    ['forged JWT', forged],
    ['JWT with a cut signature', `${jwtHead}.${jwtClaims}.${jwtSig.slice(0, -4)}`],
    ['JWT for another audience', otherAudience],
    ['bootstrap token, wrong secret', `${bootId}.${wrongBootSecret}`],
    ['bootstrap token, unknown id', `${alnum(6)}.${bootSecret}`],
    ['bootstrap token, malformed', `${bootId}.${bootSecret}x`],
  ];
  for (const [what, token] of invalid) {
    const res = await send(token, 'GET', '/api/v1/namespaces');
    if (res.status !== 401) throw new Error(`${what}: ${res.status}`);
    await must(whoami(token), 401);
  }
  // Malformed Authorization headers.
  await must(send(null, 'GET', '/api/v1/namespaces', { headers: { Authorization: `Basic ${Buffer.from(`admin:${adminToken}`).toString('base64')}` } }), 403);
  secrets.set('basic credentials', Buffer.from(`admin:${adminToken}`).toString('base64'));
  // Odd shapes of the Bearer header (their status is another test's business; only what is written matters).
  await send(null, 'GET', '/api/v1/namespaces', { headers: { Authorization: `Bearer  ${aliceToken}` } });
  await send(null, 'GET', '/api/v1/namespaces', { headers: { Authorization: `Bearer ${wrongStatic} ${aliceToken}` } });
  await send(null, 'GET', '/api/v1/namespaces', { headers: { Authorization: `bearer ${wrongStatic}` } });
  // A credential in the query string (a script's mistake; kube ignores such parameters).
  await send(aliceToken, 'GET', `/api/v1/namespaces/${ns}/configmaps`, { query: { access_token: adminToken, token: adminToken } });

  // TokenReview of every token, valid and invalid: the statuses never carry the token.
  const reviewed: string[] = [];
  for (const token of [adminToken, aliceToken, jwt, bootToken, ...invalid.map(([, t]) => t)]) {
    const res = await must(admin('POST', `/apis/${AUTH}/v1/tokenreviews`, { deliver: true, body: { apiVersion: `${AUTH}/v1`, kind: 'TokenReview', spec: { token } } }), 201);
    written.push({ where: 'TokenReview status', text: JSON.stringify(res.json().status) });
    reviewed.push(res.json().status.authenticated === true ? 'yes' : 'no');
  }
  expect(reviewed).toEqual(['yes', 'yes', 'yes', 'yes', ...invalid.map(() => 'no')]);
  await must(send(aliceToken, 'POST', `/apis/${AUTH}/v1/tokenreviews`, { body: { apiVersion: `${AUTH}/v1`, kind: 'TokenReview', spec: { token: adminToken } } }), 403);
  await must(admin('POST', `/apis/${AUTH}/v1/tokenreviews`, { body: { apiVersion: `${AUTH}/v1`, kind: 'TokenReview', spec: { token: aliceToken, audiences: 'x' } } }), 422);
  await must(admin('POST', `/apis/${AUTH}/v1/tokenreviews`, { body: { apiVersion: `${AUTH}/v1`, kind: 'TokenReview', spec: { token: [aliceToken] } } }), 422);

  // Impersonation: allowed (admin as the service account, as the bootstrap user), refused (alice as admin),
  // and with an invalid token.
  expect((await must(whoami(adminToken, { 'Impersonate-User': `system:serviceaccount:${ns}:robot` }), 201)).json().status.userInfo.username)
    .toBe(`system:serviceaccount:${ns}:robot`);
  await must(whoami(adminToken, { 'Impersonate-User': `system:bootstrap:${bootId}`, 'Impersonate-Group': 'system:bootstrappers' }), 201);
  await must(whoami(aliceToken, { 'Impersonate-User': 'admin' }), 403);
  await must(whoami(aliceToken, { 'Impersonate-User': 'admin', 'Impersonate-Group': 'system:masters' }), 403);
  await must(whoami(jwt, { 'Impersonate-User': 'admin' }), 403);
  await must(whoami(wrongStatic, { 'Impersonate-User': 'admin' }), 401);
  await must(send(adminToken, 'GET', `/api/v1/namespaces/${ns}/secrets/creds`, { headers: { 'Impersonate-User': 'alice' } }), 403);

  // Forbidden: the Secret and its list, as alice, the service account and the bootstrap user; a watch.
  for (const token of [aliceToken, jwt, bootToken]) {
    await must(send(token, 'GET', `/api/v1/namespaces/${ns}/secrets/creds`), 403);
    await must(send(token, 'GET', `/api/v1/namespaces/${ns}/secrets`), 403);
    await must(send(token, 'GET', `/api/v1/namespaces/${ns}/secrets`, { query: { watch: 'true' } }), 403);
    await must(send(token, 'PATCH', `/api/v1/namespaces/${ns}/secrets/creds`, { body: { data: { password: Buffer.from(rejectedValue).toString('base64') } } }), 403);
  }

  // Secret writes the server refuses: the refused value never comes back in the error.
  const refused: [string, unknown, number][] = [
    ['undecodable data', { metadata: { name: 'bad1' }, data: { k: `${rejectedValue}!!` } }, 422],
    ['invalid key', { metadata: { name: 'bad2' }, data: { 'bad key!': Buffer.from(rejectedValue).toString('base64') } }, 422],
    ['invalid stringData key', { metadata: { name: 'bad3' }, stringData: { 'also bad/': rejectedValue } }, 422],
    ['already exists', { metadata: { name: 'creds' }, stringData: { password: rejectedValue } }, 409],
    // Kubernetes decodes built-in kinds into structs: a wrongly typed value is a 400, naming no value.
    ['data not a string', { metadata: { name: 'bad4' }, data: { k: { nested: rejectedValue } } }, 400],
  ];
  for (const [what, body, status] of refused) {
    const res = await admin('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', ...(body as object) } });
    if (what === 'undecodable data') expect(res.json().message).toBe('Secret "bad1" is invalid: data.k: Invalid value: illegal base64 data');
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text()}`);
  }
  const broken = await admin('POST', `/api/v1/namespaces/${ns}/secrets`, { body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"bad5"},"stringData":{"k":"${rejectedValue}"` });
  expect(broken.status).toBe(400);
  // A JSON patch whose test op fails: the stored value is not shown in the refusal.
  const test = await admin('PATCH', `/api/v1/namespaces/${ns}/secrets/creds`, {
    headers: { 'Content-Type': 'application/json-patch+json' },
    body: [{ op: 'test', path: '/data/password', value: Buffer.from(rejectedValue).toString('base64') }, { op: 'remove', path: '/data/blob' }],
  });
  if (test.status < 400 || test.status >= 500) throw new Error(`failed patch test: ${test.status} ${test.text()}`);
  const stale = await admin('PUT', `/api/v1/namespaces/${ns}/secrets/creds`, { body: { ...creds, metadata: { ...creds.metadata, resourceVersion: '1' }, stringData: { password: rejectedValue } } });
  expect(stale.status).toBe(409);

  // /metrics, as the admin (read and searched) and as alice (refused).
  const metrics = await must(admin('GET', '/metrics'), 200);
  expect(metrics.text()).toContain('# TYPE');
  await must(send(aliceToken, 'GET', '/metrics'), 403);
  written.push({ where: '/metrics (after all requests)', text: (await must(admin('GET', '/metrics'), 200)).text() });

  // The log, every level, and that it is not vacuous: it saw the requests and the refusals.
  const lines = log.lines();
  for (const l of lines) written.push({ where: `log: ${l.slice(0, 160)}`, text: l });
  const requests = lines.map((l) => JSON.parse(l)).filter((r) => r.msg === 'request');
  expect(requests.filter((r) => r.status === 401).length).toBeGreaterThanOrEqual(invalid.length * 2);
  expect(requests.filter((r) => r.status === 403).length).toBeGreaterThanOrEqual(12);
  expect(requests.some((r) => r.user === `system:serviceaccount:${ns}:robot`)).toBe(true);
  expect(requests.some((r) => r.user === `system:bootstrap:${bootId}`)).toBe(true);

  const leaks: string[] = [];
  for (const [label, value] of secrets) {
    for (const w of written) if (w.text.includes(value)) leaks.push(`${label} in ${w.where}: ${w.text.slice(0, 600)}`);
  }
  expect(leaks).toEqual([]);
}, 60_000);
