/**
 * The API behind authentication: discovery, the OpenAPI documents, then the resources. Everything not
 * answered here falls through to the chain's 404.
 */
import type { Store } from '../../storage/interface.js';
import { admissionChain, type AdmissionChain, type AdmissionChainMetrics } from '../admission/chain.js';
import type { AdmissionPlugin } from '../admission/plugin.js';
import { namespaceLifecycle } from '../admission/plugins/namespace-lifecycle.js';
import { serviceAccountAdmission } from '../admission/plugins/service-account.js';
import { certificateAdmission } from '../admission/plugins/certificates.js';
import { defaultFeatureGates, type FeatureGates } from '../features/feature-gates.js';
import type { Naming } from '../naming/naming.js';
import { noServerServices, type KindStrategy, type ServerServices } from '../registry/kind-strategy.js';
import type { RuntimeConfig } from '../config/runtime-config.js';
import type { Filter } from '../request/request-state.js';
import { discoveryEndpoints } from './discovery/discovery-endpoints.js';
import { openapiEndpoints } from './openapi/openapi-endpoints.js';
import { resourceRouter } from './resources/resource-router.js';
import { serveResources, type ServedResources, type ServeOptions } from '../registry/served-resources.js';
import type { AggregatedSource } from '../aggregator/aggregated-group-version.js';

export interface ApiOptions {
  readonly store: Store;
  readonly naming: Naming;
  readonly kinds: readonly KindStrategy[];
  /** `--etcd-prefix`. */
  readonly prefix: string;
  readonly runtimeConfig?: RuntimeConfig;
  /** `--feature-gates`; default: every gate at its default. */
  readonly features?: FeatureGates;
  /** See ServeOptions.watchCache. */
  readonly watchCache?: ServeOptions['watchCache'];
  /** See ServeOptions.ttlSeconds (`--event-ttl`). */
  readonly ttlSeconds?: ServeOptions['ttlSeconds'];
  /** See ServeOptions.storeFor (store calls timed per resource). */
  readonly storeFor?: ServeOptions['storeFor'];
  /** The admission chain's step and plugin timings; default none. */
  readonly admissionMetrics?: AdmissionChainMetrics;
  /** See ServeOptions.writeHooks (Service allocation). */
  readonly writeHooks?: ServeOptions['writeHooks'];
  /** The authorizer, rules and token authenticators the review APIs answer with (KindStrategy.virtual). */
  readonly services?: ServerServices;
  /**
   * Admission plugins after NamespaceLifecycle (always first), made once the resources are served (a
   * plugin may follow their watch caches).
   */
  readonly admissionPlugins?: (resources: ServedResources) => readonly AdmissionPlugin[];
  /**
   * The aggregation layer (apiserver/aggregator/): its proxy runs first (the group versions of remote
   * APIServices are not served here), and discovery and OpenAPI merge what its backends serve.
   */
  readonly aggregation?: { readonly filter: Filter; readonly source: AggregatedSource };
}

export interface Api {
  readonly filter: Filter;
  readonly resources: ServedResources;
  readonly admission: AdmissionChain;
}

export function apiEndpoints(o: ApiOptions): Api {
  const enabled = o.runtimeConfig === undefined
    ? undefined
    : (group: string, version: string, resource?: string) => o.runtimeConfig!.enabled(group, version, resource);
  const resources = serveResources({
    store: o.store,
    naming: o.naming,
    kinds: o.kinds,
    prefix: o.prefix,
    ...(enabled ? { enabled } : {}),
    ...(o.watchCache ? { watchCache: o.watchCache } : {}),
    ...(o.ttlSeconds ? { ttlSeconds: o.ttlSeconds } : {}),
    ...(o.writeHooks ? { writeHooks: o.writeHooks } : {}),
    ...(o.storeFor ? { storeFor: o.storeFor } : {}),
  });
  // Discovery and OpenAPI follow what is served now: custom resources come and go at runtime. They get no
  // `--runtime-config` predicate: the built-in kinds it disables are not in `resources` at all, and a CRD's
  // versions are served whatever their level (a v1alpha1-only CRD such as Argo CD's must stay discoverable).
  const kinds = (): readonly KindStrategy[] => resources.kinds();
  const aggregated = o.aggregation === undefined ? {} : { aggregated: o.aggregation.source };
  const discovery = discoveryEndpoints({ naming: o.naming, kinds, ...aggregated });
  const features = o.features ?? defaultFeatureGates;
  const cbor = features.enabled('CBORServingAndStorage');
  const openapi = openapiEndpoints({ naming: o.naming, kinds, cbor, ...aggregated });
  // Kubernetes' order: NamespaceLifecycle, ServiceAccount (pods), the certificate plugins (CSR approval and
  // signing authorized by the server's authorizer), then the caller's (ValidatingAdmissionPolicy ...).
  const admission = admissionChain([
    namespaceLifecycle(resources, o.naming),
    serviceAccountAdmission(resources, o.naming),
    ...certificateAdmission(o.naming, (o.services ?? noServerServices).authorizer),
    ...(o.admissionPlugins?.(resources) ?? []),
  ], o.admissionMetrics);
  const router = resourceRouter({ naming: o.naming, resources, features, admission, ...(o.services ? { services: o.services } : {}) });
  const local: Filter = (ctx, next) => discovery(ctx, () => openapi(ctx, () => router(ctx, next)));
  const proxy = o.aggregation?.filter;
  const filter: Filter = async function api(ctx, next) {
    await (proxy === undefined ? local(ctx, next) : proxy(ctx, () => local(ctx, next)));
  };
  return { filter, resources, admission };
}
