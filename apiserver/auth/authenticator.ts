/**
 * Request authentication as a union of authenticators, in kube-apiserver's order (request header proxy,
 * x509 client certificates, bearer tokens: static, bootstrap, service account; then anonymous). Each
 * authenticator looks at the credentials of its own kind and answers one of:
 * - `undefined`: no credentials of my kind (the next one is asked);
 * - a `UserInfo`: authenticated (the union stops here);
 * - throws `InvalidCredentials`: my kind of credentials was presented and is not valid. The union keeps
 *   asking the others (a bearer token may be a service account token rather than a static one), and
 *   answers 401 when none authenticated.
 * Anonymous is not an authenticator: the filter falls back to it only when no authenticator saw any
 * credentials at all (an invalid token is 401 even where anonymous is allowed).
 */
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from './user-info.js';

/** Credentials of the authenticator's kind were presented and are not valid; `reason` is for logs only. */
export class InvalidCredentials extends Error {}

export interface RequestAuthenticator {
  /** A short name for logs and metrics (`x509`, `token`, `requestheader`). */
  readonly name: string;
  authenticate(req: IncomingMessage): UserInfo | undefined | Promise<UserInfo | undefined>;
}

/** A bearer token authenticator: the same contract, given the token from `Authorization: Bearer`. */
export interface BearerTokenAuthenticator {
  readonly name: string;
  /**
   * Tokens with audiences (service account JWTs) must name one the server accepts (`--api-audiences`,
   * default the service account issuer); a token for none of them is invalid.
   */
  authenticateToken(token: string): UserInfo | undefined | Promise<UserInfo | undefined>;
  /**
   * Optional, for tokens that carry audiences (service account JWTs); TokenReview calls it. Authenticates
   * the token for any of `audiences` (instead of the server's) and says which of them it is valid for
   * (TokenReview's `status.audiences`); undefined or InvalidCredentials as `authenticateToken`. An
   * authenticator without it is audience-agnostic (static, bootstrap tokens): a review accepts it only for
   * the server's own audiences, as kube wraps such authenticators.
   */
  authenticateTokenForAudiences?(token: string, audiences: readonly string[]): TokenForAudiences | undefined | Promise<TokenForAudiences | undefined>;
}

/** A token authenticated for some audiences: the user and the requested audiences the token is for (not empty). */
export interface TokenForAudiences {
  readonly user: UserInfo;
  readonly audiences: readonly string[];
}

export interface AuthenticationResult {
  /** The user, or undefined when the request carried no credentials any authenticator recognised. */
  readonly user: UserInfo | undefined;
  /** Some authenticator saw credentials of its kind and found them invalid (and none authenticated). */
  readonly invalid: boolean;
}

/** Asks each authenticator in order; the first user wins. */
export async function authenticateRequest(req: IncomingMessage, authenticators: readonly RequestAuthenticator[]): Promise<AuthenticationResult> {
  let invalid = false;
  for (const a of authenticators) {
    try {
      const user = await a.authenticate(req);
      if (user !== undefined) return { user, invalid: false };
    } catch (err) {
      if (!(err instanceof InvalidCredentials)) throw err;
      invalid = true;
    }
  }
  return { user: undefined, invalid };
}
