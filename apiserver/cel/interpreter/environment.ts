/**
 * The compile API of the interpreter: a `CelEnvironment` wraps a cel-js `Environment` (parser and type
 * checker only) and our function table. It is built from `CelLibrary`s — each overload's `signature` is
 * declared to the checker (unless the checker already declares it: then only our implementation is
 * used), its `impl` goes into the table — plus variable declarations (name → cel-js type text) and type
 * registrations (passed to the checker). `compile(expression)` parses, checks and plans once and returns
 * a `CelProgram`; `evaluate(activation, tracker?)` returns a CEL value or throws `CelEvalError` (a
 * `CelCostError` past the tracker's limit) — any other throw inside evaluation is converted into a
 * `CelEvalError`, so nothing escapes as a crash. Compile failures throw `CelCompileError` with cel-go's
 * wording and position (`ERROR: <input>:1:6: undeclared reference to 'foo' (in container '')`).
 */
import { Environment } from '@marcbachmann/cel-js';
import { CelCompileError, CelEvalError } from '../errors.js';
import type { CelLibrary } from '../library/library.js';
import { BUILTIN_TYPE_NAMES } from '../values/type-of.js';
import type { CelValue } from '../values/value.js';
import { FunctionTable } from './dispatch.js';
import { lineColumn, Planner, type Activation, type AstNode, type CostTracker, type Frame, type Step } from './plan.js';
import { STD_DECLARATIONS, STD_LIBRARY, STD_NAMESPACES, STD_OPERATOR_DECLARATIONS } from './stdlib.js';

/** A type registration passed to the checker (`registerType(name, {fields})`); opaque types have no fields. */
export interface TypeRegistration {
  readonly name: string;
  readonly fields?: Readonly<Record<string, string>>;
}

export interface EnvironmentOptions {
  readonly libraries?: readonly CelLibrary[];
  /** Variable name → type in cel-js syntax (`int`, `map<string, dyn>`, a registered type name...). */
  readonly variables?: Readonly<Record<string, string>>;
  readonly types?: readonly TypeRegistration[];
  /** Homogeneous aggregate literals (Kubernetes: on; the cel-spec conformance suite: off). Default true. */
  readonly homogeneousAggregateLiterals?: boolean;
  /**
   * Called last with the checker (the cel-js `Environment` of this environment only), for declarations
   * the options above cannot express: schema object types with their equality (`types/register.ts`).
   */
  readonly configureChecker?: (checker: Environment) => void;
}

export interface CompileOptions {
  /** Type-check (default true). Unchecked programs dispatch every call at run time. */
  readonly check?: boolean;
  /** Called with the parsed AST before the check: rewrites in place that keep source positions. */
  readonly beforeCheck?: (ast: AstNode) => void;
  /** Called with the checked AST before planning: further compile-time checks (throw CelCompileError). */
  readonly afterCheck?: (ast: AstNode) => void;
}

const unusedHandler = (): never => {
  throw new Error('the engine evaluator is not used');
};

export class CelEnvironment {
  private constructor(
    private readonly checker: Environment,
    readonly functions: FunctionTable,
    readonly namespaces: ReadonlySet<string>,
    readonly typeNames: ReadonlySet<string>,
  ) {}

  /** A new environment with the standard library, then `options`. */
  static create(options: EnvironmentOptions = {}): CelEnvironment {
    const checker = new Environment({
      unlistedVariablesAreDyn: false,
      homogeneousAggregateLiterals: options.homogeneousAggregateLiterals ?? true,
      enableOptionalTypes: true,
    });
    for (const sig of STD_DECLARATIONS) checker.registerFunction(sig, unusedHandler);
    for (const op of STD_OPERATOR_DECLARATIONS) checker.registerOperator(op, unusedHandler);
    registerOptionalMacros(checker);
    // `optional_type` as a type value: the checker has no identifier for it; the planner resolves the
    // name to the type value when the activation has no such variable.
    checker.registerVariable('optional_type', 'type');
    const functions = new FunctionTable();
    for (const o of STD_LIBRARY.overloads) functions.add(o, STD_NAMESPACES);
    const env = new CelEnvironment(checker, functions, new Set(STD_NAMESPACES), new Set(BUILTIN_TYPE_NAMES));
    return env.extendInPlace(options);
  }

  /** A child environment: the parent's declarations plus `options` (the parent is not changed). */
  extend(options: EnvironmentOptions): CelEnvironment {
    const child = new CelEnvironment(this.checker.clone(), this.functions.clone(), new Set(this.namespaces), new Set(this.typeNames));
    return child.extendInPlace(options);
  }

