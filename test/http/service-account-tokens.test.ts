/**
 * Service account tokens over HTTP (issue 10): TokenRequest (`serviceaccounts/<name>/token`, JSON and a
 * protobuf body built and read by protobufjs from Kubernetes' field numbers), the token used as a bearer
 * token (identity read back through SelfSubjectReview), kube's validation and binding errors, the matrix
 * of invalid tokens (wrong audience, deleted and recreated service accounts, deleted bound Secret,
 * forged signature), and issuer discovery (`/.well-known/openid-configuration`, `/openid/v1/jwks`) whose
 * keys verify the issued tokens independently.
 */
import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import type { RunningServer } from '../../apiserver/server/start-server.js';
import { eventually, memoryLogger, startTestServer, stopAll, tempDir } from '../server/helpers.js';
import { apiRequest, type ApiRequestOptions, type ApiResponse } from './helpers.js';

const PROTO = `
syntax = "proto2";
package t;
message TypeMeta { optional string apiVersion = 1; optional string kind = 2; }
message Unknown { optional TypeMeta typeMeta = 1; optional bytes raw = 2; optional string contentEncoding = 3; optional string contentType = 4; }
message Time { optional int64 seconds = 1; optional int32 nanos = 2; }
message ObjectMeta { optional string name = 1; optional string generateName = 2; optional string namespace = 3; optional Time creationTimestamp = 8; }
message BoundObjectReference { optional string kind = 1; optional string apiVersion = 2; optional string name = 3; optional string uID = 4; }
message TokenRequestSpec { repeated string audiences = 1; optional BoundObjectReference boundObjectRef = 3; optional int64 expirationSeconds = 4; }
message TokenRequestStatus { optional string token = 1; optional Time expirationTimestamp = 2; }
message TokenRequest { optional ObjectMeta metadata = 1; optional TokenRequestSpec spec = 2; optional TokenRequestStatus status = 3; }
`;
const root = protobuf.parse(PROTO).root;
const T = (name: string) => root.lookupType(`t.${name}`);
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const PB = 'application/vnd.kubernetes.protobuf';

const AUTH = 'authentication.platform.io';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

let server: RunningServer;
let admin: string;
let logLines: () => string[];
const call = (method: string, path: string, o: ApiRequestOptions = {}): Promise<ApiResponse> =>
  apiRequest({ url: server.url, ca: server.caPem!, token: admin }, method, path, o);

async function whoami(token: string): Promise<ApiResponse> {
  return call('POST', `/apis/${AUTH}/v1/selfsubjectreviews`, { token, body: { apiVersion: `${AUTH}/v1`, kind: 'SelfSubjectReview' } });
}

