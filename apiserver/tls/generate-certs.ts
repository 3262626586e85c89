import { randomBytes, type webcrypto } from 'node:crypto';
import { subtle, x509 } from './crypto-provider.js';
import type { San } from './sans.js';

/** A certificate and its private key, both PEM (key: PKCS#8). */
export interface CertAndKey {
  readonly certPem: string;
  readonly keyPem: string;
}

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const signing = { name: 'ECDSA', hash: 'SHA-256' } as const;
const dayMs = 24 * 3_600_000;

/** Validity of the generated CA; the serving certificate lives a year and is renewed on start when close to expiry. */
export const caValidityDays = 3650;
export const servingValidityDays = 365;

async function exportKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  return `${x509.PemConverter.encode(await subtle.exportKey('pkcs8', key), 'PRIVATE KEY')}\n`;
}

/** Imports a PKCS#8 P-256 private key for signing. */
export async function importSigningKey(keyPem: string): Promise<webcrypto.CryptoKey> {
  return subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(keyPem), ecdsa, true, ['sign']);
}

function serial(): string {
  // Positive (top bit clear) 128-bit serial, as RFC 5280 asks.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

/** Generates a self-signed CA (ECDSA P-256, 10 years, pathLen 0). */
export async function generateCa(commonName: string): Promise<CertAndKey> {
  const keys = await subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + caValidityDays * dayMs),
    keys,
    signingAlgorithm: signing,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: `${cert.toString('pem')}\n`, keyPem: await exportKeyPem(keys.privateKey) };
}

/** Generates a serving certificate for `sans`, signed by the CA (server auth, 1 year). */
export async function generateServingCert(ca: CertAndKey, commonName: string, sans: readonly San[]): Promise<CertAndKey> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importSigningKey(ca.keyPem);
  const keys = await subtle.generateKey(ecdsa, true, ['sign', 'verify']);
  const notBefore = new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${commonName}`,
    issuer: caCert.subject,
    notBefore,
    notAfter: new Date(notBefore.getTime() + servingValidityDays * dayMs),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: signing,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(sans.map((s) => ({ type: s.type, value: s.value }))),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: `${cert.toString('pem')}\n`, keyPem: await exportKeyPem(keys.privateKey) };
}
