/**
 * etcd client TLS (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`) against a real etcd serving
 * `https://` with `--client-cert-auth`: the certificates are made here (a CA, etcd's serving certificate for
 * 127.0.0.1, a client certificate; another CA that signed nothing etcd knows), the server is configured
 * through its own flag parser and config builder, and every store call crosses the TLS connection.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FlagError } from '../../apiserver/config/flag-error.js';
import { parseFlags } from '../../apiserver/config/parse-flags.js';
import { buildConfig, type ServerConfig } from '../../apiserver/config/server-config.js';
import { generateServingCert } from '../../apiserver/tls/generate-certs.js';
import { etcdClientCredentials, tlsUnusedByEndpoints, type EtcdClientTls } from '../../storage/etcd/client-tls.js';
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
      expect(Buffer.from(got.kv!.value).toString('utf8')).toContain('over-tls');
    } finally {
      await store.close();
    }
  });


  it('with http:// servers the files are checked, then unused: plain text, as kube\'s etcd client, and a warning', async () => {
    const plain = await startEtcd();
    try {
      const dataDir = tempDir();
      const config = configFromFlags(dataDir, [`--etcd-servers=${plain.endpoints[0]!}`, `--etcd-cafile=${pki.caFile}`, `--etcd-certfile=${pki.clientCertFile}`, `--etcd-keyfile=${pki.clientKeyFile}`]);
      const log = memoryLogger();
      const server = await startTestServer(config, { logger: log.logger });
      await eventually(async () => (await httpsRequest(`${server.url}/readyz`, { ca: server.caPem! })).status === 200, '/readyz over plain etcd');
      expect(log.lines().filter((l) => l.includes('the etcd servers are http:// URLs: --etcd-cafile, --etcd-certfile and --etcd-keyfile are not used'))).toHaveLength(1);
      await server.close();
    } finally {
      await plain.stop();
    }
  });

  // As with any unreachable store, start-up fails once the first store calls time out (10 s per call).
  it.each([
    ['without a client certificate (etcd has --client-cert-auth)', (p: Pki) => [`--etcd-cafile=${p.caFile}`]],
    ['with a client certificate of a CA etcd does not trust', (p: Pki) => [`--etcd-cafile=${p.caFile}`, `--etcd-certfile=${p.strangerCertFile}`, `--etcd-keyfile=${p.strangerKeyFile}`]],
    ['with a CA that did not sign etcd\'s certificate', (p: Pki) => [`--etcd-cafile=${p.otherCaFile}`, `--etcd-certfile=${p.clientCertFile}`, `--etcd-keyfile=${p.clientKeyFile}`]],
    ['without any TLS flag (the system roots do not know etcd\'s CA)', () => []],
  ])('cannot reach the store %s: start-up fails as for an unreachable store', async (_name, tlsFlags) => {
    const config = configFromFlags(tempDir(), [`--etcd-servers=${endpoint}`, ...tlsFlags(pki)]);
    const log = memoryLogger();
    await expect(startTestServer(config, { logger: log.logger })).rejects.toThrow('the storage backend is unavailable');
    expect(log.lines().some((l) => l.includes('store list failed'))).toBe(true);
  }, 60_000);
});

describe('etcd TLS flags', () => {
  let pki: Pki;
  beforeAll(async () => {
    pki = await makePki(tempDir('etcd-pki-'));
  });
  afterAll(() => stopAll());

  const build = (...flags: string[]) => buildConfig(parseFlags(flags), '/cwd');
  const servers = '--etcd-servers=https://127.0.0.1:2379';

  it('are optional, and each of the three alone or together is taken (cert and key as a pair)', () => {
    expect(build(servers).storage).toEqual({ backend: 'etcd', endpoints: ['https://127.0.0.1:2379'] });
    expect(build(servers, `--etcd-cafile=${pki.caFile}`).storage).toEqual({ backend: 'etcd', endpoints: ['https://127.0.0.1:2379'], tls: { caFile: pki.caFile } });
    expect(build(servers, `--etcd-certfile=${pki.clientCertFile}`, `--etcd-keyfile=${pki.clientKeyFile}`).storage)
      .toMatchObject({ tls: { certFile: pki.clientCertFile, keyFile: pki.clientKeyFile } });
  });

  it.each([
    [['--etcd-certfile=c.crt'], '--etcd-certfile requires --etcd-keyfile'],
    [['--etcd-keyfile=c.key'], '--etcd-keyfile requires --etcd-certfile'],
    [['--etcd-cafile=/nonexistent/ca.crt'], 'invalid value "/nonexistent/ca.crt" for flag --etcd-cafile: no such file'],
    [['--etcd-cafile=rel/ca.crt'], 'invalid value "/cwd/rel/ca.crt" for flag --etcd-cafile: no such file'],
  ])('%j: %s', (flags, message) => {
    expect(() => build(servers, ...flags)).toThrow(new FlagError(message));
  });

  it('refuses files that do not parse or do not belong together', () => {
    const dir = tempDir();
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate\n');
    const broken = join(dir, 'broken.pem');
    writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expect(() => build(servers, `--etcd-cafile=${junk}`)).toThrow(new FlagError(`invalid value "${junk}" for flag --etcd-cafile: no PEM certificate found`));
    expect(() => build(servers, `--etcd-cafile=${broken}`)).toThrow(/^invalid value ".*broken.pem" for flag --etcd-cafile: certificate 1 does not parse/);
    expect(() => build(servers, `--etcd-cafile=${dir}`)).toThrow(new FlagError(`invalid value "${dir}" for flag --etcd-cafile: is a directory`));
    expect(() => build(servers, `--etcd-certfile=${pki.clientKeyFile}`, `--etcd-keyfile=${pki.clientKeyFile}`))
      .toThrow(new FlagError(`invalid value "${pki.clientKeyFile}" for flag --etcd-certfile: no PEM certificate found`));
    expect(() => build(servers, `--etcd-certfile=${pki.clientCertFile}`, `--etcd-keyfile=${junk}`))
      .toThrow(/^invalid value ".*junk.pem" for flag --etcd-keyfile: no PEM private key found/);
    expect(() => build(servers, `--etcd-certfile=${pki.clientCertFile}`, `--etcd-keyfile=${pki.strangerKeyFile}`))
      .toThrow(new FlagError(`invalid value "${pki.strangerKeyFile}" for flag --etcd-keyfile: the private key does not match the certificate of ${pki.clientCertFile}`));
  });

  it('need --etcd-servers, and refuse servers mixing http:// and https://', () => {
    expect(() => build(`--etcd-cafile=${pki.caFile}`)).toThrow(new FlagError('--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers (the embedded store has no client TLS)'));
    expect(() => build('--etcd-servers=https://a:2379,http://b:2379'))
      .toThrow(new FlagError('invalid value "https://a:2379,http://b:2379" for flag --etcd-servers: mixes http:// and https:// URLs'));
  });

  it('with http:// servers: checked, then unused (plain text), as kube\'s etcd client does', () => {
    const c = build('--etcd-servers=http://127.0.0.1:2379', `--etcd-cafile=${pki.caFile}`);
    const storage = c.storage as { readonly endpoints: readonly string[]; readonly tls?: EtcdClientTls };
    expect(storage.tls).toEqual({ caFile: pki.caFile });
    expect(tlsUnusedByEndpoints(storage.endpoints, storage.tls)).toBe(true);
    expect(etcdClientCredentials(storage.endpoints, storage.tls)).toBeUndefined();
    expect(() => build('--etcd-servers=http://127.0.0.1:2379', '--etcd-cafile=/nonexistent')).toThrow(FlagError);
    expect(etcdClientCredentials(['https://127.0.0.1:2379'], storage.tls)).toMatchObject({ ca: readFileSync(pki.caFile) });
  });

  it('bin/platform-apiserver exits 2 with one line on stderr for a missing file', () => {
    const res = spawnSync(join(__dirname, '..', '..', 'bin', 'platform-apiserver'), [servers, '--etcd-cafile=/nonexistent/ca.crt'], { encoding: 'utf8', timeout: 30_000 });
    expect(res.status).toBe(2);
    expect(res.stderr).toBe('platform-apiserver: invalid value "/nonexistent/ca.crt" for flag --etcd-cafile: no such file\n');
  });
});
