import { isIP } from 'node:net';
import { naming, type Naming } from '../naming/naming.js';
import { groupOf } from '../registry/kind-strategy.js';
import { builtinKinds } from '../registry/kinds/index.js';
import { checkRuntimeConfig, parseRuntimeConfig } from './runtime-config.js';
import { resolve } from 'node:path';
import { defaultFeatureGates, type FeatureGates } from '../features/feature-gates.js';
import { parseFeatureGatesFlag } from './feature-gates-flag.js';
import { FlagError } from './flag-error.js';
import { parseControllers, type ControllerSelection } from './controllers-flag.js';
import { parseEnabledAdmissionPlugins } from './admission-plugins-flag.js';
import { parseNodePortRange, parseServiceClusterIPRanges, type NodePortRangeConfig } from './service-range-flags.js';
import type { ServiceIPRange } from '../registry/kinds/core/service-allocation/ip-range.js';
import { checkAuthorizationModes, type AuthorizationMode } from '../authorization/authorization-modes.js';
import type { ParsedFlags } from './parse-flags.js';
import { clusterSigningConfig } from './cluster-signing-flags.js';
import { auditConfig, type AuditConfig } from './audit-flags.js';
import type { ClusterSigningConfig } from '../tls/signing-material.js';
import { readTracingConfigFile, TracingConfigError, type TracingConfig } from '../tracing/tracing-config.js';
import { EncryptionConfigError, readEncryptionConfigFile } from '../encryption/encryption-config.js';
import { etcdClientTlsConfig } from './etcd-tls-flags.js';
import { tlsServingConfig, type TlsServingConfig } from './tls-serving-flags.js';
import { mixedEndpointSchemes, type EtcdClientTls } from '../../storage/etcd/client-tls.js';

/** Where the API state lives. */
export type StorageConfig =
  | { readonly backend: 'memory' }
  | {
      readonly backend: 'etcd';
      readonly endpoints: readonly string[];
      /** `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile` (absolute, checked); undefined: none given. */
      readonly tls?: EtcdClientTls;
    };

/** `--requestheader-*`. */
export interface RequestHeaderConfig {
  readonly clientCaFile: string;
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
  readonly uidHeaders: readonly string[];
}

/** `--service-account-*` and `--api-audiences`. */
export interface ServiceAccountConfig {
  /** `--service-account-key-file` (absolute); empty with no signing key file: the generated key. */
  readonly keyFiles: readonly string[];
  /** `--service-account-signing-key-file` (absolute); undefined: the generated key. */
  readonly signingKeyFile?: string;
  /** `--service-account-issuer`, not empty: the first one issues. */
  readonly issuers: readonly string[];
  /** `--service-account-jwks-uri`. */
  readonly jwksUri?: string;
  /** `--api-audiences`; default the first issuer. */
  readonly apiAudiences: readonly string[];
  /** `--service-account-max-token-expiration` in whole seconds; absent: no cap. */
  readonly maxTokenExpirationSeconds?: number;
  /** `--service-account-extend-token-expiration`; absent: true. */
  readonly extendTokenExpiration?: boolean;
}

/** kube's in-cluster issuer, the default of `--service-account-issuer`. */
export const defaultServiceAccountIssuer = 'https://kubernetes.default.svc.cluster.local';

export const defaultServiceAccounts: ServiceAccountConfig = Object.freeze({
  keyFiles: [],
  issuers: [defaultServiceAccountIssuer],
  apiAudiences: [defaultServiceAccountIssuer],
});

