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
  /** The token's validity (its `exp` - `iat`). */
  readonly expirationSeconds: number;
  readonly bound: BoundObjects;
  /** An extended token's requested validity (the `warnafter` claim); absent otherwise. */
  readonly warnAfterSeconds?: number;
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
  /** `--service-account-max-token-expiration` in seconds; 0: no cap. TokenRequest caps to it. */
  readonly maxExpirationSeconds: number;
  /** `--service-account-extend-token-expiration` (default true). */
  readonly extendExpiration: boolean;
  issue(req: TokenIssueRequest): IssuedToken;
}

export interface TokenIssuerOptions {
  readonly issuer: string;
  readonly apiAudiences: readonly string[];
  readonly key: SigningKey;
  /** Default 0 (no cap). */
  readonly maxExpirationSeconds?: number;
  /** Default true. */
  readonly extendExpiration?: boolean;
  readonly now?: () => number;
}

export function tokenIssuer(o: TokenIssuerOptions): ServiceAccountTokenIssuer {
  const now = o.now ?? Date.now;
  return {
    issuer: o.issuer,
    apiAudiences: o.apiAudiences,
    maxExpirationSeconds: o.maxExpirationSeconds ?? 0,
    extendExpiration: o.extendExpiration ?? true,
    issue(req) {
      // Whole seconds, so the status' expirationTimestamp equals the token's exp.
      const issuedAt = Math.floor(now() / 1000) * 1000;
      const claims = tokenClaims({ issuer: o.issuer, ...req, now: issuedAt });
      return { token: signJws(claims, o.key), issuedAt, expiresAt: issuedAt + req.expirationSeconds * 1000 };
    },
  };
}

/**
 * kube's start-up warnings about the expiration flags: with the extension on, a cap below 3607 s keeps
 * projected tokens from being extended at all, and a cap below a year is exceeded by extended tokens.
 */
export function expirationSettingWarnings(maxExpirationSeconds: number, extendExpiration: boolean): string[] {
  if (!extendExpiration || maxExpirationSeconds === 0) return [];
  const out: string[] = [];
  const max = goDuration(maxExpirationSeconds);
  if (maxExpirationSeconds < 3607) {
    out.push(`service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than 3607 seconds (currently ${max})`);
  }
  if (maxExpirationSeconds < 31_536_000) {
    out.push(`service-account-extend-token-expiration is true, enabling tokens valid up to 31536000 seconds, which is longer than service-account-max-token-expiration set to ${max}`);
  }
  return out;
}

/** Whole seconds as Go prints a time.Duration (`1h0m0s`, `90m` = `1h30m0s`). */
function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`;
}
