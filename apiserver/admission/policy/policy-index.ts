/**
 * The active policies of one moment (Kubernetes' policy hooks), indexed by resource so a request looks
 * only at the policies that can match it:
 *
 * - a hook is a compiled policy with its bindings (sorted by name); policies without bindings are not
 *   active, bindings naming a policy that does not exist are ignored (both as in Kubernetes), a policy
 *   whose paramKind apiVersion does not parse is left out;
 * - each hook is filed under every (group, resource) its `matchConstraints.resourceRules` name, with `*`
 *   kept as a wildcard bucket (`pods/status` files under `pods`, `*\/scale` under `*`); a policy without
 *   matchConstraints or rules is filed under (`*`, `*`) so its configuration error or match-all still
 *   shows;
 * - a request's candidates are the union of the buckets (group|*) x (resource|*) of its resource and of
 *   its equivalents, in hook order (policy name). Versions, operations, scope, names, selectors and
 *   exclusions are then checked per candidate by the full matcher.
 *
 * An index is immutable: the source builds a new one and swaps it in whole.
 */
import type { CompiledBinding, CompiledPolicy } from './compiled-policy.js';

export interface PolicyHook {
  readonly policy: CompiledPolicy;
  readonly bindings: readonly CompiledBinding[];
  /** Position in name order (candidates are returned in it). */
  readonly order: number;
}

export interface GroupResourceKey {
  readonly group: string;
  readonly resource: string;
}

export interface PolicyIndex {
  readonly hooks: readonly PolicyHook[];
  /** The hooks that may match a request on any of `resources`, in order. */
  candidates(resources: readonly GroupResourceKey[]): readonly PolicyHook[];
}

const byName = <T extends { readonly name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const bucketKey = (group: string, resource: string): string => `${group}\u0000${resource}`;

export function buildPolicyIndex(policies: Iterable<CompiledPolicy>, bindings: Iterable<CompiledBinding>): PolicyIndex {
  const bindingsOf = new Map<string, CompiledBinding[]>();
  for (const b of bindings) {
    const list = bindingsOf.get(b.policyName);
    if (list === undefined) bindingsOf.set(b.policyName, [b]);
    else list.push(b);
  }
  const hooks: PolicyHook[] = [];
  for (const p of [...policies].sort(byName)) {
    const bs = bindingsOf.get(p.name);
    if (bs === undefined || p.invalidParamKind) continue;
    hooks.push({ policy: p, bindings: bs.sort(byName), order: hooks.length });
  }
  const buckets = new Map<string, PolicyHook[]>();
  const file = (key: string, h: PolicyHook): void => {
    const list = buckets.get(key);
    if (list === undefined) buckets.set(key, [h]);
    else if (list.at(-1) !== h) list.push(h);
  };
  for (const h of hooks) {
    const rules = h.policy.matchConstraints?.resourceRules ?? [];
    if (rules.length === 0) {
      file(bucketKey('*', '*'), h);
      continue;
    }
    for (const rule of rules) {
      for (const g of rule.apiGroups ?? []) {
        for (const r of rule.resources ?? []) {
          const slash = r.indexOf('/');
          file(bucketKey(g, slash < 0 ? r : r.slice(0, slash)), h);
        }
      }
    }
  }
  return {
    hooks,
    candidates(resources) {
      const found = new Set<PolicyHook>();
      for (const { group, resource } of resources) {
        for (const key of [bucketKey(group, resource), bucketKey('*', resource), bucketKey(group, '*'), bucketKey('*', '*')]) {
          for (const h of buckets.get(key) ?? []) found.add(h);
        }
      }
      return found.size <= 1 ? [...found] : [...found].sort((a, b) => a.order - b.order);
    },
  };
}
