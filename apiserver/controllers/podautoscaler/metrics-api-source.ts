/**
 * The real metrics source: the resource metrics API (`metrics.k8s.io/v1beta1`) of the metrics server
 * registered as the APIService `v1beta1.metrics.k8s.io`, reached in process as the aggregator reaches it
 * (apiserver/aggregator/): the APIService's Service resolved by the aggregator's resolver, TLS verified
 * against its `caBundle` as `<service>.<namespace>.svc` (or not, with `insecureSkipTLSVerify`), this
 * server's proxy client certificate presented, and the caller's identity in request headers — the HPA
 * controller's service account, as kube-controller-manager with `--use-service-account-credentials` is
 * seen by the metrics server through kube-apiserver's proxy.
 *
 * `podCpu` GETs `/apis/metrics.k8s.io/v1beta1/namespaces/<ns>/pods?labelSelector=<selector>` and reduces
 * the PodMetricsList as kube's resource metrics client does (metrics-source.ts). Failures carry the words
 * a client of kube-apiserver would see, behind kube's `unable to fetch metrics from resource metrics API: `:
 * no such APIService is a 404 (`the server could not find the requested resource (get
 * pods.metrics.k8s.io)`), one that is not Available a 503 (`the server is currently unable to handle the
 * request (get pods.metrics.k8s.io)`), a backend error its Status message (or Go's transport error).
 */
import { readFile } from 'node:fs/promises';
import type { KubeObject } from '../../api/object.js';
import { backendGet } from '../../aggregator/backend-client.js';
import { backendTransport, type BackendTransport, type ProxyClientCert } from '../../aggregator/backend-transport.js';
import { dnsServiceResolver, type ServiceResolver } from '../../aggregator/service-resolver.js';
import { isObject } from '../../api/json.js';
import type { Naming } from '../../naming/naming.js';
import { isAvailable, serviceOf } from '../../registry/kinds/apiregistration/apiservice-conditions.js';
import { milliValue } from './milli-value.js';
import { NO_METRICS_RETURNED, type PodMetric, type PodMetrics, type PodMetricsSource } from './metrics-source.js';

/** The APIService of the resource metrics API (the group is the metrics server's, in every domain mode). */
export const METRICS_API_SERVICE = 'v1beta1.metrics.k8s.io';
const QUALIFIED = 'pods.metrics.k8s.io';

export interface MetricsApiSourceOptions {
  /** The APIService as this replica last saw it (the informer of the APIService registry). */
  readonly apiService: () => KubeObject | undefined;
  /** The aggregator's resolver. Default: the Service's DNS name. */
  readonly resolve?: ServiceResolver;
  /** `--proxy-client-cert-file` / `--proxy-client-key-file`, read (once, lazily). */
  readonly clientCert?: () => Promise<ProxyClientCert | undefined>;
  readonly naming: Naming;
  /** Deadline of one request. Default 30 s. */
  readonly timeoutMs?: number;
}

export interface MetricsApiSource extends PodMetricsSource {
  /** Drops the kept connections. */
  close(): void;
}

class MetricsApiError extends Error {
  override readonly name = 'MetricsApiError';
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isObject(v) ? (v as Obj) : {});

/** Go's time.ParseDuration for the windows the metrics API writes (`30s`, `1m0.5s`, `500ms`); 0 if unreadable. */
export function parseGoDuration(text: unknown): number {
  if (typeof text !== 'string' || text === '') return 0;
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let at = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * units[m[2]!]!;
    at = re.lastIndex;
  }
  return at === text.length ? total : 0;
}