  private extendInPlace(options: EnvironmentOptions): CelEnvironment {
    const namespaces = this.namespaces as Set<string>;
    const typeNames = this.typeNames as Set<string>;
    for (const t of options.types ?? []) {
      this.checker.registerType(t.name, t.fields === undefined ? { ctor: class {} } : { fields: { ...t.fields } });
      typeNames.add(t.name);
    }
    for (const lib of options.libraries ?? []) {
      for (const t of lib.types ?? []) {
        if (typeNames.has(t)) continue;
        this.checker.registerType(t, class {});
        typeNames.add(t);
      }
      // Namespaces of global functions (`sets.contains(...)`): the checker sees a constant of a type of
      // the same name, on which the call checks as a member call; the planner calls `ns.name` globally.
      for (const ns of (lib as { readonly namespaces?: readonly string[] }).namespaces ?? []) {
        if (namespaces.has(ns)) continue;
        const Namespace = class {};
        this.checker.registerType(ns, Namespace);
        this.checker.registerConstant(ns, ns, new Namespace());
        namespaces.add(ns);
      }
      for (const o of lib.overloads) {
        if (!(o as { readonly checkerBuiltin?: boolean }).checkerBuiltin) {
          try {
            this.checker.registerFunction(o.signature, unusedHandler);
          } catch (e) {
            // The checker already declares it (a built-in, or a library overload repeated): only our
            // implementation is added. Anything else is a broken declaration.
            if (!(e instanceof Error && /overlaps with existing overload/.test(e.message))) throw e;
          }
        }
        this.functions.add(o, namespaces);
      }
    }
    for (const [name, type] of Object.entries(options.variables ?? {})) this.checker.registerVariable(name, type);
    options.configureChecker?.(this.checker);
    return this;
  }

  /** Parses, type-checks (unless told not to) and plans an expression. Throws CelCompileError. */
  compile(expression: string, options: CompileOptions = {}): CelProgram {
    let parsed: ReturnType<Environment['parse']>;
    try {
      parsed = this.checker.parse(expression);
    } catch (e) {
      throw toCompileError(expression, e);
    }
    let type: string | undefined;
    const ast = parsed.ast as unknown as AstNode;
    try {
      options.beforeCheck?.(ast);
    } catch (e) {
      throw toCompileError(expression, e);
    }
    if (options.check ?? true) {
      let checked: { valid: boolean; type?: string; error?: unknown };
      try {
        checked = parsed.check();
      } catch (e) {
        throw toCompileError(expression, e);
      }
      if (!checked.valid) throw toCompileError(expression, checked.error);
      type = ast.checkedType?.name ?? checked.type;
      try {
        options.afterCheck?.(ast);
      } catch (e) {
        throw toCompileError(expression, e);
      }
    }
    const planner = new Planner(this, expression);
    let root: Step;
    try {
      root = planner.planRoot(ast);
    } catch (e) {
      throw toCompileError(expression, e);
    }
    return new CelProgram(expression, root, planner.slots, type, ast);
  }
}

const EMPTY_SLOTS: CelValue[] = [];

/** A compiled expression. */
export class CelProgram {
  constructor(
    readonly expression: string,
    private readonly root: Step,
    private readonly slotCount: number,
    /** The checker's deduced type (cel-js spelling), undefined when compiled unchecked. */
    readonly type: string | undefined,
    /** The (checked) AST the program was planned from, for the static cost estimator. */
    readonly ast?: AstNode,
  ) {}

  /**
   * Evaluates against `activation`. With a tracker, cost is added to `tracker.cost` and the evaluation
   * stops with CelCostError when it passes `tracker.limit`. Throws only CelEvalError (or its subclass).
   */
  evaluate(activation: Activation, tracker?: CostTracker): CelValue {
    const act = activation instanceof Map ? (Object.fromEntries(activation) as Record<string, CelValue>) : (activation as Record<string, CelValue | undefined>);
    const frame: Frame = { act, slots: this.slotCount === 0 ? EMPTY_SLOTS : new Array<CelValue>(this.slotCount), t: tracker };
    try {
      return this.root(frame);
    } catch (e) {
      if (e instanceof CelEvalError) throw e;
      const message = e instanceof Error ? e.message : String(e);
      throw new CelEvalError(e instanceof RangeError && /BigInt|Maximum call stack/.test(message) ? `internal error: ${message}` : `internal error: ${message}`);
    }
  }
}

// ---- compile errors --------------------------------------------------------------------------------

const OPERATOR_NAMES: Record<string, string> = {
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  '==': '_==_',
  '!=': '_!=_',
  in: '@in',
  '-_': '-_',
  '!_': '!_',
};

const typeText = (t: { name: string } | undefined): string => (t === undefined ? 'dyn' : t.name.replace(/\bnull\b/g, 'null_type'));

