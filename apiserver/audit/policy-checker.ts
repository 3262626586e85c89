/**
 * Which audit level, omitted stages and managed-fields treatment a request gets: the first rule of the
 * policy that matches decides (kube's policy checker); no match is level None with the policy's omitted
 * stages. A rule matches when every list it sets matches:
 * - `users`: the user's name; `userGroups`: any of the user's groups; `verbs`: the request's verb (kube's
 *   audit verbs: get, list, watch, create, update, patch, delete, deletecollection; the lower-case method for
 *   non-resource requests);
 * - `namespaces` or `resources`: only resource requests; the namespace ('' for cluster-scoped requests);
 *   per group: no resources = all of the group; `*`; `res` (not its sub-resources); `res/sub`; `*\/sub`
 *   (that sub-resource of any resource); `res/*` (the resource and all its sub-resources); `resourceNames`
 *   narrows to those names;
 * - `nonResourceURLs`: only non-resource requests; exact path, `*`, or a prefix ending in `*`.
 *
 * Each rule is compiled once at load (its lists as sets, its resource and URL patterns sorted by kind) and
 * its answer is a frozen object made then, so evaluating allocates nothing (but the `res/sub` key of a
 * sub-resource request) and costs a few set lookups per rule.
 */
import type { UserInfo } from '../auth/user-info.js';
import type { RequestInfo } from '../request/request-info.js';
import { auditStages, type AuditLevel, type AuditPolicy, type AuditStage, type PolicyRule } from './policy.js';

/** Bits of `omitStages`, one per stage. */
export const stageBit: Readonly<Record<AuditStage, number>> = Object.freeze({
  RequestReceived: 1,
  ResponseStarted: 2,
  ResponseComplete: 4,
  Panic: 8,
});

export interface RequestAuditConfig {
  readonly level: AuditLevel;
  /** Bit set of the stages not to emit (`stageBit`). */
  readonly omitStages: number;
  readonly omitManagedFields: boolean;
}

function stageMask(...lists: (readonly AuditStage[])[]): number {
  let mask = 0;
  for (const l of lists) for (const s of l) mask |= stageBit[s];
  return mask;
}

/** A `resources` entry of a rule, its patterns by kind. */
interface CompiledGroupResources {
  readonly group: string;
  /** No resources listed: the whole group. */
  readonly whole: boolean;
  /** `resourceNames`, or undefined for any name. */
  readonly names: ReadonlySet<string> | undefined;
  /** `*` listed. */
  readonly any: boolean;
  /** Every entry as written, matched against `res` or `res/sub`. */
  readonly exact: ReadonlySet<string>;
  /** `sub` of the `*\/sub` entries. */
  readonly anySub: ReadonlySet<string>;
  /** `res` of the `res/*` entries. */
  readonly withSubs: ReadonlySet<string>;
}

interface CompiledRule {
  readonly users: ReadonlySet<string> | undefined;
  readonly userGroups: ReadonlySet<string> | undefined;
  readonly verbs: ReadonlySet<string> | undefined;
  /** Set when the rule lists namespaces or resources: it matches resource requests only. */
  readonly resourceRule: boolean;
  readonly namespaces: ReadonlySet<string> | undefined;
  readonly resources: readonly CompiledGroupResources[];
  /** Set when the rule lists non-resource URLs. */
  readonly urls: { readonly any: boolean; readonly exact: ReadonlySet<string>; readonly prefixes: readonly string[] } | undefined;
}

const setOf = (l: readonly string[]): ReadonlySet<string> | undefined => (l.length === 0 ? undefined : new Set(l));

