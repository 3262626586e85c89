import { authenticateRequest, type RequestAuthenticator } from '../../auth/authenticator.js';
import { anonymousUser } from '../../auth/user-info.js';
import { unauthorized } from '../../errors/constructors.js';
import type { AuthMetrics } from '../../metrics/auth-metrics.js';
import { isPublicPath } from '../public-paths.js';
import type { AppContext, Filter } from '../../request/request-state.js';

export { bearerToken } from '../../auth/bearer-token.js';

export interface AuthenticationOptions {
  /** In kube's order (see auth/authenticator.ts). */
  readonly authenticators: readonly RequestAuthenticator[];
  /**
   * Whether a request without credentials proceeds as `system:anonymous` (authorization then decides).
   * Default: only on the public paths (health, version).
   */
  readonly anonymous?: (ctx: AppContext) => boolean;
  /** `authentication_attempts` / `authentication_duration_seconds`, when request metrics are on. */
  readonly metrics?: AuthMetrics;
  /** Called just before a request is answered 401: the failed-authentication audit, when auditing is on. */
  readonly failed?: (ctx: AppContext) => void;
}

const publicOnly = (ctx: AppContext): boolean => isPublicPath(ctx.path);

/**
 * Resolves the caller and stores it in `ctx.state.user`.
 * - Credentials an authenticator accepts: that user (with `system:authenticated`).
 * - Credentials presented and accepted by none: 401 on every path, public ones included (kube-apiserver
 *   fails on invalid credentials before it looks at anonymous access).
 * - No credentials: `system:anonymous` where `anonymous` allows it, 401 elsewhere.
 */
export function authentication(options: AuthenticationOptions): Filter {
  const anonymous = options.anonymous ?? publicOnly;
  const metrics = options.metrics;
  return async function authenticationFilter(ctx, next) {
    const start = metrics === undefined ? 0 : performance.now();
    let result: Awaited<ReturnType<typeof authenticateRequest>>;
    try {
      result = await authenticateRequest(ctx.req, options.authenticators);
    } catch (err) {
      metrics?.authentication('error', (performance.now() - start) / 1000);
      throw err;
    }
    const { user, invalid } = result;
    if (user !== undefined) ctx.state.user = user;
    else if (!invalid && anonymous(ctx)) ctx.state.user = anonymousUser;
    // As kube: rejected credentials are an `error`, no credentials where anonymous is not allowed a `failure`.
    if (metrics !== undefined) metrics.authentication(ctx.state.user !== undefined ? 'success' : invalid ? 'error' : 'failure', (performance.now() - start) / 1000);
    if (ctx.state.user === undefined) {
      options.failed?.(ctx);
      throw unauthorized();
    }
    await next();
  };
}
