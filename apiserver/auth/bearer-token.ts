/**
 * Bearer tokens (`Authorization: Bearer <token>`) as one request authenticator over the token
 * authenticators (static, bootstrap, service account), in order. A request with a token that none of
 * them authenticates has invalid credentials (401), whatever else it carries.
 */
import type { IncomingMessage } from 'node:http';
import { InvalidCredentials, type BearerTokenAuthenticator, type RequestAuthenticator } from './authenticator.js';

/**
 * The bearer token of `Authorization: Bearer <token>`, read as kube-apiserver reads it: the header split
 * on single spaces into at most three parts, the scheme case-insensitive, the token the second part
 * (anything after it ignored). Undefined when the request carries none (no header, another scheme, an
 * empty token): as in Kubernetes, that is "no credentials", not a failure.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parts = header.trim().split(' ', 3);
  if (parts.length < 2 || parts[0]!.toLowerCase() !== 'bearer' || parts[1] === '') return undefined;
  return parts[1];
}

export function bearerTokenAuthenticator(tokens: readonly BearerTokenAuthenticator[]): RequestAuthenticator {
  return {
    name: 'token',
    async authenticate(req: IncomingMessage) {
      const token = bearerToken(req.headers.authorization);
      if (token === undefined) return undefined;
      for (const t of tokens) {
        try {
          const user = await t.authenticateToken(token);
          if (user !== undefined) {
            // Nothing downstream (logs, proxies) may see the credential once it is used.
            delete req.headers.authorization;
            return user;
          }
        } catch (err) {
          if (!(err instanceof InvalidCredentials)) throw err;
        }
      }
      throw new InvalidCredentials(`no token authenticator accepted the token`);
    },
  };
}
