/**
 * The proxy filter (kube-aggregator's proxy handler): a request for `/apis/<group>/<version>` or below,
 * whose group version a remote APIService claims, is sent to that APIService's backend over HTTPS and
 * the answer streamed back; every other request passes on (local APIServices included: their group
 * versions are this server's own). It runs after authentication and authorization, so the backend only
 * sees requests this server allowed, with the caller's identity in request-header form
 * (proxy-headers.ts).
 *
 * - The APIService is not Available: 503 `service unavailable`, without calling the backend.
 * - Accept asks for protobuf only: 406 (`only the following media types are accepted: application/json,
 *   application/yaml`), without calling the backend; protobuf clauses are dropped from any other Accept,
 *   and a protobuf request body is 415: aggregated resources are never offered in protobuf here.
 * - The backend cannot be resolved or reached, or fails before answering: 503 `service unavailable`.
 * - Bodies stream both ways without buffering: request bodies are piped to the backend; the answer's
 *   status and headers are written as they come and its body is piped (a watch's events reach the client
 *   as the backend writes them). The backend call ends with the request (client gone, deadline, shutdown).
 */
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { notAcceptable, serviceUnavailable, unsupportedMediaType } from '../errors/constructors.js';
import type { Logger } from '../log/logger.js';
import type { AppContext, Filter } from '../request/request-state.js';
import type { BackendTransport } from './backend-transport.js';
import { hostPort } from './backend-client.js';
import { acceptWithoutProtobuf, identityHeaders, isProtobufType, requestHeaders, responseHeaders } from './proxy-headers.js';
import type { ResolvedEndpoint, ServiceResolver } from './service-resolver.js';
import type { ServiceReference } from '../registry/kinds/apiregistration/apiservice-conditions.js';

/** How one remote APIService's group version is proxied. */
export interface ProxyTarget {
  readonly name: string;
  readonly service: ServiceReference;
  readonly available: boolean;
  readonly transport: BackendTransport;
}

export interface ProxyOptions {
  /** The remote APIService claiming `group`/`version`, if any. */
  lookup(group: string, version: string): ProxyTarget | undefined;
  readonly resolve: ServiceResolver;
  /** Send `X-Remote-Uid` too (feature RemoteRequestHeaderUID). */
  readonly uidHeader?: boolean;
  readonly logger?: Logger;
  /** Called when a backend could not be reached (the availability controller re-probes it). */
  readonly onUnreachable?: (name: string) => void;
}

const SERVICE_UNAVAILABLE = 'service unavailable';
const ACCEPTED = ['application/json', 'application/yaml'];
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `[group, version]` of an `/apis/<group>/<version>[/...]` path, else undefined. */
function groupVersionOfPath(path: string): readonly [string, string] | undefined {
  if (!path.startsWith('/apis/')) return undefined;
  const segments = path.split('/');
  const group = segments[2] ?? '';
  const version = segments[3] ?? '';
  return group === '' || version === '' ? undefined : [group, version];
}

export function aggregatorProxy(o: ProxyOptions): Filter {
  return async function aggregatorProxyFilter(ctx, next) {
    const gv = groupVersionOfPath(ctx.path);
    const target = gv === undefined ? undefined : o.lookup(gv[0], gv[1]);
    if (target === undefined) return next();
    if (!target.available) throw serviceUnavailable(SERVICE_UNAVAILABLE);

    const accept = acceptWithoutProtobuf(ctx.get('Accept') || undefined);
    if (accept === '') throw notAcceptable(ACCEPTED);
    const contentType = ctx.get('Content-Type');
    if (contentType !== '' && isProtobufType(contentType)) throw unsupportedMediaType(ACCEPTED);

    let endpoint: ResolvedEndpoint;
    try {
      endpoint = await o.resolve(target.service);
    } catch (err) {
      o.logger?.warn({ err, apiService: target.name }, 'aggregator: cannot resolve the backend');
      throw serviceUnavailable(SERVICE_UNAVAILABLE);
    }
    const user = ctx.state.user;
    if (user === undefined) throw serviceUnavailable('missing user');
    await forward(ctx, o, target, endpoint, requestHeaders(ctx.req.headers, identityHeaders(user, o.uidHeader === true), hostPort(endpoint), accept));
  };
}

/** Sends the request to the backend and streams the answer; resolves when the exchange is over. */
function forward(ctx: AppContext, o: ProxyOptions, target: ProxyTarget, endpoint: ResolvedEndpoint, headers: Record<string, unknown>): Promise<void> {
  const signal = ctx.state.signal;
  return new Promise<void>((resolve, reject) => {
    let answered = false;
    const upstream = httpsRequest({
      ...target.transport.tls,
      host: endpoint.host,
      port: endpoint.port,
      method: ctx.method,
      // The path and query as the client sent them (kube re-encodes the query; the meaning is the same).
      path: ctx.originalUrl,
      headers: headers as Record<string, string>,
    });
    const onAbort = (): void => {
      upstream.destroy();
      if (!answered) reject(signal.reason instanceof Error ? signal.reason : new Error('request aborted'));
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };

    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (answered) {
        // The answer has started: all we can do is cut it.
        ctx.res.destroy(err);
        return done();
      }
      signal.removeEventListener('abort', onAbort);
      // Our own abort (client gone, deadline, shutdown) was answered by onAbort.
      if (signal.aborted) return;
      o.logger?.warn({ err: err.message, apiService: target.name }, 'aggregator: backend unreachable');
      o.onUnreachable?.(target.name);
      reject(serviceUnavailable(SERVICE_UNAVAILABLE));
    });

    upstream.on('response', (res: IncomingMessage) => {
      answered = true;
      const status = res.statusCode ?? 502;
      ctx.status = status;
      ctx.respond = false;
      const out = ctx.res;
      out.writeHead(status, responseHeaders(res.headers) as Record<string, string | string[]>);
      out.flushHeaders();
      res.pipe(out);
      res.on('error', (err) => out.destroy(err));
      out.once('close', () => {
        if (!res.complete) upstream.destroy();
        done();
      });
    });

    if (BODYLESS.has(ctx.method)) upstream.end();
    else ctx.req.pipe(upstream);
  });
}