/** What the server is started with: validated, typed, with absolute paths. Built from flags by `buildConfig`. */
export interface ServerConfig {
  readonly bindAddress: string;
  /** 0 picks a free port (tests). */
  readonly securePort: number;
  /** A user-provided serving certificate; undefined: generate a self-signed CA + cert into `dataDir`. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** Extra SANs for the generated serving certificate. */
  readonly tlsSans: readonly string[];
  /** `--tls-min-version`, `--tls-cipher-suites`, `--tls-sni-cert-key`; undefined: TLS 1.2, Go's suites, no SNI pairs. */
  readonly tlsServing?: TlsServingConfig;
  /** undefined: no authentication flag was given, so an admin token + kubeconfig are generated. */
  readonly tokenAuthFile?: string;
  /** `--anonymous-auth` when given on the command line (undefined: not given, default true). */
  readonly anonymousAuth?: boolean;
  /** `--authentication-config` (absolute). */
  readonly authenticationConfigFile?: string;
  /** `--enable-bootstrap-token-auth` (also runs the tokencleaner controller). Default false. */
  readonly enableBootstrapTokenAuth?: boolean;
  /** The authenticating proxy; undefined without `--requestheader-client-ca-file`. */
  readonly requestHeader?: RequestHeaderConfig;
  /** `--client-ca-file` (absolute); undefined: no x509 client certificate authentication. */
  readonly clientCaFile?: string;
  /** `--cluster-signing-*` (csrsigning); undefined: the defaults (a generated signing CA, 8760h). */
  readonly clusterSigning?: ClusterSigningConfig;
  /** `--proxy-client-cert-file` / `--proxy-client-key-file` (absolute): presented to aggregated API backends. */
  readonly proxyClient?: { readonly certFile: string; readonly keyFile: string };
  /** Service account tokens: keys, issuers, audiences. Default: `defaultServiceAccounts`. */
  readonly serviceAccounts?: ServiceAccountConfig;
  /** `--authorization-mode`, checked; undefined: `['RBAC']`. */
  readonly authorizationModes?: readonly AuthorizationMode[];
  readonly storage: StorageConfig;
  /** Prefix of every store key (`/registry`). */
  readonly storagePrefix: string;
  /** Compaction period; 0 disables the compactor. */
  readonly compactionIntervalMs: number;
  /** `--event-ttl`: events expire this long after their last write (whole seconds count; 0: never). */
  readonly eventTtlMs: number;
  readonly dataDir: string;
  readonly groupDomain: string;
  /** `--runtime-config` as given (validated); '' serves every built-in group version. */
  readonly runtimeConfig: string;
  /** `--service-cluster-ip-range`, parsed: one range, or two of different families (primary first). */
  readonly serviceClusterIPRanges?: readonly ServiceIPRange[];
  /** `--service-node-port-range`, parsed. */
  readonly serviceNodePortRange?: NodePortRangeConfig;
  /** `--advertise-address`; undefined: the bind address, else the host's first non-loopback address. */
  readonly advertiseAddress?: string;
  /** How often the `kubernetes` endpoints are reconciled and this replica's identity record renewed (default 10 s). */
  readonly endpointReconcileIntervalMs?: number;
  /** `--enable-admission-plugins`: the optional admission plugins turned on (admission-plugins-flag.ts). */
  readonly enabledAdmissionPlugins?: ReadonlySet<string>;
  /** `--controllers`: which in-server controllers the leader runs (controllers-flag.ts). */
  readonly controllers?: ControllerSelection;
  /** How long a replica's identity record outlives its last renewal (default 15 s). */
  readonly masterLeaseTtlSeconds?: number;
  /** `--feature-gates`, resolved against the gate table: handlers ask `features.enabled('WatchList')`. */
  readonly features: FeatureGates;
  readonly logLevel: string;
  /** `--audit-*`: the policy and the log backend; undefined: no auditing. */
  readonly audit?: AuditConfig;
  /** `--tracing-config-file`, read and validated; undefined: tracing off. */
  readonly tracing?: TracingConfig;
  /**
   * `--encryption-provider-config` (absolute; checked to parse at flag time, read again by the server) and
   * `--encryption-provider-config-automatic-reload`.
   */
  readonly encryption?: { readonly file: string; readonly automaticReload: boolean };
  /** `--request-metrics` (default true): false records no request metrics (the families are still served). */
  readonly requestMetrics?: boolean;
  readonly maxRequestsInflight: number;
  readonly maxMutatingRequestsInflight: number;
  readonly requestTimeoutMs: number;
  /** `--min-request-timeout` in seconds (default 1800): watches without timeoutSeconds last 1–2 times this; 0: no limit. */
  readonly minRequestTimeoutSeconds?: number;
  /** `--enable-priority-and-fairness` (default true); false: the max-in-flight filter instead. */
  readonly enablePriorityAndFairness?: boolean;
  readonly shutdownDelayMs: number;
  readonly shutdownTimeoutMs: number;
  /** `--shutdown-send-retry-after` (default true): after the delay, 429 + Retry-After until drained; false: the listener closes. */
  readonly shutdownSendRetryAfter?: boolean;
}

