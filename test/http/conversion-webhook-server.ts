/**
 * A real HTTPS conversion webhook for the HTTP tests: a generated CA and a serving certificate for
 * 127.0.0.1 (apiserver/tls), a Node HTTPS server answering ConversionReview v1, and a record of every
 * review it received.
 *
 *   const hook = await startConversionWebhook();
 *   crd.spec.conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: hook.clientConfig } };
 *   hook.respond = (review, res) => res.json(200, garbage);   // spoil the answers
 *   await hook.stop(); await hook.restart();                  // down, then up again on the same port
 *
 * The default answer converts Widgets between two shapes of the same data, a real field-shape change:
 * `v1` and `v1beta1` carry `spec.hostPort: "host:port"`, `v2` carries `spec.host` and `spec.port` (integer).
 * Every other member is copied; metadata is returned as received.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { generateCa, generateServingCert } from '../../apiserver/tls/generate-certs.js';

export type Json = Record<string, any>;

export interface RecordedReview {
  /** The request's path and query (`/convert?timeout=30s`). */
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  /** The ConversionReview as received. */
  readonly review: Json;
}

/** How the webhook answers one review: `reply(code, body)` sends a JSON value, or a string as is. */
export type Responder = (review: Json, reply: (code: number, body: unknown, contentType?: string) => void) => void;

export interface ConversionWebhook {
  readonly port: number;
  /** `{url: 'https://127.0.0.1:<port>/convert', caBundle: <base64 PEM of the CA>}` */
  readonly clientConfig: { readonly url: string; readonly caBundle: string };
  /** Every review received, in order (also while `respond` spoils the answers). */
  readonly reviews: RecordedReview[];
  /** The current answer; `convertingResponder` unless a test replaces it. */
  respond: Responder;
  /** Closes the listener and every open connection: the port refuses connections. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  /** `stop()`, for afterAll. */
  close(): Promise<void>;
}

/** One Widget in `desiredAPIVersion`: `hostPort` for v1/v1beta1, `host` + `port` for v2. */
export function convertWidget(obj: Json, desiredAPIVersion: string): Json {
  const spec: Json = { ...(obj.spec ?? {}) };
  if (desiredAPIVersion.endsWith('/v2')) {
    if (typeof spec.hostPort === 'string') {
      const at = spec.hostPort.lastIndexOf(':');
      spec.host = spec.hostPort.slice(0, at);
      spec.port = Number(spec.hostPort.slice(at + 1));
      delete spec.hostPort;
    }
  } else if (spec.host !== undefined || spec.port !== undefined) {
    spec.hostPort = `${String(spec.host)}:${String(spec.port)}`;
    delete spec.host;
    delete spec.port;
  }
  return { ...obj, apiVersion: desiredAPIVersion, spec };
}

/** The successful answer to `review`, converting every object with `convertWidget`. */
export function convertedReview(review: Json): Json {
  const request = review.request as { uid: string; desiredAPIVersion: string; objects: Json[] };
  return {
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: {
      uid: request.uid,
      convertedObjects: request.objects.map((o) => convertWidget(o, request.desiredAPIVersion)),
      result: { status: 'Success' },
    },
  };
}

export const convertingResponder: Responder = (review, reply) => reply(200, convertedReview(review));

export async function startConversionWebhook(): Promise<ConversionWebhook> {
  const ca = await generateCa('conversion-webhook-test-ca');
  const serving = await generateServingCert(ca, 'conversion-webhook', [{ type: 'ip', value: '127.0.0.1' }]);
  const sockets = new Set<Socket>();
  const reviews: RecordedReview[] = [];

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let review: Json;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      } catch {
        res.writeHead(400).end('not a ConversionReview');
        return;
      }
      reviews.push({ url: req.url ?? '', headers: req.headers, review });
      hook.respond(review, (code, body, contentType = 'application/json') => {
        res.writeHead(code, { 'Content-Type': contentType });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      });
    });
  };

  let server: Server;
  const listen = (port: number): Promise<number> => {
    server = createServer({ key: serving.keyPem, cert: serving.certPem }, handle);
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    // The TLS layer's socket is what 'secureConnection' gives; destroying the raw ones on stop is enough.
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  };
  let listening = true;
  const port = await listen(0);

  const hook: ConversionWebhook = {
    port,
    clientConfig: { url: `https://127.0.0.1:${port}/convert`, caBundle: Buffer.from(ca.certPem).toString('base64') },
    reviews,
    respond: convertingResponder,
    async stop() {
      if (!listening) return;
      listening = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    async restart() {
      if (listening) return;
      await listen(port);
      listening = true;
    },
    close: () => hook.stop(),
  };
  return hook;
}
