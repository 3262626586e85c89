/**
 * The contract between the static estimator and a library overload's `estimate` hook (Kubernetes'
 * `EstimateCallCost`, cel-go's `FunctionEstimator`). A hook returns the call's own cost, without its
 * operands (the estimator adds those, as cel-go does), and optionally the size of its result (a string,
 * bytes, list or map) for estimates further up the expression. Returning undefined means "no special
 * estimate": the estimator then applies cel-go's built-in rule or the default cost of 1.
 */
import type { CostEstimate, SizeEstimate } from './units.js';

/** An operand as the estimator sees it (cel-go's `checker.AstNode`). */
export interface EstimateNode {
  /**
   * The field path from a variable through the declared types (`['self', 'spec', 'items', '@items']`), or
   * undefined when the operand is not reachable from a declared variable (a literal, a call result...).
   */
  readonly path: readonly string[] | undefined;
  /** The checker's type in cel-js spelling (`list<string>`, `string`, `dyn`...). */
  readonly type: string;
  /** The literal value when the operand is a literal (`'abc'`, `2n`), else undefined. */
  readonly literal?: unknown;
  /** A size derived from the expression itself (literals, concatenations, results of calls), if any. */
  readonly computedSize: SizeEstimate | undefined;
}

export interface EstimateContext {
  /** The receiver of a member call; undefined for a global function (namespaced ones included). */
  readonly target: EstimateNode | undefined;
  readonly args: readonly EstimateNode[];
  /**
   * Kubernetes' `sizeEstimate`: the computed size, else the schema's size for the node's path, else
   * unknown (0 .. 2^64 - 1). Note: no fallback to 1 for scalars here, unlike cel-go's own rules.
   */
  size(node: EstimateNode): SizeEstimate;
  /** Kubernetes' `listElementNode`: a node for the items of a list-typed node (path + `@items`), or undefined. */
  elementNode(list: EstimateNode): EstimateNode | undefined;
}

export interface CallEstimate {
  readonly cost: CostEstimate;
  readonly resultSize?: SizeEstimate;
}
