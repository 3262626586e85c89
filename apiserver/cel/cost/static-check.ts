/**
 * The write-time refusal of rules too expensive in the worst case (CRD validation in Kubernetes 1.32):
 * a rule's estimated max cost times its cardinality (how many times it can run for one object) must not
 * exceed 10M; all rules of a schema together must not exceed 100M. Rules without a known cardinality
 * (under a list or map without maxItems/maxProperties) use the worst case from the size of the
 * smallest serialized value at the rule's node (`maxCardinality` in cel/environment/schema-rules.ts).
 * Used by the CRD validation (registry/kinds/apiextensions/crd-rules.ts).
 */
import { STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from './limits.js';
import { costExceedsBudgetMessage, CRD_TOTAL_COST_NAME, RULE_COST_NAME } from './messages.js';
import { UINT64_MAX } from './units.js';

/** `cost x cardinality`, saturating at 2^64 - 1 (0 stays 0). */
export function expressionCost(maxCost: bigint, cardinality: bigint): bigint {
  if (maxCost === 0n) return 0n;
  const p = maxCost * cardinality;
  return p > UINT64_MAX ? UINT64_MAX : p;
}

/** The Forbidden detail for a rule over the per-rule limit, or undefined when it fits. */
export function ruleCostProblem(maxCost: bigint, cardinality = 1n, costName = RULE_COST_NAME): string | undefined {
  const c = expressionCost(maxCost, cardinality);
  return c > BigInt(STATIC_ESTIMATED_COST_LIMIT) ? costExceedsBudgetMessage(costName, c, STATIC_ESTIMATED_COST_LIMIT) : undefined;
}

/** The Forbidden detail for a schema whose rules together are over the total limit, or undefined. */
export function totalCostProblem(total: bigint, costName = CRD_TOTAL_COST_NAME): string | undefined {
  return total > BigInt(STATIC_ESTIMATED_CRD_COST_LIMIT) ? costExceedsBudgetMessage(costName, total, STATIC_ESTIMATED_CRD_COST_LIMIT) : undefined;
}
