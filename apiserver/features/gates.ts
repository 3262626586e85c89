/**
 * The feature gates: one table, one entry per gate, as kube-apiserver v1.32 registers them (the gates of
 * the generic API server and of the CRD server, which are the ones that concern an API server without
 * nodes), except where the specification documents decide otherwise:
 * - `WatchList` is beta with default **off** (kube 1.32: on) — document 1, "Streaming list";
 * - `CBORServingAndStorage` alpha, default off; `APIResponseCompression` beta, default on (as kube).
 *
 * `AllAlpha` and `AllBeta` are kube's two special gates: setting one sets every alpha (beta) gate not set
 * explicitly. Stages and defaults are those at 1.32; GA gates are locked to their default (setting them to
 * the other value is a start-up error), as kube locks them. A gate not in this table is unknown: a
 * start-up error, as in kube. Most gates are accepted for compatibility and change nothing here;
 * `docs/feature-gates.md` says which ones do.
 */
export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureGateSpec {
  readonly name: string;
  readonly stage: FeatureStage;
  readonly default: boolean;
  /** Setting the gate to anything but its default is an error. */
  readonly lockToDefault: boolean;
}

const alpha = (name: string) => ({ name, stage: 'ALPHA', default: false, lockToDefault: false }) as const;
const beta = (name: string, dflt: boolean) => ({ name, stage: 'BETA', default: dflt, lockToDefault: false }) as const;
const ga = (name: string) => ({ name, stage: 'GA', default: true, lockToDefault: true }) as const;

export const featureGateTable = [
  alpha('AllAlpha'),
  beta('AllBeta', false),
  // ALPHA (default off)
  alpha('AllowUnsafeMalformedObjectDeletion'),
  alpha('APIServingWithRoutine'),
  alpha('CBORServingAndStorage'),
  alpha('CoordinatedLeaderElection'),
  alpha('MutatingAdmissionPolicy'),
  alpha('RemoteRequestHeaderUID'),
  alpha('StorageVersionAPI'),
  // BETA
  beta('AnonymousAuthConfigurableEndpoints', true),
  beta('APIResponseCompression', true),
  beta('APIServerIdentity', true),
  beta('APIServerTracing', true),
  beta('AuthorizeWithSelectors', true),
  beta('BtreeWatchCache', true),
  beta('ConcurrentWatchObjectDecode', false),
  beta('ConsistentListFromCache', true),
  beta('CRDValidationRatcheting', true),
  beta('OpenAPIEnums', true),
  beta('ResilientWatchCacheInitialization', true),
  beta('SeparateCacheWatchRPC', true),
  beta('StorageVersionHash', true),
  beta('StructuredAuthenticationConfiguration', true),
  beta('UnauthenticatedHTTP2DOSMitigation', true),
  beta('WatchCacheInitializationPostStartHook', false),
  beta('WatchFromStorageWithoutResourceVersion', false),
  beta('WatchList', false),
  // GA, locked to true
  ga('AdmissionWebhookMatchConditions'),
  ga('AggregatedDiscoveryEndpoint'),
  ga('APIListChunking'),
  ga('CustomResourceFieldSelectors'),
  ga('EfficientWatchResumption'),
  ga('RemainingItemCount'),
  ga('RetryGenerateName'),
  ga('StrictCostEnforcementForVAP'),
  ga('StrictCostEnforcementForWebhooks'),
  ga('StructuredAuthorizationConfiguration'),
  ga('WatchBookmark'),
  ga('ZeroLimitedNominalConcurrencyShares'),
  // DEPRECATED
  { name: 'KMSv1', stage: 'DEPRECATED', default: false, lockToDefault: false },
] as const satisfies readonly FeatureGateSpec[];

/** The name of a gate of the table (so `enabled('WatchLsit')` is a type error). */
export type FeatureName = (typeof featureGateTable)[number]['name'];
