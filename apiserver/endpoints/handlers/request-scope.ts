import type { AdmissionChain } from '../../admission/chain.js';
import type { FeatureGates } from '../../features/feature-gates.js';
import type { Naming } from '../../naming/naming.js';
import type { ServerServices } from '../../registry/kind-strategy.js';
import type { RequestInfo } from '../../request/request-info.js';
import type { AppContext } from '../../request/request-state.js';
import type { ServedResource, ServedResources } from '../../registry/served-resources.js';

/** Everything a verb handler needs about the request it serves. */
export interface RequestScope {
  readonly ctx: AppContext;
  readonly info: RequestInfo;
  readonly served: ServedResource;
  /** All served resources (the namespace check of create looks up namespaces). */
  readonly resources: ServedResources;
  readonly naming: Naming;
  readonly query: URLSearchParams;
  /** `--feature-gates`: `features.enabled('WatchList')`. */
  readonly features: FeatureGates;
  /** What virtual kinds (the reviews) answer with; default `noServerServices`. */
  readonly services?: ServerServices;
  /** The admission chain of writes; none: no admission (tests serving kinds without a server). */
  readonly admission?: AdmissionChain;
}
