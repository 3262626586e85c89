/**
 * The CEL rules of a definition's schema (`x-kubernetes-validations` / `x-platform-validations`) at write
 * time, as Kubernetes v1.32's CRD validation does them: each rule compiled through apiserver/cel against
 * its node's type, then its worst-case cost estimated and refused over the limits.
 *
 * - Cost of a rule = its estimated max cost x its cardinality: the product of `maxItems` /
 *   `maxProperties` of every list and map above it (`CelScope.maxCardinality`), or, when one of them is
 *   unbounded, how many values of the node's smallest serialized size fit in a request (the compiled
 *   rule's `maxCardinality`). Over 10M: `Forbidden` at `...rule` with Kubernetes' factor message. A
 *   messageExpression is charged its own max cost (not multiplied), also limited to 10M.
 * - All rules and messageExpressions of one `openAPIV3Schema` together: over 100M, the four most expensive
 *   (each at least 1% of the limit) are named (`contributed to estimated rule cost total exceeding cost
 *   limit for entire OpenAPIv3 schema`) and the schema gets the total's message (`TotalCost`).
 * - On update, rules already in the stored definition compile in the `stored` environment (features a
 *   1.32 server refuses in new expressions still compile), and a version whose schema did not change is
 *   not held to the per-expression limit (Kubernetes' `suppressPerExpressionCost`), so an upgrade never
 *   locks a definition.
 * - `oldSelf` (a transition rule) under a list that is not a map list, or under a map type other than
 *   granular/atomic, is refused; `optionalOldSelf` only with a rule that uses `oldSelf`.
 */
import { estimateCost } from '../../../cel/cost/estimator.js';
import { declTypeSizeEstimator } from '../../../cel/cost/decl-sizes.js';
import { STATIC_ESTIMATED_CRD_COST_LIMIT } from '../../../cel/cost/limits.js';
import { expressionCost, ruleCostProblem, totalCostProblem } from '../../../cel/cost/static-check.js';
import { MESSAGE_EXPRESSION_COST_NAME } from '../../../cel/cost/messages.js';
import { UINT64_MAX } from '../../../cel/cost/units.js';
import { compileSchemaRule, schemaRuleEnvironment, type ValidationRule } from '../../../cel/environment/schema-rules.js';
import { FieldPath, forbidden, invalidValue, notSupported, required, type FieldError } from '../../../validation/field-error.js';
import { isObject, type Json } from './json-schema-node.js';

/** Rules and messageExpressions of the stored definition (update), compiled in the stored environment. */
export interface PreexistingExpressions {
  readonly rules: ReadonlySet<string>;
  readonly messageExpressions: ReadonlySet<string>;
}

/** The running total of one `openAPIV3Schema` (Kubernetes' `TotalCost`). */
export class TotalCost {
  total = 0n;
  readonly mostExpensive: { path: string; cost: bigint }[] = [];