/** kube's getPodMetrics for `cpu`: pods with no containers, or a container without cpu, are left out. */
export function podMetricsOf(list: unknown): PodMetrics {
  const items = Array.isArray(obj(list).items) ? (obj(list).items as unknown[]).map(obj) : [];
  if (items.length === 0) throw new MetricsApiError(NO_METRICS_RETURNED);
  const metrics = new Map<string, PodMetric>();
  for (const item of items) {
    const containers = Array.isArray(item.containers) ? item.containers.map(obj) : [];
    let sum = 0;
    let missing = containers.length === 0;
    for (const c of containers) {
      const cpu = milliValue(obj(c.usage).cpu);
      if (cpu === undefined) {
        missing = true;
        break;
      }
      sum += cpu;
    }
    const name = obj(item.metadata).name;
    if (missing || typeof name !== 'string') continue;
    metrics.set(name, { milliCpu: sum, timestamp: new Date(Date.parse(String(item.timestamp ?? '')) || 0), windowMs: parseGoDuration(item.window) });
  }
  return { metrics, timestamp: new Date(Date.parse(String(items[0]!.timestamp ?? '')) || 0) };
}

export function createMetricsApiSource(o: MetricsApiSourceOptions): MetricsApiSource {
  const resolve = o.resolve ?? dnsServiceResolver;
  let cert: Promise<ProxyClientCert | undefined> | undefined;
  let kept: { key: string; transport: BackendTransport } | undefined;
  const sa = 'horizontal-pod-autoscaler';
  const ns = o.naming.systemNamespace;
  const identity = {
    'X-Remote-User': `system:serviceaccount:${ns}:${sa}`,
    'X-Remote-Group': ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
  };

  const transportFor = async (apiService: KubeObject): Promise<BackendTransport> => {
    cert ??= o.clientCert?.() ?? Promise.resolve(undefined);
    const clientCert = await cert;
    const fresh = backendTransport(apiService, clientCert)!;
    const key = `${apiService.metadata.uid ?? ''}/${fresh.fingerprint}`;
    if (kept?.key === key) {
      fresh.close();
      return kept.transport;
    }
    kept?.transport.close();
    kept = { key, transport: fresh };
    return fresh;
  };

  const fetchList = async (namespace: string, selector: string): Promise<unknown> => {
    const apiService = o.apiService();
    const service = apiService === undefined ? undefined : serviceOf(apiService);
    if (apiService === undefined || service === undefined) throw new MetricsApiError(`the server could not find the requested resource (get ${QUALIFIED})`);
    if (!isAvailable(apiService)) throw new MetricsApiError(`the server is currently unable to handle the request (get ${QUALIFIED})`);
    const transport = await transportFor(apiService);
    const endpoint = await resolve(service);
    const query = selector === '' ? '' : `?labelSelector=${encodeURIComponent(selector)}`;
    const path = `/apis/metrics.k8s.io/v1beta1/namespaces/${encodeURIComponent(namespace)}/pods${query}`;
    const res = await backendGet(transport, endpoint, path, { timeoutMs: o.timeoutMs ?? 30_000, headers: { Accept: 'application/json', ...identity } });
    let body: unknown;
    try {
      body = JSON.parse(res.body.toString('utf8'));
    } catch {
      body = undefined;
    }
    if (res.status >= 200 && res.status < 300) {
      if (body === undefined) throw new MetricsApiError(`an error on the server ("unable to decode the response") has prevented the request from succeeding (get ${QUALIFIED})`);
      return body;
    }
    const message = obj(body).kind === 'Status' && typeof obj(body).message === 'string' ? (obj(body).message as string) : '';
    if (message !== '') throw new MetricsApiError(message);
    throw new MetricsApiError(`an error on the server ("${res.body.toString('utf8').slice(0, 200)}") has prevented the request from succeeding (get ${QUALIFIED})`);
  };

  return {
    async podCpu(namespace, selector) {
      let list: unknown;
      try {
        list = await fetchList(namespace, selector);
      } catch (err) {
        throw new MetricsApiError(`unable to fetch metrics from resource metrics API: ${err instanceof Error ? err.message : String(err)}`);
      }
      return podMetricsOf(list);
    },
    close() {
      kept?.transport.close();
      kept = undefined;
    },
  };
}

/** `--proxy-client-cert-file` / `--proxy-client-key-file` read for the source (the aggregator reads them too). */
export async function readProxyClientCertFiles(files: { readonly certFile: string; readonly keyFile: string }): Promise<ProxyClientCert> {
  const [certPem, keyPem] = await Promise.all([readFile(files.certFile, 'utf8'), readFile(files.keyFile, 'utf8')]);
  return { certPem, keyPem };
}
