import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultServiceAccounts } from '../../config/server-config.js';
import { keyId } from './keys.js';
import { loadServiceAccountKeys } from './service-account-keys.js';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sa-keys-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('without key flags a key is generated once into <data-dir>/pki/sa.key (0600) and reused', async () => {
  const first = await loadServiceAccountKeys(defaultServiceAccounts, dir);
  expect(first.signingKey.alg).toBe('RS256');
  expect(first.source).toBe(`${join(dir, 'pki', 'sa.key')} (generated)`);
  expect(statSync(join(dir, 'pki', 'sa.key')).mode & 0o777).toBe(0o600);
  const again = await loadServiceAccountKeys(defaultServiceAccounts, dir);
  expect(again.signingKey.kid).toBe(first.signingKey.kid);
  expect(again.verificationKeys.map((k) => k.kid)).toEqual([first.signingKey.kid]);
});

test('a signing key file signs; key files add verification keys; the signing key is listed once', async () => {
  const sign = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const old = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signPath = join(dir, 'sign.key');
  const pubPath = join(dir, 'verify.pem');
  writeFileSync(signPath, sign.privateKey.export({ type: 'sec1', format: 'pem' }));
  writeFileSync(pubPath, [old.publicKey.export({ type: 'spki', format: 'pem' }), sign.publicKey.export({ type: 'spki', format: 'pem' })].join(''));
  const keys = await loadServiceAccountKeys({ ...defaultServiceAccounts, signingKeyFile: signPath, keyFiles: [pubPath] }, dir);
  expect(keys.signingKey.alg).toBe('ES256');
  expect(keys.verificationKeys.map((k) => k.kid)).toEqual([keyId(sign.publicKey), keyId(old.publicKey)]);
  await expect(loadServiceAccountKeys({ ...defaultServiceAccounts, keyFiles: [join(dir, 'missing.pem')] }, dir)).rejects.toThrow(`cannot read --service-account-key-file ${join(dir, 'missing.pem')}: ENOENT`);
});
