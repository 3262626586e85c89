import { X509Certificate, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { generateCa } from '../../tls/generate-certs.js';
import { subtle, x509 } from '../../tls/crypto-provider.js';
import { backdateMs, certificateTtlMs, issueCertificate, keyUsagesOf, parseCertificateRequest } from './issue-certificate.js';
import { makeCsr } from './testing-csr.js';

const hour = 3_600_000;
const minute = 60_000;

describe('certificateTtlMs', () => {
  const year = 8760 * hour;
  it.each([
    [undefined, year],
    [3600, hour],
    [600, 10 * minute],
    // Below kube's floor of 10 minutes: raised to it.
    [60, 10 * minute],
    // Above the signing duration: capped.
    [10 * 8760 * 3600, year],
  ])('expirationSeconds %p -> %p ms', (seconds, want) => {
    expect(certificateTtlMs(year, seconds)).toBe(want);
  });
});

describe('keyUsagesOf', () => {
  it('maps key usages to bits and extended usages to OIDs in Go order, deduplicated', () => {
    const r = keyUsagesOf(['client auth', 'digital signature', 'server auth', 'key encipherment', 'signing', 'email protection', 's/mime']);
    expect(r.keyUsage).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
    expect(r.extKeyUsages).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2', '1.3.6.1.5.5.7.3.4']);
  });
  it('refuses unknown usages with kube wording', () => {
    expect(() => keyUsagesOf(['client auth', 'bogus'])).toThrow('unrecognized usage values: ["bogus"]');
  });
});

describe('issueCertificate', () => {
  let ca: { certPem: string; keyPem: string };
  beforeAll(async () => {
    ca = await generateCa('test-signer');
  });

  it('issues a certificate with the request subject and key, the usages, backdated validity, signed by the CA', async () => {
    const req = await makeCsr('CN=system:node:n1, O=system:nodes');
    const fresh = new Date(Date.now());
    const pem = await issueCertificate({ request: parseCertificateRequest(req.csrPem), usages: ['digital signature', 'client auth'], ttlMs: hour, ca, now: fresh });
    const cert = new X509Certificate(pem);
    expect(cert.subject).toBe('CN=system:node:n1\nO=system:nodes');
    expect(cert.issuer).toBe('CN=test-signer');
    expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(req.keyPem))).toBe(true);
    expect(cert.ca).toBe(false);
    expect(new Date(cert.validFrom).getTime()).toBe(Math.floor((fresh.getTime() - backdateMs) / 1000) * 1000);
    // Short-lived (< 8h): notAfter is now + ttl, not backdated.
    expect(new Date(cert.validTo).getTime()).toBe(Math.floor((fresh.getTime() + hour) / 1000) * 1000);
    const parsed = new x509.X509Certificate(pem);
    expect(parsed.getExtension(x509.KeyUsagesExtension)?.usages).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(parsed.getExtension(x509.ExtendedKeyUsageExtension)?.usages).toEqual(['1.3.6.1.5.5.7.3.2']);
  });

  it('backdates notAfter too for long-lived certificates and caps it at the CA notAfter', async () => {
    const req = await makeCsr('CN=alice');
    const fresh = new Date();
    const day = await issueCertificate({ request: parseCertificateRequest(req.csrPem), usages: ['client auth'], ttlMs: 24 * hour, ca, now: fresh });
    expect(new Date(new X509Certificate(day).validTo).getTime()).toBe(Math.floor((fresh.getTime() + 24 * hour - backdateMs) / 1000) * 1000);
    const forever = await issueCertificate({ request: parseCertificateRequest(req.csrPem), usages: ['client auth'], ttlMs: 100 * 8760 * hour, ca, now: fresh });
    expect(new X509Certificate(forever).validTo).toBe(new X509Certificate(ca.certPem).validTo);
  });

  it('copies DNS and IP SANs for serving certificates', async () => {
    const req = await makeCsr('CN=system:node:n1, O=system:nodes', [{ type: 'dns', value: 'n1.example' }, { type: 'ip', value: '10.0.0.7' }]);
    const pem = await issueCertificate({ request: parseCertificateRequest(req.csrPem), usages: ['digital signature', 'server auth'], ttlMs: hour, ca });
    expect(new X509Certificate(pem).subjectAltName).toBe('DNS:n1.example, IP Address:10.0.0.7');
  });

  it('signs with an RSA CA key given as PKCS#1', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' });
    const keys = {
      privateKey: await subtle.importKey('pkcs8', pkcs8, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['sign']),
      publicKey: await subtle.importKey('spki', (await import('node:crypto')).createPublicKey(privateKey).export({ type: 'spki', format: 'der' }), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['verify']),
    };
    const rsaCa = await x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=rsa-signer', keys, signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as never,
      notBefore: new Date(Date.now() - minute), notAfter: new Date(Date.now() + 8760 * hour),
      extensions: [new x509.BasicConstraintsExtension(true, 0, true)],
    });
    const caPems = { certPem: rsaCa.toString('pem'), keyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }) as string };
    const req = await makeCsr('CN=bob');
    const pem = await issueCertificate({ request: parseCertificateRequest(req.csrPem), usages: ['client auth'], ttlMs: hour, ca: caPems });
    expect(new X509Certificate(pem).verify(new X509Certificate(caPems.certPem).publicKey)).toBe(true);
  });

  it('refuses when the CA has expired, and a tampered request', async () => {
    const req = await makeCsr('CN=carol');
    const caNotAfter = new Date(new X509Certificate(ca.certPem).validTo);
    await expect(issueCertificate({ request: parseCertificateRequest(req.csrPem), usages: ['client auth'], ttlMs: hour, ca, now: new Date(caNotAfter.getTime() + backdateMs + 1000) }))
      .rejects.toThrow(/^the signer has expired: NotAfter=/);
    await expect(issueCertificate({ request: parseCertificateRequest(req.csrPem), usages: ['client auth'], ttlMs: hour, ca, now: new Date(caNotAfter.getTime() + 1000) }))
      .rejects.toThrow(/^refusing to sign a certificate that expired in the past: NotAfter=/);
    const der = Buffer.from(req.csrPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    // Flip a byte of the subject (inside the signed part): the signature no longer verifies.
    const at = der.indexOf(Buffer.from('carol'));
    der[at] = 'k'.charCodeAt(0);
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    expect(() => parseCertificateRequest(tampered)).toThrow('unable to verify certificate request signature: x509: ECDSA verification failure');
    expect(() => parseCertificateRequest('garbage')).toThrow(/^unable to parse certificate request/);
  });
});
