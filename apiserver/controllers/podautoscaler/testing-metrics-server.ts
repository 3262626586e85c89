/**
 * For tests: a small metrics server (HTTPS in the test process) answering the resource metrics API as
 * metrics-server does, for registration as the APIService `v1beta1.metrics.k8s.io`:
 *
 * - `GET /apis/metrics.k8s.io/v1beta1`: the APIResourceList (the aggregator's availability probe);
 * - `GET /apis/metrics.k8s.io/v1beta1/namespaces/<ns>/pods?labelSelector=...`: a PodMetricsList of the
 *   pods the test set (`setPod`) in that namespace whose labels match, each with one container `c`
 *   using the set CPU, a timestamp of now and a 30 s window;
 * - anything else: a 404 Status.
 *
 * Its serving certificate names `<service>.<namespace>.svc` (from its own CA: `caBundle`); it asks for a
 * client certificate and records, per request, the presented certificate's CN and whether it verified
 * against `proxyClientCa`, and the `X-Remote-*` headers. `failWith(code)` makes the pod lists fail.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { generateCa, generateServingCert } from '../../tls/generate-certs.js';
import { parseLabelSelector } from '../../selectors/label-selector.js';

export interface SeenMetricsRequest {
  readonly path: string;
  readonly query: string;
  readonly remoteUser: string | undefined;
  readonly remoteGroups: readonly string[];
  readonly clientCN: string | undefined;
  readonly clientAuthorized: boolean;
}

export interface FakeMetricsServer {
  readonly port: number;
  /** base64 of the serving CA's PEM (`spec.caBundle`). */
  readonly caBundle: string;
  readonly requests: SeenMetricsRequest[];
  /** Sets (or, with `undefined`, removes) a pod's CPU usage, in millicores. */
  setPod(namespace: string, name: string, labels: Record<string, string>, milliCpu: number | undefined): void;
  failWith(code: number | undefined): void;
  stop(): Promise<void>;
}

export async function startFakeMetricsServer(o: { service: string; namespace: string; proxyClientCa?: string }): Promise<FakeMetricsServer> {
  const ca = await generateCa('fake-metrics-server-ca');
  const serving = await generateServingCert(ca, o.service, [{ type: 'dns', value: `${o.service}.${o.namespace}.svc` }]);
  const pods = new Map<string, { namespace: string; name: string; labels: Record<string, string>; milliCpu: number }>();
  const requests: SeenMetricsRequest[] = [];
  let failure: number | undefined;
  const gv = 'metrics.k8s.io/v1beta1';
  const podsPath = /^\/apis\/metrics\.k8s\.io\/v1beta1\/namespaces\/([^/]+)\/pods$/;

  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const status = (res: ServerResponse, code: number, message: string): void =>
    json(res, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code });

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'https://metrics');
    const socket = req.socket as TLSSocket;
    // One header line per group: the distinct values, as an authenticating proxy reads them.
    const groups = req.headersDistinct['x-remote-group'];
    requests.push({
      path: url.pathname,
      query: url.search,
      remoteUser: req.headers['x-remote-user'] as string | undefined,
      remoteGroups: groups ?? [],
      clientCN: socket.getPeerCertificate()?.subject?.CN,
      clientAuthorized: socket.authorized,
    });
    if (url.pathname === `/apis/${gv}`) {
      return json(res, 200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: gv,
        resources: [
          { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
          { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
        ],
      });
    }
    const m = podsPath.exec(url.pathname);
    if (m !== null) {
      if (failure !== undefined) return status(res, failure, `metrics unavailable (${failure})`);
      const namespace = decodeURIComponent(m[1]!);
      const selector = parseLabelSelector(url.searchParams.get('labelSelector') ?? '');
      const now = new Date();
      const timestamp = `${now.toISOString().slice(0, 19)}Z`;
      const items = [...pods.values()]
        .filter((p) => p.namespace === namespace && selector.matches(p.labels))
        .map((p) => ({
          metadata: { name: p.name, namespace: p.namespace, labels: p.labels, creationTimestamp: timestamp },
          timestamp,
          window: '30s',
          containers: [{ name: 'c', usage: { cpu: `${p.milliCpu}m`, memory: '10Mi' } }],
        }));
      return json(res, 200, { kind: 'PodMetricsList', apiVersion: gv, metadata: {}, items });
    }
    status(res, 404, 'the server could not find the requested resource');
  };

  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem, ...(o.proxyClientCa === undefined ? {} : { ca: o.proxyClientCa }), requestCert: true, rejectUnauthorized: false }, handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    requests,
    setPod(namespace, name, labels, milliCpu) {
      if (milliCpu === undefined) pods.delete(`${namespace}/${name}`);
      else pods.set(`${namespace}/${name}`, { namespace, name, labels, milliCpu });
    },
    failWith(code) {
      failure = code;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
