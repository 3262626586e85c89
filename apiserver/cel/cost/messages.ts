/**
 * Kubernetes' cost messages (1.32), word for word.
 *
 * Static (CRD writes, apiextensions validation `getCostErrorMessage`): `<cost name> exceeds budget by factor
 * of <N> (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps,
 * and strings are declared)`, N = cost / limit formatted as Go does: above 100 `more than 100x`; below
 * 1.5 `%fx` (six decimals, `1.000001x`); else `%.1fx` (`2.5x`).
 *
 * Runtime (custom resource validation): the interrupted evaluation's error is cel-go's `operation
 * cancelled: actual cost limit exceeded` (per-call limit); the shared budget running out gives
 * `validation failed due to running out of cost budget, no further validation rules will be run`.
 */

/** The cost names Kubernetes uses. */
export const RULE_COST_NAME = 'estimated rule cost';
export const MESSAGE_EXPRESSION_COST_NAME = 'estimated messageExpression cost';
export const CRD_TOTAL_COST_NAME = 'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema';

/** cel-go's error of an evaluation stopped at its limit. */
export const COST_LIMIT_EXCEEDED = 'operation cancelled: actual cost limit exceeded';
/** A rule's evaluation did not fit the remaining shared budget of the object. */
export const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';
/** The same for a messageExpression. */
export const MESSAGE_EXPRESSION_OUT_OF_BUDGET = 'messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run';

/** Go's `%f` / `%.1f` of the exceed factor. */
export function exceedFactor(cost: bigint | number, limit: bigint | number): string {
  const f = Number(cost) / Number(limit);
  if (f > 100) return 'more than 100x';
  if (f < 1.5) return `${f.toFixed(6)}x`;
  return `${f.toFixed(1)}x`;
}

export function costExceedsBudgetMessage(costName: string, cost: bigint | number, limit: bigint | number): string {
  return `${costName} exceeds budget by factor of ${exceedFactor(cost, limit)} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** Kubernetes' field error detail of a rule whose evaluation hit the per-call limit (`'<err>': no further ... for rule: <rule>`). */
export function callCostExceededDetail(rule: string): string {
  return `'${COST_LIMIT_EXCEEDED}': no further validation rules will be run due to call cost exceeds limit for rule: ${rule.trim()}`;
}
