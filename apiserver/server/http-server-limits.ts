/**
 * What one connection may hold of the HTTPS server before it is cut, as kube-apiserver's `http.Server`
 * (SecureServingInfo.Serve): header bytes 1 MiB (`MaxHeaderBytes: 1 << 20`), 32 s to send a request's
 * headers (`ReadHeaderTimeout`, which Go also applies to the TLS handshake), 90 s idle between requests
 * (`IdleTimeout`). Go has no separate limit on the request line: the URL counts toward the header bytes,
 * so a URL over 1 MiB is refused like too many headers (431), and so it is here (Node's llhttp counts the
 * request line in `maxHeaderSize` too).
 *
 * Node additionally bounds the time to receive a whole request, body included (`requestTimeout`, 408):
 * kube's request-timeout filter covers the body read of a handler, so it is the request timeout here
 * (default 60 s, `--request-timeout`). Node enforces the headers and request timeouts from a periodic
 * check (`connectionsCheckingInterval`), so a connection is cut up to one interval late.
 *
 * Smuggling defences are llhttp's strict mode (never `insecureHTTPParser`): duplicate or conflicting
 * `Content-Length`, `Transfer-Encoding` together with `Content-Length`, a `Transfer-Encoding` other than
 * a final `chunked`, malformed chunks: 400 and the connection closed (test/e2e/bad-input/smuggling.test.ts).
 */
import type { Server, ServerOptions } from 'node:https';
import type { Duplex } from 'node:stream';

export interface HttpServerLimits {
  /** Request line plus headers, in bytes; past it 431 and the connection closed. */
  readonly maxHeaderBytes: number;
  /** From the connection's first byte (or the end of the previous response) to the end of the headers. */
  readonly headersTimeoutMs: number;
  /** To receive a whole request, body included; at least `headersTimeoutMs`. */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive connection (no request after the last response) is closed after this. */
  readonly idleTimeoutMs: number;
  /** A TLS handshake not finished in this time is dropped. */
  readonly handshakeTimeoutMs: number;
  /** How often Node checks the headers and request timeouts. */
  readonly checkIntervalMs: number;
}

/** kube-apiserver's numbers; `requestTimeoutMs` is replaced by `--request-timeout`. */
export const defaultHttpServerLimits: HttpServerLimits = {
  maxHeaderBytes: 1 << 20,
  headersTimeoutMs: 32_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 90_000,
  handshakeTimeoutMs: 32_000,
  checkIntervalMs: 1_000,
};

/** The limits with `overrides` (tests use small timeouts), `requestTimeoutMs` raised to the headers timeout. */
export function httpServerLimits(requestTimeoutMs: number, overrides: Partial<HttpServerLimits> = {}): HttpServerLimits {
  const limits = { ...defaultHttpServerLimits, requestTimeoutMs, ...overrides };
  return { ...limits, requestTimeoutMs: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs) };
}

/** The options of `https.createServer` that carry the limits. */
export function httpServerOptions(limits: HttpServerLimits): ServerOptions {
  return {
    maxHeaderSize: limits.maxHeaderBytes,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
    handshakeTimeout: limits.handshakeTimeoutMs,
    insecureHTTPParser: false,
  };
}

/**
 * The limits Node sets as properties of the created server: the idle timeout, and no cap on the number of
 * headers (Node's default keeps the first 2,000 and silently drops the rest, an `Authorization` or
 * `Impersonate-*` header among them; Go counts only bytes, which `maxHeaderBytes` bounds).
 */
export function applyHttpServerLimits(server: Server, limits: HttpServerLimits): void {
  server.keepAliveTimeout = limits.idleTimeoutMs;
  server.maxHeadersCount = 0;
  server.on('connect', refuseConnect);
}

const connectRefusal = JSON.stringify({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
  message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', code: 405,
});

/**
 * An HTTP CONNECT request: Node hands it to a `connect` listener (without one it closes the socket with no
 * answer). The API has no route for it, so it is kube's 405 Status, and the connection is closed because
 * the request is not passed to the app.
 */
function refuseConnect(_req: unknown, socket: Duplex): void {
  socket.end(
    'HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nConnection: close\r\n'
      + `Content-Length: ${Buffer.byteLength(connectRefusal)}\r\n\r\n${connectRefusal}`,
  );
}
