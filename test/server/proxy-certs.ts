/**
 * Client certificates for the authentication tests: CAs from the server's own generator, and leaves or
 * intermediates signed by them (ECDSA P-256), with a chosen CN, extended key usage and validity.
 */
import { randomBytes } from 'node:crypto';
import { generateCa, importSigningKey, type CertAndKey } from '../../apiserver/tls/generate-certs.js';
import { subtle, x509 } from '../../apiserver/tls/crypto-provider.js';

export { generateCa, type CertAndKey };

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const signing = { name: 'ECDSA', hash: 'SHA-256' } as const;

export interface CertOptions {
  /** Default: clientAuth. `null`: no extended key usage extension. */
  readonly eku?: readonly string[] | null;
  /** Default: one day from now. */
  readonly notAfter?: Date;
  /** Issue a CA (an intermediate). */
  readonly ca?: boolean;
}

/** A certificate `CN=<cn>` signed by `issuer`. */
export async function issueCert(issuer: CertAndKey, cn: string, o: CertOptions = {}): Promise<CertAndKey> {
  const issuerCert = new x509.X509Certificate(issuer.certPem);
  const issuerKey = await importSigningKey(issuer.keyPem);
  const keys = await subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  const eku = o.eku === undefined ? [x509.ExtendedKeyUsage.clientAuth] : o.eku;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: bytes.toString('hex'),
    subject: `CN=${cn}`,
    issuer: issuerCert.subject,
    notBefore,
    notAfter: o.notAfter ?? new Date(Date.now() + 86_400_000),
    publicKey: keys.publicKey,
    signingKey: issuerKey,
    signingAlgorithm: signing,
    extensions: [
      new x509.BasicConstraintsExtension(o.ca === true, undefined, true),
      ...(o.ca === true ? [new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)] : []),
      ...(eku === null ? [] : [new x509.ExtendedKeyUsageExtension([...eku])]),
      await x509.AuthorityKeyIdentifierExtension.create(issuerCert.publicKey),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const keyPem = `${x509.PemConverter.encode(await subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY')}\n`;
  return { certPem: `${cert.toString('pem')}\n`, keyPem };
}
