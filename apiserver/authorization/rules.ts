/**
 * Listing what a user may do in a namespace: the answer of SelfSubjectRulesReview (`kubectl auth can-i
 * --list`). An authorizer that can enumerate its grants (RBAC) implements `RulesResolver`; one that cannot
 * says so with `incomplete`. The lists are informational: the authorizer's decision on a request is what
 * counts, and a rule listed here may be narrower or broader than what a webhook or another mode allows.
 */
import type { UserInfo } from '../auth/user-info.js';

/** One grant on resources, in the shape of an RBAC PolicyRule (`*` wildcards kept as written). */
export interface ResourceRuleInfo {
  readonly verbs: readonly string[];
  readonly apiGroups: readonly string[];
  /** `pods`, `pods/log`, `*`, and `*` + `/scale` (one sub-resource of every resource). */
  readonly resources: readonly string[];
  /** Empty: every name. */
  readonly resourceNames: readonly string[];
}

/** One grant on non-resource URLs (`/healthz`, `/apis/*`). */
export interface NonResourceRuleInfo {
  readonly verbs: readonly string[];
  readonly nonResourceURLs: readonly string[];
}

export interface SubjectRules {
  readonly resourceRules: readonly ResourceRuleInfo[];
  readonly nonResourceRules: readonly NonResourceRuleInfo[];
  /**
   * True when the lists may leave out something the user is allowed: an authorizer that cannot list its
   * rules, or rules that could not all be evaluated (a binding to a missing role).
   */
  readonly incomplete: boolean;
  /** Why the evaluation was incomplete ('' when it was not or there is nothing to say). */
  readonly evaluationError: string;
}

export interface RulesResolver {
  /**
   * The rules that apply to `user` in `namespace` (cluster-wide grants included). Synchronous and in
   * memory, like the authorizer: no store read per review.
   */
  rulesFor(user: UserInfo, namespace: string): SubjectRules;
}

/** Rules of an authorizer that cannot list them: nothing listed, marked incomplete, and why. */
export const unlistableRules: RulesResolver = Object.freeze({
  rulesFor: (): SubjectRules =>
    Object.freeze({ resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'the authorizer does not list rules' }),
});

/**
 * `--authorization-mode` lists several authorizers: their rules are concatenated in order, incomplete when
 * any is, with their evaluation errors joined (as kube's union rule resolver).
 */
export function unionRulesResolver(resolvers: readonly RulesResolver[]): RulesResolver {
  return {
    rulesFor(user, namespace) {
      const resourceRules: ResourceRuleInfo[] = [];
      const nonResourceRules: NonResourceRuleInfo[] = [];
      const errors: string[] = [];
      let incomplete = false;
      for (const r of resolvers) {
        const got = r.rulesFor(user, namespace);
        resourceRules.push(...got.resourceRules);
        nonResourceRules.push(...got.nonResourceRules);
        incomplete ||= got.incomplete;
        if (got.evaluationError !== '') errors.push(got.evaluationError);
      }
      return { resourceRules, nonResourceRules, incomplete, evaluationError: errors.length <= 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]` };
    },
  };
}

/** AlwaysAllow's rules: everything, on every resource and path. */
export const allowAllRules: RulesResolver = Object.freeze({
  rulesFor: (): SubjectRules => Object.freeze({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
    evaluationError: '',
  }),
});

/** AlwaysDeny's rules: none, and that is complete. */
export const denyAllRules: RulesResolver = Object.freeze({
  rulesFor: (): SubjectRules => Object.freeze({ resourceRules: [], nonResourceRules: [], incomplete: false, evaluationError: '' }),
});

/** A policy rule as RBAC stores it (Role and ClusterRole `rules`). */
export interface PolicyRuleLike {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[] | null;
  readonly resources?: readonly string[] | null;
  readonly resourceNames?: readonly string[] | null;
  readonly nonResourceURLs?: readonly string[] | null;
}

/**
 * RBAC's listing from the policy rules a user holds in a namespace (and the errors met collecting them: a
 * binding to a missing role), as kube's RBAC authorizer lists them: a rule naming resources is a resource
 * rule, one naming non-resource URLs a non-resource rule (a rule naming both is both). Complete (RBAC
 * knows all its grants); the errors become the evaluation error.
 */
export function policyRulesResolver(source: {
  rulesFor(user: UserInfo, namespace: string): { readonly rules: readonly PolicyRuleLike[]; readonly errors: readonly string[] };
}): RulesResolver {
  return {
    rulesFor(user, namespace) {
      const { rules, errors } = source.rulesFor(user, namespace);
      const resourceRules: ResourceRuleInfo[] = [];
      const nonResourceRules: NonResourceRuleInfo[] = [];
      for (const r of rules) {
        if ((r.resources ?? []).length > 0) {
          resourceRules.push({ verbs: r.verbs, apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], resourceNames: r.resourceNames ?? [] });
        }
        if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs ?? [] });
      }
      const evaluationError = errors.length === 0 ? '' : errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
      return { resourceRules, nonResourceRules, incomplete: false, evaluationError };
    },
  };
}
