/**
 * The bootstrap token Secret format, shared by the authenticator and the `tokencleaner` controller (kube
 * 1.32's bootstrap API constants and secret helpers). A token `<id>.<secret>` lives in the Secret
 * `bootstrap-token-<id>` of the system namespace, of type `bootstrap.<legacy domain>/token`
 * (`bootstrap.kubernetes.io/token` under `--group-domain=k8s.io`).
 *
 * Data keys (base64 in `data`, as every Secret): `token-id`, `token-secret`, `expiration` (RFC 3339),
 * `usage-bootstrap-authentication` (`"true"` to authenticate), `auth-extra-groups` (comma-separated,
 * each `system:bootstrappers:...`), `description`.
 */
import type { KubeObject } from '../api/object.js';
import type { Naming } from '../naming/naming.js';
import { legacyDomain } from '../registry/kinds/shared/legacy-domain.js';

export const bootstrapTokenSecretPrefix = 'bootstrap-token-';
export const bootstrapUserPrefix = 'system:bootstrap:';
export const bootstrapDefaultGroup = 'system:bootstrappers';

export const tokenIdKey = 'token-id';
export const tokenSecretKey = 'token-secret';
export const expirationKey = 'expiration';
export const usageAuthenticationKey = 'usage-bootstrap-authentication';
export const extraGroupsKey = 'auth-extra-groups';

/** `bootstrap.kubernetes.io/token` (k8s.io) or `bootstrap.<domain>/token`. */
export const bootstrapTokenSecretType = (naming: Naming): string => `bootstrap.${legacyDomain(naming)}/token`;

const tokenPattern = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
/** kube's BootstrapGroupPattern. */
const groupPattern = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** `<id>.<secret>` split, or undefined when the token does not have the bootstrap token form. */
export function parseBootstrapToken(token: string): { readonly id: string; readonly secret: string } | undefined {
  const m = tokenPattern.exec(token);
  return m === null ? undefined : { id: m[1]!, secret: m[2]! };
}

/** The decoded value of `key` in the Secret's `data`, '' when missing (kube's GetData). */
export function secretData(secret: KubeObject, key: string): string {
  const data = secret.data;
  if (data === null || typeof data !== 'object') return '';
  const v = (data as Record<string, unknown>)[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Epoch milliseconds of an RFC 3339 time as Go's `time.Parse(time.RFC3339, ...)` accepts it (fractional
 * seconds allowed, `Z` or a numeric offset), or undefined when it does not parse.
 */
export function parseRfc3339(text: string): number | undefined {
  const m = rfc3339.exec(text);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const dayMs = Date.UTC(y, mo - 1, d);
  // A day past the month's end (Feb 30) rolls over in Date.UTC; Go refuses it.
  if (new Date(dayMs).getUTCDate() !== d) return undefined;
  let offsetMin = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const frac = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  return dayMs + ((h * 60 + mi) * 60 + s) * 1000 + frac - offsetMin * 60_000;
}

/**
 * When the token expires: `undefined` without an `expiration` (never), else epoch ms. An expiration that
 * does not parse counts as already expired (`-Infinity`), as kube treats it.
 */
export function tokenExpiration(secret: KubeObject): number | undefined {
  const text = secretData(secret, expirationKey);
  if (text === '') return undefined;
  return parseRfc3339(text) ?? -Infinity;
}

/** Expired at `now` (kube: ttl <= 0). */
export function isTokenExpired(secret: KubeObject, now: number): boolean {
  const exp = tokenExpiration(secret);
  return exp !== undefined && exp - now <= 0;
}

/**
 * `system:bootstrappers` plus the Secret's extra groups, deduplicated and sorted (kube's GetGroups), or
 * an error naming the first group that is not `system:bootstrappers:<name>`.
 */
export function tokenGroups(secret: KubeObject): { readonly groups: readonly string[] } | { readonly error: string } {
  const groups = new Set([bootstrapDefaultGroup]);
  const extra = secretData(secret, extraGroupsKey);
  if (extra !== '') {
    for (const g of extra.split(',')) {
      if (!groupPattern.test(g)) return { error: `bootstrap group ${JSON.stringify(g)} is invalid (must match ${groupPattern.source})` };
      groups.add(g);
    }
  }
  return { groups: [...groups].sort() };
}
