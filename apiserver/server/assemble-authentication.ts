/**
 * The server's authentication, assembled from its configuration in two steps, as kube-apiserver builds its
 * authenticator union:
 *
 * 1. `assembleAuthentication` (before the store opens, so a bad setting fails fast): static tokens (or the
 *    generated admin token), `--authentication-config` (followed while running) and the anonymous rule,
 *    the request-header proxy and x509 client certificates (their CA bundles followed while running), and
 *    the service account keys and token issuer.
 * 2. `resourceTokenAuthenticators` (once the resources are served): the token authenticators that read
 *    objects — service account tokens (after static tokens) and bootstrap tokens — in kube's order.
 *
 * Whatever keeps running (file watchers) registers its stop in `cleanups`.
 */
import type { Logger } from '../log/logger.js';
import { adminUser, ensureAdminToken } from '../auth/admin-credentials.js';
import { anonymousAllowed, resolveAnonymous } from '../auth/anonymous.js';
import type { BearerTokenAuthenticator, RequestAuthenticator } from '../auth/authenticator.js';
import { loadAuthenticationConfigFile, type AuthenticationConfiguration } from '../auth/authentication-config.js';
import { followAuthenticationConfig } from '../auth/authentication-config-reload.js';
import { bootstrapTokenAuthenticator, cachedSecrets } from '../auth/bootstrap-token.js';
import { bootstrapTokenSecretType } from '../auth/bootstrap-token-secret.js';
import { loadCaBundleFile, staticCaBundle, type CaBundle, type ReloadingCaBundle } from '../auth/ca-bundle.js';
import { requestHeaderAuthenticator } from '../auth/request-header.js';
import { cachedLookup } from '../auth/service-account/cached-lookup.js';
import { loadServiceAccountKeys, type ServiceAccountKeys } from '../auth/service-account/service-account-keys.js';
import { serviceAccountTokenAuthenticator } from '../auth/service-account/token-authenticator.js';
import { expirationSettingWarnings, tokenIssuer, type ServiceAccountTokenIssuer } from '../auth/service-account/token-issuer.js';
import { staticTokenAuthenticator, type TokenAuthenticator } from '../auth/token-authenticator.js';
import { loadTokenFile } from '../auth/token-file.js';
import { x509Authenticator } from '../auth/x509-authenticator.js';
import type { AuthorizationMode } from '../authorization/authorization-modes.js';
import { defaultServiceAccounts, type ServerConfig, type ServiceAccountConfig } from '../config/server-config.js';
import type { ServedResources } from '../registry/served-resources.js';
import type { Naming } from '../naming/naming.js';

export interface Authentication {
  /** The static tokens of `--token-auth-file`, or the generated admin token's. */
  readonly staticTokens: TokenAuthenticator;
  /** Set when no token file was given: the generated admin's token (written to the admin kubeconfig). */
  readonly adminToken: string | undefined;
  /** Request-header proxy, then x509: in kube's order, before bearer tokens. */
  readonly requestAuthenticators: readonly RequestAuthenticator[];
  /** The CA bundles the TLS server names when it asks for a client certificate. */
  readonly clientCas: readonly CaBundle[];
  /** Whether a request without credentials to `path` proceeds as `system:anonymous` (current config). */
  anonymous(path: string): boolean;
  readonly serviceAccounts: ServiceAccountConfig;
  readonly serviceAccountKeys: ServiceAccountKeys;
  readonly tokenIssuer: ServiceAccountTokenIssuer;
}