/** The defaults of every setting, for tests and embedders (`{...defaultConfig, dataDir, securePort: 0}`). */
export function defaultConfig(dataDir: string): ServerConfig {
  return {
    bindAddress: '0.0.0.0',
    securePort: 6443,
    tlsSans: [],
    storage: { backend: 'memory' },
    storagePrefix: '/registry',
    compactionIntervalMs: 5 * 60_000,
    eventTtlMs: 60 * 60_000,
    dataDir: resolve(dataDir),
    groupDomain: 'platform.io',
    runtimeConfig: '',
    features: defaultFeatureGates,
    logLevel: 'info',
    maxRequestsInflight: 400,
    maxMutatingRequestsInflight: 200,
    requestTimeoutMs: 60_000,
    shutdownDelayMs: 20_000,
    shutdownTimeoutMs: 30_000,
  };
}

/** The group and version of every built-in kind under `n`, for --runtime-config checks. */
function builtinGroupVersions(n: Naming): { group: string; version: string }[] {
  return builtinKinds().map((k) => ({ group: groupOf(k, n), version: k.version }));
}

const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Turns parsed flags into a `ServerConfig`, checking what single flags cannot: ranges, URLs, and flags
 * that must agree. Throws `FlagError` with a one-line message naming the flag.
 */
