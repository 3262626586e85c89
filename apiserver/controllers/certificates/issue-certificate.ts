/**
 * Issues an x509 certificate from a PKCS#10 request and a signer CA, as kube-controller-manager's local
 * signer does (pkg/controller/certificates/authority, 1.32):
 *
 * - the subject, public key and subject alternative names (DNS, IP, email, URI) are the request's; any
 *   other requested extension is dropped; basic constraints say "not a CA";
 * - the requested usages become key usages and extended key usages (unknown ones refuse the request:
 *   `unrecognized usage values: [...]`);
 * - validity: notBefore is `now - backdate` (5 minutes); notAfter is `now + ttl`, minus the backdate too
 *   unless the certificate is short-lived (ttl under 8 hours), capped at the CA's notAfter; a CA that has
 *   expired (or expires before the backdated notBefore) refuses, with kube's wording;
 * - the ttl is `--cluster-signing-duration`, or the request's expirationSeconds when smaller, but never
 *   under 10 minutes (`certificateTtlMs`).
 *
 * Errors are `IssueError`s whose message is what the caller reports.
 */
import { createPrivateKey, randomBytes, type webcrypto } from 'node:crypto';
import { subtle, x509 } from '../../tls/crypto-provider.js';
import { checkCsrSignature, parseCsr, type ParsedCsr } from '../../registry/kinds/certificates/parse-csr.js';
import { requestSans } from './signer-policy.js';

/** A signer's CA: its certificate (first PEM block) and private key (PKCS#8, PKCS#1 or SEC1 PEM; RSA or ECDSA). */
export interface SignerCa {
  readonly certPem: string;
  readonly keyPem: string;
}

export class IssueError extends Error {
  override readonly name = 'IssueError';
}

const minuteMs = 60_000;
/** kube's signer: notBefore this much in the past (clock skew between the signer and the certificate's users). */
export const backdateMs = 5 * minuteMs;
/** Below this ttl a certificate is short-lived: its notAfter is not backdated. */
export const shortMs = 8 * 60 * minuteMs;
/** The shortest certificate the signer issues, whatever expirationSeconds asks. */
export const minTtlMs = 10 * minuteMs;

/** The certificate lifetime for a request: the signing duration, or expirationSeconds when smaller (never under 10 minutes). */
export function certificateTtlMs(signingDurationMs: number, expirationSeconds: number | undefined): number {
  if (expirationSeconds === undefined) return signingDurationMs;
  const requested = expirationSeconds * 1000;
  if (requested > signingDurationMs) return signingDurationMs;
  if (requested < minTtlMs) return minTtlMs;
  return requested;
}

const keyUsageBits: Readonly<Record<string, number>> = {
  signing: x509.KeyUsageFlags.digitalSignature,
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};

/** Extended key usages, in Go's ExtKeyUsage order (kube sorts them by that enum). */
const extKeyUsageOids: readonly (readonly [string, string])[] = [
  ['any', '2.5.29.37.0'],
  ['server auth', '1.3.6.1.5.5.7.3.1'],
  ['client auth', '1.3.6.1.5.5.7.3.2'],
  ['code signing', '1.3.6.1.5.5.7.3.3'],
  ['email protection', '1.3.6.1.5.5.7.3.4'],
  ['s/mime', '1.3.6.1.5.5.7.3.4'],
  ['ipsec end system', '1.3.6.1.5.5.7.3.5'],
  ['ipsec tunnel', '1.3.6.1.5.5.7.3.6'],
  ['ipsec user', '1.3.6.1.5.5.7.3.7'],
  ['timestamping', '1.3.6.1.5.5.7.3.8'],
  ['ocsp signing', '1.3.6.1.5.5.7.3.9'],
  ['microsoft sgc', '1.3.6.1.4.1.311.10.3.3'],
  ['netscape sgc', '2.16.840.1.113730.4.1'],
];
const extKeyUsageOid = new Map(extKeyUsageOids);

/** Key usage bits and extended key usage OIDs (deduplicated, Go's order) of the API's usage names. */
export function keyUsagesOf(usages: readonly string[]): { keyUsage: number; extKeyUsages: string[] } {
  let keyUsage = 0;
  const ext = new Set<string>();
  const unrecognized: string[] = [];
  for (const u of usages) {
    const bit = keyUsageBits[u];
    if (bit !== undefined) keyUsage |= bit;
    else if (extKeyUsageOid.has(u)) ext.add(extKeyUsageOid.get(u)!);
    else unrecognized.push(u);
  }
  if (unrecognized.length > 0) throw new IssueError(`unrecognized usage values: [${unrecognized.map((u) => JSON.stringify(u)).join(' ')}]`);
  const order = [...new Set(extKeyUsageOids.map(([, oid]) => oid))];
  return { keyUsage, extKeyUsages: order.filter((oid) => ext.has(oid)) };
}

