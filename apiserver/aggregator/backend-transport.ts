/**
 * The TLS settings of the connections to one APIService's backend (kube-aggregator's transport config):
 * the server is verified against `spec.caBundle` (system roots when empty) under the name
 * `<service>.<namespace>.svc`, or not at all with `insecureSkipTLSVerify`; this server presents the
 * `--proxy-client-cert-file` certificate. Connections are kept alive and reused per APIService; `close()`
 * drops them when the APIService changes or goes.
 */
import { Agent, type RequestOptions } from 'node:https';
import type { KubeObject } from '../api/object.js';
import { serviceOf, specOf } from '../registry/kinds/apiregistration/apiservice-conditions.js';
import { serviceServerName } from './service-resolver.js';

/** `--proxy-client-cert-file` / `--proxy-client-key-file`, read. */
export interface ProxyClientCert {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface BackendTransport {
  /** Options for `https.request` (agent, CA, client certificate, server name); add host, port, path. */
  readonly tls: RequestOptions;
  /** A string that changes whenever the TLS settings do (rebuild the transport then). */
  readonly fingerprint: string;
  close(): void;
}

/**
 * The transport of a remote APIService (undefined for a local one). `verify: false` is the availability
 * probe's transport: kube-aggregator's probe skips verification (it asks for reachability only).
 */
export function backendTransport(obj: KubeObject, clientCert: ProxyClientCert | undefined, verify = true): BackendTransport | undefined {
  const service = serviceOf(obj);
  if (service === undefined) return undefined;
  const spec = specOf(obj);
  const caBundle = typeof spec.caBundle === 'string' && spec.caBundle !== '' ? Buffer.from(spec.caBundle, 'base64').toString('utf8') : undefined;
  const insecure = !verify || spec.insecureSkipTLSVerify === true;
  const servername = serviceServerName(service);
  const agent = new Agent({ keepAlive: true, maxFreeSockets: 16 });
  const tls: RequestOptions = {
    agent,
    servername,
    rejectUnauthorized: !insecure,
    ...(caBundle === undefined || insecure ? {} : { ca: caBundle }),
    ...(clientCert === undefined ? {} : { cert: clientCert.certPem, key: clientCert.keyPem }),
  };
  return {
    tls,
    fingerprint: JSON.stringify([servername, insecure, caBundle ?? '']),
    close: () => agent.destroy(),
  };
}