export function buildConfig(flags: ParsedFlags, cwd: string = process.cwd()): ServerConfig {
  const bindAddress = flags.string('bind-address') ?? '0.0.0.0';
  if (isIP(bindAddress) === 0) throw new FlagError(`invalid value "${bindAddress}" for flag --bind-address: not an IP address`);

  const securePort = flags.int('secure-port');
  if (securePort < 0 || securePort > 65535) {
    throw new FlagError(`invalid value "${securePort}" for flag --secure-port: must be between 0 and 65535`);
  }

  const certFile = flags.string('tls-cert-file');
  const keyFile = flags.string('tls-private-key-file');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  }
  const proxyCertFile = flags.string('proxy-client-cert-file');
  const proxyKeyFile = flags.string('proxy-client-key-file');
  if ((proxyCertFile === undefined) !== (proxyKeyFile === undefined)) {
    throw new FlagError('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  }

  const endpoints = flags.list('etcd-servers');
  for (const url of endpoints) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.host === '') {
      throw new FlagError(`invalid value "${url}" for flag --etcd-servers: not an http(s) URL`);
    }
  }
  if (mixedEndpointSchemes(endpoints)) {
    // etcd's Go client takes the first URL's scheme for all; here one channel setting serves every member.
    throw new FlagError(`invalid value "${endpoints.join(',')}" for flag --etcd-servers: mixes http:// and https:// URLs`);
  }
  const backend = flags.string('storage') ?? (endpoints.length > 0 ? 'etcd' : 'memory');
  if (backend === 'etcd' && endpoints.length === 0) throw new FlagError('--storage=etcd needs --etcd-servers');
  if (backend === 'memory' && endpoints.length > 0) {
    throw new FlagError('--storage=memory contradicts --etcd-servers (the embedded store takes no servers)');
  }

  const etcdTls = etcdClientTlsConfig(flags, cwd, endpoints);

  const storagePrefix = flags.string('etcd-prefix') ?? '/registry';
  if (!storagePrefix.startsWith('/') || storagePrefix.endsWith('/') || storagePrefix.includes('//')) {
    throw new FlagError(`invalid value "${storagePrefix}" for flag --etcd-prefix: must start with "/" and not end with "/"`);
  }

  const groupDomain = flags.string('group-domain') ?? 'platform.io';
  if (!dnsSubdomain.test(groupDomain) || !groupDomain.includes('.')) {
    throw new FlagError(`invalid value "${groupDomain}" for flag --group-domain: not a DNS domain like platform.io`);
  }

  const runtimeConfig = flags.string('runtime-config') ?? '';
  const problem = checkRuntimeConfig(parseRuntimeConfig(runtimeConfig), builtinGroupVersions(naming(groupDomain)));
  if (problem !== undefined) throw new FlagError(`invalid value "${runtimeConfig}" for flag --runtime-config: ${problem}`);

  for (const name of ['max-requests-inflight', 'max-mutating-requests-inflight']) {
    if (flags.int(name) < 0) throw new FlagError(`invalid value "${flags.int(name)}" for flag --${name}: must not be negative`);
  }
  const requestTimeoutMs = flags.duration('request-timeout');
  if (requestTimeoutMs <= 0) throw new FlagError('invalid value for flag --request-timeout: must be positive');
  const minRequestTimeoutSeconds = flags.int('min-request-timeout');
  if (minRequestTimeoutSeconds < 0) throw new FlagError('--min-request-timeout can not be negative value');

  const eventTtlMs = flags.duration('event-ttl');
  if (eventTtlMs < 0) throw new FlagError('invalid value for flag --event-ttl: must not be negative');

  const features = parseFeatureGatesFlag(flags.list('feature-gates'));
  const serviceClusterIPRanges = parseServiceClusterIPRanges(flags.string('service-cluster-ip-range') ?? '');
  const serviceNodePortRange = parseNodePortRange(flags.string('service-node-port-range') ?? '');
  const advertiseAddress = flags.string('advertise-address') ?? '';
  if (advertiseAddress !== '' && isIP(advertiseAddress) === 0) {
    throw new FlagError(`invalid value "${advertiseAddress}" for flag --advertise-address: not an IP address`);
  }

  const dataDir = resolve(cwd, flags.string('data-dir') ?? './data');
  const tokenAuthFile = flags.string('token-auth-file');
  const requestHeader = requestHeaderConfig(flags, features, cwd);
  const authenticationConfig = flags.string('authentication-config');
  const clientCaFile = flags.string('client-ca-file');
  const serviceAccounts = serviceAccountConfig(flags, cwd);
  const clusterSigning = clusterSigningConfig(flags, cwd);
  const authorizationModes = flags.list('authorization-mode');
  const audit = auditConfig(flags, cwd, groupDomain);
  const tracingConfigFile = flags.string('tracing-config-file');
  const modesProblem = checkAuthorizationModes(authorizationModes);
  if (modesProblem !== undefined) throw new FlagError(`invalid value "${authorizationModes.join(',')}" for flag --authorization-mode: ${modesProblem}`);
  return {
    bindAddress,
    securePort,
    ...(certFile !== undefined && keyFile !== undefined
      ? { tls: { certFile: resolve(cwd, certFile), keyFile: resolve(cwd, keyFile) } }
      : {}),
    tlsSans: flags.list('tls-sans'),
    tlsServing: tlsServingConfig(flags, cwd),
    ...(tokenAuthFile === undefined ? {} : { tokenAuthFile: resolve(cwd, tokenAuthFile) }),
    ...(flags.given.has('anonymous-auth') ? { anonymousAuth: flags.bool('anonymous-auth') } : {}),
    ...(authenticationConfig === undefined ? {} : { authenticationConfigFile: resolve(cwd, authenticationConfig) }),
    enableBootstrapTokenAuth: flags.bool('enable-bootstrap-token-auth'),
    controllers: parseControllers(flags.list('controllers')),
    enabledAdmissionPlugins: parseEnabledAdmissionPlugins(flags.list('enable-admission-plugins')),
    ...(requestHeader === undefined ? {} : { requestHeader }),
    ...(clientCaFile === undefined ? {} : { clientCaFile: resolve(cwd, clientCaFile) }),
    ...(proxyCertFile === undefined || proxyKeyFile === undefined ? {} : { proxyClient: { certFile: resolve(cwd, proxyCertFile), keyFile: resolve(cwd, proxyKeyFile) } }),
    serviceAccounts,
    clusterSigning,
    authorizationModes: authorizationModes as AuthorizationMode[],
    storage: backend === 'etcd' ? { backend: 'etcd', endpoints, ...(etcdTls === undefined ? {} : { tls: etcdTls }) } : { backend: 'memory' },
    storagePrefix,
    compactionIntervalMs: flags.duration('etcd-compaction-interval'),
    eventTtlMs,
    dataDir,
    groupDomain,
    runtimeConfig,
    serviceClusterIPRanges,
    serviceNodePortRange,
    ...(advertiseAddress === '' ? {} : { advertiseAddress }),
    features,
    logLevel: flags.string('log-level') ?? 'info',
    ...(audit === undefined ? {} : { audit }),
    ...(tracingConfigFile === undefined ? {} : { tracing: tracingConfig(resolve(cwd, tracingConfigFile), groupDomain, features) }),
    ...encryptionConfig(flags, cwd, groupDomain),
    ...(flags.bool('request-metrics') ? {} : { requestMetrics: false }),
    maxRequestsInflight: flags.int('max-requests-inflight'),
    maxMutatingRequestsInflight: flags.int('max-mutating-requests-inflight'),
    requestTimeoutMs,
    minRequestTimeoutSeconds,
    ...(flags.bool('enable-priority-and-fairness') ? {} : { enablePriorityAndFairness: false }),
    shutdownDelayMs: flags.duration('shutdown-delay-duration'),
    shutdownTimeoutMs: flags.duration('shutdown-timeout'),
    ...(flags.bool('shutdown-send-retry-after') ? {} : { shutdownSendRetryAfter: false }),
  };
}

