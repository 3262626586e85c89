/**
 * Issues service account tokens (TokenRequest): signs the claims kube writes with the signing key under
 * the first `--service-account-issuer`. The token itself is never logged.
 */
import { signJws } from './jws.js';
import type { SigningKey } from './keys.js';
import { tokenClaims, type BoundObjects, type ObjectRef } from './claims.js';

export interface TokenIssueRequest {
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  /** Not empty (TokenRequest defaults them to `--api-audiences`). */
  readonly audiences: readonly string[];
  readonly expirationSeconds: number;
  readonly bound: BoundObjects;
}

export interface IssuedToken {
  readonly token: string;
  /** Epoch ms of issuance, whole seconds (the token's `iat`). */
  readonly issuedAt: number;
  /** Epoch ms of expiry (the token's `exp`). */
  readonly expiresAt: number;
}

export interface ServiceAccountTokenIssuer {
  /** The `iss` of issued tokens. */
  readonly issuer: string;
  /** `--api-audiences`: what a TokenRequest without audiences gets (default: the issuer). */
  readonly apiAudiences: readonly string[];
  issue(req: TokenIssueRequest): IssuedToken;
}

export function tokenIssuer(o: { issuer: string; apiAudiences: readonly string[]; key: SigningKey; now?: () => number }): ServiceAccountTokenIssuer {
  const now = o.now ?? Date.now;
  return {
    issuer: o.issuer,
    apiAudiences: o.apiAudiences,
    issue(req) {
      // Whole seconds, so the status' expirationTimestamp equals the token's exp.
      const issuedAt = Math.floor(now() / 1000) * 1000;
      const claims = tokenClaims({ issuer: o.issuer, ...req, now: issuedAt });
      return { token: signJws(claims, o.key), issuedAt, expiresAt: issuedAt + req.expirationSeconds * 1000 };
    },
  };
}