/** A cel-js parse/check error (or anything thrown while compiling) as a CelCompileError in cel-go's words. */
export function toCompileError(expression: string, e: unknown): CelCompileError {
  if (e instanceof CelCompileError) return e;
  const ce = e as { code?: string; summary?: string; message?: string; node?: AstNode; range?: { start: number } };
  const node = ce.node;
  const summary = ce.summary ?? (e instanceof Error ? e.message.split('\n')[0]! : String(e));
  let detail = summary;
  let offset = ce.range?.start ?? node?.pos ?? 0;
  switch (ce.code) {
    case 'unknown_variable':
      if (node !== undefined) detail = `undeclared reference to '${String(node.args)}' (in container '')`;
      break;
    case 'no_such_key':
      if (node !== undefined && Array.isArray(node.args) && typeof node.args[1] === 'string') detail = `undefined field '${node.args[1]}'`;
      break;
    case 'no_matching_overload':
      if (node !== undefined && (node.op === 'call' || node.op === 'rcall')) {
        const a = node.args as unknown[];
        const name = a[0] as string;
        const argNodes = (node.op === 'rcall' ? a[2] : a[1]) as AstNode[];
        const recv = node.op === 'rcall' ? `${typeText((a[1] as AstNode).checkedType)}.` : '';
        const types = (node.argTypes ?? argNodes.map((n) => n.checkedType)).map((t) => typeText(t));
        detail = `found no matching overload for '${name}' applied to '${recv}(${types.join(', ')})'`;
      }
      break;
    case 'no_such_overload':
      if (node !== undefined && OPERATOR_NAMES[node.op] !== undefined) {
        const operands = Array.isArray(node.args) ? (node.args as AstNode[]) : [node.args as AstNode];
        detail = `found no matching overload for '${OPERATOR_NAMES[node.op]}' applied to '(${operands.map((n) => typeText(n.checkedType)).join(', ')})'`;
        // cel-go reports a binary operator at its token (cel-js at the start of the left operand).
        if (operands.length === 2 && typeof operands[0]!.end === 'number') {
          const at = expression.indexOf(node.op, operands[0]!.end);
          if (at >= 0) offset = at;
        }
      }
      break;
    default:
  }
  const { line, column } = lineColumn(expression, offset);
  return new CelCompileError(expression, detail, line, column);
}

// ---- optional macros the checker lacks -----------------------------------------------------------------

interface CheckerType {
  readonly kind: string;
  readonly valueType?: CheckerType;
  readonly name: string;
}
interface Checker {
  check(node: unknown, ctx: unknown): CheckerType;
  createError(code: string, message: string, node: unknown): Error;
  readonly dynType: CheckerType;
  readonly registry: { getOptionalType(t: CheckerType): CheckerType };
}
interface CheckerContext {
  forkWithVariable(name: string, type: CheckerType): unknown;
}

/**
 * `opt.optMap(x, expr)` and `opt.optFlatMap(x, expr)` (cel-go's optional library macros), declared to the
 * checker through its macro hook: only the type check is the engine's; the planner evaluates them.
 */
function registerOptionalMacros(checker: Environment): void {
  for (const flat of [false, true]) {
    const name = flat ? 'optFlatMap' : 'optMap';
    checker.registerFunction(`optional.${name}(ast, ast): optional<dyn>`, (opts: { args: AstNode[]; receiver: AstNode }) => {
      const v = opts.args[0]!;
      if (v.op !== 'id') throw new Error(`${name}() variable name must be a simple identifier`);
      return {
        var: v.args as string,
        exp: opts.args[1],
        receiver: opts.receiver,
        typeCheck(chk: Checker, macro: { var: string; exp: AstNode; receiver: AstNode }, ctx: CheckerContext): CheckerType {
          const rt = chk.check(macro.receiver, ctx);
          if (rt.kind !== 'optional' && rt.kind !== 'dyn') throw chk.createError('invalid_argument', `${name}() receiver must be optional, got '${rt.name}'`, macro.receiver);
          const inner = rt.kind === 'optional' && rt.valueType !== undefined ? rt.valueType : chk.dynType;
          const et = chk.check(macro.exp, ctx.forkWithVariable(macro.var, inner));
          if (!flat) return chk.registry.getOptionalType(et);
          if (et.kind === 'optional') return et;
          if (et.kind === 'dyn') return chk.registry.getOptionalType(chk.dynType);
          throw chk.createError('invalid_argument', `optFlatMap() expression must be optional, got '${et.name}'`, macro.exp);
        },
        evaluate: unusedHandler,
      };
    });
  }
}

export type { Activation, CostTracker } from './plan.js';
