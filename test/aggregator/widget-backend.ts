/**
 * A small aggregated API server for the aggregation tests: HTTPS with a serving certificate for
 * `<service>.<namespace>.svc` from its own CA, asking for client certificates verified against the proxy
 * client CA. It serves `widgets.<group>/<version>`:
 *
 * - `GET /apis/<g>/<v>`: the APIResourceList (no aggregated discovery: `/apis` is 404, so the aggregator
 *   falls back to the legacy document);
 * - `GET /apis/<g>/<v>/namespaces/<ns>/widgets`: a WidgetList echoing what the request carried (the
 *   `X-Remote-*` headers, whether `Authorization` was present, the Accept header, the client
 *   certificate's CN and whether it verified);
 * - `POST` there: echoes the body it received;
 * - `?watch=true`: a chunked stream of JSON events, each written when the test calls `emit`;
 * - `/openapi/v2`, `/openapi/v3`, `/openapi/v3/apis/<g>/<v>`: small documents.
 *
 * `stop()` closes the listener and every connection; `start()` listens again on the same port.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { generateCa, generateServingCert } from '../../apiserver/tls/generate-certs.js';

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly clientCN: string | undefined;
  readonly clientAuthorized: boolean;
}

export interface WidgetBackend {
  readonly port: number;
  /** base64 of the backend CA's PEM, for `spec.caBundle`. */
  readonly caBundle: string;
  readonly requests: SeenRequest[];
  /** Resolves with the next watch request's writer. */
  nextWatch(): Promise<(event: unknown) => void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface WidgetBackendOptions {
  readonly group: string;
  readonly version: string;
  readonly serviceName: string;
  readonly namespace: string;
  /** PEM of the CA that signs the proxy's client certificate. */
  readonly proxyClientCa: string;
}

export async function startWidgetBackend(o: WidgetBackendOptions): Promise<WidgetBackend> {
  const ca = await generateCa('widget-backend-ca');
  const serving = await generateServingCert(ca, o.serviceName, [{ type: 'dns', value: `${o.serviceName}.${o.namespace}.svc` }]);
  const gv = `${o.group}/${o.version}`;
  const requests: SeenRequest[] = [];
  const watchWaiters: ((write: (event: unknown) => void) => void)[] = [];

  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'https://backend');
    const socket = req.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    const seen: SeenRequest = {
      method: req.method ?? '',
      path: url.pathname,
      headers: req.headers,
      clientCN: peer?.subject?.CN,
      clientAuthorized: socket.authorized,
    };
    requests.push(seen);
    const widgets = `/apis/${gv}/namespaces/x/widgets`;
    if (url.pathname === `/apis/${gv}`) {
      return json(res, 200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: gv,
        resources: [
          { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['create', 'get', 'list', 'watch'], shortNames: ['wd'] },
          { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get'] },
        ],
      });
    }
    if (url.pathname === widgets && url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      const write = (event: unknown): void => {
        res.write(`${JSON.stringify(event)}\n`);
      };
      watchWaiters.shift()?.(write);
      return;
    }
    if (url.pathname === widgets && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => json(res, 201, { kind: 'Widget', apiVersion: gv, metadata: { name: 'echo' }, received: Buffer.concat(chunks).toString('utf8') }));
      return;
    }
    if (url.pathname === widgets) {
      const remote = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k.startsWith('x-remote-')));
      return json(res, 200, {
        kind: 'WidgetList',
        apiVersion: gv,
        metadata: { resourceVersion: '1' },
        items: [],
        seen: { remote, authorization: req.headers.authorization ?? null, accept: req.headers.accept ?? null, clientCN: seen.clientCN ?? null, clientAuthorized: seen.clientAuthorized },
      });
    }
    if (url.pathname === '/openapi/v2') {
      return json(res, 200, {
        swagger: '2.0',
        info: { title: 'widgets', version: 'v0' },
        paths: {
          [`/apis/${gv}/namespaces/{namespace}/widgets`]: { get: { operationId: 'listWidgets', responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/widgets.v1.WidgetList' } } } } },
          '/apis/other.example.com/v1/things': { get: { operationId: 'notOurs', responses: { '200': { description: 'OK' } } } },
        },
        definitions: {
          'widgets.v1.WidgetList': { type: 'object', properties: { items: { type: 'array', items: { $ref: '#/definitions/widgets.v1.Widget' } } } },
          'widgets.v1.Widget': { type: 'object', properties: { size: { type: 'integer' } } },
          'widgets.v1.Unused': { type: 'object' },
        },
      });
    }
    if (url.pathname === '/openapi/v3') return json(res, 200, { paths: { [`apis/${gv}`]: { serverRelativeURL: `/openapi/v3/apis/${gv}?hash=ABC` } } });
    if (url.pathname === `/openapi/v3/apis/${gv}`) {
      return json(res, 200, { openapi: '3.0.0', info: { title: 'widgets', version: 'v0' }, paths: { [`/apis/${gv}/namespaces/{namespace}/widgets`]: {} }, components: { schemas: {} } });
    }
    json(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
  };

  let server: Server | undefined;
  let port = 0;
  const start = async (): Promise<void> => {
    server = createServer({ cert: serving.certPem, key: serving.keyPem, ca: o.proxyClientCa, requestCert: true, rejectUnauthorized: false }, handle);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  };
  await start();

  return {
    get port() {
      return port;
    },
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    requests,
    nextWatch: () => new Promise((resolve) => watchWaiters.push(resolve)),
    start,
    async stop() {
      const s = server;
      server = undefined;
      if (s === undefined) return;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    },
  };
}
