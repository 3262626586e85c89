/**
 * Whether one set of PolicyRules grants everything another does, as Kubernetes decides it for the
 * bootstrap reconciler and escalation checks (`validation.Covers`): each servant rule is broken into
 * atomic rules (one verb, one group, one resource, one name — or one verb and one non-resource URL), and
 * each atomic rule must be covered by a single owner rule. Owner wildcards: `*` verbs, groups and
 * resources, `*\/<subresource>` resources, any name when the owner lists none, and URL patterns ending in
 * `*`. Comparison is exact otherwise (no case folding), and a servant's own `*` is only covered by `*`.
 */

/** The JSON shape of an rbac/v1 PolicyRule; absent lists are empty. */
export interface PolicyRule {
  readonly verbs?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

const of = (v: readonly string[] | undefined): readonly string[] => v ?? [];

/** One rule per verb × group × resource (× name), then one per URL × verb, in Kubernetes' order. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of of(rule.apiGroups)) {
    for (const resource of of(rule.resources)) {
      for (const verb of of(rule.verbs)) {
        const names = of(rule.resourceNames);
        if (names.length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        else for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
      }
    }
  }
  for (const url of of(rule.nonResourceURLs)) for (const verb of of(rule.verbs)) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[], wanted: readonly string[]): boolean => wanted.every((w) => set.includes(w));

function resourcesCovered(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes('*')) return true;
  return wanted.every((path) => {
    if (owner.includes(path)) return true;
    const slash = path.indexOf('/');
    return slash >= 0 && owner.includes(`*${path.slice(slash)}`);
  });
}

const urlCovers = (owner: string, path: string): boolean => owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));

/** Whether the single `owner` rule covers the atomic `sub` rule. */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = of(owner.verbs);
  const groups = of(owner.apiGroups);
  const ownerNames = of(owner.resourceNames);
  const subNames = of(sub.resourceNames);
  return (
    (verbs.includes('*') || hasAll(verbs, of(sub.verbs))) &&
    (groups.includes('*') || hasAll(groups, of(sub.apiGroups))) &&
    resourcesCovered(of(owner.resources), of(sub.resources)) &&
    of(sub.nonResourceURLs).every((path) => of(owner.nonResourceURLs).some((o) => urlCovers(o, path))) &&
    (ownerNames.length === 0 || (subNames.length > 0 && hasAll(ownerNames, subNames)))
  );
}

/** The atomic rules of `servant` that no rule of `owner` covers (empty: `owner` covers `servant`). */
export function uncoveredRules(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of servant) for (const sub of breakdownRule(rule)) if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
  return missing;
}