function compile(r: PolicyRule): CompiledRule {
  return {
    users: setOf(r.users),
    userGroups: setOf(r.userGroups),
    verbs: setOf(r.verbs),
    resourceRule: r.namespaces.length > 0 || r.resources.length > 0,
    namespaces: setOf(r.namespaces),
    resources: r.resources.map((gr) => ({
      group: gr.group,
      whole: gr.resources.length === 0,
      names: setOf(gr.resourceNames),
      any: gr.resources.includes('*'),
      exact: new Set(gr.resources),
      anySub: new Set(gr.resources.filter((res) => res.startsWith('*/')).map((res) => res.slice(2))),
      withSubs: new Set(gr.resources.filter((res) => res.endsWith('/*')).map((res) => res.slice(0, -2))),
    })),
    urls: r.nonResourceURLs.length === 0 ? undefined : {
      any: r.nonResourceURLs.includes('*'),
      exact: new Set(r.nonResourceURLs),
      prefixes: r.nonResourceURLs.filter((spec) => spec.endsWith('*')).map((spec) => spec.replace(/\*+$/, '')),
    },
  };
}

export class PolicyChecker {
  readonly #rules: readonly CompiledRule[];
  readonly #answers: readonly RequestAuditConfig[];
  readonly #none: RequestAuditConfig;

  constructor(policy: AuditPolicy) {
    this.#rules = policy.rules.map(compile);
    this.#answers = policy.rules.map((r) => Object.freeze({
      level: r.level,
      omitStages: stageMask(policy.omitStages, r.omitStages),
      omitManagedFields: r.omitManagedFields ?? policy.omitManagedFields,
    }));
    this.#none = Object.freeze({ level: 'None', omitStages: stageMask(policy.omitStages), omitManagedFields: policy.omitManagedFields });
  }

  /** The configuration of a request by `user` (the authenticated caller, before impersonation). */
  evaluate(user: UserInfo | undefined, info: RequestInfo): RequestAuditConfig {
    const rules = this.#rules;
    for (let i = 0; i < rules.length; i++) {
      if (ruleMatches(rules[i]!, user, info)) return this.#answers[i]!;
    }
    return this.#none;
  }
}

function ruleMatches(r: CompiledRule, user: UserInfo | undefined, info: RequestInfo): boolean {
  if (r.users !== undefined && (user === undefined || !r.users.has(user.name))) return false;
  if (r.userGroups !== undefined && (user === undefined || !anyIn(user.groups, r.userGroups))) return false;
  if (r.verbs !== undefined && !r.verbs.has(info.verb)) return false;
  if (r.resourceRule) return resourceMatches(r, info);
  if (r.urls !== undefined) return !info.isResourceRequest && urlMatches(r.urls, info.path);
  return true;
}

function anyIn(values: readonly string[], set: ReadonlySet<string>): boolean {
  for (let i = 0; i < values.length; i++) if (set.has(values[i]!)) return true;
  return false;
}

/** An exact path, `*`, or a prefix ending in `*`. */
function urlMatches(urls: NonNullable<CompiledRule['urls']>, path: string): boolean {
  if (urls.any || urls.exact.has(path)) return true;
  const prefixes = urls.prefixes;
  for (let i = 0; i < prefixes.length; i++) if (path.startsWith(prefixes[i]!)) return true;
  return false;
}

function resourceMatches(r: CompiledRule, info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  if (r.namespaces !== undefined && !r.namespaces.has(info.namespace)) return false;
  if (r.resources.length === 0) return true;
  const { resource, subresource, name } = info;
  let combined: string | undefined;
  for (const gr of r.resources) {
    if (gr.group !== info.apiGroup) continue;
    if (gr.whole) return true;
    if (gr.names !== undefined && !gr.names.has(name)) continue;
    if (gr.any) return true;
    combined ??= subresource === '' ? resource : `${resource}/${subresource}`;
    if (gr.exact.has(combined)) return true;
    if (subresource !== '' && gr.anySub.has(subresource)) return true;
    if (gr.withSubs.has(resource)) return true;
  }
  return false;
}

/** The stages of a bit set, for messages and tests. */
export function stagesOf(mask: number): AuditStage[] {
  return auditStages.filter((s) => (mask & stageBit[s]) !== 0);
}
