import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { x509 } from './crypto-provider.js';
import { generateCa, generateServingCert, type CertAndKey } from './generate-certs.js';
import { canonicalIp, sanKey, servingSans, type San } from './sans.js';
import { writeFileAtomic } from './write-private-file.js';

/** What the HTTPS listener serves, and what clients should trust. */
export interface ServingCerts {
  readonly certPem: string;
  readonly keyPem: string;
  /**
   * The CA clients trust: the generated CA, or undefined for a user-provided certificate (whose issuer
   * the server does not know).
   */
  readonly caPem: string | undefined;
  /** What happened on this start, for the start-up log line. */
  readonly source: 'provided' | 'generated' | 'reused' | 'renewed';
}

/** Renew the generated serving certificate on start when it expires within this window. */
const renewBeforeMs = 30 * 24 * 3_600_000;

/** Paths of the generated files under `<data-dir>/pki`. */
export function pkiPaths(dataDir: string) {
  const dir = join(dataDir, 'pki');
  return {
    dir,
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    cert: join(dir, 'apiserver.crt'),
    key: join(dir, 'apiserver.key'),
  };
}

/** Reads a user-provided certificate (chain) and key. Throws with the path when a file is unreadable. */
export async function loadProvidedCerts(certFile: string, keyFile: string): Promise<ServingCerts> {
  const [certPem, keyPem] = await Promise.all([readText(certFile), readText(keyFile)]);
  if (certPem === undefined) throw new Error(`cannot read --tls-cert-file ${certFile}`);
  if (keyPem === undefined) throw new Error(`cannot read --tls-private-key-file ${keyFile}`);
  return { certPem, keyPem, caPem: undefined, source: 'provided' };
}

/**
 * The generated serving certificate in `<data-dir>/pki`: created with a CA on the first start, reused on
 * later ones. The CA is kept as long as it exists (clients keep trusting it); the serving certificate is
 * re-issued when the SAN set changed (new --tls-sans or host name), when it expires within 30 days, or
 * when it no longer chains to the CA. Keys are written 0600.
 */
export async function ensureGeneratedCerts(dataDir: string, extraSans: readonly string[]): Promise<ServingCerts> {
  const paths = pkiPaths(dataDir);
  const sans = servingSans(extraSans);

  let ca = await readPair(paths.caCert, paths.caKey);
  let caNew = false;
  if (ca === undefined) {
    ca = await generateCa(`platform-apiserver-ca@${Math.floor(Date.now() / 1000)}`);
    await writeFileAtomic(paths.caKey, ca.keyPem, 0o600);
    await writeFileAtomic(paths.caCert, ca.certPem, 0o644);
    caNew = true;
  }

  const current = caNew ? undefined : await readPair(paths.cert, paths.key);
  if (current !== undefined && (await stillGood(current.certPem, ca.certPem, sans))) {
    return { ...current, caPem: ca.certPem, source: 'reused' };
  }
  const serving = await generateServingCert(ca, 'platform-apiserver', sans);
  await writeFileAtomic(paths.key, serving.keyPem, 0o600);
  await writeFileAtomic(paths.cert, serving.certPem, 0o644);
  return { ...serving, caPem: ca.certPem, source: current === undefined ? 'generated' : 'renewed' };
}

async function stillGood(certPem: string, caPem: string, wanted: readonly San[]): Promise<boolean> {
  try {
    const cert = new x509.X509Certificate(certPem);
    const ca = new x509.X509Certificate(caPem);
    if (cert.notAfter.getTime() - Date.now() < renewBeforeMs) return false;
    if (!(await cert.verify({ publicKey: ca.publicKey, signatureOnly: true }))) return false;
    const have = new Set(certSans(cert).map(sanKey));
    return have.size === wanted.length && wanted.every((s) => have.has(sanKey(s)));
  } catch {
    // Unparseable: issue a new one.
    return false;
  }
}

/** The DNS and IP SANs of a certificate, canonical. */
export function certSans(cert: InstanceType<typeof x509.X509Certificate>): San[] {
  const ext = cert.getExtension(x509.SubjectAlternativeNameExtension);
  if (ext === null) return [];
  return ext.names.items.flatMap((n): San[] => {
    if (n.type === 'dns') return [{ type: 'dns', value: n.value.toLowerCase() }];
    if (n.type === 'ip') return [{ type: 'ip', value: canonicalIp(n.value) }];
    return [];
  });
}

async function readPair(certPath: string, keyPath: string): Promise<CertAndKey | undefined> {
  const [certPem, keyPem] = await Promise.all([readText(certPath), readText(keyPath)]);
  return certPem === undefined || keyPem === undefined ? undefined : { certPem, keyPem };
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
