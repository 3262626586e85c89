/**
 * The CAs the csrsigning controller issues with, per well-known signer, from kube-controller-manager's
 * flags (`--cluster-signing-cert-file`/`--cluster-signing-key-file` for every signer, or per signer
 * `--cluster-signing-{kube-apiserver-client,kubelet-client,kubelet-serving,legacy-unknown}-{cert,key}-file`;
 * the two forms exclude each other, as kube's flag validation says).
 *
 * With no signing flag at all, one signing CA is generated on the first start into
 * `<data-dir>/pki/signing-ca.{crt,key}` and reused afterwards (like the serving CA); it signs for every
 * signer. It is not the serving CA: trusting one for serving says nothing about client identities.
 * Replicas that should issue certificates every replica accepts share the files (one data dir, or flags).
 *
 * Per-signer flags given for some signers only: the others have no material and are not signed for
 * (kube starts no controller for them).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SignerRole } from '../controllers/certificates/signer-policy.js';
import { generateCa, type CertAndKey } from './generate-certs.js';
import { writeFileAtomic } from './write-private-file.js';

export interface CertKeyFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** The signing flags, paths absolute. */
export interface ClusterSigningConfig {
  /** `--cluster-signing-duration` (default 8760h): the longest certificate issued. */
  readonly durationMs: number;
  /** `--cluster-signing-cert-file` / `--cluster-signing-key-file`. */
  readonly all?: CertKeyFiles;
  /** The per-signer flags that were given. */
  readonly perSigner?: Partial<Record<SignerRole, CertKeyFiles>>;
}

export const defaultSigningDurationMs = 8760 * 3_600_000;

/** What the signer controller uses: each role's CA, if any. */
export interface SigningMaterial {
  readonly durationMs: number;
  readonly cas: Partial<Record<SignerRole, CertAndKey>>;
  /** The generated CA (undefined when the flags gave the material). */
  readonly generated?: CertAndKey;
}

export const signerRoles: readonly SignerRole[] = ['apiserver-client', 'apiserver-client-nodeagent', 'nodeagent-serving', 'legacy-unknown'];

/** The CA certificates whose issued certificates are client certificates (the default x509 trust). */
export function clientSigningCaPems(m: SigningMaterial): string[] {
  const pems = (['apiserver-client', 'apiserver-client-nodeagent', 'legacy-unknown'] as const).map((r) => m.cas[r]?.certPem).filter((p): p is string => p !== undefined);
  return [...new Set(pems)];
}

/** Loads the given files or generates (once) the data dir's signing CA. Throws with the path when a file is unreadable. */
export async function loadSigningMaterial(config: ClusterSigningConfig | undefined, dataDir: string): Promise<SigningMaterial> {
  const durationMs = config?.durationMs ?? defaultSigningDurationMs;
  const perSigner = config?.perSigner ?? {};
  if (config?.all === undefined && Object.keys(perSigner).length === 0) {
    const generated = await ensureSigningCa(dataDir);
    return { durationMs, cas: Object.fromEntries(signerRoles.map((r) => [r, generated])), generated };
  }
  const cas: Partial<Record<SignerRole, CertAndKey>> = {};
  for (const role of signerRoles) {
    const files = perSigner[role] ?? config?.all;
    if (files !== undefined) cas[role] = await readPair(files);
  }
  return { durationMs, cas };
}

export function signingCaPaths(dataDir: string) {
  const dir = join(dataDir, 'pki');
  return { cert: join(dir, 'signing-ca.crt'), key: join(dir, 'signing-ca.key') };
}

async function ensureSigningCa(dataDir: string): Promise<CertAndKey> {
  const paths = signingCaPaths(dataDir);
  const [certPem, keyPem] = await Promise.all([readOptional(paths.cert), readOptional(paths.key)]);
  if (certPem !== undefined && keyPem !== undefined) return { certPem, keyPem };
  const ca = await generateCa(`platform-apiserver-signer@${Math.floor(Date.now() / 1000)}`);
  await writeFileAtomic(paths.key, ca.keyPem, 0o600);
  await writeFileAtomic(paths.cert, ca.certPem, 0o644);
  return ca;
}

async function readPair(files: CertKeyFiles): Promise<CertAndKey> {
  const [certPem, keyPem] = await Promise.all([readOptional(files.certFile), readOptional(files.keyFile)]);
  if (certPem === undefined) throw new Error(`cannot read cluster signing certificate file ${files.certFile}`);
  if (keyPem === undefined) throw new Error(`cannot read cluster signing key file ${files.keyFile}`);
  return { certPem, keyPem };
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
