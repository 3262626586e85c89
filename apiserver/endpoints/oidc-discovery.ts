/**
 * Service account issuer discovery, as kube-apiserver serves it: `/.well-known/openid-configuration` (the
 * OpenID provider metadata of the service account issuer) and `/openid/v1/jwks` (the verification keys
 * as a JSON Web Key Set), so relying parties outside the cluster can verify service account tokens.
 *
 * As kube: installed only when the issuer (the first `--service-account-issuer`) is an `https` URL;
 * `jwks_uri` is `--service-account-jwks-uri` or `https://<the server's address>/openid/v1/jwks`; the
 * signing algorithms are those of the keys, sorted; responses are `Cache-Control: public,
 * max-age=3600`. They sit behind authentication and authorization like any path (kube's bootstrap role
 * system:service-account-issuer-discovery grants them).
 */
import type { VerificationKey } from '../auth/service-account/keys.js';
import type { Filter } from '../request/request-state.js';

export const openIdConfigurationPath = '/.well-known/openid-configuration';
export const jwksPath = '/openid/v1/jwks';
const cacheControl = 'public, max-age=3600';

export interface OidcDiscoveryOptions {
  readonly issuer: string;
  /** `--service-account-jwks-uri`. */
  readonly jwksUri?: string;
  /** `host:port` clients reach this server at (the jwks_uri default); read on first use. */
  readonly externalAddress: () => string;
  readonly keys: readonly VerificationKey[];
}

const isHttpsUrl = (s: string): boolean => {
  try {
    return new URL(s).protocol === 'https:';
  } catch {
    return false;
  }
};

/** One key as go-jose writes a JSONWebKey (field order included). */
export function jwk(k: VerificationKey): Record<string, unknown> {
  const j = k.publicKey.export({ format: 'jwk' }) as Record<string, string>;
  return j.kty === 'RSA'
    ? { use: 'sig', kty: 'RSA', kid: k.kid, alg: k.alg, n: j.n, e: j.e }
    : { use: 'sig', kty: 'EC', kid: k.kid, crv: j.crv, alg: k.alg, x: j.x, y: j.y };
}

/**
 * The discovery filter, or the reason it is not installed (an issuer or jwks URI that is not https, as
 * kube declines them; the caller logs it).
 */
export function oidcDiscoveryEndpoints(o: OidcDiscoveryOptions): Filter | string {
  if (!isHttpsUrl(o.issuer)) return `the service account issuer ${JSON.stringify(o.issuer)} is not an https URL: issuer discovery is not served`;
  if (o.jwksUri !== undefined && !isHttpsUrl(o.jwksUri)) return `--service-account-jwks-uri ${JSON.stringify(o.jwksUri)} is not an https URL: issuer discovery is not served`;
  const jwks = JSON.stringify({ keys: o.keys.map(jwk) });
  let configuration: string | undefined;
  const configurationBody = (): string =>
    (configuration ??= JSON.stringify({
      issuer: o.issuer,
      jwks_uri: o.jwksUri ?? `https://${o.externalAddress()}${jwksPath}`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [...new Set(o.keys.map((k) => k.alg))].sort(),
    }));
  return async function oidcDiscovery(ctx, next) {
    const body = ctx.path === openIdConfigurationPath ? configurationBody() : ctx.path === jwksPath ? jwks : undefined;
    if (body === undefined || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.status = 200;
    ctx.set('Content-Type', ctx.path === jwksPath ? 'application/jwk-set+json' : 'application/json');
    ctx.set('Cache-Control', cacheControl);
    ctx.body = body;
  };
}
