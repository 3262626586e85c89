import { SpanStatusCode, TraceFlags, type Attributes, type SpanContext } from '@opentelemetry/api';
import { parseTraceParent, TraceState } from '@opentelemetry/core';
import type { RequestInfo } from '../../request/request-info.js';
import type { RequestTracing } from '../../tracing/request-tracing.js';
import type { AppContext, Filter } from '../../request/request-state.js';
import { safeRequestUri } from '../../log/safe-query.js';

/**
 * The span of every sampled request (kube's WithTracing, an otelhttp server span), right after the
 * request id. The sampling decision is made here, once (tracing/request-tracing.ts): an unsampled request
 * costs a header read and, without a parent, one Math.random(); nothing is allocated for it and it gets no
 * child spans.
 *
 * A valid W3C `traceparent` (and its `tracestate`) makes the span a child of the caller's span, whoever
 * the caller is (kube 1.32 linked it instead; later kube releases honour it for privileged callers only:
 * see docs/tracing.md). An invalid one is ignored.
 *
 * The span is named as kube names it once the request is known: `GET /api/v1/namespaces/{:namespace}/pods/{:name}`
 * for a resource request, the method otherwise; attributes are otelhttp's (the semantic conventions kube
 * 1.32 reports: `http.method`, `http.target`, `http.status_code`, `user_agent.original`, `net.*`) and
 * kube's `audit-id`. 5xx answers mark it as an error. A watch's span lasts as long as the watch.
 *
 * Its children find it in `ctx.state.trace`: the encoding and admission spans directly, store calls through
 * the registry the resource router hands sampled requests (tracing/traced-resource.ts).
 */
export function tracing(t: RequestTracing): Filter {
  return async function tracingFilter(ctx, next) {
    const header = ctx.req.headers.traceparent;
    let parent: SpanContext | undefined;
    if (typeof header === 'string') {
      parent = parseTraceParent(header) ?? undefined;
      if (parent !== undefined) {
        // ParentBased: the caller decided.
        if ((parent.traceFlags & TraceFlags.SAMPLED) === 0) return next();
        parent.isRemote = true;
        const state = ctx.req.headers.tracestate;
        if (typeof state === 'string' && state !== '') parent.traceState = new TraceState(state);
      }
    }
    if (parent === undefined && !t.sampleRoot()) return next();

    const scope = t.startRequest(ctx.method, ctx.state.requestId, parent, requestAttributes(ctx));
    ctx.state.trace = scope;
    const { span } = scope;
    try {
      await next();
    } catch (err) {
      // recover turns errors into answers; what still escapes is recorded, then rethrown.
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message ?? String(err) });
      throw err;
    } finally {
      const status = ctx.status;
      span.setAttribute('http.status_code', status);
      const length = ctx.response.length;
      if (length !== undefined) span.setAttribute('http.response_content_length', length);
      // otelhttp: a server span is an error for 5xx answers only.
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      const info = ctx.state.requestInfo;
      if (info?.isResourceRequest === true) span.updateName(spanName(ctx.method, info));
      span.end();
    }
  };
}

/** The start attributes: otelhttp's (semantic conventions of kube 1.32's otelhttp) and kube's. */
function requestAttributes(ctx: AppContext): Attributes {
  const req = ctx.req;
  const attributes: Attributes = {
    'http.method': ctx.method,
    'http.scheme': ctx.protocol,
    // kube adds the request URI (otelhttp dropped it).
    'http.target': safeRequestUri(ctx.url),
    'net.protocol.version': req.httpVersion,
    'audit-id': ctx.state.requestId,
  };
  const host = req.headers.host;
  if (host !== undefined && host !== '') {
    // `name[:port]`, `[v6][:port]`.
    const m = /^(\[[^\]]*\]|[^:]*)(?::(\d+))?$/.exec(host);
    if (m !== null) {
      attributes['net.host.name'] = m[1]!;
      if (m[2] !== undefined) attributes['net.host.port'] = Number(m[2]);
    }
  }
  const socket = req.socket;
  if (socket.remoteAddress !== undefined) attributes['net.sock.peer.addr'] = socket.remoteAddress;
  if (socket.remotePort !== undefined) attributes['net.sock.peer.port'] = socket.remotePort;
  const userAgent = req.headers['user-agent'];
  if (userAgent !== undefined && userAgent !== '') attributes['user_agent.original'] = userAgent;
  return attributes;
}

/** kube's span name of a resource request: the route with `{:namespace}` and `{:name}` placeholders. */
export function spanName(method: string, info: RequestInfo): string {
  let name = `/${info.apiPrefix}`;
  if (info.apiGroup !== '') name += `/${info.apiGroup}`;
  name += `/${info.apiVersion}`;
  if (info.namespace !== '') name += '/namespaces/{:namespace}';
  name += `/${info.resource}`;
  if (info.name !== '') name += '/{:name}';
  if (info.subresource !== '') name += `/${info.subresource}`;
  return `${method} ${name}`;
}
