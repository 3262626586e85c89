/**
 * The API behind authentication: discovery, the OpenAPI documents, then the resources. Everything not
 * answered here falls through to the chain's 404.
 */
import type { Store } from '../../storage/interface.js';
import { defaultFeatureGates, type FeatureGates } from '../features/feature-gates.js';
import type { Naming } from '../naming/naming.js';
import type { KindStrategy, ServerServices } from '../registry/kind-strategy.js';
import type { RuntimeConfig } from '../registry/runtime-config.js';
import type { Filter } from '../server/request-state.js';
import { discoveryEndpoints } from './discovery/discovery-endpoints.js';
import { openapiEndpoints } from './openapi/openapi-endpoints.js';
import { resourceRouter } from './resources/resource-router.js';
import { serveResources, type ServedResources, type ServeOptions } from './resources/served-resources.js';

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
  /** The authorizer, rules and token authenticators the review APIs answer with (KindStrategy.virtual). */
  readonly services?: ServerServices;
}

export interface Api {
  readonly filter: Filter;
  readonly resources: ServedResources;
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
  });
  // Discovery and OpenAPI follow what is served now: custom resources come and go at runtime.
  const kinds = (): readonly KindStrategy[] => resources.kinds();
  const discovery = discoveryEndpoints({ naming: o.naming, kinds, ...(enabled ? { enabled } : {}) });
  const features = o.features ?? defaultFeatureGates;
  const cbor = features.enabled('CBORServingAndStorage');
  const openapi = openapiEndpoints({ naming: o.naming, kinds, cbor, ...(enabled ? { enabled } : {}) });
  const router = resourceRouter({ naming: o.naming, resources, features, ...(o.services ? { services: o.services } : {}) });
  const filter: Filter = async function api(ctx, next) {
    await discovery(ctx, () => openapi(ctx, () => router(ctx, next)));
  };
  return { filter, resources };
}