const tokenPath = (ns: string, name: string) => `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`;
async function requestToken(ns: string, name: string, spec: object = {}): Promise<string> {
  const res = await call('POST', tokenPath(ns, name), { body: { apiVersion: `${AUTH}/v1`, kind: 'TokenRequest', spec } });
  expect(res.status).toBe(201);
  return res.json().status.token;
}
async function createSa(ns: string, name: string): Promise<string> {
  const res = await call('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name } } });
  expect(res.status).toBe(201);
  return res.json().metadata.uid;
}

beforeAll(async () => {
  const dataDir = tempDir();
  const log = memoryLogger('debug');
  logLines = log.lines;
  server = await startTestServer({ dataDir }, { logger: log.logger });
  admin = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
  for (const ns of ['sa1', 'sa2']) expect((await call('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).toBe(201);
});
afterAll(stopAll);

describe('TokenRequest', () => {
  it('issues a token for a service account: kube\'s defaults, the token authenticates as the account', async () => {
    const uid = await createSa('sa1', 'builder');
    const before = Math.floor(Date.now() / 1000);
    const res = await call('POST', tokenPath('sa1', 'builder'), { body: { apiVersion: `${AUTH}/v1`, kind: 'TokenRequest', spec: {} } });
    expect(res.status).toBe(201);
    const tr = res.json();
    expect(tr).toMatchObject({
      apiVersion: `${AUTH}/v1`,
      kind: 'TokenRequest',
      metadata: { name: 'builder', namespace: 'sa1' },
      spec: { audiences: [ISSUER], expirationSeconds: 3600 },
    });
    const exp = Date.parse(tr.status.expirationTimestamp) / 1000;
    expect(exp).toBeGreaterThanOrEqual(before + 3600);
    expect(exp).toBeLessThanOrEqual(before + 3602);

    const me = await whoami(tr.status.token);
    expect(me.status).toBe(201);
    const user = me.json().status.userInfo;
    expect(user).toMatchObject({
      username: 'system:serviceaccount:sa1:builder',
      uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:sa1', 'system:authenticated'],
    });
    expect(user.extra['authentication.kubernetes.io/credential-id'][0]).toMatch(/^JTI=[0-9a-f-]{36}$/);
  });

  it('takes and answers protobuf, as kubectl create token sends it', async () => {
    await createSa('sa1', 'proto');
    const raw = T('TokenRequest').encode(T('TokenRequest').fromObject({ spec: { audiences: ['api', ISSUER], expirationSeconds: 7200 } })).finish();
    const body = Buffer.concat([MAGIC, T('Unknown').encode({ typeMeta: { apiVersion: `${AUTH}/v1`, kind: 'TokenRequest' }, raw, contentEncoding: '', contentType: '' }).finish()]);
    const res = await call('POST', tokenPath('sa1', 'proto'), { body, headers: { 'Content-Type': PB, Accept: `${PB}, application/json` } });
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe(PB);
    expect(res.raw.subarray(0, 4).equals(MAGIC)).toBe(true);
    const u = T('Unknown').decode(res.raw.subarray(4)) as any;
    expect(u.typeMeta).toMatchObject({ apiVersion: `${AUTH}/v1`, kind: 'TokenRequest' });
    const tr = T('TokenRequest').toObject(T('TokenRequest').decode(u.raw), { longs: Number }) as any;
    expect(tr.spec).toMatchObject({ audiences: ['api', ISSUER], expirationSeconds: 7200 });
    expect(tr.status.expirationTimestamp.seconds).toBeGreaterThan(Date.now() / 1000 + 7100);
    expect((await whoami(tr.status.token)).json().status.userInfo.username).toBe('system:serviceaccount:sa1:proto');
  });

  it('refuses what kube refuses, in its words', async () => {
    await createSa('sa1', 'picky');
    const post = (body: object, name = 'picky') => call('POST', tokenPath('sa1', name), { body: { apiVersion: `${AUTH}/v1`, kind: 'TokenRequest', ...body } });

    let res = await post({ spec: { expirationSeconds: 60 } });
    expect(res.status).toBe(422);
    expect(res.json().message).toBe(`TokenRequest.${AUTH} "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`);
    res = await post({ spec: { expirationSeconds: 2 ** 32 + 1 } });
    expect(res.status).toBe(422);
    expect(res.json().message).toContain('may not specify a duration larger than 2^32 seconds');

    res = await post({ metadata: { name: 'other' }, spec: {} });
    expect(res.status).toBe(422);
    expect(res.json().message).toBe(`TokenRequest.${AUTH} "picky" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified`);
    res = await post({ metadata: { namespace: 'sa2' }, spec: {} });
    expect(res.json().message).toContain('metadata.namespace: Invalid value: "sa2": must match the service account namespace if specified');

    res = await post({ spec: {} }, 'nobody');
    expect(res.status).toBe(404);
    expect(res.json().message).toBe('serviceaccounts "nobody" not found');

    res = await post({ spec: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } } });
    expect(res.status).toBe(400);
    expect(res.json().message).toBe('cannot bind token to object of type /v1, Kind=ConfigMap');
    res = await post({ spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p' } } });
    expect(res.status).toBe(404);
    expect(res.json().message).toBe('pods "p" not found');
    res = await post({ spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'missing' } } });
    expect(res.status).toBe(404);

    expect((await call('POST', '/api/v1/namespaces/sa1/secrets', { body: { metadata: { name: 'anchor' } } })).status).toBe(201);
    res = await post({ spec: { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'anchor', uid: 'not-its-uid' } } });
    expect(res.status).toBe(409);
    expect(res.json().message).toBe('Operation cannot be fulfilled on Secret "anchor": the UID in the bound object reference (not-its-uid) does not match the UID in record. The object might have been deleted and then recreated');

    res = await post({ kind: 'ServiceAccount', spec: {} });
    expect(res.status).toBe(400);
    expect((await call('GET', tokenPath('sa1', 'picky'))).status).toBe(405);
    expect((await call('POST', '/api/v1/namespaces/sa1/serviceaccounts/picky/tokens', { body: {} })).status).toBe(404);
  });
});

describe('service account token authentication', () => {
  const status = async (token: string) => (await whoami(token)).status;

  it('a token for another audience is 401', async () => {
    await createSa('sa1', 'aud');
    expect(await status(await requestToken('sa1', 'aud', { audiences: ['vault'] }))).toBe(401);
    expect(await status(await requestToken('sa1', 'aud', { audiences: ['vault', ISSUER] }))).toBe(201);
  });

  it('deleting the service account invalidates its tokens; recreating it (new uid) does not bring them back', async () => {
    await createSa('sa2', 'short-lived');
    const token = await requestToken('sa2', 'short-lived');
    expect(await status(token)).toBe(201);
    expect((await call('DELETE', '/api/v1/namespaces/sa2/serviceaccounts/short-lived')).status).toBe(200);
    await eventually(async () => (await status(token)) === 401, 'the token to stop authenticating');
    await createSa('sa2', 'short-lived');
    expect(await status(token)).toBe(401);
    expect(await status(await requestToken('sa2', 'short-lived'))).toBe(201);
  });

  it('a Secret-bound token lives as long as the Secret', async () => {
    await createSa('sa2', 'bound');
    const secret = (await call('POST', '/api/v1/namespaces/sa2/secrets', { body: { metadata: { name: 'holder' } } })).json();
    const token = await requestToken('sa2', 'bound', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'holder', uid: secret.metadata.uid } });
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims['kubernetes.io'].secret).toEqual({ name: 'holder', uid: secret.metadata.uid });
    expect(await status(token)).toBe(201);
    expect((await call('DELETE', '/api/v1/namespaces/sa2/secrets/holder')).status).toBe(200);
    await eventually(async () => (await status(token)) === 401, 'the bound token to stop authenticating');
  });

  it('a forged token (claims changed, signature kept) is 401, and nothing about tokens is logged', async () => {
    await createSa('sa2', 'victim');
    const token = await requestToken('sa2', 'victim');
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    claims.sub = 'system:serviceaccount:kube-system:admin';
    claims['kubernetes.io'].namespace = 'sa1';
    expect(await status(`${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`)).toBe(401);
    const log = logLines().join('\n');
    expect(log).toContain('service account token rejected');
    expect(log).not.toContain(s);
    expect(log).not.toContain(p);
  });
});

