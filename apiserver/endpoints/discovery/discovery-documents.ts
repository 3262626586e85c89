/**
 * Every discovery document of one set of served resources, serialized once. Rebuilt only when the set
 * changes (custom resources, later), never per request.
 */
import { apiVersionOf } from '../../api/object.js';
import type { Naming } from '../../naming/naming.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import { groupDiscoveryList, type AggregatedVersion } from './aggregated-documents.js';
import { cachedBody, type CachedBody } from './cached-body.js';
import { apiGroupDocument, apiGroupList, apiResourceList } from './legacy-documents.js';
import { servedGroups, type EnabledPredicate, type ServedGroup } from './served-groups.js';
import type { AggregatedGroupVersion } from '../../aggregator/aggregated-group-version.js';
import { mergeAggregated } from '../../aggregator/discovery-merge.js';

export interface DiscoveryDocuments {
  readonly groups: readonly ServedGroup[];
  /** The core group, when any of its resources is served. */
  readonly core: ServedGroup | undefined;
  /** `/apis` legacy (APIGroupList). */
  readonly groupList: CachedBody;
  /** `/apis/<g>` by group name. */
  readonly groupDocs: ReadonlyMap<string, CachedBody>;
  /** `/api/v1` and `/apis/<g>/<v>` by apiVersion (`v1`, `apps/v1`). */
  readonly resourceLists: ReadonlyMap<string, CachedBody>;
  /** Aggregated `/api` (the core group) by discovery version. */
  readonly aggregatedCore: Readonly<Record<AggregatedVersion, CachedBody>>;
  /** Aggregated `/apis` (the named groups) by discovery version. */
  readonly aggregatedGroups: Readonly<Record<AggregatedVersion, CachedBody>>;
}

/** `aggregated`: the group versions backends serve (their `/apis/<g>/<v>` is the proxy's, not listed here). */
export function discoveryDocuments(kinds: readonly KindStrategy[], naming: Naming, enabled?: EnabledPredicate, aggregated: readonly AggregatedGroupVersion[] = []): DiscoveryDocuments {
  const groups = mergeAggregated(servedGroups(kinds, naming, enabled), aggregated);
  const core = groups.find((g) => g.name === '');
  const named = groups.filter((g) => g.name !== '');
  const groupDocs = new Map<string, CachedBody>();
  const resourceLists = new Map<string, CachedBody>();
  for (const g of groups) {
    if (g.name !== '') groupDocs.set(g.name, cachedBody(apiGroupDocument(g)));
    for (const v of g.versions) if (v.aggregated === undefined) resourceLists.set(apiVersionOf(g.name, v.version), cachedBody(apiResourceList(g.name, v, naming)));
  }
  const coreList = core === undefined ? [] : [core];
  return {
    groups,
    core,
    groupList: cachedBody(apiGroupList(groups)),
    groupDocs,
    resourceLists,
    aggregatedCore: { v2: cachedBody(groupDiscoveryList(coreList, 'v2', naming)), v2beta1: cachedBody(groupDiscoveryList(coreList, 'v2beta1', naming)) },
    aggregatedGroups: { v2: cachedBody(groupDiscoveryList(named, 'v2', naming)), v2beta1: cachedBody(groupDiscoveryList(named, 'v2beta1', naming)) },
  };
}
