/**
 * The errors of the CEL environment. None of them may escape to a request as a 500: compile errors become
 * 422 field errors at write time, evaluation and cost errors become validation or admission results.
 */

/** Parse or type-check failure, with the position in the expression (1-based line and column). */
export class CelCompileError extends Error {
  constructor(
    readonly expression: string,
    readonly detail: string,
    readonly line: number,
    readonly column: number,
  ) {
    // Kubernetes' wording: `compilation failed: ERROR: <input>:1:6: undeclared reference to 'foo'` (the
    // caller prefixes `compilation failed: `).
    super(`ERROR: <input>:${line}:${column}: ${detail}`);
    this.name = 'CelCompileError';
  }
}

/** A CEL runtime error (`no such key: x`, `division by zero`, `integer overflow`...): a value of the evaluation, not a crash. */
export class CelEvalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CelEvalError';
  }
}

/** Evaluation stopped because it would exceed its cost limit or the shared budget. */
export class CelCostError extends CelEvalError {
  constructor(message: string) {
    super(message);
    this.name = 'CelCostError';
  }
}
