/**
 * Test material for the CertificateSigningRequest tests: PEM CSRs signed by fresh keys (ECDSA P-256 or
 * RSA), and self-signed certificates, generated with `@peculiar/x509` over Node's WebCrypto.
 */
import { subtle, x509 } from '../../../tls/crypto-provider.js';

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const rsa = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 } as const;

/** A PEM `CERTIFICATE REQUEST` for `subject` (`CN=system:node:n1, O=system:nodes`). */
export async function csrPem(subject: string, algorithm: 'ecdsa' | 'rsa' = 'ecdsa'): Promise<string> {
  const alg = algorithm === 'ecdsa' ? ecdsa : rsa;
  const keys = await subtle.generateKey(alg, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: alg });
  return csr.toString('pem');
}

/** A self-signed PEM `CERTIFICATE`. */
export async function certificatePem(subject = 'CN=issued'): Promise<string> {
  const keys = await subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3_600_000),
    keys,
    signingAlgorithm: ecdsa,
  });
  return cert.toString('pem');
}

export const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');

/** The PEM with one byte of the signed part changed (its base64 body altered in the middle). */
export function tamperedPem(pem: string): string {
  const lines = pem.trim().split('\n');
  const body = Buffer.from(lines.slice(1, -1).join(''), 'base64');
  // Inside the subject: the signature no longer matches, the structure still parses.
  const at = body.indexOf(Buffer.from('tamper'));
  const i = at >= 0 ? at : 40;
  body[i] = body[i]! ^ 0x01;
  const text = body.toString('base64').replace(/(.{64})/g, '$1\n');
  return `${lines[0]}\n${text}\n${lines[lines.length - 1]}\n`;
}
