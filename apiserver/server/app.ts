import Koa from 'koa';
import type { RequestAuthenticator } from '../auth/authenticator.js';
import type { Authorizer } from '../authorization/authorizer.js';
import type { RuleResolver } from '../authorization/rbac-index.js';
import type { Naming } from '../naming/naming.js';
import { notFound } from '../errors/constructors.js';
import { serveHealth, type HealthEndpoints } from '../endpoints/health.js';
import { serveVersion, type BuildInfo } from '../endpoints/version.js';
import { serveMetrics } from '../endpoints/metrics.js';
import type { Registry } from 'prom-client';
import type { Logger } from '../log/logger.js';
import { authentication } from './filters/authentication.js';
import { authorization } from './filters/authorization.js';
import { audit, failedAuthenticationAudit, type AuditFilterOptions } from './filters/audit.js';
import { impersonation } from './filters/impersonation.js';
import { limits } from './filters/limits.js';
import { maxInflight } from './filters/max-inflight.js';
import { priorityAndFairness } from './filters/priority-and-fairness.js';
import type { FlowControl } from '../flowcontrol/flow-control.js';
import type { FlowControlMetrics } from '../metrics/flowcontrol-metrics.js';
import { recover } from './filters/recover.js';
import { requestId } from './filters/request-id.js';
import { requestLifecycle } from './filters/request-lifecycle.js';
import { shutdownRefusal, type ShutdownRefusalOptions } from './filters/shutdown-refusal.js';
import { requestLog } from './filters/request-log.js';
import { requestMetrics } from './filters/metrics.js';
import type { RequestMetrics } from '../metrics/request-metrics.js';
import type { AuthMetrics } from '../metrics/auth-metrics.js';
import { tracing } from './filters/tracing.js';
import type { RequestTracing } from '../tracing/request-tracing.js';
import type { InFlightRequests } from './in-flight-requests.js';
import type { AppContext, Filter, RequestState } from '../request/request-state.js';
import { maxRequestBodyBytes } from '../request/limits.js';

export interface AppOptions {
  readonly logger: Logger;
  readonly registry: InFlightRequests;
  /** The request authenticators, in kube's order (auth/authenticator.ts). */
  readonly authenticators: readonly RequestAuthenticator[];
  /** Whether a request without credentials may proceed as `system:anonymous` (default: public paths only). */
  readonly anonymous?: (ctx: AppContext) => boolean;
  /** Decides every request (the authorization filter) and the `impersonate` checks. */
  readonly authorizer: Authorizer;
  /** The rules users hold (RBAC), for the escalation checks of RBAC writes; undefined without RBAC. */
  readonly ruleResolver?: RuleResolver;
  /** The group domain's names (impersonation checks `userextras` and `uids` in `authentication.<domain>`). */
  readonly naming: Naming;
  readonly health: HealthEndpoints;
  readonly build: BuildInfo;
  readonly maxRequestsInflight: number;
  readonly maxMutatingRequestsInflight: number;
  /**
   * `--enable-priority-and-fairness` (default): the priority-and-fairness filter over these built-in
   * schemas and levels replaces the max-in-flight filter, as in kube-apiserver; undefined: max-in-flight.
   */
  readonly flowControl?: FlowControl;
  /** `apiserver_dropped_requests_total` and the `apiserver_flowcontrol_*` families. */
  readonly flowControlMetrics?: FlowControlMetrics;
  readonly requestTimeoutMs: number;
  /** `--min-request-timeout` (seconds, default 1800): watches without timeoutSeconds last 1–2 times this. */
  readonly minRequestTimeoutSeconds?: number;
  readonly draining: () => boolean;
  /** After the shutdown delay: refuse new requests (filters/shutdown-refusal.ts); undefined adds no filter. */
  readonly shutdown?: ShutdownRefusalOptions;
  /** `--tracing-config-file`: spans of sampled requests; undefined (off) adds no filter. */
  readonly tracing?: RequestTracing;
  /** `--audit-policy-file` with `--audit-log-path`: the audit filter; undefined (off) adds no filter. */
  readonly audit?: AuditFilterOptions;
  /** Served at `/metrics` (authenticated). */
  readonly metrics?: Registry;
  /** Request metrics (`--request-metrics`, default on); undefined adds no metrics filter and no auth metrics. */
  readonly requestMetrics?: RequestMetrics;
  /** The authentication and authorization attempt metrics, recorded only with `requestMetrics`. */
  readonly authMetrics?: AuthMetrics;
  /**
   * Serves the API paths after authentication (later: discovery, openapi, the REST handlers). It either
   * answers or calls `next()`, which ends in a 404 Status.
   */
  readonly api?: Filter;
}

