/**
 * The credentials every replica of the local cluster shares, created once under `<dir>/shared/` and reused
 * when the cluster is started again (clients keep trusting the CA, tokens stay valid):
 *
 * - `pki/ca.crt`, `pki/ca.key`: the serving CA; `pki/apiserver.crt`, `pki/apiserver.key`: the serving
 *   certificate, with the load balancer's names (localhost, 127.0.0.1) and every replica's address, so a
 *   client verifies it whichever way it connects;
 * - `pki/sa.key`, `pki/sa.pub`: the service account signing key (tokens one replica issues, all accept);
 * - `pki/signing-ca.crt`, `pki/signing-ca.key`: the CA the csrsigning controller signs with;
 * - `tokens.csv`: the admin's bearer token (group system:masters), the `--token-auth-file`.
 *
 * They are made by the server's own generators (apiserver/tls), the same code a single server uses for
 * its generated files. The serving certificate is re-issued (same CA) when the replica addresses change.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateCa } from '../../apiserver/tls/generate-certs.js';
import { ensureGeneratedCerts } from '../../apiserver/tls/serving-certs.js';
import { ensureServiceAccountKey } from '../../apiserver/tls/service-account-key.js';
import { writeFileAtomic } from '../../apiserver/tls/write-private-file.js';

export interface SharedCredentials {
  /** The directory holding them (`<dir>/shared`). */
  readonly dir: string;
  readonly caFile: string;
  readonly caPem: string;
  readonly certFile: string;
  readonly keyFile: string;
  readonly saKeyFile: string;
  readonly saPubFile: string;
  readonly signingCertFile: string;
  readonly signingKeyFile: string;
  readonly tokenFile: string;
  /** The admin's bearer token (in `tokenFile`). */
  readonly token: string;
}

/** Creates what is missing under `<clusterDir>/shared` and returns the paths and the admin token. */
export async function ensureSharedCredentials(clusterDir: string, replicaAddresses: readonly string[]): Promise<SharedCredentials> {
  const dir = join(clusterDir, 'shared');
  const pki = join(dir, 'pki');
  // localhost, 127.0.0.1, ::1 and the host name come with the generator; the replicas' own addresses too.
  await ensureGeneratedCerts(dir, replicaAddresses);
  await ensureServiceAccountKey(dir);
  const signingCertFile = join(pki, 'signing-ca.crt');
  const signingKeyFile = join(pki, 'signing-ca.key');
  if (!existsSync(signingCertFile) || !existsSync(signingKeyFile)) {
    const signing = await generateCa(`platform-apiserver-signing-ca@${Math.floor(Date.now() / 1000)}`);
    await writeFileAtomic(signingKeyFile, signing.keyPem, 0o600);
    await writeFileAtomic(signingCertFile, signing.certPem, 0o644);
  }
  const tokenFile = join(dir, 'tokens.csv');
  if (!existsSync(tokenFile)) {
    const token = randomBytes(24).toString('base64url');
    await writeFileAtomic(tokenFile, `${token},admin,admin,"system:masters"\n`, 0o600);
  }
  const token = readFileSync(tokenFile, 'utf8').split(',')[0]!.trim();
  const caFile = join(pki, 'ca.crt');
  return {
    dir,
    caFile,
    caPem: readFileSync(caFile, 'utf8'),
    certFile: join(pki, 'apiserver.crt'),
    keyFile: join(pki, 'apiserver.key'),
    saKeyFile: join(pki, 'sa.key'),
    saPubFile: join(pki, 'sa.pub'),
    signingCertFile,
    signingKeyFile,
    tokenFile,
    token,
  };
}

/** A kubeconfig for the admin against `url` (the load balancer), trusting the shared CA. */
export function adminKubeconfig(url: string, creds: SharedCredentials): string {
  const ca = Buffer.from(creds.caPem).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: local-ha',
    '  cluster:',
    `    server: ${url}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    '- name: admin',
    '  user:',
    `    token: ${creds.token}`,
    'contexts:',
    '- name: local-ha',
    '  context:',
    '    cluster: local-ha',
    '    user: admin',
    'current-context: local-ha',
    '',
  ].join('\n');
}