  observe(path: string, cost: bigint): void {
    this.total = this.total + cost > UINT64_MAX ? UINT64_MAX : this.total + cost;
    // Rules under 1% of the limit are not worth naming.
    if (cost < BigInt(STATIC_ESTIMATED_CRD_COST_LIMIT / 100)) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => (a.cost > b.cost ? -1 : a.cost < b.cost ? 1 : 0));
    if (this.mostExpensive.length > 4) this.mostExpensive.length = 4;
  }

  /** The errors when the total is over the limit, the schema's own last. */
  problems(schemaPath: FieldPath, totalCostName: string): FieldError[] {
    const problem = totalCostProblem(this.total, totalCostName);
    if (problem === undefined) return [];
    return [
      ...this.mostExpensive.map((e) => forbidden(e.path, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema')),
      forbidden(schemaPath, problem),
    ];
  }
}

/** Where a node sits, for its rules (Kubernetes' `CELSchemaContext`). */
export interface CelScope {
  /** Product of the list/map bounds above the node; undefined when one is unbounded. */
  readonly maxCardinality: bigint | undefined;
  readonly total: TotalCost;
  /** The node is the schema root or an embedded resource (apiVersion, kind, metadata.name visible). */
  readonly resourceRoot: boolean;
}

export interface RuleOptions {
  readonly extensionPrefix: string;
  readonly preexisting?: PreexistingExpressions;
  readonly suppressPerExpressionCost: boolean;
  /** The path of the nearest list or map above the node whose elements cannot be correlated with old ones. */
  readonly uncorrelatablePath?: FieldPath;
}

/** By how much a node multiplies its children's cardinality: its bound, 1, or undefined (unbounded). */
export function childCardinality(parent: CelScope, node: Json): bigint | undefined {
  if (parent.maxCardinality === undefined) return undefined;
  const bound = (key: string): bigint | undefined => {
    const v = node[key];
    return typeof v === 'number' ? BigInt(Math.max(0, Math.trunc(v))) : undefined;
  };
  let factor: bigint | undefined = 1n;
  if (node.type === 'object' && node.additionalProperties !== undefined && node.additionalProperties !== null) factor = bound('maxProperties');
  else if (node.type === 'array') factor = bound('maxItems');
  return factor === undefined ? undefined : expressionCost(parent.maxCardinality, factor);
}

/** The errors of the rules at one node (`p` is the node's path). */
export function validateNodeRules(node: Json, p: FieldPath, scope: CelScope, opts: RuleOptions): FieldError[] {
  const raw = node[`${opts.extensionPrefix}validations`];
  if (!Array.isArray(raw) || raw.length === 0) return [];
  const errs: FieldError[] = [];
  const at = p.child(`${opts.extensionPrefix}validations`);
  const env = schemaRuleEnvironment(node, { extensionPrefix: opts.extensionPrefix, resourceRoot: scope.resourceRoot });
  raw.forEach((entry, i) => {
    if (!isObject(entry)) return;
    const rule = entry as unknown as ValidationRule;
    const ruleText = typeof rule.rule === 'string' ? rule.rule : '';
    const mode = opts.preexisting?.rules.has(ruleText) === true ? 'stored' : 'new';
    const compiled = compileSchemaRule(node, rule, { extensionPrefix: opts.extensionPrefix, resourceRoot: scope.resourceRoot, mode });
    const rulePath = at.index(i).child('rule');

    let maxCost = 0n;
    let messageMaxCost: bigint | undefined;
    const target = compiled.optionalOldSelf ? env.withOptionalOldSelf : env.withOldSelf;
    if (target !== undefined && compiled.declType !== undefined) {
      const sizes = declTypeSizeEstimator(compiled.declType);
      if (compiled.compiled !== undefined) maxCost = estimateCost(compiled.compiled.ast, target.env, { sizes }).max;
      if (compiled.messageExpression !== undefined) messageMaxCost = estimateCost(compiled.messageExpression.ast, target.env, { sizes }).max;
    }
    const cardinality = scope.maxCardinality ?? BigInt(compiled.maxCardinality);
    const cost = expressionCost(maxCost, cardinality);
    const ruleProblem = opts.suppressPerExpressionCost ? undefined : ruleCostProblem(maxCost, cardinality);
    if (ruleProblem !== undefined) errs.push(forbidden(rulePath, ruleProblem));
    scope.total.observe(rulePath.toString(), cost);

    if (compiled.error !== undefined) errs.push(invalidValue(rulePath, entry, compiled.error.detail));
    if (compiled.messageExpressionError !== undefined) {
      errs.push(invalidValue(at.index(i).child('messageExpression'), entry, compiled.messageExpressionError.detail));
    } else if (messageMaxCost !== undefined) {
      const messagePath = at.index(i).child('messageExpression');
      const messageProblem = opts.suppressPerExpressionCost ? undefined : ruleCostProblem(messageMaxCost, 1n, MESSAGE_EXPRESSION_COST_NAME);
      if (messageProblem !== undefined) errs.push(forbidden(messagePath, messageProblem));
      scope.total.observe(messagePath.toString(), messageMaxCost);
    }
    if (compiled.usesOldSelf) {
      if (opts.uncorrelatablePath !== undefined) {
        errs.push(invalidValue(rulePath, ruleText, `oldSelf cannot be used on the uncorrelatable portion of the schema within ${opts.uncorrelatablePath.toString()}`));
      }
    } else if (rule.optionalOldSelf !== undefined && rule.optionalOldSelf !== null) {
      errs.push(invalidValue(at.index(i).child('optionalOldSelf'), rule.optionalOldSelf, 'may not be set if oldSelf is not used in rule'));
    }
  });
  return errs;
}

/** The per-entry checks of a validations list that need no compiler (Kubernetes checks them first). */
export function validateRuleEntries(node: Json, p: FieldPath, extensionPrefix: string, pathValid: (fieldPath: string) => boolean): FieldError[] {
  const raw = node[`${extensionPrefix}validations`];
  if (!Array.isArray(raw)) return [];
  const errs: FieldError[] = [];
  const at = p.child(`${extensionPrefix}validations`);
  raw.forEach((entry, i) => {
    if (!isObject(entry)) return;
    const text = (k: string): string => (typeof entry[k] === 'string' ? (entry[k] as string) : '');
    const rule = text('rule').trim();
    const message = text('message');
    const trimmedMsg = message.trim();
    const messageExpression = text('messageExpression');
    if (rule === '') errs.push(required(at.index(i).child('rule'), 'rule is not specified'));
    else if (message.length > 0 && trimmedMsg === '') errs.push(invalidValue(at.index(i).child('message'), message, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(trimmedMsg)) errs.push(invalidValue(at.index(i).child('message'), message, 'message must not contain line breaks'));
    else if (/[\n\r]/.test(rule) && trimmedMsg === '') errs.push(required(at.index(i).child('message'), 'message must be specified if rule contains line breaks'));
    if (messageExpression.length > 0 && messageExpression.trim() === '') {
      errs.push(required(at.index(i).child('messageExpression'), 'messageExpression must be non-empty if specified'));
    }
    const reason = entry.reason;
    if (reason !== undefined && reason !== null && !SUPPORTED_REASONS.includes(reason as string)) {
      errs.push(notSupported(at.index(i).child('reason'), reason, SUPPORTED_REASONS));
    }
    const fieldPath = text('fieldPath');
    if (fieldPath.length > 0 && fieldPath.trim() === '') errs.push(invalidValue(at.index(i).child('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'));
    if (/[\n\r]/.test(fieldPath)) errs.push(invalidValue(at.index(i).child('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
    if (fieldPath.length > 0 && !pathValid(fieldPath)) errs.push(invalidValue(at.index(i).child('fieldPath'), fieldPath, 'fieldPath must be a valid path'));
  });
  return errs;
}

/** Kubernetes' supported rule reasons, sorted as its set lists them. */
const SUPPORTED_REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
