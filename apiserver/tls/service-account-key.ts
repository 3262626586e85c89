/**
 * The generated service account signing key, used when neither `--service-account-signing-key-file` nor
 * `--service-account-key-file` is given: an RSA 2048 key (RS256, what every OIDC consumer accepts)
 * created once into `<data-dir>/pki/sa.key` (0600, PKCS#8) with its public half in `sa.pub`, and reused
 * on later starts so tokens stay valid across restarts. Replicas sharing tokens must be given the same
 * key files (as kube's `--service-account-*` flags), not rely on each one's data directory.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from './write-private-file.js';

export function serviceAccountKeyPaths(dataDir: string) {
  const dir = join(dataDir, 'pki');
  return { key: join(dir, 'sa.key'), pub: join(dir, 'sa.pub') };
}

/** The PEM of the generated signing key (PKCS#8), created on the first call for a data directory. */
export async function ensureServiceAccountKey(dataDir: string): Promise<{ readonly keyPem: string; readonly path: string; readonly created: boolean }> {
  const paths = serviceAccountKeyPaths(dataDir);
  try {
    return { keyPem: await readFile(paths.key, 'utf8'), path: paths.key, created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  // The key first: a crash between the two writes leaves a key without sa.pub, never the reverse.
  await writeFileAtomic(paths.key, keyPem, 0o600);
  await writeFileAtomic(paths.pub, publicKey.export({ type: 'spki', format: 'pem' }).toString(), 0o644);
  return { keyPem, path: paths.key, created: true };
}
