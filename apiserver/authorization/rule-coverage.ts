/**
 * Whether one set of RBAC rules covers another (Kubernetes' policy comparator), for escalation checks:
 * each rule asked for is broken down into single (group, resource, verb[, name]) and (URL, verb) rules,
 * and each of those must be covered by one rule held. Coverage differs from request matching: a held
 * `*\/scale` covers `deployments/scale`, a held rule with resourceNames covers only those names, and a
 * rule without resourceNames is covered only by held rules without them.
 *
 * Also the compact description of the missing rules (`{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`),
 * with rules that differ only in their verbs merged, as Kubernetes prints them.
 */
import { listOf, type PolicyRule } from './rbac-types.js';
import { API_GROUP_ALL, nonResourcePathMatches, RESOURCE_ALL, VERB_ALL } from './rule-matching.js';

export interface SubRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  readonly resourceNames: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

export function breakdownRule(rule: PolicyRule): SubRule[] {
  const out: SubRule[] = [];
  const names = listOf(rule.resourceNames);
  for (const group of listOf(rule.apiGroups)) {
    for (const resource of listOf(rule.resources)) {
      for (const verb of listOf(rule.verbs)) {
        if (names.length > 0) {
          for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name], nonResourceURLs: [] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [], nonResourceURLs: [] });
        }
      }
    }
  }
  for (const url of listOf(rule.nonResourceURLs)) {
    for (const verb of listOf(rule.verbs)) out.push({ apiGroups: [], resources: [], verbs: [verb], resourceNames: [], nonResourceURLs: [url] });
  }
  return out;
}

const hasAll = (set: readonly string[], wanted: readonly string[]): boolean => wanted.every((w) => set.includes(w));

function resourcesCovered(held: readonly string[], wanted: readonly string[]): boolean {
  if (held.includes(RESOURCE_ALL) || hasAll(held, wanted)) return true;
  for (const path of wanted) {
    if (held.includes(path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!held.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlsCovered(held: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((path) => held.some((owner) => owner === path || (owner.endsWith('*') && nonResourcePathMatches(owner, path))));
}

/** Whether the single rule `owner` covers `sub` (normally one broken-down rule). */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = listOf(owner.verbs);
  const groups = listOf(owner.apiGroups);
  const ownerNames = listOf(owner.resourceNames);
  const subNames = listOf(sub.resourceNames);
  const namesOk = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return (verbs.includes(VERB_ALL) || hasAll(verbs, listOf(sub.verbs)))
    && (groups.includes(API_GROUP_ALL) || hasAll(groups, listOf(sub.apiGroups)))
    && resourcesCovered(listOf(owner.resources), listOf(sub.resources))
    && urlsCovered(listOf(owner.nonResourceURLs), listOf(sub.nonResourceURLs))
    && namesOk;
}

/**
 * The broken-down rules of `wanted` that no rule of `held` covers (empty: covered). Used for escalation
 * checks and by the bootstrap policy reconciler, which adds them to an auto-updated role.
 */
export function uncoveredRules(held: readonly PolicyRule[], wanted: readonly PolicyRule[]): SubRule[] {
  const missing: SubRule[] = [];
  for (const rule of wanted) {
    for (const sub of breakdownRule(rule)) if (!held.some((h) => ruleCovers(h, sub))) missing.push(sub);
  }
  return missing;
}

/** Single-group, single-resource rules (at most one name, no URLs) merged when they differ only in verbs. */
export function compactRules(rules: readonly SubRule[]): SubRule[] {
  const compacted: SubRule[] = [];
  const simple = new Map<string, { -readonly [K in keyof SubRule]: SubRule[K] }>();
  for (const r of rules) {
    const isSimple = r.resourceNames.length <= 1 && r.nonResourceURLs.length === 0 && r.apiGroups.length === 1 && r.resources.length === 1;
    if (!isSimple) {
      compacted.push(r);
      continue;
    }
    const key = JSON.stringify([r.apiGroups[0], r.resources[0], r.resourceNames.length === 1, r.resourceNames[0] ?? '']);
    const existing = simple.get(key);
    if (existing === undefined) simple.set(key, { ...r, verbs: [...r.verbs] });
    else existing.verbs = [...existing.verbs, ...r.verbs];
  }
  return [...compacted, ...simple.values()];
}

/** Go's `%q` of a string list: `["a" "b"]`. */
export function goQuotedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** Kubernetes' PolicyRule.CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(r: SubRule): string {
  const parts: string[] = [];
  if (r.apiGroups.length > 0) parts.push(`APIGroups:${goQuotedList(r.apiGroups)}`);
  if (r.resources.length > 0) parts.push(`Resources:${goQuotedList(r.resources)}`);
  if (r.nonResourceURLs.length > 0) parts.push(`NonResourceURLs:${goQuotedList(r.nonResourceURLs)}`);
  if (r.resourceNames.length > 0) parts.push(`ResourceNames:${goQuotedList(r.resourceNames)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuotedList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
