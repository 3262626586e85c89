/**
 * The load generator's HTTP client for `make bench`: node:https over one keep-alive Agent trusting the
 * server's CA, bearer-token authenticated, loopback only. Every response's status is checked against the
 * expected one and a mismatch throws with the body's start; every request has a deadline.
 */
import { Agent, request } from 'node:https';

export interface HttpResponse {
  readonly status: number;
  readonly body: Buffer;
  /** The response's Content-Type ('' when absent). */
  readonly contentType: string;
}

export interface BenchClient {
  /**
   * Sends one request; throws unless the status is `expect`. `headers` add to or replace the defaults
   * (`Accept: application/json`; `Content-Type: application/json` with a body).
   */
  call(method: string, path: string, expect: number, body?: Buffer, headers?: Readonly<Record<string, string>>): Promise<HttpResponse>;
  close(): void;
}

export interface BenchClientOptions {
  /** `https://127.0.0.1:<port>` (any 127.0.0.0/8 address): anything but loopback is refused. */
  readonly url: string;
  /** The bearer token; '' sends no Authorization header (an anonymous client). */
  readonly token: string;
  readonly caPem: string;
  /** Sockets kept open: the highest concurrency the bench uses. */
  readonly maxSockets: number;
  /** Per-request deadline. Default 60 s. */
  readonly timeoutMs?: number;
}

export function benchClient(options: BenchClientOptions): BenchClient {
  const base = new URL(options.url);
  // 127.0.0.0/8: the local cluster's replicas each bind their own loopback address (deploy/cluster).
  if (base.protocol !== 'https:' || !(['localhost', '[::1]'].includes(base.hostname) || /^127\.\d+\.\d+\.\d+$/.test(base.hostname))) {
    throw new Error(`the bench only talks to a loopback HTTPS server, not ${options.url}`);
  }
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets, ca: options.caPem });
  const timeoutMs = options.timeoutMs ?? 60_000;
  const authorization = options.token === '' ? undefined : `Bearer ${options.token}`;

  const call = (method: string, path: string, expect: number, body?: Buffer, extra?: Readonly<Record<string, string>>): Promise<HttpResponse> =>
    new Promise<HttpResponse>((resolve, reject) => {
      const headers: Record<string, string | number> = { Accept: 'application/json' };
      if (authorization !== undefined) headers.Authorization = authorization;
      if (body !== undefined) {
        headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = body.length;
      }
      if (extra !== undefined) Object.assign(headers, extra);
      const req = request({ host: base.hostname, port: base.port, method, path, agent, headers, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const out = { status: res.statusCode ?? 0, body: Buffer.concat(chunks), contentType: res.headers['content-type'] ?? '' };
          if (out.status !== expect) {
            reject(new Error(`${method} ${path}: HTTP ${out.status}, expected ${expect}: ${out.body.subarray(0, 500).toString('utf8')}`));
          } else {
            resolve(out);
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no response within ${timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });

  return { call, close: () => agent.destroy() };
}
