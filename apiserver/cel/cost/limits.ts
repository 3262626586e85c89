/**
 * Kubernetes' CEL cost constants (v1.32: k8s.io/apiserver/pkg/apis/cel/config.go, apiextensions
 * validation, cel-go common/costs). Units are cel-go cost units: one unit is roughly one cheap operation
 * (an identifier, a field selection, an int comparison); string traversals cost 0.1 per character.
 */

/** Per-expression runtime limit (`PerCallLimit`): an evaluation stops when its cost passes it. */
export const PER_CALL_LIMIT = 1_000_000;
/** Runtime budget shared by all rules of one custom resource, and by one VAP binding x param object (`RuntimeCELCostBudget`). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** Runtime budget shared by the match conditions of one webhook or policy (`RuntimeCELCostBudgetMatchConditions`). */
export const RUNTIME_CEL_COST_BUDGET_MATCH_CONDITIONS = 2_500_000;
/**
 * How often (in comprehension iterations) cel-go polls for an interrupt (`CheckFrequency`): that is the
 * context-cancellation poll only. The cost limit itself is compared after every observed step, which is
 * what the interpreter does too (an add and a compare per charge), so no step runs past the limit.
 */
export const CHECK_FREQUENCY = 100;
/** Static estimate limit per rule of a CRD, after multiplying by the rule's cardinality (`StaticEstimatedCostLimit`). */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Static estimate limit for all rules of one CRD version schema together (`StaticEstimatedCRDCostLimit`). */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** Kubernetes' request size bound for size estimates (`MaxRequestSizeBytes`, 3 MiB). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

// cel-go common/costs.
/** An identifier, or a field selection on a map or object. */
export const SELECT_AND_IDENT_COST = 1;
/** A literal. */
export const CONST_COST = 0;
/**
 * A list literal. The user documents say 40; cel-go v0.22 (and so Kubernetes 1.32) charges 10, which is
 * what a stored rule is measured against, so 10 it is.
 */
export const LIST_CREATE_BASE_COST = 10;
/** A map literal. */
export const MAP_CREATE_BASE_COST = 30;
/** A message literal (not reachable from Kubernetes rules, kept for completeness). */
export const STRUCT_CREATE_BASE_COST = 40;
/** Per character (or byte) of a string traversal. */
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
/** Per character of a regular expression (cel-go's guess of one regex term per 4 characters). */
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;
/** A `check()` of the authorizer library: two per expression fit the per-call limit. */
export const AUTHZ_CHECK_COST = 350_000;
