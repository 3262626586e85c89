import { createHash, timingSafeEqual } from 'node:crypto';
import type { BearerTokenAuthenticator } from './authenticator.js';
import type { TokenEntry } from './token-file.js';
import { withAuthenticatedGroup, type UserInfo } from './user-info.js';

/** Resolves a bearer token to a user; undefined when the token is unknown. */
export interface TokenAuthenticator extends BearerTokenAuthenticator {
  authenticateToken(token: string): UserInfo | undefined;
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * A static token table. Lookup is by SHA-256 digest, then a constant-time compare of the digests: the
 * time taken depends on the digest of the presented token, never on how many leading characters of a
 * real token it matches, so tokens cannot be guessed character by character. Users get
 * `system:authenticated` added.
 */
export function staticTokenAuthenticator(entries: readonly Pick<TokenEntry, 'token' | 'user'>[]): TokenAuthenticator {
  const table = new Map<string, { readonly digest: Buffer; readonly user: UserInfo }>();
  for (const e of entries) {
    const d = digest(e.token);
    table.set(d.toString('hex'), { digest: d, user: withAuthenticatedGroup(e.user) });
  }
  return {
    name: 'static-token',
    authenticateToken(token) {
      const d = digest(token);
      const hit = table.get(d.toString('hex'));
      return hit !== undefined && timingSafeEqual(hit.digest, d) ? hit.user : undefined;
    },
  };
}
