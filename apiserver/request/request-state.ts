import type { Middleware, ParameterizedContext } from 'koa';
import type { UserInfo } from '../auth/user-info.js';
import type { RequestAccess } from '../authorization/access.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import { parseQuery } from './go-query.js';
import type { MediaOffer } from '../codec/negotiate.js';
import type { RequestAudit } from '../audit/request-audit.js';
import type { ServedResource } from '../registry/served-resources.js';
import type { RequestMetrics } from '../metrics/request-metrics.js';
import type { TraceScope } from '../tracing/request-tracing.js';

/**
 * What the filter chain attaches to `ctx.state`, in chain order. Later filters (request info,
 * impersonation, audit, authorization) add their fields here.
 */
export interface RequestState {
  /** Set by request-id: echoed in the `Audit-Id` response header and every log line of the request. */
  requestId: string;
  /**
   * Set by request-lifecycle: aborted when the client disconnects, the request deadline passes, or the
   * server shuts down (long-running requests at once, others when the drain bound passes). Handlers pass
   * it to store calls and watch loops and stop when it fires.
   */
  signal: AbortSignal;
  /** Set by tracing for sampled requests only: the request's span, the parent of its child spans. */
  trace?: TraceScope;
  /** Watches and other streaming requests: no deadline, no in-flight slot, ended first on shutdown. */
  longRunning: boolean;
  /**
   * Set by request-lifecycle on long-running requests: `--min-request-timeout` in seconds. A watch without
   * `timeoutSeconds` ends after a random time in [this, 2 × this]; 0: it never times out.
   */
  minRequestTimeoutSeconds?: number;
  /** Set by authentication: who the request acts as (`system:anonymous` on public paths without credentials). */
  user?: UserInfo;
  /** Set by impersonation when the request acts as another user: the authenticated caller (`user` is the other). */
  impersonatedBy?: UserInfo;
  /** The request's verb, group, version, resource, namespace, name; parsed once, on first use. */
  requestInfo?: RequestInfo;
  /** The query as kube reads it (go-query.ts), parsed once: see `queryOf`. */
  query?: URLSearchParams;
  /** Set by authorization once the request is allowed: what the RBAC kinds' escalation checks ask. */
  access?: RequestAccess;
  /**
   * Set by the resource router: the media types the resource answers in. An error Status is written in
   * the client's preferred one among them (protobuf for typed Go clients); JSON otherwise.
   */
  responseOffers?: readonly MediaOffer[];
  /** Set by admission plugins: the request's audit annotations (key -> value), for the audit log. */
  auditAnnotations?: Record<string, string>;
  /**
   * Set by the audit filter when the request is audited at Metadata or more (apiserver/audit/): handlers hand
   * it the request object, patch and response (`ctx.state.audit?.requestObject(obj)`); absent otherwise.
   */
  audit?: RequestAudit;
  /** Set by the metrics filter (request metrics on): the watch handler's long-running gauge and watch event series. */
  requestMetrics?: RequestMetrics;
  /** Set by the resource router: the served resource the request addresses (its metrics series, deprecation). */
  served?: ServedResource;
}

export type AppContext = ParameterizedContext<RequestState>;
/** A filter of the chain: options in, a named async middleware out (Hono style). */
export type Filter = Middleware<RequestState>;

/** The request info of `ctx`, parsed once per request whichever filter or handler asks first. */
export function requestInfoOf(ctx: AppContext): RequestInfo {
  return (ctx.state.requestInfo ??= parseRequestInfo(ctx.method, ctx.path, queryOf(ctx)));
}

/** The request's query parameters as kube-apiserver reads them (go-query.ts), parsed once per request. Never change it. */
export function queryOf(ctx: Pick<AppContext, 'state' | 'querystring'>): URLSearchParams {
  return (ctx.state.query ??= parseQuery(ctx.querystring));
}
