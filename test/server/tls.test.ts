import { statSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type PeerCertificate } from 'node:tls';
import { hostname } from 'node:os';
import { x509 } from '../../apiserver/tls/crypto-provider.js';
import { generateCa, generateServingCert } from '../../apiserver/tls/generate-certs.js';
import { certSans, pkiPaths } from '../../apiserver/tls/serving-certs.js';
import { httpsRequest, startTestServer, stopAll, tempDir } from './helpers.js';

afterEach(stopAll);

/** Completes a TLS handshake that verifies the server against `ca` for `servername`; returns the peer cert. */
function handshake(port: number, ca: string, servername: string, host = '127.0.0.1'): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, ca, servername }, () => {
      const cert = socket.getPeerCertificate();
      socket.end();
      resolve(cert);
    });
    socket.on('error', reject);
  });
}

describe('serving TLS', () => {
  it('generates a CA and a serving certificate that clients verify, with the expected SANs and key modes', async () => {
    const dataDir = tempDir();
    const server = await startTestServer({ dataDir, tlsSans: ['api.example.com', '10.1.2.3'] });
    expect(server.caPem).toContain('BEGIN CERTIFICATE');
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);

    // Verified handshakes (rejectUnauthorized is the default) for the names in the certificate.
    await handshake(server.port, server.caPem!, 'localhost');
    await handshake(server.port, server.caPem!, 'api.example.com');
    await expect(handshake(server.port, server.caPem!, 'other.example.com')).rejects.toThrow(/Hostname\/IP does not match/);
    // Without the CA the certificate is not trusted.
    await expect(httpsRequest(`${server.url}/livez`)).rejects.toThrow(/self[- ]signed|unable to verify|local issuer/);
    expect((await httpsRequest(`${server.url}/livez`, { ca: server.caPem! })).status).toBe(200);

    const paths = pkiPaths(dataDir);
    const cert = new x509.X509Certificate(readFileSync(paths.cert, 'utf8'));
    expect(certSans(cert).map((s) => `${s.type}:${s.value}`).sort()).toEqual(
      ['dns:localhost', 'ip:127.0.0.1', 'ip:::1', `dns:${hostname().toLowerCase()}`, 'dns:api.example.com', 'ip:10.1.2.3'].sort(),
    );
    expect(cert.publicKey.algorithm).toMatchObject({ name: 'ECDSA', namedCurve: 'P-256' });
    expect(statSync(paths.key).mode & 0o777).toBe(0o600);
    expect(statSync(paths.caKey).mode & 0o777).toBe(0o600);
    expect(readFileSync(paths.caCert, 'utf8')).toBe(server.caPem);
  });

  it('reuses the certificates on restart, and re-issues only the serving certificate when the SANs change', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir });
    const paths = pkiPaths(dataDir);
    const cert1 = readFileSync(paths.cert, 'utf8');
    await first.close();

    const second = await startTestServer({ dataDir });
    expect(second.caPem).toBe(first.caPem);
    expect(readFileSync(paths.cert, 'utf8')).toBe(cert1);
    await second.close();

    const third = await startTestServer({ dataDir, tlsSans: ['new.example.com'] });
    expect(third.caPem).toBe(first.caPem);
    const cert3 = readFileSync(paths.cert, 'utf8');
    expect(cert3).not.toBe(cert1);
    await handshake(third.port, first.caPem!, 'new.example.com');
  });

  it('serves a user-provided certificate and trusts it when it is self-signed', async () => {
    const dir = tempDir();
    const ca = await generateCa('test-ca');
    const serving = await generateServingCert(ca, 'test', [{ type: 'ip', value: '127.0.0.1' }]);
    writeFileSync(`${dir}/chain.pem`, serving.certPem + ca.certPem);
    writeFileSync(`${dir}/key.pem`, serving.keyPem);
    const server = await startTestServer({ tls: { certFile: `${dir}/chain.pem`, keyFile: `${dir}/key.pem` } });
    // The chain ends in the self-signed CA, which becomes the trust anchor of the kubeconfig.
    expect(server.caPem?.trim()).toBe(ca.certPem.trim());
    const res = await httpsRequest(`${server.url}/livez`, { ca: ca.certPem });
    expect(res.status).toBe(200);
    const kubeconfig = readFileSync(server.kubeconfigPath!, 'utf8');
    expect(kubeconfig).toContain(`certificate-authority-data: ${Buffer.from(server.caPem!).toString('base64')}`);
  });

  it('falls back to insecure-skip-tls-verify when a provided chain has no known issuer', async () => {
    const dir = tempDir();
    const ca = await generateCa('test-ca');
    const serving = await generateServingCert(ca, 'test', [{ type: 'ip', value: '127.0.0.1' }]);
    writeFileSync(`${dir}/cert.pem`, serving.certPem);
    writeFileSync(`${dir}/key.pem`, serving.keyPem);
    const server = await startTestServer({ tls: { certFile: `${dir}/cert.pem`, keyFile: `${dir}/key.pem` } });
    expect(server.caPem).toBeUndefined();
    const kubeconfig = readFileSync(server.kubeconfigPath!, 'utf8');
    expect(kubeconfig).toContain('insecure-skip-tls-verify: true');
    expect(kubeconfig).not.toContain('certificate-authority-data');
  });
});