/**
 * `--service-account-*` and `--api-audiences`, as kube reads them: the issuers default to kube's in-cluster
 * one, the audiences to the first issuer; an issuer with a colon must be a URL; a max token expiration is
 * 0 or between 1h and 2^32 s.
 */
function serviceAccountConfig(flags: ParsedFlags, cwd: string): ServiceAccountConfig {
  const issuers = flags.list('service-account-issuer');
  for (const iss of issuers) {
    if (!iss.includes(':')) continue;
    try {
      new URL(iss);
    } catch {
      throw new FlagError(`invalid value "${iss}" for flag --service-account-issuer: must be a URL when it contains a colon`);
    }
  }
  const effective = issuers.length > 0 ? issuers : defaultServiceAccounts.issuers;
  const audiences = flags.list('api-audiences');
  const signingKeyFile = flags.string('service-account-signing-key-file');
  const jwksUri = flags.string('service-account-jwks-uri');
  const maxExpirationMs = flags.duration('service-account-max-token-expiration');
  if (maxExpirationMs !== 0 && (maxExpirationMs < 3_600_000 || maxExpirationMs > 2 ** 32 * 1000)) {
    throw new FlagError('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  }
  return {
    keyFiles: flags.list('service-account-key-file').map((f) => resolve(cwd, f)),
    ...(signingKeyFile === undefined ? {} : { signingKeyFile: resolve(cwd, signingKeyFile) }),
    issuers: effective,
    ...(jwksUri === undefined ? {} : { jwksUri }),
    apiAudiences: audiences.length > 0 ? audiences : [effective[0]!],
    ...(maxExpirationMs === 0 ? {} : { maxTokenExpirationSeconds: Math.floor(maxExpirationMs / 1000) }),
    ...(flags.bool('service-account-extend-token-expiration') ? {} : { extendTokenExpiration: false }),
  };
}

/**
 * `--requestheader-*`, or undefined without a client CA file (or without username headers, which kube
 * reads as "request header authentication off"). The uid headers need the RemoteRequestHeaderUID gate.
 */
function requestHeaderConfig(flags: ParsedFlags, features: FeatureGates, cwd: string): RequestHeaderConfig | undefined {
  const uidHeaders = flags.list('requestheader-uid-headers');
  if (uidHeaders.length > 0 && !features.enabled('RemoteRequestHeaderUID')) {
    throw new FlagError('--requestheader-uid-headers requires the "RemoteRequestHeaderUID" feature to be enabled');
  }
  const caFile = flags.string('requestheader-client-ca-file');
  const usernameHeaders = flags.list('requestheader-username-headers');
  if (caFile === undefined || usernameHeaders.length === 0) return undefined;
  return {
    clientCaFile: resolve(cwd, caFile),
    allowedNames: flags.list('requestheader-allowed-names'),
    usernameHeaders,
    groupHeaders: flags.list('requestheader-group-headers'),
    extraHeaderPrefixes: flags.list('requestheader-extra-headers-prefix'),
    uidHeaders,
  };
}

/** `--encryption-provider-config`, parsed now so a bad file is a command-line error (exit 2) with kube's wording. */
function encryptionConfig(flags: ParsedFlags, cwd: string, groupDomain: string): Pick<ServerConfig, 'encryption'> {
  const file = flags.string('encryption-provider-config');
  const automaticReload = flags.bool('encryption-provider-config-automatic-reload');
  if (file === undefined) {
    if (automaticReload) throw new FlagError('--encryption-provider-config-automatic-reload must be set with --encryption-provider-config');
    return {};
  }
  const path = resolve(cwd, file);
  try {
    readEncryptionConfigFile(path, groupDomain);
  } catch (err) {
    if (err instanceof EncryptionConfigError) throw new FlagError(`--encryption-provider-config: ${err.message}`);
    throw err;
  }
  return { encryption: { file: path, automaticReload } };
}

/** `--tracing-config-file`, read now so a bad file is a command-line error (exit 2) with kube's wording. */
function tracingConfig(path: string, groupDomain: string, features: FeatureGates): TracingConfig {
  try {
    return readTracingConfigFile(path, groupDomain, features.enabled('APIServerTracing'));
  } catch (err) {
    if (err instanceof TracingConfigError) throw new FlagError(err.message);
    throw err;
  }
}
