/**
 * Bootstrap tokens through a real server (`--enable-bootstrap-token-auth`): Secrets created through the
 * API in the system namespace authenticate (read from the secrets' watch cache), every broken variant is
 * 401, and the tokencleaner controller deletes expired token Secrets.
 *
 * The cache applies writes in revision order, so before asserting that a Secret does NOT authenticate,
 * a fresh valid token written after it is awaited: once that one works, the cache holds the Secret
 * under test too, and its 401 is the authenticator's answer rather than a cache lag.
 */
import { randomBytes } from 'node:crypto';
import { apiRequest, type ApiRequestOptions, type ApiResponse } from '../http/helpers.js';
import { readFileSync } from 'node:fs';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import type { Authorizer } from '../../apiserver/authorization/authorizer.js';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { eventually, startTestServer, stopAll, tempDir } from './helpers.js';

const allowAll: Authorizer = { authorize: () => ({ decision: 'allow', reason: '' }) };
const ns = 'platform-system';
const type = 'bootstrap.platform.io/token';

let server: RunningServer;
let admin: string;
const req = (method: string, path: string, o: ApiRequestOptions = {}): Promise<ApiResponse> =>
  apiRequest({ url: server.url, ca: server.caPem!, token: admin }, method, path, o);

const alnum = (n: number): string => {
  const chars = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(n)].map((b) => chars[b % chars.length]).join('');
};

interface Token {
  readonly id: string;
  readonly secret: string;
  readonly token: string;
}
const newToken = (): Token => {
  const id = alnum(6);
  const secret = alnum(16);
  return { id, secret, token: `${id}.${secret}` };
};

async function createSecret(body: Record<string, unknown>): Promise<void> {
  const res = await req('POST', `/api/v1/namespaces/${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', ...body } });
  if (res.status !== 201) throw new Error(`create secret: ${res.status} ${res.text()}`);
}

function tokenSecret(t: Token, data: Record<string, string> = {}, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    metadata: { name: `bootstrap-token-${t.id}` },
    type,
    stringData: { 'token-id': t.id, 'token-secret': t.secret, 'usage-bootstrap-authentication': 'true', ...data },
    ...over,
  };
}

const statusWith = async (token: string): Promise<number> => (await req('GET', '/api/v1/namespaces', { token })).status;

/** A valid token written now, awaited until it authenticates: the cache has caught up with earlier writes. */
async function cacheCaughtUp(): Promise<void> {
  const t = newToken();
  await createSecret(tokenSecret(t));
  await eventually(async () => (await statusWith(t.token)) === 200, 'a fresh bootstrap token to authenticate');
}

beforeAll(async () => {
  const dataDir = tempDir();
  server = await startTestServer({ dataDir, enableBootstrapTokenAuth: true }, { authorizer: allowAll });
  admin = readFileSync(adminTokenPath(dataDir), 'utf8').trim();
});
afterAll(stopAll);

describe('bootstrap token authentication', () => {
  it('authenticates a valid token as system:bootstrap:<id> with its groups', async () => {
    const t = newToken();
    await createSecret(tokenSecret(t, { 'auth-extra-groups': 'system:bootstrappers:workers', expiration: new Date(Date.now() + 3_600_000).toISOString() }));
    await eventually(async () => (await statusWith(t.token)) === 200, 'the token to authenticate');
    const review = await req('POST', '/apis/authentication.platform.io/v1/selfsubjectreviews', {
      token: t.token,
      body: { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(review.status).toBe(201);
    expect(review.json().status.userInfo).toEqual({
      username: `system:bootstrap:${t.id}`,
      groups: ['system:bootstrappers', 'system:bootstrappers:workers', 'system:authenticated'],
    });
  });

  const past = (): string => new Date(Date.now() - 60_000).toISOString();
  const rows: [string, (t: Token) => Record<string, unknown>, (t: Token) => string][] = [
    ['expired', (t) => tokenSecret(t, { expiration: past() }), (t) => t.token],
    ['usage missing', (t) => ({ ...tokenSecret(t), stringData: { 'token-id': t.id, 'token-secret': t.secret } }), (t) => t.token],
    ['usage false', (t) => tokenSecret(t, { 'usage-bootstrap-authentication': 'false' }), (t) => t.token],
    ['wrong type', (t) => tokenSecret(t, {}, { type: 'Opaque' }), (t) => t.token],
    ['Kubernetes\' type under platform.io', (t) => tokenSecret(t, {}, { type: 'bootstrap.kubernetes.io/token' }), (t) => t.token],
    ['wrong secret part', (t) => tokenSecret(t), (t) => `${t.id}.${'0'.repeat(16)}`],
    ['malformed token', (t) => tokenSecret(t), (t) => `${t.id}.${t.secret.slice(0, 15)}`],
    ['extra group outside system:bootstrappers:', (t) => tokenSecret(t, { 'auth-extra-groups': 'system:masters' }), (t) => t.token],
    ['in another namespace', (t) => ({ ...tokenSecret(t), metadata: { name: `bootstrap-token-${t.id}`, namespace: 'default' } }), (t) => t.token],
  ];
  it.each(rows)('%s: 401', async (_name, secret, presented) => {
    const t = newToken();
    const body = secret(t);
    const namespace = (body.metadata as { namespace?: string }).namespace ?? ns;
    const res = await req('POST', `/api/v1/namespaces/${namespace}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', ...body } });
    expect(res.status).toBe(201);
    await cacheCaughtUp();
    expect(await statusWith(presented(t))).toBe(401);
  });

  it('a deleted Secret stops authenticating', async () => {
    const t = newToken();
    await createSecret(tokenSecret(t));
    await eventually(async () => (await statusWith(t.token)) === 200, 'the token to authenticate');
    expect((await req('DELETE', `/api/v1/namespaces/${ns}/secrets/bootstrap-token-${t.id}`)).status).toBe(200);
    await cacheCaughtUp();
    expect(await statusWith(t.token)).toBe(401);
  });

  it('expiration is judged at authentication time', async () => {
    const t = newToken();
    await createSecret(tokenSecret(t, { expiration: new Date(Date.now() + 1500).toISOString() }));
    await eventually(async () => (await statusWith(t.token)) === 200, 'the token to authenticate');
    await eventually(async () => (await statusWith(t.token)) === 401, 'the token to expire');
  });
});

