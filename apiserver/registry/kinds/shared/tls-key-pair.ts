/**
 * The warning Kubernetes gives for a TLS Secret whose certificate and key do not form a pair (it loads
 * them as Go's `tls.X509KeyPair` does and returns the error text as a warning, never as a rejection).
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';

const pemBlock = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/;

/** `cert` and `key` are the base64 values of `tls.crt` and `tls.key`; undefined when they match. */
export function tlsKeyPairWarning(cert: unknown, key: unknown): string | undefined {
  const certPem = typeof cert === 'string' ? Buffer.from(cert, 'base64').toString('latin1') : '';
  const keyPem = typeof key === 'string' ? Buffer.from(key, 'base64').toString('latin1') : '';
  const certBlock = pemBlock.exec(certPem);
  if (certBlock === null || certBlock[1] !== 'CERTIFICATE') return 'tls: failed to find any PEM data in certificate input';
  if (pemBlock.exec(keyPem) === null) return 'tls: failed to find any PEM data in key input';
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(certBlock[0]);
  } catch {
    return 'x509: malformed certificate';
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(keyPem);
  } catch {
    return 'tls: failed to parse private key';
  }
  return x509.checkPrivateKey(privateKey) ? undefined : 'tls: private key does not match public key';
}