describe('issuer discovery', () => {
  it('serves the OpenID configuration and the JWKS that verify issued tokens', async () => {
    const conf = await call('GET', '/.well-known/openid-configuration');
    expect(conf.status).toBe(200);
    expect(conf.headers['content-type']).toBe('application/json');
    expect(conf.headers['cache-control']).toBe('public, max-age=3600');
    expect(conf.json()).toEqual({
      issuer: ISSUER,
      jwks_uri: `https://127.0.0.1:${server.port}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwks = await call('GET', '/openid/v1/jwks');
    expect(jwks.status).toBe(200);
    expect(jwks.headers['content-type']).toBe('application/jwk-set+json');
    const keys = JSON.parse(jwks.text()).keys as { kid: string; kty: string; n: string; e: string; use: string; alg: string }[];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ use: 'sig', kty: 'RSA', alg: 'RS256' });

    await createSa('sa1', 'oidc');
    const token = await requestToken('sa1', 'oidc');
    const [h, p, s] = token.split('.') as [string, string, string];
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const key = keys.find((k) => k.kid === header.kid)!;
    expect(key).toBeDefined();
    const pub = createPublicKey({ key: { kty: key.kty, n: key.n, e: key.e } as never, format: 'jwk' });
    expect(verify('sha256', Buffer.from(`${h}.${p}`), pub, Buffer.from(s, 'base64url'))).toBe(true);
  });
});
