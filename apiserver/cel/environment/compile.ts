/**
 * Compiling one expression in an environment derived from a base environment: parse, the passes before
 * the check (validate.ts), the check, the passes after it, planning. Failures come out as
 * `CelExpressionError`s in Kubernetes' words (errors.ts).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { CelCompileError } from '../errors.js';
import type { CelEnvironment, CelProgram } from '../interpreter/environment.js';
import type { AstNode } from '../interpreter/plan.js';
import type { ObjectDecl } from '../types/decl-type.js';
import type { BaseEnvironment } from './base.js';
import { CelExpressionError, compilationFailed } from './errors.js';
import { afterCheck, beforeCheck, type PlanningFailure } from './validate.js';

/** A compile environment: the checker and function table, and what the passes need to know. */
export interface ExpressionEnvironment {
  readonly env: CelEnvironment;
  readonly base: BaseEnvironment;
  /** Object types of the declared variables (for field checks). */
  readonly objectTypes: ReadonlyMap<string, ObjectDecl>;
  readonly qualifiedVariables?: ReadonlySet<string>;
}

export interface CompiledExpression {
  readonly program: CelProgram;
  /** The checked result type, cel-js spelling (`bool`, `list<string>`, `selfType.spec`...). */
  readonly type: string;
  /** The checked AST (for the static cost estimator). */
  readonly ast: AstNode;
}

export interface CompileWording {
  /** Default `compilation failed: `. */
  readonly compilationFailed?: string;
  /** Default `program instantiation failed: `. */
  readonly instantiationFailed?: string;
}

/** Compiles or throws CelExpressionError. */
export function compileIn(e: ExpressionEnvironment, expression: string, wording: CompileWording = {}): CompiledExpression {
  const passOptions = { features: e.base.features, objectTypes: e.objectTypes, qualifiedVariables: e.qualifiedVariables };
  let planning: PlanningFailure[] = [];
  let program: CelProgram;
  try {
    program = e.env.compile(expression, {
      beforeCheck: (ast) => beforeCheck(ast, passOptions),
      afterCheck: (ast) => {
        planning = afterCheck(ast, passOptions);
        // Stop before planning: the planner would word a bad `matches` literal as a compile error.
        if (planning.length > 0) throw new PlanningStopped(expression);
      },
    });
  } catch (err) {
    if (err instanceof PlanningStopped) {
      const failure = planning[0]!;
      throw new CelExpressionError((wording.instantiationFailed ?? 'program instantiation failed: ') + failure.detail, 'Invalid', failure.line, failure.column);
    }
    if (err instanceof CelCompileError) throw compilationFailed(celGoPosition(err), wording.compilationFailed);
    throw new CelExpressionError(`unexpected compilation error: ${err instanceof Error ? err.message : String(err)}`, 'Internal');
  }
  return { program, type: program.type ?? 'dyn', ast: program.ast! };
}

/**
 * `T == null` and `null == T` for object types: cel-go lets null be compared with any message type
 * (`namespaceObject == null`); cel-js only knows the `T == T` that types/register.ts declares. `!=`
 * follows `==` in cel-js.
 */
export function declareNullEquality(checker: Environment, typeNames: Iterable<string>): void {
  // cel-js adds the swapped `null == T` itself.
  for (const t of typeNames) checker.registerOperator(`${t} == null`, neverEvaluated);
}

function neverEvaluated(): never {
  throw new Error('evaluated by apiserver/cel/interpreter');
}

/** Thrown from the pass after the check to skip planning (passes through `toCompileError` unchanged). */
class PlanningStopped extends CelCompileError {
  constructor(expression: string) {
    super(expression, 'planning stopped', 1, 1);
  }
}

/**
 * cel-js positions some checker errors elsewhere than cel-go: a selection at the field name (cel-go: at
 * the `.`), a call at the start of its receiver or name (cel-go: at the `(`). Moved here to cel-go's.
 */
function celGoPosition(e: CelCompileError): CelCompileError {
  const lines = e.expression.split('\n');
  const chars = Array.from(lines[e.line - 1] ?? '');
  let col = e.column - 1; // 0-based code point index
  const undefinedField = /^undefined field '/.test(e.detail);
  const overload = /^found no matching overload for '([A-Za-z_][A-Za-z0-9_]*)' applied to '(.*)'$/.exec(e.detail);
  if (undefinedField) {
    let i = col - 1;
    while (i >= 0 && (chars[i] === '?' || chars[i] === ' ' || chars[i] === '\t')) i--;
    if (i >= 0 && chars[i] === '.') col = i;
  } else if (overload !== null) {
    const rest = chars.slice(col).join('');
    const member = !overload[2]!.startsWith('(');
    const m = new RegExp(`${member ? '\\.\\s*' : '(?:^|[^A-Za-z0-9_.])'}${overload[1]}\\s*\\(`).exec(rest);
    if (m !== null) col += Array.from(rest.slice(0, m.index + m[0].length - 1)).length;
  } else return e;
  if (col === e.column - 1) return e;
  return new CelCompileError(e.expression, e.detail, e.line, col + 1);
}

/**
 * A cel-js type name as cel-go's `Type.String()` prints it in Kubernetes' messages: `list(string)`,
 * `map(string, int)`, `optional_type(int)`, `null_type`.
 */
export function celGoTypeString(t: string): string {
  return t
    .replace(/\bnull\b/g, 'null_type')
    .replace(/\boptional</g, 'optional_type<')
    .replace(/</g, '(')
    .replace(/>/g, ')');
}