describe('tokencleaner', () => {
  const exists = async (name: string, namespace = ns): Promise<boolean> => {
    const res = await req('GET', `/api/v1/namespaces/${namespace}/secrets/${name}`);
    if (res.status !== 200 && res.status !== 404) throw new Error(`get ${name}: ${res.status}`);
    return res.status === 200;
  };

  it('deletes expired token Secrets, and ones expiring later once they expire; leaves the rest', async () => {
    const expired = newToken();
    const soon = newToken();
    const forever = newToken();
    const unparseable = newToken();
    await createSecret(tokenSecret(forever));
    await createSecret({ metadata: { name: 'not-a-token' }, type: 'Opaque', stringData: { expiration: past() } });
    await createSecret(tokenSecret(expired, { expiration: past() }));
    await createSecret(tokenSecret(unparseable, { expiration: 'soon' }));
    await createSecret(tokenSecret(soon, { expiration: new Date(Date.now() + 2000).toISOString() }));
    await eventually(async () => !(await exists(`bootstrap-token-${expired.id}`)), 'the expired token Secret to be deleted');
    await eventually(async () => !(await exists(`bootstrap-token-${unparseable.id}`)), 'the unparseable-expiration Secret to be deleted');
    expect(await exists(`bootstrap-token-${soon.id}`)).toBe(true);
    await eventually(async () => !(await exists(`bootstrap-token-${soon.id}`)), 'the soon-expiring token Secret to be deleted');
    expect(await exists(`bootstrap-token-${forever.id}`)).toBe(true);
    expect(await exists('not-a-token')).toBe(true);
  });

  const past = (): string => new Date(Date.now() - 60_000).toISOString();
});

describe('under --group-domain=k8s.io', () => {
  it('reads bootstrap.kubernetes.io/token Secrets in kube-system', async () => {
    const dataDir = tempDir();
    const k8s = await startTestServer({ dataDir, groupDomain: 'k8s.io', enableBootstrapTokenAuth: true }, { authorizer: allowAll });
    const base = { url: k8s.url, ca: k8s.caPem!, token: readFileSync(adminTokenPath(dataDir), 'utf8').trim() };
    const t = newToken();
    const res = await apiRequest(base, 'POST', '/api/v1/namespaces/kube-system/secrets', {
      body: { apiVersion: 'v1', kind: 'Secret', ...tokenSecret(t, {}, { type: 'bootstrap.kubernetes.io/token' }) },
    });
    expect(res.status).toBe(201);
    await eventually(async () => (await apiRequest(base, 'GET', '/api/v1/namespaces', { token: t.token })).status === 200, 'the token to authenticate');
  });
});
