/**
 * The fuzzer's HTTPS client: one keep-alive agent with a bounded socket pool, so tens of requests are in
 * flight on reused TLS connections (a handshake per request would cost more than most requests). Each
 * request has a deadline; a deadline is a finding (the server hung), except for watches, whose client-side
 * end is expected.
 */
import { Agent, request } from 'node:https';

export interface FuzzRequest {
  readonly method: string;
  /** Path and query, sent as is (it may be malformed on purpose). */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
  /** A watch: the client ends it after `deadlineMs`, which is then not a hang. */
  readonly watch?: boolean;
}

export interface FuzzResponse {
  /** The HTTP status, or 0 when no response came (see `error`). */
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
  /** 'timeout' when the deadline passed before the response ended, else a socket error's code. */
  readonly error?: string;
}

export interface FuzzClient {
  send(req: FuzzRequest, deadlineMs: number): Promise<FuzzResponse>;
  close(): void;
}

export function fuzzClient(base: string, ca: string, maxSockets: number): FuzzClient {
  const agent = new Agent({ keepAlive: true, maxSockets, ca });
  const url = new URL(base);
  return {
    send(req, deadlineMs) {
      return new Promise((resolve) => {
        let done = false;
        let status = 0;
        let headers: Record<string, string | string[] | undefined> = {};
        const chunks: Buffer[] = [];
        const finish = (error?: string): void => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          resolve({ status, headers, body: Buffer.concat(chunks), ...(error === undefined ? {} : { error }) });
        };
        const headersOut: Record<string, string> = { ...req.headers };
        if (req.body !== undefined) headersOut['Content-Length'] = String(req.body.length);
        let r: ReturnType<typeof request>;
        try {
          r = request({
            agent, host: url.hostname, port: url.port, method: req.method, path: req.path, headers: headersOut,
            // The path is malformed on purpose at times: Node refuses only characters HTTP cannot carry.
            insecureHTTPParser: false,
          }, (res) => {
            status = res.statusCode ?? 0;
            headers = res.headers;
            res.on('data', (c: Buffer) => {
              // Bodies are kept for the store check and failure reports; a watch's stream is not needed.
              if (!req.watch || chunks.length < 4) chunks.push(c);
            });
            res.on('end', () => finish());
            res.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
            res.on('aborted', () => finish('aborted'));
          });
        } catch (e) {
          // Node refuses to send some malformed paths and headers: nothing reached the server.
          done = true;
          resolve({ status: 0, headers: {}, body: Buffer.alloc(0), error: `not-sent: ${(e as NodeJS.ErrnoException).code ?? String(e)}` });
          return;
        }
        const timer = setTimeout(() => {
          finish('timeout');
          r.destroy();
        }, deadlineMs);
        r.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
        // The answer to a CONNECT arrives as 'connect' (its body is read from the socket the server closes).
        r.on('connect', (res, socket, head) => {
          status = res.statusCode ?? 0;
          headers = res.headers;
          chunks.push(head);
          socket.on('data', (c: Buffer) => chunks.push(c));
          socket.on('end', () => finish());
          socket.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
        });
        r.end(req.body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}
