/**
 * Test helper: a node agent's key and PKCS#10 request made with Node's WebCrypto (ECDSA P-256), as a
 * kubelet would make one. Used by the signer and controller tests.
 */
import { subtle, x509 } from '../../tls/crypto-provider.js';

export interface TestCsr {
  /** PEM `CERTIFICATE REQUEST`. */
  readonly csrPem: string;
  /** PKCS#8 PEM of the private key. */
  readonly keyPem: string;
}

export async function makeCsr(subject: string, sans: { type: 'dns' | 'ip' | 'email' | 'url'; value: string }[] = []): Promise<TestCsr> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = await subtle.generateKey(alg, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys,
    signingAlgorithm: alg,
    extensions: sans.length === 0 ? [] : [new x509.SubjectAlternativeNameExtension(sans)],
  });
  const keyPem = `${x509.PemConverter.encode(await subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY')}\n`;
  return { csrPem: `${csr.toString('pem')}\n`, keyPem };
}
