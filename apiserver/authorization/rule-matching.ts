/**
 * Whether one RBAC rule allows one request, with Kubernetes' matching rules (rbac/v1 evaluation helpers):
 *
 * - verbs: `*` or the exact verb;
 * - apiGroups: `*` or the exact group ('' is the core group);
 * - resources: `*`, the exact `resource` or `resource/subresource`, or `*\/subresource` for any resource's
 *   sub-resource of that name (`*\/scale`). A rule for `pods` does NOT cover `pods/log`;
 * - resourceNames: empty means any name; otherwise the request must carry one of the names. Requests
 *   without a name (list, watch and create of a collection, deletecollection) never match such a rule;
 * - nonResourceURLs: `*`, the exact path, or a prefix ending in `*` (`/healthz*` covers `/healthz/etcd`
 *   and `/healthz` itself). Non-resource rules never match resource requests and vice versa.
 */
import type { AuthorizationAttributes } from './authorizer.js';
import { listOf, type PolicyRule } from './rbac-types.js';

export const VERB_ALL = '*';
export const API_GROUP_ALL = '*';
export const RESOURCE_ALL = '*';
export const NON_RESOURCE_ALL = '*';

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of listOf(rule.verbs)) if (v === VERB_ALL || v === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of listOf(rule.apiGroups)) if (g === API_GROUP_ALL || g === group) return true;
  return false;
}

/** `combined` is `resource` or `resource/subresource`; `subresource` '' for the main resource. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of listOf(rule.resources)) {
    if (r === RESOURCE_ALL || r === combined) return true;
    if (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = listOf(rule.resourceNames);
  if (names.length === 0) return true;
  return names.includes(name);
}

/** `rulePath` covers `path`: equal, `*`, or a `*`-suffixed prefix (all trailing stars dropped, as upstream). */
export function nonResourcePathMatches(rulePath: string, path: string): boolean {
  if (rulePath === NON_RESOURCE_ALL || rulePath === path) return true;
  if (!rulePath.endsWith('*')) return false;
  let end = rulePath.length;
  while (end > 0 && rulePath.charCodeAt(end - 1) === 42) end--;
  return path.startsWith(rulePath.slice(0, end));
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of listOf(rule.nonResourceURLs)) if (nonResourcePathMatches(u, path)) return true;
  return false;
}

/** `resource/subresource`, or `resource` without one: how rules and messages name what is asked for. */
export function combinedResource(resource: string, subresource: string): string {
  return subresource === '' ? resource : `${resource}/${subresource}`;
}

/** Whether `rule` allows the request described by `a` (the user is not looked at here). */
export function ruleAllows(a: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (a.isResourceRequest) {
    return verbMatches(rule, a.verb)
      && apiGroupMatches(rule, a.apiGroup)
      && resourceMatches(rule, combinedResource(a.resource, a.subresource), a.subresource)
      && resourceNameMatches(rule, a.name);
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
}
