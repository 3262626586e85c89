/**
 * etcd client TLS (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`) against a real etcd serving
 * `https://` with `--client-cert-auth`: the certificates are made here (a CA, etcd's serving certificate for
 * 127.0.0.1, a client certificate; another CA that signed nothing etcd knows), the server is configured
 * through its own flag parser and config builder, and every store call crosses the TLS connection.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlagError } from '../../apiserver/config/flag-error.js';
import { parseFlags } from '../../apiserver/config/parse-flags.js';
import { buildConfig, type ServerConfig } from '../../apiserver/config/server-config.js';
import { generateServingCert } from '../../apiserver/tls/generate-certs.js';
import { openEtcdStore } from '../../storage/etcd/etcd-store.js';
import { adminTokenPath } from '../../apiserver/auth/admin-credentials.js';
import { describeEtcd } from '../harness/describe-etcd.js';
import { startEtcd, type EtcdCluster } from '../harness/etcd.js';
import { apiRequest } from '../http/helpers.js';
import { eventually, httpsRequest, memoryLogger, startTestServer, stopAll, tempDir } from './helpers.js';
import { generateCa, issueCert } from './proxy-certs.js';

/** PEM files of the test's PKI. */
interface Pki {
  readonly caFile: string;
  readonly etcdCertFile: string;
  readonly etcdKeyFile: string;
  readonly clientCertFile: string;
  readonly clientKeyFile: string;
  /** A CA that signed neither etcd's certificate nor the client's. */
  readonly otherCaFile: string;
  /** A client certificate signed by the other CA (etcd refuses it). */
  readonly strangerCertFile: string;
  readonly strangerKeyFile: string;
}

async function makePki(dir: string): Promise<Pki> {
  const write = (name: string, pem: string): string => {
    const path = join(dir, name);
    writeFileSync(path, pem, { mode: 0o600 });
    return path;
  };
  const ca = await generateCa('etcd-ca');
  const etcd = await generateServingCert(ca, 'etcd', [{ type: 'ip', value: '127.0.0.1' }]);
  const client = await issueCert(ca, 'platform-apiserver-etcd-client');
  const other = await generateCa('other-ca');
  const stranger = await issueCert(other, 'stranger');
  return {
    caFile: write('ca.crt', ca.certPem),
    etcdCertFile: write('etcd.crt', etcd.certPem),
    etcdKeyFile: write('etcd.key', etcd.keyPem),
    clientCertFile: write('client.crt', client.certPem),
    clientKeyFile: write('client.key', client.keyPem),
    otherCaFile: write('other-ca.crt', other.certPem),
    strangerCertFile: write('stranger.crt', stranger.certPem),
    strangerKeyFile: write('stranger.key', stranger.keyPem),
  };
}

/** The server's config from command-line flags, as `main` builds it, made test-friendly (port 0, no delays). */
function configFromFlags(dataDir: string, flags: string[]): ServerConfig {
  return {
    ...buildConfig(parseFlags([`--data-dir=${dataDir}`, ...flags])),
    bindAddress: '127.0.0.1', securePort: 0, compactionIntervalMs: 0, shutdownDelayMs: 0, shutdownTimeoutMs: 5000,
  };
}

describeEtcd('etcd client TLS', () => {
  let pki: Pki;
  let etcd: EtcdCluster;
  let endpoint: string;

  beforeAll(async () => {
    pki = await makePki(tempDir('etcd-pki-'));
    etcd = await startEtcd({
      tls: {
        certFile: pki.etcdCertFile, keyFile: pki.etcdKeyFile, caFile: pki.caFile, clientCertAuth: true,
        client: { certFile: pki.clientCertFile, keyFile: pki.clientKeyFile },
      },
    });
    endpoint = etcd.endpoints[0]!;
  });

  afterAll(async () => {
    await stopAll();
    await etcd?.stop();
  });

  it('serves over a client-certificate etcd with the three flags: /readyz, a create and a list', async () => {
    expect(endpoint).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const dataDir = tempDir();
    const config = configFromFlags(dataDir, [
      `--etcd-servers=${endpoint}`, `--etcd-cafile=${pki.caFile}`, `--etcd-certfile=${pki.clientCertFile}`, `--etcd-keyfile=${pki.clientKeyFile}`,
    ]);
    expect(config.storage).toEqual({ backend: 'etcd', endpoints: [endpoint], tls: { caFile: pki.caFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile } });
    const server = await startTestServer(config);
    const api = { url: server.url, ca: server.caPem!, token: readFileSync(adminTokenPath(dataDir), 'utf8').trim() };
    await eventually(async () => (await httpsRequest(`${server.url}/readyz`, api)).status === 200, '/readyz over TLS etcd');
    expect((await httpsRequest(`${server.url}/readyz?verbose`, api)).body).toContain('[+]etcd ok');

    const created = await apiRequest(api, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'over-tls' }, data: { k: 'v' } },
    });
    expect(created.status).toBe(201);
    const list = await apiRequest(api, 'GET', '/api/v1/namespaces/default/configmaps');
    expect(list.status).toBe(200);
    expect((list.json() as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name)).toEqual(['over-tls']);

    // The object is in this etcd: read back through a store of its own over the same TLS files.
    const store = await openEtcdStore({ endpoints: [endpoint], tls: { caFile: pki.caFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile } });
    try {
      const got = await store.get('/registry/configmaps/default/over-tls');
      expect(got.kv?.value.toString('utf8')).toContain('over-tls');
    } finally {
      await store.close();
    }
  });
});

// Referenced to keep imports used while the suite grows.
void FlagError;
void memoryLogger;
