import type { AuthorizationAttributes, Authorizer } from '../../authorization/authorizer.js';
import { forbiddenError } from '../../authorization/forbidden.js';
import { requestAttributes } from '../../authorization/request-attributes.js';
import type { RuleResolver } from '../../authorization/rbac-index.js';
import { internalError } from '../../errors/constructors.js';
import type { AuthMetrics } from '../../metrics/auth-metrics.js';
import { queryOf, requestInfoOf, type Filter } from '../../request/request-state.js';

export interface AuthorizationOptions {
  /** `--authorization-mode` as one union (authorization/authorization-modes.ts). */
  readonly authorizer: Authorizer;
  /** The rules users hold (RBAC), for the escalation checks of RBAC writes; none without RBAC. */
  readonly ruleResolver?: RuleResolver;
  /** `authorization_attempts_total` / `authorization_duration_seconds`, when request metrics are on. */
  readonly metrics?: AuthMetrics;
}

/**
 * Authorizes every request, whatever its path (API, discovery, OpenAPI, health, version, metrics): the
 * user after impersonation (`ctx.state.user`) and the request info become the attributes; unless an
 * authorizer allows them, the answer is 403 Forbidden in Kubernetes' words (authorization/forbidden.ts).
 * Anonymous requests are authorized like any other (a forbidden anonymous request is a 403, as
 * kube-apiserver answers it; only requests that authentication refused are 401).
 *
 * Leaves `ctx.state.requestInfo` parsed, and `ctx.state.access` (the authorizer and rule resolver) for the
 * RBAC kinds' escalation checks deeper in the chain.
 */
export function authorization(options: AuthorizationOptions): Filter {
  const access = Object.freeze({ authorizer: options.authorizer, ruleResolver: options.ruleResolver });
  return async function authorizationFilter(ctx, next) {
    const user = ctx.state.user;
    if (user === undefined) throw internalError('no user on the request');
    const query = queryOf(ctx);
    const info = requestInfoOf(ctx);
    const attributes: AuthorizationAttributes = requestAttributes(user, info, ctx.method, query);
    const metrics = options.metrics;
    const start = metrics === undefined ? 0 : performance.now();
    let result: ReturnType<Authorizer['authorize']>;
    try {
      result = options.authorizer.authorize(attributes);
    } catch (err) {
      metrics?.authorization('error', (performance.now() - start) / 1000);
      throw err;
    }
    if (metrics !== undefined) {
      metrics.authorization(result.decision === 'allow' ? 'allowed' : result.decision === 'deny' ? 'denied' : 'no-opinion', (performance.now() - start) / 1000);
    }
    ctx.state.audit?.authorized(result.decision === 'allow', result.reason);
    if (result.decision !== 'allow') throw forbiddenError(attributes, result.reason);
    ctx.state.access = access;
    await next();
  };
}
