/**
 * The served API surface as discovery and OpenAPI see it: the kinds' strategies grouped by API group and
 * version, with `--runtime-config` applied per resource. Groups keep the order in which their first kind
 * appears (the core group first), versions go by Kubernetes' priority (the first is the preferred one),
 * and resources are sorted by name, as kube-apiserver lists them.
 */
import type { Naming } from '../../naming/naming.js';
import { groupOf, type KindStrategy } from '../../registry/kind-strategy.js';
import { compareVersionPriority } from './version-priority.js';

export interface ServedVersion {
  readonly version: string;
  /** Sorted by `resource`. Never empty, except for a version served by a backend (`aggregated`). */
  readonly resources: readonly KindStrategy[];
  /**
   * Set for a group version a remote APIService serves (apiserver/aggregator/discovery-merge.ts): the
   * backend's resources in aggregated-discovery form and their freshness.
   */
  readonly aggregated?: { readonly resources: readonly unknown[]; readonly freshness: 'Current' | 'Stale' };
}

export interface ServedGroup {
  /** `''` for the core group. */
  readonly name: string;
  /** Highest priority first. Never empty. */
  readonly versions: readonly ServedVersion[];
}

/** Whether a resource of a group version is served (`RuntimeConfig.enabled` fits). */
export type EnabledPredicate = (group: string, version: string, resource: string) => boolean;

/**
 * Groups `kinds` under `naming`. A resource the predicate disables is left out; a version or group left
 * without resources is left out too. Two strategies for the same group/version/resource: the first wins.
 */
export function servedGroups(kinds: readonly KindStrategy[], naming: Naming, enabled?: EnabledPredicate): ServedGroup[] {
  const groups = new Map<string, Map<string, Map<string, KindStrategy>>>();
  groups.set('', new Map());
  for (const k of kinds) {
    const group = groupOf(k, naming);
    if (enabled !== undefined && !enabled(group, k.version, k.resource)) continue;
    let versions = groups.get(group);
    if (versions === undefined) groups.set(group, (versions = new Map()));
    let resources = versions.get(k.version);
    if (resources === undefined) versions.set(k.version, (resources = new Map()));
    if (!resources.has(k.resource)) resources.set(k.resource, k);
  }
  const out: ServedGroup[] = [];
  for (const [name, versions] of groups) {
    if (versions.size === 0) continue;
    const list = [...versions.entries()]
      .sort(([a], [b]) => compareVersionPriority(a, b))
      .map(([version, resources]) => ({
        version,
        resources: [...resources.values()].sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0)),
      }));
    out.push({ name, versions: list });
  }
  return out;
}
