/**
 * One GET to a backend for the server's own use (the availability probe, discovery and OpenAPI
 * downloads): over the APIService's transport, with a deadline and a size bound, the body read whole.
 * Failures throw `BackendError` whose message is Go's (`Get "https://<addr><path>": dial tcp <addr>:
 * connect: connection refused`), as kube-aggregator's messages quote them.
 */
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { goCause } from '../apiextensions/conversion/webhook-client.js';
import type { BackendTransport } from './backend-transport.js';
import type { ResolvedEndpoint } from './service-resolver.js';

export interface BackendResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export class BackendError extends Error {
  override readonly name = 'BackendError';
  constructor(message: string, readonly code?: string) {
    super(message);
  }
}

export interface BackendGetOptions {
  readonly headers?: OutgoingHttpHeaders;
  readonly timeoutMs: number;
  /** Largest body read; beyond it the call fails. Default 64 MiB. */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

export const hostPort = (e: ResolvedEndpoint): string => (isIP(e.host) === 6 ? `[${e.host}]:${e.port}` : `${e.host}:${e.port}`);

/** The URL as printed in messages: `https://<host:port><path>`. */
export const backendUrl = (e: ResolvedEndpoint, path: string): string => `https://${hostPort(e)}${path}`;

export function backendGet(transport: BackendTransport, endpoint: ResolvedEndpoint, path: string, o: BackendGetOptions): Promise<BackendResponse> {
  const url = backendUrl(endpoint, path);
  const maxBytes = o.maxBytes ?? 64 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string, code?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new BackendError(`Get "${url}": ${message}`, code));
    };
    const req = httpsRequest({
      ...transport.tls,
      host: endpoint.host,
      port: endpoint.port,
      method: 'GET',
      path,
      headers: { host: hostPort(endpoint), ...o.headers },
      ...(o.signal === undefined ? {} : { signal: o.signal }),
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) fail(`response body larger than ${maxBytes} bytes`);
        else chunks.push(c);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', (err) => fail(goCause(err, { connectHost: endpoint.host, connectPort: endpoint.port, serverName: String(transport.tls.servername ?? endpoint.host) })));
    });
    const timer = setTimeout(() => fail('context deadline exceeded (Client.Timeout exceeded while awaiting headers)', 'Timeout'), o.timeoutMs);
    timer.unref();
    req.on('error', (err: NodeJS.ErrnoException) => fail(goCause(err, { connectHost: endpoint.host, connectPort: endpoint.port, serverName: String(transport.tls.servername ?? endpoint.host) }), err.code));
    req.end();
  });
}
