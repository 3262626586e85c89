import type { ServerResponse } from 'node:http';
import type { UserInfo } from '../../auth/user-info.js';
import { failedAuthenticationMessage } from '../../audit/authentication-methods.js';
import { RequestAudit, type AuditEnvironment } from '../../audit/request-audit.js';
import type { PolicyChecker, RequestAuditConfig } from '../../audit/policy-checker.js';
import { sensitivityOf } from '../../audit/redact.js';
import { sourceIPs } from '../../audit/source-ips.js';
import { internalError } from '../../errors/constructors.js';
import { statusBody, wireDetails } from '../../errors/status-body.js';
import { isStatusError } from '../../errors/status-error.js';
import type { Naming } from '../../naming/naming.js';
import type { RequestInfo } from '../../request/request-info.js';
import { queryOf, requestInfoOf, type AppContext, type Filter } from '../../request/request-state.js';
import { safeRequestUri } from '../../log/safe-query.js';

export interface AuditFilterOptions {
  readonly checker: PolicyChecker;
  readonly env: AuditEnvironment;
  /** For the resources whose values are redacted (the authentication group's TokenReview). */
  readonly naming: Naming;
  /**
   * `--audit-log-mode=blocking-strict`: whether the backend can take events now. When it cannot, a request
   * whose RequestReceived event would be lost is refused (500 `failed to store audit event`, kube's words) and
   * `rejected` is called.
   */
  readonly strict?: { readonly healthy: () => boolean; readonly rejected: () => void };
}

/**
 * The audit filter, after authentication and before impersonation and authorization (kube-apiserver 1.32's
 * WithAudit): the policy picks the request's level from the authenticated caller and the request info.
 * Level None costs one policy evaluation and nothing more. Otherwise a `RequestAudit` goes to
 * `ctx.state.audit` for the handlers' hooks and the stage events are emitted:
 * - RequestReceived at once, naming the caller as `user` (impersonation has not happened yet); when the
 *   impersonation filter then accepts the impersonation headers it reports the user
 *   (`ctx.state.audit?.impersonated(user)`), which the later stages name as `impersonatedUser`;
 * - ResponseStarted for long-running requests (watches, proxied streams) when their headers go out;
 * - ResponseComplete when the rest of the chain returns or throws a Status (its fields in
 *   `responseStatus`; the Status itself as `responseObject` at RequestResponse);
 * - Panic instead, when anything else is thrown (what recover answers 500): `responseStatus` 500
 *   InternalError `APIServer panic'd: <error>`.
 *
 * A refused impersonation (403, or 400 for malformed headers) is thrown inside this filter and so audited
 * like any error. Failed authentication is answered before it: `failedAuthenticationAudit` covers that.
 */
export function audit(o: AuditFilterOptions): Filter {
  const { checker, env, strict } = o;
  return async function auditFilter(ctx, next) {
    const state = ctx.state;
    const info = requestInfoOf(ctx);
    // The caller as authenticated: impersonation comes after this filter.
    const config = checker.evaluate(state.user, info);
    env.metrics.policyLevel(config.level);
    if (config.level === 'None') return next();

    const rec = newRecord(ctx, o, config, info, state.user);
    state.audit = rec;
    const accepted = rec.emit('RequestReceived');
    if (strict !== undefined && (!accepted || !strict.healthy())) {
      strict.rejected();
      throw internalError('failed to store audit event');
    }
    // Long-running requests: ResponseStarted when their headers go out (`notStarted` undoes the hook).
    const notStarted = state.longRunning ? emitWhenHeadersGo(ctx.res, rec) : undefined;
    try {
      await next();
    } catch (err) {
      if (isStatusError(err)) {
        const body = statusBody(err);
        rec.responseObject(body.details === undefined ? body : { ...body, details: wireDetails(body.details) });
      } else if (isClientHttpError(err)) {
        rec.fail({ status: 'Failure', message: String(err.message), code: err.status });
      } else {
        notStarted?.();
        rec.fail({ status: 'Failure', reason: 'InternalError', message: `APIServer panic'd: ${String(err)}`, code: 500 });
        rec.emit('Panic');
        throw err;
      }
      // A long-running request refused before it streamed (a watch's 410, 422): its error answer is the
      // response that starts, as kube's audited writer reports it, before ResponseComplete.
      if (notStarted?.() === true) rec.emit('ResponseStarted');
      rec.emit('ResponseComplete');
      throw err;
    }
    rec.status(ctx.res.statusCode);
    if (notStarted?.() === true) rec.emit('ResponseStarted');
    rec.emit('ResponseComplete');
  };
}

/**
 * kube's WithFailedAuthenticationAudit, for the authentication filter to call just before it answers 401:
 * the policy is evaluated without a user (rules naming users or groups do not match), and when it audits
 * the request one event is emitted, stage ResponseStarted (the 401 going out; neither RequestReceived nor
 * ResponseComplete, as in kube), with `"user":{}` and `responseStatus` `{message, code: 401}`, the message
 * naming the credentials the request presented (audit/authentication-methods.ts).
 */
export function failedAuthenticationAudit(o: AuditFilterOptions): (ctx: AppContext) => void {
  const { checker, env } = o;
  return function auditFailedAuthentication(ctx) {
    const info = requestInfoOf(ctx);
    const config = checker.evaluate(undefined, info);
    env.metrics.policyLevel(config.level);
    if (config.level === 'None') return;
    const rec = newRecord(ctx, o, config, info, undefined);
    rec.fail({ message: failedAuthenticationMessage(ctx.req, queryOf(ctx)), code: 401 });
    rec.emit('ResponseStarted');
  };
}

function newRecord(ctx: AppContext, o: AuditFilterOptions, config: RequestAuditConfig, info: RequestInfo, user: UserInfo | undefined): RequestAudit {
  const state = ctx.state;
  return new RequestAudit(o.env, {
    config,
    auditID: state.requestId,
    requestURI: safeRequestUri(ctx.req.url ?? ctx.url),
    info,
    user,
    sourceIPs: sourceIPs(ctx.req),
    userAgent: ctx.req.headers['user-agent'] ?? '',
    sensitivity: sensitivityOf(info, o.naming),
    // Read at each stage: admission and the resource router add annotations after this filter.
    annotations: state,
  });
}

/** A Koa HTTP error recover answers with its own 4xx code (body parsers, `ctx.throw(400)`). */
function isClientHttpError(err: unknown): err is { status: number; message: unknown } {
  const e = err as { status?: unknown; expose?: unknown };
  return typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true;
}

/**
 * ResponseStarted when the response's headers are written by the handler (a watch flushes them at once).
 * Returns a function that removes the hook if it has not fired, saying whether it had not: headers that go
 * out after the chain returned are written by Koa, after ResponseComplete, so the filter reports them itself.
 */
function emitWhenHeadersGo(res: ServerResponse, rec: RequestAudit): () => boolean {
  const writeHead = res.writeHead;
  let fired = false;
  res.writeHead = function auditedWriteHead(this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    res.writeHead = writeHead;
    fired = true;
    rec.status(args[0]);
    rec.emit('ResponseStarted');
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
  return () => {
    if (fired) return false;
    res.writeHead = writeHead;
    fired = true;
    return true;
  };
}
