import { generateKeyPairSync } from 'node:crypto';
import type { KubeObject } from '../../api/object.js';
import { InvalidCredentials } from '../authenticator.js';
import { parseJws, signJws } from './jws.js';
import { parseSigningKey, type SigningKey } from './keys.js';
import { serviceAccountTokenAuthenticator, type ServiceAccountTokenOptions } from './token-authenticator.js';
import { tokenIssuer, type TokenIssueRequest } from './token-issuer.js';

const pem = (type: 'rsa' | 'ec', curve = 'prime256v1'): string =>
  (type === 'rsa' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: curve }))
    .privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

const rsa = parseSigningKey(pem('rsa'), 'rsa');
const otherRsa = parseSigningKey(pem('rsa'), 'other');
const ec = parseSigningKey(pem('ec', 'prime256v1'), 'ec');

const issuerUrl = 'https://kubernetes.default.svc.cluster.local';
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A namespace/name table of objects: the lookup contract over a Map. */
function table(objs: KubeObject[]) {
  const m = new Map(objs.map((o) => [`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
  return { map: m, lookup: async (ns: string, name: string) => m.get(`${ns}/${name}`) };
}
const object = (namespace: string, name: string, uid: string, extra: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'v1', kind: 'X', metadata: { namespace, name, uid, ...extra } }) as KubeObject;

function setup(over: Partial<ServiceAccountTokenOptions> = {}, key: SigningKey = rsa) {
  let now = T0;
  const sas = table([object('team', 'builder', 'sa-uid-1')]);
  const secrets = table([object('team', 'bound', 'secret-uid-1')]);
  const rejected: string[] = [];
  const auth = serviceAccountTokenAuthenticator({
    issuers: [issuerUrl, 'https://old.example'],
    keys: [rsa, ec],
    apiAudiences: [issuerUrl],
    serviceAccounts: sas.lookup,
    secrets: secrets.lookup,
    now: () => now,
    onRejected: (r) => rejected.push(r),
    ...over,
  });
  const issuer = tokenIssuer({ issuer: issuerUrl, apiAudiences: [issuerUrl], key, now: () => now });
  const issue = (r: Partial<TokenIssueRequest> = {}) =>
    issuer.issue({ namespace: 'team', serviceAccount: { name: 'builder', uid: 'sa-uid-1' }, audiences: [issuerUrl], expirationSeconds: 3600, bound: {}, ...r }).token;
  return { auth, issue, sas, secrets, rejected, setNow: (t: number) => (now = t) };
}

const invalid = async (p: unknown) => expect(p).rejects.toBeInstanceOf(InvalidCredentials);

describe('service account token authenticator', () => {
  it('authenticates a fresh token as the service account, with kube\'s groups and credential id', async () => {
    const { auth, issue } = setup();
    const token = issue();
    const user = await auth.authenticateToken(token);
    const jti = (parseJws(token)!.payload as { jti: string }).jti;
    expect(user).toEqual({
      name: 'system:serviceaccount:team:builder',
      uid: 'sa-uid-1',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${jti}`] },
    });
  });

  it('writes kube 1.32\'s claims in sorted order and a {alg, kid} header', () => {
    const { issue } = setup();
    const jws = parseJws(issue({ bound: { secret: { name: 'bound', uid: 'secret-uid-1' } } }))!;
    expect(jws.header).toEqual({ alg: 'RS256', kid: rsa.kid });
    const p = jws.payload as Record<string, unknown>;
    expect(Object.keys(p)).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
    expect(p).toMatchObject({
      aud: [issuerUrl], iat: T0 / 1000, nbf: T0 / 1000, exp: T0 / 1000 + 3600, iss: issuerUrl, sub: 'system:serviceaccount:team:builder',
      'kubernetes.io': { namespace: 'team', secret: { name: 'bound', uid: 'secret-uid-1' }, serviceaccount: { name: 'builder', uid: 'sa-uid-1' } },
    });
    expect(p.jti).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('accepts ES256 tokens and every configured issuer', async () => {
    const { auth, issue } = setup({}, ec);
    expect(parseJws(issue())!.header.alg).toBe('ES256');
    expect((await auth.authenticateToken(issue()))?.name).toBe('system:serviceaccount:team:builder');
    const old = tokenIssuer({ issuer: 'https://old.example', apiAudiences: [], key: rsa, now: () => T0 });
    const t = old.issue({ namespace: 'team', serviceAccount: { name: 'builder', uid: 'sa-uid-1' }, audiences: [issuerUrl], expirationSeconds: 600, bound: {} });
    expect((await auth.authenticateToken(t.token))?.uid).toBe('sa-uid-1');
  });

  it('has no opinion about tokens that are not ours (other issuer, not a JWT)', async () => {
    const { auth } = setup();
    const foreign = tokenIssuer({ issuer: 'https://elsewhere.example', apiAudiences: [], key: rsa, now: () => T0 });
    const t = foreign.issue({ namespace: 'team', serviceAccount: { name: 'builder', uid: 'sa-uid-1' }, audiences: [issuerUrl], expirationSeconds: 600, bound: {} });
    expect(await auth.authenticateToken(t.token)).toBeUndefined();
    expect(await auth.authenticateToken('abcdef.0123456789abcdef')).toBeUndefined();
    expect(await auth.authenticateToken('a.b.c')).toBeUndefined();
  });

  it('expiry with kube\'s 60 s leeway', async () => {
    const { auth, issue, setNow, rejected } = setup();
    const token = issue({ expirationSeconds: 600 });
    setNow(T0 + 600_000 + 59_000);
    expect(await auth.authenticateToken(token)).toBeDefined();
    setNow(T0 + 600_000 + 61_000);
    await invalid(auth.authenticateToken(token));
    expect(rejected).toContain('service account token has expired');
  });

  it('not valid before nbf minus the leeway', async () => {
    const { auth, issue, setNow, rejected } = setup();
    const token = issue();
    setNow(T0 - 59_000);
    expect(await auth.authenticateToken(token)).toBeDefined();
    setNow(T0 - 61_000);
    await invalid(auth.authenticateToken(token));
    expect(rejected).toContain('service account token is not valid yet');
  });

  it('wrong audience is invalid; a review asking for that audience accepts it and says so', async () => {
    const { auth, issue, rejected } = setup();
    const token = issue({ audiences: ['vault', 'other'] });
    await invalid(auth.authenticateToken(token));
    expect(rejected[0]).toMatch(/token audiences \["vault","other"\] is invalid for the target audiences \["https:\/\/kubernetes/);
    const got = await auth.authenticateTokenForAudiences!(token, ['vault']);
    expect(got?.audiences).toEqual(['vault']);
    expect(got?.user.name).toBe('system:serviceaccount:team:builder');
  });

  it('no audience check when the server has no audiences', async () => {
    const { auth, issue } = setup({ apiAudiences: [] });
    expect(await auth.authenticateToken(issue({ audiences: ['anything'] }))).toBeDefined();
  });

  it('bad signatures are invalid: another key, a changed payload, a changed header algorithm, alg none', async () => {
    const { auth, issue } = setup();
    const other = tokenIssuer({ issuer: issuerUrl, apiAudiences: [], key: otherRsa, now: () => T0 });
    await invalid(auth.authenticateToken(other.issue({ namespace: 'team', serviceAccount: { name: 'builder', uid: 'sa-uid-1' }, audiences: [issuerUrl], expirationSeconds: 600, bound: {} }).token));

    const [h, p, s] = issue().split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    payload['kubernetes.io'].serviceaccount.name = 'admin';
    await invalid(auth.authenticateToken(`${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`));

    const header = (alg: string) => Buffer.from(JSON.stringify({ alg, kid: rsa.kid })).toString('base64url');
    await invalid(auth.authenticateToken(`${header('ES256')}.${p}.${s}`));
    await invalid(auth.authenticateToken(`${header('none')}.${p}.`));
    await invalid(auth.authenticateToken(`${header('HS256')}.${p}.${s}`));
  });

  it('a token whose signature verifies but lacks the kubernetes.io claim is invalid', async () => {
    const { auth } = setup();
    const t = signJws({ iss: issuerUrl, aud: [issuerUrl], exp: T0 / 1000 + 600, sub: 'x' }, rsa);
    await invalid(auth.authenticateToken(t));
  });

  it('deleted service account, and one recreated with a new uid, are invalid', async () => {
    const { auth, issue, sas, rejected } = setup();
    const token = issue();
    sas.map.delete('team/builder');
    await invalid(auth.authenticateToken(token));
    expect(rejected.at(-1)).toBe('service account team/builder not found');
    sas.map.set('team/builder', object('team', 'builder', 'sa-uid-2'));
    await invalid(auth.authenticateToken(token));
    expect(rejected.at(-1)).toBe('service account UID (sa-uid-2) does not match claim (sa-uid-1)');
  });

  it('a service account deleted more than 60 s ago (still terminating) is invalid; just now is still valid', async () => {
    const { auth, issue, sas } = setup();
    const token = issue();
    sas.map.set('team/builder', object('team', 'builder', 'sa-uid-1', { deletionTimestamp: new Date(T0 - 30_000).toISOString() }));
    expect(await auth.authenticateToken(token)).toBeDefined();
    sas.map.set('team/builder', object('team', 'builder', 'sa-uid-1', { deletionTimestamp: new Date(T0 - 90_000).toISOString() }));
    await invalid(auth.authenticateToken(token));
  });

  it('a Secret-bound token lives as long as its Secret (same uid)', async () => {
    const { auth, issue, secrets } = setup();
    const token = issue({ bound: { secret: { name: 'bound', uid: 'secret-uid-1' } } });
    expect(await auth.authenticateToken(token)).toBeDefined();
    secrets.map.set('team/bound', object('team', 'bound', 'secret-uid-2'));
    await invalid(auth.authenticateToken(token));
    secrets.map.delete('team/bound');
    await invalid(auth.authenticateToken(token));
  });

  it('a Pod-bound token is invalid while Pods cannot be checked; with pods it carries pod extras', async () => {
    const { auth, issue } = setup();
    const bound = { pod: { name: 'p', uid: 'pod-uid' } };
    await invalid(auth.authenticateToken(issue({ bound })));
    const pods = table([object('team', 'p', 'pod-uid')]);
    const withPods = setup({ pods: pods.lookup });
    const user = await withPods.auth.authenticateToken(withPods.issue({ bound }));
    expect(user?.extra).toMatchObject({ 'authentication.kubernetes.io/pod-name': ['p'], 'authentication.kubernetes.io/pod-uid': ['pod-uid'] });
  });
});