export async function assembleAuthentication(
  config: ServerConfig,
  names: Naming,
  authorizationModes: readonly AuthorizationMode[],
  logger: Logger,
  cleanups: (() => Promise<void>)[],
  /**
   * Without --client-ca-file: the CAs of the csrsigning controller's client signers, so the certificates it
   * issues authenticate in the one-command setup. An explicit --client-ca-file is used as given (kube's rule).
   */
  defaultClientCaPem?: string,
): Promise<Authentication> {
  let staticTokens: TokenAuthenticator;
  let adminToken: string | undefined;
  if (config.tokenAuthFile !== undefined) {
    const entries = await loadTokenFile(config.tokenAuthFile);
    staticTokens = staticTokenAuthenticator(entries);
    logger.info({ file: config.tokenAuthFile, tokens: entries.length }, 'loaded token file');
  } else {
    adminToken = await ensureAdminToken(config.dataDir);
    staticTokens = staticTokenAuthenticator([{ token: adminToken, user: adminUser }]);
  }

  const authConfig = config.authenticationConfigFile === undefined
    ? undefined
    : await loadAuthenticationConfigFile(config.authenticationConfigFile, names, config.features);
  const anonymousOf = (file: AuthenticationConfiguration | undefined) =>
    anonymousAllowed(resolveAnonymous({ flag: config.anonymousAuth, file, authorizationModes, onWarning: (message) => logger.warn(message) }));
  let anonymousPath = anonymousOf(authConfig?.config);
  if (config.authenticationConfigFile !== undefined && authConfig !== undefined) {
    // Re-read on change (kube 1.30+); the anonymous section may not change without a restart.
    const reloading = followAuthenticationConfig({
      file: config.authenticationConfigFile,
      initialText: authConfig.text,
      initial: authConfig.config,
      naming: names,
      features: config.features,
      log: logger,
      onReloaded: (c) => {
        anonymousPath = anonymousOf(c);
      },
    });
    cleanups.push(async () => reloading.stop());
  }

  const requestAuthenticators: RequestAuthenticator[] = [];
  const clientCas: CaBundle[] = [];
  /** Followed while the server runs (ca-bundle.ts): a new bundle is used at once, a broken one is refused. */
  const caBundleFile = async (purpose: string, file: string): Promise<ReloadingCaBundle> => {
    const bundle = await loadCaBundleFile({
      purpose,
      file,
      onLoaded: (b, certificates) => logger.info({ name: b.name, certificates }, 'loaded a new CA bundle'),
      onRefused: (b, err) => logger.warn({ name: b.name, err: err.message }, 'CA bundle not reloaded, the previous one stays in use'),
    });
    cleanups.push(async () => bundle.stop());
    clientCas.push(bundle);
    return bundle;
  };
  if (config.requestHeader !== undefined) {
    const rh = config.requestHeader;
    requestAuthenticators.push(requestHeaderAuthenticator({ ...rh, ca: await caBundleFile('request-header', rh.clientCaFile) }));
  }
  if (config.clientCaFile !== undefined) {
    const ca = await caBundleFile('client-ca-bundle', config.clientCaFile);
    requestAuthenticators.push(x509Authenticator({ ca, onRejected: (reason) => logger.debug({ reason }, 'client certificate rejected') }));
  } else if (defaultClientCaPem !== undefined && defaultClientCaPem !== '') {
    const ca = staticCaBundle('client-ca-bundle::cluster-signing', defaultClientCaPem);
    clientCas.push(ca);
    requestAuthenticators.push(x509Authenticator({ ca, onRejected: (reason) => logger.debug({ reason }, 'client certificate rejected') }));
  }

  // Service account tokens: signed with the signing key under the first issuer, verified with every key.
  const serviceAccounts = config.serviceAccounts ?? defaultServiceAccounts;
  const serviceAccountKeys = await loadServiceAccountKeys(serviceAccounts, config.dataDir);
  const issuer = tokenIssuer({
    issuer: serviceAccounts.issuers[0]!,
    apiAudiences: serviceAccounts.apiAudiences,
    key: serviceAccountKeys.signingKey,
    maxExpirationSeconds: serviceAccounts.maxTokenExpirationSeconds ?? 0,
    extendExpiration: serviceAccounts.extendTokenExpiration ?? true,
  });
  for (const w of expirationSettingWarnings(issuer.maxExpirationSeconds, issuer.extendExpiration)) logger.warn(w);

  return {
    staticTokens,
    adminToken,
    requestAuthenticators,
    clientCas,
    anonymous: (path) => anonymousPath(path),
    serviceAccounts,
    serviceAccountKeys,
    tokenIssuer: issuer,
  };
}

/**
 * The token authenticators that read served objects, in kube's order after static tokens: service account
 * tokens (when ServiceAccounts are served), then bootstrap tokens (with `--enable-bootstrap-token-auth`).
 */
export function resourceTokenAuthenticators(
  auth: Authentication,
  resources: ServedResources,
  config: ServerConfig,
  names: Naming,
  logger: Logger,
): BearerTokenAuthenticator[] {
  const out: BearerTokenAuthenticator[] = [];
  const lookupOf = (resource: string) => {
    const r = resources.lookup('', 'v1', resource);
    return r === undefined ? undefined : cachedLookup(r.registry);
  };
  const serviceAccounts = lookupOf('serviceaccounts');
  const secrets = resources.lookup('', 'v1', 'secrets');
  if (serviceAccounts !== undefined) {
    const pods = lookupOf('pods');
    const nodes = lookupOf('nodes');
    out.push(serviceAccountTokenAuthenticator({
      issuers: auth.serviceAccounts.issuers,
      keys: auth.serviceAccountKeys.verificationKeys,
      apiAudiences: auth.serviceAccounts.apiAudiences,
      serviceAccounts,
      ...(secrets === undefined ? {} : { secrets: cachedLookup(secrets.registry) }),
      ...(pods === undefined ? {} : { pods }),
      ...(nodes === undefined ? {} : { nodes }),
      onRejected: (reason) => logger.debug({ reason }, 'service account token rejected'),
    }));
  }
  if (config.enableBootstrapTokenAuth === true && secrets !== undefined) {
    out.push(bootstrapTokenAuthenticator({
      secretType: bootstrapTokenSecretType(names),
      secret: cachedSecrets(secrets.registry, names.systemNamespace),
      onRejected: (secret, reason) => logger.debug({ secret, reason }, 'bootstrap token rejected'),
    }));
  }
  return out;
}
