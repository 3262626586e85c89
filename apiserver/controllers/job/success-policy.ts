/**
 * successPolicy matching, as kube 1.32's matchSuccessPolicy (Indexed jobs): rules in order; a rule with
 * `succeededIndexes` is met when that many of those indexes succeeded (`succeededCount`, else all of
 * them); a rule with only `succeededCount` when that many indexes succeeded. The message names the first
 * rule met: `Matched rules at index N`.
 */
import type { JobSpec } from './job-types.js';
import { has, parseIntervals, total, type Intervals } from './ordered-intervals.js';

export function matchSuccessPolicy(spec: JobSpec, completions: number, succeeded: Intervals): string | undefined {
  const rules = spec.successPolicy?.rules;
  if (rules === undefined || succeeded.length === 0) return undefined;
  for (const [index, rule] of rules.entries()) {
    if (typeof rule.succeededIndexes === 'string') {
      const required = parseIntervals(rule.succeededIndexes, completions);
      let matched = 0;
      for (const iv of required) for (let ix = iv.first; ix <= iv.last; ix++) if (has(succeeded, ix)) matched++;
      const need = typeof rule.succeededCount === 'number' ? rule.succeededCount : total(required);
      if (required.length > 0 && matched >= need) return `Matched rules at index ${index}`;
    } else if (typeof rule.succeededCount === 'number' && total(succeeded) >= rule.succeededCount) {
      return `Matched rules at index ${index}`;
    }
  }
  return undefined;
}
