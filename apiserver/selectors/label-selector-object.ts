/**
 * metav1.LabelSelector (`{matchLabels, matchExpressions}`, as in Deployment `spec.selector`) as a
 * LabelSelector, with upstream's `LabelSelectorAsSelector` semantics.
 */
import { badRequest } from '../errors/constructors.js';
import { everything, newRequirement, nothing, RequirementError, selectorOf } from './label-selector.js';
import type { LabelOperator, LabelRequirement, LabelSelector } from './selector.js';

export interface LabelSelectorRequirementObject {
  readonly key: string;
  /** `In`, `NotIn`, `Exists`, `DoesNotExist`. */
  readonly operator: string;
  readonly values?: readonly string[] | null;
}

export interface LabelSelectorObject {
  readonly matchLabels?: Readonly<Record<string, string>> | null;
  readonly matchExpressions?: readonly LabelSelectorRequirementObject[] | null;
}

const operators: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Converts a metav1.LabelSelector. `null`/`undefined` selects nothing (a nil selector); an object with no
 * labels and no expressions selects everything. An unknown operator (`"Foo" is not a valid label selector
 * operator`) or an invalid key/value/value count (upstream's requirement messages) is a 400 BadRequest;
 * kinds that validate selectors as fields report those as field errors before calling this.
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel === null || sel === undefined) return nothing;
  const labels = sel.matchLabels ?? {};
  const exprs = sel.matchExpressions ?? [];
  const labelKeys = Object.keys(labels);
  if (labelKeys.length + exprs.length === 0) return everything;
  const reqs: LabelRequirement[] = [];
  try {
    for (const k of labelKeys) reqs.push(newRequirement(k, '=', [labels[k]!]));
    for (const e of exprs) {
      const op = operators[e.operator];
      if (op === undefined) throw badRequest(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
      reqs.push(newRequirement(e.key, op, e.values ?? []));
    }
  } catch (e) {
    if (e instanceof RequirementError) throw badRequest(e.message);
    throw e;
  }
  return selectorOf(reqs);
}