/**
 * A parsed, signature-checked request (kube: unable to parse / unable to verify messages). The same
 * parsing and check as the registry's validation (parse-csr.ts), wrapped in the controller's wording.
 */
export function parseCertificateRequest(pem: string): ParsedCsr {
  let csr: ParsedCsr;
  try {
    csr = parseCsr(Buffer.from(pem, 'latin1'));
  } catch (err) {
    throw new IssueError(`unable to parse certificate request: ${(err as Error).message}`);
  }
  try {
    checkCsrSignature(csr);
  } catch (err) {
    throw new IssueError(`unable to verify certificate request signature: ${(err as Error).message}`);
  }
  return csr;
}

export interface IssueOptions {
  /** The request, parsed and signature-checked (`parseCertificateRequest`). */
  readonly request: ParsedCsr;
  readonly usages: readonly string[];
  readonly ttlMs: number;
  readonly ca: SignerCa;
  /** Default: the clock. */
  readonly now?: Date;
}

/** The issued certificate, PEM (one block, newline-terminated). */
export async function issueCertificate(o: IssueOptions): Promise<string> {
  const now = (o.now ?? new Date()).getTime();
  const csr = o.request;
  const { keyUsage, extKeyUsages } = keyUsagesOf(o.usages);
  const caCert = new x509.X509Certificate(o.ca.certPem);
  const caNotAfter = caCert.notAfter.getTime();

  const notBefore = now - backdateMs;
  let notAfter = o.ttlMs < shortMs ? now + o.ttlMs : now + o.ttlMs - backdateMs;
  if (notAfter >= caNotAfter) notAfter = caNotAfter;
  if (notBefore >= caNotAfter) throw new IssueError(`the signer has expired: NotAfter=${goTime(caCert.notAfter)}`);
  if (now >= caNotAfter) throw new IssueError(`refusing to sign a certificate that expired in the past: NotAfter=${goTime(caCert.notAfter)}`);

  const { key, algorithm } = await importCaKey(o.ca.keyPem);
  const extensions: InstanceType<typeof x509.Extension>[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  // Go marks key usage critical and leaves it out when empty.
  if (keyUsage !== 0) extensions.push(new x509.KeyUsagesExtension(keyUsage, true));
  if (extKeyUsages.length > 0) extensions.push(new x509.ExtendedKeyUsageExtension(extKeyUsages));
  const sans = requestSans(csr);
  if (sans.length > 0) {
    // Only the name types Go's template carries.
    const kept = sans.filter((n) => n.type === 'dns' || n.type === 'ip' || n.type === 'email' || n.type === 'url');
    if (kept.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(kept.map((n) => ({ type: n.type as 'dns', value: n.value }))));
  }
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey));

  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: csr.subjectName,
    issuer: caCert.subjectName,
    notBefore: new Date(notBefore),
    notAfter: new Date(notAfter),
    publicKey: csr.publicKey,
    signingKey: key,
    signingAlgorithm: algorithm,
    extensions,
  });
  return `${cert.toString('pem')}\n`;
}

function serial(): string {
  // 128-bit positive serial (kube: rand.Int below 2^128).
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

const curveNames: Readonly<Record<string, { namedCurve: string; hash: string }>> = {
  prime256v1: { namedCurve: 'P-256', hash: 'SHA-256' },
  secp384r1: { namedCurve: 'P-384', hash: 'SHA-384' },
  secp521r1: { namedCurve: 'P-521', hash: 'SHA-512' },
};

/** The CA's key for WebCrypto, with the signature algorithm Go would use for it. */
export async function importCaKey(keyPem: string): Promise<{ key: webcrypto.CryptoKey; algorithm: webcrypto.Algorithm & { hash?: string } }> {
  let node;
  try {
    node = createPrivateKey(keyPem);
  } catch (err) {
    throw new IssueError(`unable to load the signer's private key: ${(err as Error).message}`);
  }
  const der = node.export({ type: 'pkcs8', format: 'der' });
  if (node.asymmetricKeyType === 'ec') {
    const curve = curveNames[node.asymmetricKeyDetails?.namedCurve ?? ''];
    if (curve === undefined) throw new IssueError(`unsupported signer key curve ${node.asymmetricKeyDetails?.namedCurve ?? ''}`);
    const key = await subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve: curve.namedCurve }, false, ['sign']);
    return { key, algorithm: { name: 'ECDSA', hash: curve.hash } };
  }
  if (node.asymmetricKeyType === 'rsa') {
    const key = await subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
    return { key, algorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } };
  }
  throw new IssueError(`unsupported signer key type ${node.asymmetricKeyType ?? ''}`);
}

/** Go's time.Time default formatting in UTC (`2026-11-24 05:00:00 +0000 UTC`). */
function goTime(d: Date): string {
  return `${d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} +0000 UTC`;
}
