/**
 * The aggregation layer of a server (apiserver/aggregator/): the proxy client certificate read from
 * `--proxy-client-cert-file` / `--proxy-client-key-file` (read once at start: an unreadable or mismatched
 * pair fails the start), the backend resolver (StartOptions.aggregation; default the Service's
 * DNS name) and the feature gates the proxy honours. Started by start-server once the APIService registry
 * is served.
 */
import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { createAggregator, type Aggregator } from '../aggregator/aggregator.js';
import type { ProxyClientCert } from '../aggregator/backend-transport.js';
import type { ServiceResolver } from '../aggregator/service-resolver.js';
import type { ServerConfig } from '../config/server-config.js';
import type { Logger } from '../log/logger.js';

/** What embedders and tests may set (StartOptions.aggregation). */
export interface AggregationOptions {
  /**
   * Where an APIService's backend is dialled. Default: `<service>.<namespace>.svc` at the APIService's port
   * (DNS); tests map a Service to a loopback backend. TLS verifies `<service>.<namespace>.svc` either way.
   */
  readonly serviceResolver?: ServiceResolver;
  /** How often each backend is probed for the Available condition; default 10 s. */
  readonly availabilityIntervalMs?: number;
  /** How often each backend's discovery and OpenAPI are downloaded again; default 60 s. */
  readonly discoveryRefreshMs?: number;
}

async function readProxyClientCert(config: ServerConfig): Promise<ProxyClientCert | undefined> {
  if (config.proxyClient === undefined) return undefined;
  const { certFile, keyFile } = config.proxyClient;
  const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  try {
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (err) {
    throw new Error(`--proxy-client-cert-file ${certFile} and --proxy-client-key-file ${keyFile}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return { certPem, keyPem };
}

export async function assembleAggregator(config: ServerConfig, logger: Logger, o: AggregationOptions = {}): Promise<Aggregator> {
  return createAggregator({
    logger,
    ...(o.serviceResolver === undefined ? {} : { resolve: o.serviceResolver }),
    ...(o.availabilityIntervalMs === undefined ? {} : { availabilityIntervalMs: o.availabilityIntervalMs }),
    ...(o.discoveryRefreshMs === undefined ? {} : { discoveryRefreshMs: o.discoveryRefreshMs }),
    ...(await readProxyClientCert(config).then((clientCert) => (clientCert === undefined ? {} : { clientCert }))),
    uidHeader: config.features.enabled('RemoteRequestHeaderUID'),
  });
}
