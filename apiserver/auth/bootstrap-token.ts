/**
 * Bootstrap tokens (`--enable-bootstrap-token-auth`) as a bearer token authenticator, after kube 1.32's
 * bootstrap token authenticator. A token of the form `[a-z0-9]{6}.[a-z0-9]{16}` is looked up as the
 * Secret `bootstrap-token-<id>` in the system namespace, from the secrets' watch cache (never a store
 * read per request).
 *
 * Every failure is "no opinion" (undefined), as kube answers it: a malformed token, no such Secret, a
 * Secret being deleted, of another type or without data, a secret part that differs (compared in constant
 * time), a `token-id` that differs, an expired token (judged now, at authentication time), one not marked
 * `usage-bootstrap-authentication: "true"`, or an extra group outside `system:bootstrappers:`. The bearer
 * token union then answers 401 when no other token authenticator accepts the token.
 *
 * The user is `system:bootstrap:<id>` with `system:bootstrappers`, the extra groups (sorted, unique) and
 * `system:authenticated`; no uid.
 */
import { timingSafeEqual } from 'node:crypto';
import type { KubeObject } from '../api/object.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import type { BearerTokenAuthenticator } from './authenticator.js';
import {
  bootstrapTokenSecretPrefix,
  bootstrapUserPrefix,
  isTokenExpired,
  parseBootstrapToken,
  secretData,
  tokenGroups,
  tokenIdKey,
  tokenSecretKey,
  usageAuthenticationKey,
} from './bootstrap-token-secret.js';
import { withAuthenticatedGroup, type UserInfo } from './user-info.js';

export interface BootstrapTokenOptions {
  /** `bootstrap.kubernetes.io/token` or `bootstrap.<domain>/token` (bootstrapTokenSecretType). */
  readonly secretType: string;
  /** The Secret `name` of the system namespace (from the watch cache); undefined when there is none. */
  readonly secret: (name: string) => Promise<KubeObject | undefined>;
  /** Epoch ms; default Date.now. */
  readonly now?: () => number;
  /**
   * Why a well-formed token was refused, for debug logs. Names the Secret, never its values or the
   * token's secret part.
   */
  readonly onRejected?: (secretName: string, reason: string) => void;
}

/** Compares in time independent of where the strings differ (kube: subtle.ConstantTimeCompare). */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  // Lengths are not secret (the presented part is always 16 characters); unequal lengths never match.
  return x.length === y.length && timingSafeEqual(x, y);
}

export function bootstrapTokenAuthenticator(o: BootstrapTokenOptions): BearerTokenAuthenticator {
  const now = o.now ?? Date.now;
  const reject = (name: string, reason: string): undefined => {
    o.onRejected?.(name, reason);
    return undefined;
  };
  return {
    name: 'bootstrap-token',
    async authenticateToken(token: string): Promise<UserInfo | undefined> {
      const parsed = parseBootstrapToken(token);
      if (parsed === undefined) return undefined;
      const name = bootstrapTokenSecretPrefix + parsed.id;
      let secret: KubeObject | undefined;
      try {
        secret = await o.secret(name);
      } catch (err) {
        // The cache not loaded yet (or stopped): the token cannot be checked, so it does not authenticate.
        return reject(name, `lookup failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (secret === undefined) return reject(name, 'no such secret');
      const meta = secret.metadata as { deletionTimestamp?: unknown } | undefined;
      if (meta?.deletionTimestamp !== undefined && meta.deletionTimestamp !== null) return reject(name, 'is deleted and awaiting removal');
      if (secret.type !== o.secretType || secret.data === undefined || secret.data === null) {
        return reject(name, `has invalid type, expected ${o.secretType}`);
      }
      if (!sameSecret(secretData(secret, tokenSecretKey), parsed.secret)) return reject(name, `has invalid value for key ${tokenSecretKey}`);
      if (secretData(secret, tokenIdKey) !== parsed.id) return reject(name, `has invalid value for key ${tokenIdKey}`);
      if (isTokenExpired(secret, now())) return reject(name, 'has expired');
      if (secretData(secret, usageAuthenticationKey) !== 'true') return reject(name, `not marked ${usageAuthenticationKey}=true`);
      const groups = tokenGroups(secret);
      if ('error' in groups) return reject(name, groups.error);
      return withAuthenticatedGroup({ name: bootstrapUserPrefix + parsed.id, uid: '', groups: groups.groups });
    },
  };
}

/**
 * Secrets of `namespace` read from the registry's watch cache at any revision it holds (what kube's
 * informer lister gives), so authentication never reads the store.
 */
export function cachedSecrets(registry: GenericRegistry, namespace: string): (name: string) => Promise<KubeObject | undefined> {
  const cache = registry.context.cache;
  if (cache === undefined) throw new Error('bootstrap token authentication needs the secrets watch cache');
  return async (name) => (await cache.get(registry.context.keys.objectKey(namespace, name), 0)).object?.object;
}
