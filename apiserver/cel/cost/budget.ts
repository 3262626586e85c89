/**
 * Runtime budgets. Every evaluation runs under a tracker `{cost, limit}` (interpreter/plan.ts `CostTracker`)
 * whose limit is the per-call limit; charges are compared on every step, so an evaluation stops (with
 * CelCostError `operation cancelled: actual cost limit exceeded`) as soon as it passes its limit.
 *
 * A `CostBudget` is the shared budget of several programs (all rules of one custom resource: 10M; one VAP
 * binding x param object: 10M; match conditions: 2.5M). As Kubernetes does, each evaluation's actual cost
 * is subtracted after it ran; an evaluation whose cost is more than what remained exhausts the budget
 * (`validation failed due to running out of cost budget, no further validation rules will be run`) and
 * no later evaluation runs at all. Kubernetes lets such an evaluation run up to the per-call limit before
 * comparing; here its tracker limit is min(per-call limit, remaining) wherever the remaining budget
 * is the smaller, so it stops as soon as the outcome (out of budget) is certain — the same outcome, less
 * work. The budget checks the remaining amount before the per-call error, in Kubernetes' order.
 */
import { CelCostError } from '../errors.js';
import type { Activation, CostTracker } from '../interpreter/plan.js';
import type { CelValue } from '../values/value.js';
import { PER_CALL_LIMIT } from './limits.js';
import { COST_LIMIT_EXCEEDED, OUT_OF_BUDGET } from './messages.js';

/** What evaluates under a tracker (a `CelProgram`). */
export interface Evaluable {
  evaluate(activation: Activation, tracker?: CostTracker): CelValue;
}

/** The shared budget ran out: nothing further may be evaluated against it. */
export class CostBudgetExceededError extends CelCostError {
  constructor(message = OUT_OF_BUDGET) {
    super(message);
    this.name = 'CostBudgetExceededError';
  }
}

export class CostBudget {
  private left: number;
  private spent = 0;
  private exhausted = false;

  constructor(
    readonly total: number,
    readonly perCallLimit: number = PER_CALL_LIMIT,
  ) {
    this.left = total;
  }

  /** The budget not yet spent. */
  get remaining(): number {
    return this.left;
  }

  /** Cost charged so far (including the evaluation that exhausted the budget, up to where it stopped). */
  get used(): number {
    return this.spent;
  }

  get isExhausted(): boolean {
    return this.exhausted;
  }

  /**
   * Evaluates `program` under this budget. Throws CostBudgetExceededError when the budget is (or
   * becomes) exhausted, CelCostError with cel-go's message when the evaluation passes the per-call limit,
   * and the evaluation's own CelEvalError otherwise (its cost is still charged).
   */
  evaluate(program: Evaluable, activation: Activation): CelValue {
    if (this.exhausted) throw new CostBudgetExceededError();
    const limit = Math.min(this.perCallLimit, this.left);
    const tracker: CostTracker = { cost: 0, limit };
    let result: CelValue | undefined;
    let error: unknown;
    try {
      result = program.evaluate(activation, tracker);
    } catch (e) {
      error = e;
    }
    this.spent += tracker.cost;
    if (tracker.cost > this.left) {
      this.left = 0;
      this.exhausted = true;
      throw new CostBudgetExceededError();
    }
    this.left -= tracker.cost;
    if (error !== undefined) {
      if (error instanceof CelCostError) {
        // The per-call limit: Kubernetes stops validating the object here too.
        this.exhausted = true;
        throw new CelCostError(COST_LIMIT_EXCEEDED);
      }
      throw error;
    }
    return result!;
  }
}
