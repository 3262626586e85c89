/**
 * One NamedRuleWithOperations against a request (Kubernetes' webhook `predicates/rules` matcher, used by
 * policies too):
 *
 * | member       | matches when                                                                         |
 * |--------------|--------------------------------------------------------------------------------------|
 * | scope        | `*` or unset: always; `Namespaced`: a namespaced request that is not a Namespace     |
 * |              | object; `Cluster`: a cluster-scoped request or a Namespace object                    |
 * | operations   | the request's operation is listed, or `*`                                            |
 * | apiGroups    | the group is listed, or `*`                                                          |
 * | apiVersions  | the version is listed, or `*`                                                        |
 * | resources    | `res` or `res/sub` with `*` on either side: `pods` (no sub-resource), `pods/*`,      |
 * |              | `*` (every resource, no sub-resource), `*\/status` (every status), `*\/*` (all)      |
 * | resourceNames| empty: any name; else the request's name is listed (a create by `generateName` has   |
 * |              | no name yet and so matches no list, as in Kubernetes)                                |
 *
 * Sub-resources take their parent's scope: the request's namespace decides, whatever the sub-resource.
 */
import type { GroupVersionResource } from '../attributes.js';
import type { NamedRuleWithOperations } from './policy-types.js';

/** A request as the rules see it; `resource` may be an equivalent of the request's own (matchPolicy Equivalent). */
export interface RuleSubject {
  readonly resource: GroupVersionResource;
  readonly subresource: string;
  readonly operation: string;
  readonly namespace: string;
  readonly name: string;
}

/** The core group's Namespace resource: cluster-scoped whatever the request's namespace field says. */
export function isNamespaceResource(r: GroupVersionResource): boolean {
  return r.group === '' && r.resource === 'namespaces';
}

const exactOrWildcard = (items: readonly string[] | undefined, requested: string): boolean =>
  items !== undefined && items.some((i) => i === '*' || i === requested);

function scopeMatches(rule: NamedRuleWithOperations, s: RuleSubject): boolean {
  const scope = rule.scope ?? '*';
  if (scope === '*') return true;
  // Kubernetes compares the whole GroupVersionResource of the Namespace object here (core v1 namespaces).
  const namespaceObject = isNamespaceResource(s.resource) && s.resource.version === 'v1';
  if (scope === 'Namespaced') return !namespaceObject && s.namespace !== '';
  if (scope === 'Cluster') return namespaceObject || s.namespace === '';
  return false;
}

function resourceMatches(resources: readonly string[] | undefined, s: RuleSubject): boolean {
  if (resources === undefined) return false;
  for (const entry of resources) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    if ((res === '*' || res === s.resource.resource) && (sub === '*' || sub === s.subresource)) return true;
  }
  return false;
}

/** The rule without `resourceNames` (Kubernetes' `rules.Matcher.Matches`). */
export function ruleMatches(rule: NamedRuleWithOperations, s: RuleSubject): boolean {
  return (
    scopeMatches(rule, s) &&
    exactOrWildcard(rule.operations, s.operation) &&
    exactOrWildcard(rule.apiGroups, s.resource.group) &&
    exactOrWildcard(rule.apiVersions, s.resource.version) &&
    resourceMatches(rule.resources, s)
  );
}

/** The rule with its `resourceNames`. */
export function namedRuleMatches(rule: NamedRuleWithOperations, s: RuleSubject): boolean {
  if (!ruleMatches(rule, s)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(s.name);
}
