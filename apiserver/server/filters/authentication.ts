import type { TokenAuthenticator } from '../../auth/token-authenticator.js';
import { anonymousUser } from '../../auth/user-info.js';
import { unauthorized } from '../../errors/constructors.js';
import { isPublicPath } from '../public-paths.js';
import type { Filter } from '../request-state.js';

export interface AuthenticationOptions {
  readonly tokens: TokenAuthenticator;
}

/**
 * The bearer token from `Authorization: Bearer <token>` (scheme case-insensitive), or undefined when the
 * request carries none (no header, another scheme, an empty token): as in Kubernetes, that is "no
 * credentials", not a failure.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/**
 * Resolves the caller and stores it in `ctx.state.user`.
 * - A token that resolves: that user (with `system:authenticated`); the Authorization header is then
 *   removed so nothing downstream (logs, proxies) can see it.
 * - A token that does not resolve: 401 on every path, public ones included (kube-apiserver fails on
 *   invalid credentials before it looks at anonymous access).
 * - No credentials: `system:anonymous` on the public paths (health, version), 401 elsewhere. The
 *   `--anonymous-auth` flag, when added, widens this; authorization then decides what anonymous may do.
 */
export function authentication(options: AuthenticationOptions): Filter {
  return async function authenticationFilter(ctx, next) {
    const token = bearerToken(ctx.req.headers.authorization);
    if (token !== undefined) {
      const user = options.tokens.authenticate(token);
      if (user === undefined) throw unauthorized();
      ctx.state.user = user;
      delete ctx.req.headers.authorization;
    } else if (isPublicPath(ctx.path)) {
      ctx.state.user = anonymousUser;
    } else {
      throw unauthorized();
    }
    await next();
  };
}
