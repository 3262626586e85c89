/**
 * Aggregated discovery (`apidiscovery.k8s.io` v2 and v2beta1, KEP-3352): one APIGroupDiscoveryList per
 * endpoint — the core group for `/api`, the named groups for `/apis` — with every resource, its
 * responseKind, scope and sub-resources, so a client learns the whole surface in two requests. kubectl
 * drops a resource without `responseKind`.
 */
import type { Naming } from '../../naming/naming.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import { resourceVerbs, subresourcesOf } from './resource-verbs.js';
import type { ServedGroup } from './served-groups.js';

/** The group kubectl asks aggregated discovery of, whatever the group domain. */
export const discoveryGroup = 'apidiscovery.k8s.io';
export type AggregatedVersion = 'v2' | 'v2beta1';

/** The exact response Content-Type client-go requires (it ignores an aggregated reply without it). */
export function aggregatedContentType(version: AggregatedVersion): string {
  return `application/json;g=${discoveryGroup};v=${version};as=APIGroupDiscoveryList`;
}

function resourceDiscovery(group: string, version: string, k: KindStrategy, naming: Naming) {
  const responseKind = { group, version, kind: k.kind };
  const subresources = subresourcesOf(k, naming).map((s) => ({ subresource: s.name, responseKind: s.kind ?? responseKind, verbs: s.verbs }));
  return {
    resource: k.resource,
    responseKind,
    scope: k.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: k.singular,
    verbs: resourceVerbs(k),
    ...(k.shortNames !== undefined && k.shortNames.length > 0 ? { shortNames: k.shortNames } : {}),
    ...(k.categories !== undefined && k.categories.length > 0 ? { categories: k.categories } : {}),
    ...(subresources.length > 0 ? { subresources } : {}),
  };
}

/** One APIGroupDiscovery: versions by priority, the preferred first. The core group has no `name`. */
export function groupDiscovery(g: ServedGroup, naming: Naming) {
  return {
    metadata: { ...(g.name === '' ? {} : { name: g.name }), creationTimestamp: null },
    versions: g.versions.map((v) => ({
      version: v.version,
      resources: v.aggregated?.resources ?? v.resources.map((k) => resourceDiscovery(g.name, v.version, k, naming)),
      freshness: v.aggregated?.freshness ?? 'Current',
    })),
  };
}

/** The list for `/api` (`groups` = the core group alone) or `/apis` (the named groups). */
export function groupDiscoveryList(groups: readonly ServedGroup[], version: AggregatedVersion, naming: Naming) {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `${discoveryGroup}/${version}`,
    metadata: {},
    items: groups.map((g) => groupDiscovery(g, naming)),
  };
}
