import { authenticateRequest, type RequestAuthenticator } from '../../auth/authenticator.js';
import { anonymousUser } from '../../auth/user-info.js';
import { unauthorized } from '../../errors/constructors.js';
import { isPublicPath } from '../public-paths.js';
import type { AppContext, Filter } from '../request-state.js';

export { bearerToken } from '../../auth/bearer-token.js';

export interface AuthenticationOptions {
  /** In kube's order (see auth/authenticator.ts). */
  readonly authenticators: readonly RequestAuthenticator[];
  /**
   * Whether a request without credentials proceeds as `system:anonymous` (authorization then decides).
   * Default: only on the public paths (health, version).
   */
  readonly anonymous?: (ctx: AppContext) => boolean;
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
  return async function authenticationFilter(ctx, next) {
    const { user, invalid } = await authenticateRequest(ctx.req, options.authenticators);
    if (user !== undefined) ctx.state.user = user;
    else if (!invalid && anonymous(ctx)) ctx.state.user = anonymousUser;
    else throw unauthorized();
    await next();
  };
}
