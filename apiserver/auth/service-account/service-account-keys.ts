/**
 * The service account key material of a server, from `--service-account-signing-key-file` and
 * `--service-account-key-file`, or generated into the data directory when neither is given (as the
 * serving CA is). The signing key's public half is always among the verification keys, so a server
 * accepts the tokens it issues whatever the key files hold.
 */
import type { ServiceAccountConfig } from '../../config/server-config.js';
import { ensureServiceAccountKey } from '../../tls/service-account-key.js';
import { parseSigningKey, readSigningKey, readVerificationKeys, uniqueKeys, type SigningKey, type VerificationKey } from './keys.js';

export interface ServiceAccountKeys {
  readonly signingKey: SigningKey;
  readonly verificationKeys: readonly VerificationKey[];
  /** Where the signing key came from, for the start-up log (a path, never the key). */
  readonly source: string;
}

export async function loadServiceAccountKeys(c: ServiceAccountConfig, dataDir: string): Promise<ServiceAccountKeys> {
  const listed: VerificationKey[] = [];
  for (const f of c.keyFiles) listed.push(...(await readVerificationKeys(f, '--service-account-key-file')));
  let signingKey: SigningKey;
  let source: string;
  if (c.signingKeyFile !== undefined) {
    signingKey = await readSigningKey(c.signingKeyFile, '--service-account-signing-key-file');
    source = c.signingKeyFile;
  } else {
    const generated = await ensureServiceAccountKey(dataDir);
    signingKey = parseSigningKey(generated.keyPem, generated.path);
    source = `${generated.path}${generated.created ? ' (generated)' : ''}`;
  }
  const own: VerificationKey = { kid: signingKey.kid, alg: signingKey.alg, publicKey: signingKey.publicKey };
  return { signingKey, verificationKeys: uniqueKeys([own, ...listed]), source };
}
