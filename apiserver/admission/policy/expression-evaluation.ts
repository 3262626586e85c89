/**
 * Evaluating a list of a policy's expressions under one budget (Kubernetes' `ConditionEvaluator.ForInput`
 * with variable composition), with Kubernetes' wording:
 *
 * | outcome                              | result                                                          |
 * |--------------------------------------|-----------------------------------------------------------------|
 * | did not compile                      | error `compilation error: <compile detail>`                     |
 * | runtime error (incl. the 1M per-call | error `expression '<expr>' resulted in error: <err>`            |
 * | limit: `operation cancelled: actual  |                                                                 |
 * | cost limit exceeded`)                |                                                                 |
 * | the budget cannot pay the cost       | the whole list fails: `validation failed due to running out of  |
 * |                                      | cost budget, no further validation rules will be run`           |
 *
 * `variables` are evaluated lazily, once per list evaluation (Kubernetes creates one composition context
 * per list), each under its own per-call limit; their cost is charged to the budget after the expression
 * that read them, before the expression's own. A variable's failure is the reading expression's error:
 * `composited variable "<name>" fails to evaluate: <err>` (or `fails to compile: <detail>`).
 */
import { admissionActivation, LazyVariables, VARIABLES, type AdmissionCompilation, type AdmissionInput, type VariableComposition, type VariableEvaluator } from '../../cel/environment/admission.js';
import { PER_CALL_LIMIT } from '../../cel/cost/limits.js';
import { OUT_OF_BUDGET } from '../../cel/cost/messages.js';
import { CelEvalError } from '../../cel/errors.js';
import type { CostTracker } from '../../cel/interpreter/plan.js';
import type { CelValue } from '../../cel/values/value.js';

export type EvaluationResult = { readonly value: CelValue; readonly error?: undefined } | { readonly value?: undefined; readonly error: string };

export type ListOutcome =
  /** One result per item; undefined for items without an expression (placeholders). */
  | { readonly results: readonly (EvaluationResult | undefined)[]; readonly remaining: number; readonly outOfBudget?: undefined }
  | { readonly outOfBudget: string; readonly results?: undefined };

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The cost of the variables read since the last `take()`. */
class CompositionCost {
  private cost = 0;
  add(n: number): void {
    this.cost += n;
  }
  take(): number {
    const c = this.cost;
    this.cost = 0;
    return c;
  }
}

/** A policy's variables: each under its own per-call limit, charged to `cost`, in Kubernetes' policy wording. */
const policyVariables = (cost: CompositionCost): VariableEvaluator => (v, act) => {
  if (v.compiled === undefined) return new CelEvalError(`composited variable "${v.name}" fails to compile: ${v.error?.detail ?? 'unknown error'}`);
  const tracker: CostTracker = { cost: 0, limit: PER_CALL_LIMIT };
  try {
    return v.compiled.program.evaluate(act, tracker);
  } catch (e) {
    return new CelEvalError(`composited variable "${v.name}" fails to evaluate: ${message(e)}`);
  } finally {
    cost.add(tracker.cost);
  }
};

/**
 * Evaluates `items` in order against `input` under `budget`. `composition` (when the list may read
 * `variables`) is evaluated lazily within this call only.
 */
export function evaluateList(
  items: readonly (AdmissionCompilation | undefined)[],
  input: AdmissionInput,
  budget: number,
  composition?: VariableComposition,
): ListOutcome {
  // Nothing to evaluate (no items, or none given, as messageExpressions usually are): no activation.
  if (items.every((i) => i === undefined)) return { results: items as undefined[], remaining: budget };
  const act = admissionActivation(input);
  const cost = new CompositionCost();
  if (composition !== undefined) act[VARIABLES] = new LazyVariables(composition, act, policyVariables(cost));
  let remaining = budget;
  const results: (EvaluationResult | undefined)[] = [];
  // One tracker for the list, reset per item (one object less per evaluation).
  const tracker: CostTracker = { cost: 0, limit: PER_CALL_LIMIT };
  for (const item of items) {
    if (item === undefined) {
      results.push(undefined);
      continue;
    }
    if (item.compiled === undefined) {
      results.push({ error: `compilation error: ${item.error?.detail ?? 'unexpected internal error compiling expression'}` });
      continue;
    }
    // A limit below the per-call one when the budget is nearly spent: the evaluation stops as soon as
    // the outcome (out of budget) is certain, the same outcome Kubernetes reaches after running it out.
    tracker.cost = 0;
    tracker.limit = Math.min(PER_CALL_LIMIT, Math.max(remaining, 0));
    let result: EvaluationResult;
    try {
      result = { value: item.compiled.program.evaluate(act, tracker) };
    } catch (e) {
      result = { error: `expression '${item.expression}' resulted in error: ${message(e)}` };
    }
    const composed = cost.take();
    if (composed > remaining) return { outOfBudget: OUT_OF_BUDGET };
    remaining -= composed;
    if (tracker.cost > remaining) return { outOfBudget: OUT_OF_BUDGET };
    remaining -= tracker.cost;
    results.push(result);
  }
  return { results, remaining };
}

/** apimachinery's aggregate error text: one message as is, several (deduplicated) as `[a, b]`. */
export function aggregateMessage(messages: readonly string[]): string {
  if (messages.length === 1) return messages[0]!;
  const seen = [...new Set(messages)];
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}
