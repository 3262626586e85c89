import { generateKeyPairSync } from 'node:crypto';
import { parseJws } from '../../../auth/service-account/jws.js';
import { parseSigningKey } from '../../../auth/service-account/keys.js';
import { expirationSettingWarnings, tokenIssuer } from '../../../auth/service-account/token-issuer.js';
import { expirationExtensionSeconds, tokenExpiration, warnOnlyBoundTokenExpirationSeconds } from './serviceaccount-token.js';

const api = 'https://kubernetes.default.svc.cluster.local';
const settings = (maxExpirationSeconds: number, extendExpiration = true) => ({ apiAudiences: [api], maxExpirationSeconds, extendExpiration });
const pod = { pod: { name: 'p', uid: 'pod-uid' } };

describe('tokenExpiration (kube TokenREST: cap, then the extension of pod-bound tokens)', () => {
  test('no cap (0): the requested validity, no warning', () => {
    expect(tokenExpiration(2 ** 32, [api], {}, settings(0))).toEqual({ requested: 2 ** 32, signed: 2 ** 32 });
  });

  test('over the cap: shortened to it, with kube\'s warning; at or under it: unchanged', () => {
    expect(tokenExpiration(7200, [api], {}, settings(3600))).toEqual({
      requested: 3600,
      signed: 3600,
      warning: 'requested expiration of 7200 seconds shortened to 3600 seconds',
    });
    expect(tokenExpiration(3600, [api], {}, settings(3600))).toEqual({ requested: 3600, signed: 3600 });
    expect(tokenExpiration(600, [api], {}, settings(3600))).toEqual({ requested: 600, signed: 600 });
  });

  test('a pod-bound 3607 s token for the API audiences is signed for a year with warnafter at 3607 s', () => {
    expect(tokenExpiration(warnOnlyBoundTokenExpirationSeconds, [api], pod, settings(0))).toEqual({
      requested: 3607,
      signed: expirationExtensionSeconds,
      warnAfter: 3607,
    });
    // The extension is not limited by the cap (kube's warning at start-up says so).
    expect(tokenExpiration(3607, [api], pod, settings(7200)).signed).toBe(expirationExtensionSeconds);
  });

  test('no extension: flag off, not bound to a pod, another duration, a foreign audience, or capped below 3607', () => {
    expect(tokenExpiration(3607, [api], pod, settings(0, false))).toEqual({ requested: 3607, signed: 3607 });
    expect(tokenExpiration(3607, [api], { secret: { name: 's', uid: 'u' } }, settings(0))).toEqual({ requested: 3607, signed: 3607 });
    expect(tokenExpiration(3608, [api], pod, settings(0))).toEqual({ requested: 3608, signed: 3608 });
    expect(tokenExpiration(3607, [api, 'vault'], pod, settings(0))).toEqual({ requested: 3607, signed: 3607 });
    expect(tokenExpiration(3607, [api], pod, settings(3600))).toMatchObject({ requested: 3600, signed: 3600 });
  });
});

test('an extended token carries warnafter in the kubernetes.io claim; exp is the signed validity', () => {
  const key = parseSigningKey(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'k');
  const now = Date.UTC(2026, 0, 1);
  const issuer = tokenIssuer({ issuer: api, apiAudiences: [api], key, now: () => now });
  expect(issuer.maxExpirationSeconds).toBe(0);
  expect(issuer.extendExpiration).toBe(true);
  const base = { namespace: 'ns', serviceAccount: { name: 'sa', uid: 'sa-uid' }, audiences: [api], bound: pod };
  const extended = issuer.issue({ ...base, expirationSeconds: expirationExtensionSeconds, warnAfterSeconds: 3607 });
  const claims = parseJws(extended.token)!.payload as Record<string, any>;
  const iat = now / 1000;
  expect(claims.exp).toBe(iat + expirationExtensionSeconds);
  expect(claims['kubernetes.io']).toEqual({ namespace: 'ns', pod: { name: 'p', uid: 'pod-uid' }, serviceaccount: { name: 'sa', uid: 'sa-uid' }, warnafter: iat + 3607 });
  expect(Object.keys(claims['kubernetes.io'])).toEqual(['namespace', 'pod', 'serviceaccount', 'warnafter']);
  const plain = parseJws(issuer.issue({ ...base, expirationSeconds: 3607 }).token)!.payload as Record<string, any>;
  expect(plain['kubernetes.io'].warnafter).toBeUndefined();
});

test('start-up warnings about the expiration flags, as kube logs them', () => {
  expect(expirationSettingWarnings(0, true)).toEqual([]);
  expect(expirationSettingWarnings(3600, false)).toEqual([]);
  expect(expirationSettingWarnings(expirationExtensionSeconds, true)).toEqual([]);
  expect(expirationSettingWarnings(3600, true)).toEqual([
    'service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than 3607 seconds (currently 1h0m0s)',
    'service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to 1h0m0s',
  ]);
  expect(expirationSettingWarnings(5400 + 30, true)).toEqual([
    'service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to 1h30m30s',
  ]);
});
