/**
 * The served groups of discovery with the aggregated group versions merged in (kube-aggregator's
 * ordering, helper.SortedByGroupAndVersion): groups only served by backends come after this server's own
 * groups, in the order of their best APIService (groupPriorityMinimum highest first, then name); inside
 * such a group, versions go by versionPriority (highest first), then Kubernetes' version order.
 *
 * This server's own groups keep their places (it creates no local APIServices carrying priorities for
 * them). A group that has both local and aggregated versions lists them together in Kubernetes' version
 * order; an aggregated version replaces a local one of the same name (the proxy answers for it).
 * APIServices of the legacy group (`''`) are not listed, as kube-aggregator's `/apis` skips them.
 */
import { compareVersionPriority } from '../endpoints/discovery/version-priority.js';
import type { ServedGroup, ServedVersion } from '../endpoints/discovery/served-groups.js';
import type { AggregatedGroupVersion } from './aggregated-group-version.js';

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function aggregatedVersion(a: AggregatedGroupVersion): ServedVersion {
  return { version: a.version, resources: [], aggregated: { resources: a.resources, freshness: a.freshness } };
}

export function mergeAggregated(local: readonly ServedGroup[], aggregated: readonly AggregatedGroupVersion[]): ServedGroup[] {
  if (aggregated.length === 0) return [...local];
  const groups = new Map<string, AggregatedGroupVersion[]>();
  const ranked = aggregated.filter((a) => a.group !== '').sort((a, b) => b.groupPriorityMinimum - a.groupPriorityMinimum || byName(a.name, b.name));
  for (const a of ranked) {
    const list = groups.get(a.group);
    if (list === undefined) groups.set(a.group, [a]);
    else list.push(a);
  }
  const out: ServedGroup[] = local.map((g) => {
    const agg = groups.get(g.name);
    if (agg === undefined) return g;
    groups.delete(g.name);
    const claimed = new Set(agg.map((a) => a.version));
    const versions = [...g.versions.filter((v) => !claimed.has(v.version)), ...agg.map(aggregatedVersion)];
    return { name: g.name, versions: versions.sort((a, b) => compareVersionPriority(a.version, b.version)) };
  });
  for (const [name, agg] of groups) {
    const versions = agg
      .sort((a, b) => b.versionPriority - a.versionPriority || compareVersionPriority(a.version, b.version))
      .map(aggregatedVersion);
    out.push({ name, versions });
  }
  return out;
}