/**
 * Assembles the Koa application: the filter chain in the order of DESIGN.md, then the endpoints.
 *
 *   request id -> [tracing] -> [metrics] -> request log -> recover -> request lifecycle (signal, deadline)
 *   -> [shutdown refusal] -> limits (body size) -> authentication -> [audit] -> impersonation
 *   -> priority and fairness | max in-flight -> authorization -> health / version / metrics -> api -> 404
 *
 * Bracketed filters are installed only when configured (tracing, request metrics, auditing, a shutdown
 * sequence), so what is off costs nothing per request. Tracing and metrics sit outside recover to see the
 * whole request and its final status, as the request log does. Request info is parsed on first use.
 */
export function createApp(o: AppOptions): Koa<RequestState> {
  const app = new Koa<RequestState>();
  app.proxy = false;
  // Errors are rendered by recover; what reaches Koa's handler (socket errors after the response started)
  // is logged here instead of printed to stderr.
  app.silent = true;
  app.on('error', (err: unknown) => o.logger.debug({ err }, 'connection error'));

  app.use(requestId());
  if (o.tracing !== undefined) app.use(tracing(o.tracing));
  if (o.requestMetrics !== undefined) app.use(requestMetrics(o.requestMetrics));
  app.use(requestLog({ logger: o.logger }));
  app.use(recover({ logger: o.logger }));
  app.use(requestLifecycle({
    registry: o.registry,
    requestTimeoutMs: o.requestTimeoutMs,
    ...(o.minRequestTimeoutSeconds === undefined ? {} : { minRequestTimeoutSeconds: o.minRequestTimeoutSeconds }),
    draining: o.draining,
  }));
  // Once the shutdown delay elapsed, new requests (not health, not metrics) are refused before any work.
  if (o.shutdown !== undefined) app.use(shutdownRefusal(o.shutdown));
  app.use(limits({ maxBodyBytes: maxRequestBodyBytes }));
  app.use(authentication({
    authenticators: o.authenticators,
    ...(o.anonymous === undefined ? {} : { anonymous: o.anonymous }),
    ...(o.authMetrics === undefined ? {} : { metrics: o.authMetrics }),
    // kube-apiserver audits failed authentication too (WithFailedAuthenticationAudit).
    ...(o.audit === undefined ? {} : { failed: failedAuthenticationAudit(o.audit) }),
  }));
  // As kube-apiserver 1.32: audit before impersonation, so a refused impersonation is audited and the event
  // names the authenticated caller as `user`.
  if (o.audit !== undefined) app.use(audit(o.audit));
  app.use(impersonation({ authorizer: o.authorizer, naming: o.naming }));
  // As kube-apiserver: the in-flight limits after impersonation (requests are classified as the user they
  // act as), before authorization; priority and fairness replaces max-in-flight when on.
  const inflightOptions = {
    ...(o.requestMetrics === undefined ? {} : { inflight: o.requestMetrics }),
    ...(o.flowControlMetrics === undefined ? {} : { metrics: o.flowControlMetrics }),
  };
  app.use(o.flowControl !== undefined
    ? priorityAndFairness({ flowControl: o.flowControl, ...inflightOptions })
    : maxInflight({ maxReadOnly: o.maxRequestsInflight, maxMutating: o.maxMutatingRequestsInflight, ...inflightOptions }));
  app.use(authorization({
    authorizer: o.authorizer,
    ...(o.ruleResolver === undefined ? {} : { ruleResolver: o.ruleResolver }),
    ...(o.authMetrics === undefined ? {} : { metrics: o.authMetrics }),
  }));
  app.use(async function publicEndpoints(ctx, next) {
    if (serveVersion(ctx, o.build)) return;
    if (await serveHealth(ctx, o.health, o.logger)) return;
    if (o.metrics !== undefined && (await serveMetrics(ctx, o.metrics))) return;
    await next();
  });
  if (o.api !== undefined) app.use(o.api);
  app.use(async function notFoundHandler() {
    throw notFound();
  });
  return app;
}
