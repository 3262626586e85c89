/**
 * Start-up of the HTTPS server's TLS from the config: the files to follow (the given serving pair or the
 * generated one in `<data-dir>/pki`, the `--tls-sni-cert-key` pairs), `--tls-min-version` and
 * `--tls-cipher-suites` turned into Node's options, and the log lines kube writes:
 *
 * - `Use of insecure cipher '<name>' detected.` (warning) for each insecure suite named, as kube;
 * - a warning for each named suite this OpenSSL cannot offer (RC4, 3DES: kube's Go would offer them);
 * - `Loaded serving cert` / `Loaded SNI cert` (info, with `certName` and `certDetail`) at start and on
 *   every reload (`reload: true`), and an error line when a changed pair is refused (the old one stays);
 * - `apiserver_tls_serving_certificate_reloads_total{certificate="serving"|"sni",status="success"|"failure"}`
 *   counts the reloads after start (kube has no such metric; named after its `..._automatic_reloads_total`).
 */
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { CaBundle } from '../auth/ca-bundle.js';
import type { ServerConfig } from '../config/server-config.js';
import { openSslCiphers } from '../tls/cipher-suites.js';
import { startDynamicServing, type DynamicServing } from '../tls/dynamic-serving.js';
import { pkiPaths } from '../tls/serving-certs.js';
import { defaultTlsMinVersion, needsSecurityLevel0, nodeTlsVersion } from '../tls/tls-version.js';

export async function startServingTls(config: ServerConfig, clientCas: readonly CaBundle[], logger: Logger, registry?: Registry): Promise<DynamicServing> {
  const reloads = registry === undefined ? undefined : new Counter({
    name: 'apiserver_tls_serving_certificate_reloads_total',
    help: 'Reloads of the serving and SNI certificate/key pairs from disk after start, by outcome (a failure keeps the pair in use).',
    labelNames: ['certificate', 'status'],
    registers: [registry],
  });
  const kindOf = (name: string): string => (name.startsWith('sni-') ? 'sni' : 'serving');
  const minVersion = config.tlsServing?.minVersion ?? defaultTlsMinVersion;
  const ciphers = openSslCiphers(config.tlsServing?.cipherSuites ?? [], { securityLevel0: needsSecurityLevel0(minVersion) });
  for (const name of ciphers.insecure) logger.warn(`Use of insecure cipher '${name}' detected.`);
  for (const name of ciphers.unavailable) {
    logger.warn({ cipherSuite: name }, `cipher suite ${name} is not available in this server's OpenSSL and is not offered`);
  }
  const pki = pkiPaths(config.dataDir);
  return startDynamicServing({
    serving: config.tls ?? { certFile: pki.cert, keyFile: pki.key },
    sni: config.tlsServing?.sniCertKeys ?? [],
    base: { minVersion: nodeTlsVersion(minVersion), ciphers: ciphers.ciphers, honorCipherOrder: true },
    clientCas,
    onLoaded: (e) => {
      if (e.reload) reloads?.inc({ certificate: kindOf(e.name), status: 'success' });
      logger.info(
        { certName: e.name, certDetail: e.certDetail, names: e.names, reload: e.reload },
        e.name.startsWith('sni-') ? 'Loaded SNI cert' : 'Loaded serving cert',
      );
    },
    onError: (err, name) => {
      reloads?.inc({ certificate: kindOf(name), status: 'failure' });
      logger.error({ certName: name, err: err.message }, 'TLS certificate not reloaded, the previous one stays in use');
    },
    onWarning: (message) => logger.warn(message),
  });
}
