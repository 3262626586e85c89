/**
 * The secure port: the HTTPS server with the serving certificates followed on disk (serving-tls.ts), the
 * HTTP limits (http-server-limits.ts) and client certificates asked for when some authenticator reads them,
 * listening once this resolves. The caller closes it twice over: `closed` settles when the server emitted
 * 'close' (graceful shutdown waits for it), `close()` shuts it at once (start-up failures, or after a
 * graceful shutdown); the certificate watchers stop through `cleanups`.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import type { Registry } from 'prom-client';
import type { CaBundle } from '../auth/ca-bundle.js';
import type { ServerConfig } from '../config/server-config.js';
import type { Logger } from '../log/logger.js';
import { applyHttpServerLimits, httpServerLimits, httpServerOptions, type HttpServerLimits } from './http-server-limits.js';
import { startServingTls } from './serving-tls.js';

export interface HttpsListener {
  readonly server: Server;
  readonly port: number;
  /** Resolves when the server emitted 'close' (all connections gone after a close). */
  readonly closed: Promise<void>;
  /** Stops listening, drops every connection, resolves once closed. */
  close(): Promise<void>;
}

export async function listenHttps(o: {
  readonly config: ServerConfig;
  readonly handler: RequestListener;
  readonly clientCas: readonly CaBundle[];
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly onTlsClientError: () => void;
  readonly httpLimits: Partial<HttpServerLimits> | undefined;
  readonly cleanups: (() => Promise<void>)[];
}): Promise<HttpsListener> {
  const { config, logger } = o;
  // Serving and SNI certificates followed on disk, client CA names, version and ciphers (tls/dynamic-serving.ts).
  const serving = await startServingTls(config, o.clientCas, logger, o.metrics);
  o.cleanups.push(async () => serving.stop());
  const limits = httpServerLimits(config.requestTimeoutMs, o.httpLimits);
  const server = createServer({
    ...httpServerOptions(limits),
    ...serving.serverOptions(),
    // Client certificates are asked for, never required here: each authenticator verifies the peer chain
    // against its own bundle (a connection without one is still served).
    ...(o.clientCas.length > 0 ? { requestCert: true, rejectUnauthorized: false } : {}),
  }, o.handler);
  applyHttpServerLimits(server, limits);
  serving.attach(server);
  server.on('tlsClientError', (err) => {
    o.onTlsClientError();
    logger.debug({ err: err.message }, 'TLS handshake failed');
  });
  const closed = new Promise<void>((resolve) => server.once('close', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.securePort, config.bindAddress, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    closed,
    close: async () => {
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
