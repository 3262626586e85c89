import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { jwk } from '../../endpoints/oidc-discovery.js';
import { generateCa } from '../../tls/generate-certs.js';
import { keyId, parseSigningKey, parseVerificationKeys } from './keys.js';

describe('service account keys', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
  const rsaPem = rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

  it('key ids are base64url SHA-256 of the PKIX DER, unpadded (kube\'s keyIDFromPublicKey)', () => {
    const der = rsa.publicKey.export({ type: 'spki', format: 'der' });
    const expected = createHash('sha256').update(der).digest('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    expect(keyId(rsa.publicKey)).toBe(expected);
    expect(parseSigningKey(rsaPem, 'f').kid).toBe(expected);
  });

  it('reads public keys, PKCS#1/PKCS#8/SEC1 private keys and certificates from one bundle, with the algorithm of each', async () => {
    const ca = await generateCa('test');
    const bundle = [
      rsa.publicKey.export({ type: 'spki', format: 'pem' }),
      ec384.privateKey.export({ type: 'sec1', format: 'pem' }),
      ca.certPem,
    ].join('\n');
    const keys = parseVerificationKeys(bundle, 'bundle.pem');
    expect(keys.map((k) => k.alg)).toEqual(['RS256', 'ES384', 'ES256']);
    expect(keys[1]!.kid).toBe(keyId(ec384.publicKey));
  });

  it('refuses files without keys and unsupported key types, naming the file', () => {
    expect(() => parseVerificationKeys('nothing here', '--service-account-key-file x')).toThrow('--service-account-key-file x: no public or private key found');
    const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => parseVerificationKeys(ed, 'ed.pem')).toThrow('ed.pem: unsupported key type ed25519');
    expect(() => parseSigningKey(rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString(), 'pub.pem')).toThrow('pub.pem: no private key found');
  });

  it('JWKS entries as go-jose writes them', () => {
    const k = parseSigningKey(rsaPem, 'f');
    const j = jwk(k);
    expect(Object.keys(j)).toEqual(['use', 'kty', 'kid', 'alg', 'n', 'e']);
    expect(j).toMatchObject({ use: 'sig', kty: 'RSA', kid: k.kid, alg: 'RS256', e: 'AQAB' });
    // The JWK is the same key.
    expect(createPublicKey({ key: { kty: 'RSA', n: j.n, e: j.e } as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }))
      .toEqual(rsa.publicKey.export({ type: 'spki', format: 'pem' }));
    const e = jwk(parseSigningKey(ec384.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), 'e'));
    expect(Object.keys(e)).toEqual(['use', 'kty', 'kid', 'crv', 'alg', 'x', 'y']);
    expect(e).toMatchObject({ kty: 'EC', crv: 'P-384', alg: 'ES384' });
  });
});
