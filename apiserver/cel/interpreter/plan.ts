/**
 * The planner: turns a parsed (and, normally, type-checked) cel-js AST into a tree of closures once, so an
 * evaluation is a walk of plain function calls with no AST inspection. The AST is cel-js's: `op` is one of
 * value, id, `.`, `.?`, `[]`, `[?]`, call, rcall, list, map, `?:`, `||`, `&&`, `!_`, `-_` and the binary
 * operators; macros arrive as call/rcall nodes whose `meta` carries the engine's expansion, of which only
 * the shape is used here (the iteration variable, the predicate, the receiver): evaluation is ours.
 *
 * Semantics (cel-go's): errors are thrown `CelEvalError`s; `&&`/`||` absorb an error when the other side
 * decides the result (in either order), and so do `all`/`exists` over their iterations; comprehension
 * variables live in slots of the evaluation frame; the runtime cost is charged on a tracker when one is
 * given, with cel-go's runtime costs (interpreter/runtimecost.go): identifiers (comprehension variables
 * included) and selections 1, literals 0, list literals 10, map literals 30, `&&`/`||`/`?:` 0, every
 * operator and function call its cost (cost/runtime-costs.ts, the overload's `cost`, else 1), and the
 * macros what their cel-go expansions cost (see planComprehension). The limit is compared on every
 * charge, as cel-go's observer does after every step: an evaluation never runs past it.
 */
import { addCost, inCost, minSizeCost, orderingCost } from '../cost/runtime-costs.js';
import { CelCompileError, CelCostError, CelEvalError } from '../errors.js';
import { validateRe2 } from '../library/re2.js';
import { celCompare } from '../values/compare.js';
import { EntryMap } from '../values/entry-map.js';
import { celEquals, listContains } from '../values/equality.js';
import { BUILTIN_TYPE_NAMES, celTypeNamed, typeNameOf, typeOf } from '../values/type-of.js';
import { CelUint, INT64_MAX, INT64_MIN, Optional, type CelList, type CelMap, type CelMapKey, type CelObject, type CelValue } from '../values/value.js';
import { add, checkInt, divide, modulo, multiply, negate, subtract } from './arith.js';
import { parseTypeTree, selectAtRuntime, staticFit, tableKey, type FunctionTable, type TableEntry } from './dispatch.js';

/** The runtime cost budget of one evaluation (shared budgets pass the same object to several evaluations). */
export interface CostTracker {
  cost: number;
  limit: number;
}

/** Variables of one evaluation: a plain object or a map from name to value. */
export type Activation = Readonly<Record<string, CelValue | undefined>> | ReadonlyMap<string, CelValue>;

export interface Frame {
  readonly act: Readonly<Record<string, CelValue | undefined>>;
  readonly slots: CelValue[];
  readonly t: CostTracker | undefined;
}

export type Step = (f: Frame) => CelValue;

/** A cel-js AST node, as far as the planner reads it. */
export interface AstNode {
  readonly op: string;
  readonly args: unknown;
  readonly pos: number;
  readonly start: number;
  readonly end: number;
  readonly input: string;
  readonly meta: { readonly alternate?: AstNode; readonly macro?: Record<string, unknown> };
  readonly checkedType?: { readonly name: string };
  readonly argTypes?: readonly { readonly name: string }[];
}

export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

export function charge(t: CostTracker, n: number): void {
  t.cost += n;
  if (t.cost > t.limit) throw new CelCostError(COST_LIMIT_MESSAGE);
}

/** What the planner needs to know of its environment. */
export interface PlanEnvironment {
  readonly functions: FunctionTable;
  /** Receiver identifiers that name a namespace of global functions (`optional`, `strings`...). */
  readonly namespaces: ReadonlySet<string>;
  /** Type names known as values (`int`, registered object and opaque types...). */
  readonly typeNames: ReadonlySet<string>;
}

const err = (message: string): never => {
  throw new CelEvalError(message);
};
const noSuchKey = (k: CelValue): never => err(`no such key: ${formatKey(k)}`);
const formatKey = (k: CelValue): string => (k instanceof CelUint ? String(k.value) : String(k));

type Scope = ReadonlyMap<string, number>;
const EMPTY_SCOPE: Scope = new Map();

export class Planner {
  slots = 0;
  constructor(
    private readonly env: PlanEnvironment,
    private readonly expression: string,
  ) {}

  planRoot(node: AstNode): Step {
    return this.plan(node, EMPTY_SCOPE);
  }

  private compileError(node: AstNode, detail: string): CelCompileError {
    const { line, column } = lineColumn(this.expression, node.pos ?? node.start);
    return new CelCompileError(this.expression, detail, line, column);
  }

  private plan(node: AstNode, scope: Scope): Step {
    switch (node.op) {
      case 'value':
        return this.planValue(node);
      case 'id':
        return this.planIdent(node, scope);
      case '.':
      case '.?':
        return this.planSelect(node, scope);
      case '[]':
      case '[?]':
        return this.planIndex(node, scope);
      case 'call':
      case 'rcall':
        return this.planCall(node, scope);
      case 'list':
        return this.planList(node, scope);
      case 'map':
        return this.planMap(node, scope);
      case '?:':
        return this.planTernary(node, scope);
      case '&&':
      case '||':
        return this.planLogical(node, scope);
      case '!_': {
        const a = this.plan(node.args as AstNode, scope);
        return (f) => {
          const v = a(f);
          if (f.t !== undefined) charge(f.t, 1);
          return typeof v === 'boolean' ? !v : err(`no such overload: !${typeNameOf(v)}`);
        };
      }
      case '-_':
        return this.planNegate(node, scope);
      default:
        return this.planBinary(node, scope);
    }
  }

  // ---- literals and identifiers --------------------------------------------------------------------

  private planValue(node: AstNode): Step {
    const v = this.literal(node, node.args);
    return () => v;
  }

  private literal(node: AstNode, raw: unknown): CelValue {
    switch (typeof raw) {
      case 'bigint':
        if (raw > INT64_MAX || raw < INT64_MIN) throw this.compileError(node, 'invalid int literal');
        return raw;
      case 'number':
      case 'string':
      case 'boolean':
        return raw;
      default:
    }
    if (raw === null) return null;
    if (raw instanceof Uint8Array) return bytesLiteral(node, raw);
    const o = raw as { constructor?: { name?: string }; valueOf?: () => unknown; name?: unknown };
    const ctor = o.constructor?.name;
    if (ctor === 'UnsignedInt') return new CelUint(o.valueOf!() as bigint);
    if (ctor === 'Type' && typeof o.name === 'string') return celTypeNamed(canonicalTypeName(o.name));
    if (ctor === 'Object') {
      // A constant map of the checker (`google.protobuf.*` type values).
      return EntryMap.of(Object.entries(raw as object).map(([k, v]) => [k, this.literal(node, v)] as const));
    }
    throw this.compileError(node, `unsupported constant ${ctor ?? typeof raw}`);
  }

  private planIdent(node: AstNode, scope: Scope): Step {
    const name = node.args as string;
    const slot = scope.get(name);
    if (slot !== undefined) {
      return (f) => {
        if (f.t !== undefined) charge(f.t, 1);
        return f.slots[slot]!;
      };
    }
    const alt = node.meta.alternate;
    if (alt !== undefined) return this.plan(alt, scope); // a constant of the checker (type names...)
    const typeName = this.env.typeNames.has(name) ? celTypeNamed(canonicalTypeName(name)) : undefined;
    return (f) => {
      const v = f.act[name];
      if (f.t !== undefined) charge(f.t, 1);
      if (v !== undefined) return v;
      if (typeName !== undefined) return typeName;
      return err(`no such attribute: ${name}`);
    };
  }

  /** `a.b.c` made only of identifiers outside the scope: its dotted name, else undefined. */
  private qualifiedName(node: AstNode, scope: Scope): string | undefined {
    if (node.op === 'id') return scope.has(node.args as string) ? undefined : (node.args as string);
    if (node.op !== '.') return undefined;
    const [left, field] = node.args as [AstNode, string];
    const q = this.qualifiedName(left, scope);
    return q === undefined ? undefined : `${q}.${field}`;
  }

  // ---- selection and indexing ----------------------------------------------------------------------

  private planSelect(node: AstNode, scope: Scope): Step {
    const [left, field] = node.args as [AstNode, string];
    if (node.op === '.') {
      const q = this.qualifiedName(node, scope);
      if (q !== undefined && this.env.typeNames.has(q)) {
        const t = celTypeNamed(q);
        return () => t;
      }
    }
    const l = this.plan(left, scope);
    if (node.op === '.?') {
      return (f) => {
        const v = l(f);
        if (f.t !== undefined) charge(f.t, 1);
        return optionalSelect(v, field);
      };
    }
    return (f) => {
      const v = l(f);
      if (f.t !== undefined) charge(f.t, 1);
      return select(v, field);
    };
  }

  private planIndex(node: AstNode, scope: Scope): Step {
    const [left, right] = node.args as [AstNode, AstNode];
    const l = this.plan(left, scope);
    const r = this.plan(right, scope);
    if (node.op === '[?]') {
      return (f) => {
        const v = l(f);
        const k = r(f);
        if (f.t !== undefined) charge(f.t, 1);
        return optionalIndex(v, k);
      };
    }
    return (f) => {
      const v = l(f);
      const k = r(f);
      if (f.t !== undefined) charge(f.t, 1);
      return index(v, k);
    };
  }

  // ---- aggregates ------------------------------------------------------------------------------------

  private planList(node: AstNode, scope: Scope): Step {
    const items = (node.args as AstNode[]).map((n) => this.plan(n, scope));
    if (items.length === 0) return (f) => (f.t !== undefined && charge(f.t, 10), [] as CelList);
    return (f) => {
      if (f.t !== undefined) charge(f.t, 10);
      const out = new Array<CelValue>(items.length);
      for (let i = 0; i < items.length; i++) out[i] = items[i]!(f);
      return out;
    };
  }

  private planMap(node: AstNode, scope: Scope): Step {
    const entries = (node.args as [AstNode, AstNode][]).map(([k, v]) => [this.plan(k, scope), this.plan(v, scope)] as const);
    return (f) => {
      if (f.t !== undefined) charge(f.t, 30);
      const m = new EntryMap();
      for (const [k, v] of entries) m.add(k(f), v(f));
      return m;
    };
  }

  // ---- control flow ----------------------------------------------------------------------------------

  private planTernary(node: AstNode, scope: Scope): Step {
    const [c, a, b] = (node.args as AstNode[]).map((n) => this.plan(n, scope)) as [Step, Step, Step];
    return (f) => {
      const v = c(f);
      if (v === true) return a(f);
      if (v === false) return b(f);
      return err(`no such overload: ${typeNameOf(v)} ? _ : _`);
    };
  }

  private planLogical(node: AstNode, scope: Scope): Step {
    const [a, b] = (node.args as AstNode[]).map((n) => this.plan(n, scope)) as [Step, Step];
    // The deciding value: false for &&, true for ||. An error or a non-bool on one side is absorbed when
    // the other side decides (in either order), else it is the result.
    const decide = node.op === '||';
    const op = node.op;
    return (f) => {
      let left: CelValue | undefined;
      let leftErr: unknown;
      try {
        left = a(f);
        if (left === decide) return decide;
      } catch (e) {
        if (e instanceof CelCostError) throw e;
        leftErr = e;
      }
      let right: CelValue;
      try {
        right = b(f);
      } catch (e) {
        if (e instanceof CelCostError) throw e;
        throw leftErr ?? e;
      }
      if (right === decide) return decide;
      if (leftErr !== undefined) throw leftErr;
      if (typeof left !== 'boolean') return err(`no such overload: ${typeNameOf(left!)} ${op} ${typeNameOf(right)}`);
      if (typeof right !== 'boolean') return err(`no such overload: bool ${op} ${typeNameOf(right)}`);
      return right;
    };
  }

  private planNegate(node: AstNode, scope: Scope): Step {
    const arg = node.args as AstNode;
    if (arg.op === 'value' && typeof arg.args === 'bigint') {
      // `-9223372036854775808` is a negated literal whose magnitude alone is out of range.
      const v = -arg.args;
      if (v < INT64_MIN || v > INT64_MAX) throw this.compileError(node, 'invalid int literal');
      return () => v;
    }
    const a = this.plan(arg, scope);
    return (f) => {
      const v = a(f);
      if (f.t !== undefined) charge(f.t, 1);
      return negate(v);
    };
  }

  // ---- operators -----------------------------------------------------------------------------------

  private planBinary(node: AstNode, scope: Scope): Step {
    const [ln, rn] = node.args as [AstNode, AstNode];
    const a = this.plan(ln, scope);
    const b = this.plan(rn, scope);
    const bothInt = ln.checkedType?.name === 'int' && rn.checkedType?.name === 'int';
    // Operands first, then the operator's cost (cel-go observes a call after its arguments).
    const cmp = (test: (c: number) => boolean): Step => (f) => {
      const x = a(f);
      const y = b(f);
      if (f.t !== undefined) charge(f.t, orderingCost(x, y));
      return test(celCompare(x, y));
    };
    const arith = (op: (x: CelValue, y: CelValue) => CelValue): Step => (f) => {
      const x = a(f);
      const y = b(f);
      if (f.t !== undefined) charge(f.t, 1);
      return op(x, y);
    };
    const ints = (op: (x: bigint, y: bigint) => CelValue): Step => (f) => {
      const x = a(f) as bigint;
      const y = b(f) as bigint;
      if (f.t !== undefined) charge(f.t, 1);
      return op(x, y);
    };
    switch (node.op) {
      case '==':
      case '!=': {
        const negated = node.op === '!=';
        return (f) => {
          const x = a(f);
          const y = b(f);
          if (f.t !== undefined) charge(f.t, minSizeCost(x, y));
          return celEquals(x, y) !== negated;
        };
      }
      case '<':
        if (bothInt) return ints((x, y) => x < y);
        return cmp((c) => c < 0);
      case '<=':
        if (bothInt) return ints((x, y) => x <= y);
        return cmp((c) => c <= 0);
      case '>':
        if (bothInt) return ints((x, y) => x > y);
        return cmp((c) => c > 0);
      case '>=':
        if (bothInt) return ints((x, y) => x >= y);
        return cmp((c) => c >= 0);
      case '+':
        if (bothInt) return ints((x, y) => checkInt(x + y));
        return (f) => {
          const x = a(f);
          const y = b(f);
          if (f.t !== undefined) charge(f.t, addCost(x, y));
          return add(x, y);
        };
      case '-':
        if (bothInt) return ints((x, y) => checkInt(x - y));
        return arith(subtract);
      case '*':
        return arith(multiply);
      case '/':
        return arith(divide);
      case '%':
        return arith(modulo);
      case 'in':
        return (f) => {
          const x = a(f);
          const c = b(f);
          if (f.t !== undefined) charge(f.t, inCost(c));
          if (Array.isArray(c)) return listContains(c as CelList, x);
          if (isMap(c)) return mapHas(c, x);
          return err(`no such overload: ${typeNameOf(x)} in ${typeNameOf(c)}`);
        };
      default:
        throw this.compileError(node, `unsupported operator ${node.op}`);
    }
  }

  // ---- calls and macros ----------------------------------------------------------------------------

  private planCall(node: AstNode, scope: Scope): Step {
    const member = node.op === 'rcall';
    const name = (node.args as unknown[])[0] as string;
    const receiver = member ? ((node.args as unknown[])[1] as AstNode) : undefined;
    const argNodes = (member ? (node.args as unknown[])[2] : (node.args as unknown[])[1]) as AstNode[];
    const meta = node.meta;
    if (meta.alternate !== undefined && meta.alternate.op === 'comprehension') return this.planComprehension(name, receiver!, argNodes, scope);
    if (meta.macro !== undefined) return this.planMacro(node, name, receiver, meta.macro, scope);

    // Global functions of a namespace: `optional.of(x)` is a member call on the identifier `optional`.
    let fname = name;
    let isMember = member;
    if (receiver !== undefined && receiver.op === 'id' && !scope.has(receiver.args as string) && this.env.namespaces.has(receiver.args as string)) {
      fname = `${receiver.args as string}.${name}`;
      isMember = false;
    }
    const operandNodes = isMember ? [receiver!, ...argNodes] : argNodes;

    if (!isMember && (fname === 'dyn' || fname === 'type') && argNodes.length === 1) {
      // Functions of cost 1 in cel-go (`dyn` is an identity overload, `type` a conversion).
      const a = this.plan(argNodes[0]!, scope);
      const isType = fname === 'type';
      return (f) => {
        const v = a(f);
        if (f.t !== undefined) charge(f.t, 1);
        return isType ? typeOf(v) : v;
      };
    }
    if (fname === 'matches') {
      const pattern = operandNodes[1];
      if (pattern !== undefined && pattern.op === 'value' && typeof pattern.args === 'string') {
        const problem = validateRe2(pattern.args);
        if (problem !== undefined) throw this.compileError(pattern, problem);
      }
    }

    const operands = operandNodes.map((n) => this.plan(n, scope));
    const key = tableKey(isMember, fname, argNodes.length);
    const all = this.env.functions.get(key) ?? [];
    const checkedTypes = operandNodes.map((n) => (n.checkedType === undefined ? undefined : parseTypeTree(n.checkedType.name)));
    const candidates: TableEntry[] = [];
    let exact: TableEntry | undefined;
    for (const e of all) {
      let fit: 'yes' | 'maybe' | 'no' = 'yes';
      for (let i = 0; i < e.params.length; i++) {
        const ct = checkedTypes[i];
        const pf = ct === undefined ? 'maybe' : staticFit(e.params[i]!, ct);
        if (pf === 'no') {
          fit = 'no';
          break;
        }
        if (pf === 'maybe') fit = 'maybe';
      }
      if (fit === 'no') continue;
      if (fit === 'yes' && exact === undefined && candidates.length === 0) exact = e;
      candidates.push(e);
    }
    const label = isMember ? `${name}` : fname;
    if (all.length === 0 && operandNodes.every((n) => n.checkedType !== undefined)) {
      // A function the checker declares but neither the standard library nor a Kubernetes library
      // implements (cel-js extras such as `bytes.hex()`): refused at compile time, as cel-go would.
      throw this.compileError(node, `undeclared reference to '${fname}' (in container '')`);
    }
    if (candidates.length === 0) {
      return (f) => {
        const vals = operands.map((o) => o(f));
        return err(`no such overload: ${label}(${vals.map(typeNameOf).join(', ')})`);
      };
    }
    if (exact !== undefined) return callStep(exact, operands);
    return (f) => {
      const vals = new Array<CelValue>(operands.length);
      for (let i = 0; i < operands.length; i++) vals[i] = operands[i]!(f);
      const e = selectAtRuntime(candidates, vals);
      if (e === undefined) return err(`no such overload: ${label}(${vals.map(typeNameOf).join(', ')})`);
      if (f.t !== undefined) charge(f.t, e.cost === undefined ? 1 : e.cost(vals));
      return e.impl(...vals);
    };
  }

  private planMacro(node: AstNode, name: string, receiver: AstNode | undefined, macro: Record<string, unknown>, scope: Scope): Step {
    switch (name) {
      case 'has':
        return this.planHas(node, macro, scope);
      case 'bind': {
        const varName = macro['var'] as string;
        const val = this.plan(macro['val'] as AstNode, scope);
        const slot = this.slots++;
        const exp = this.plan(macro['exp'] as AstNode, new Map(scope).set(varName, slot));
        return (f) => {
          // cel-go: a comprehension over the empty list literal `[]` (10), the accumulator initialized to val.
          if (f.t !== undefined) charge(f.t, 10);
          f.slots[slot] = val(f);
          return exp(f);
        };
      }
      case 'or':
      case 'orValue': {
        const r = this.plan(macro['receiver'] as AstNode, scope);
        const alt = this.plan(macro['arg'] as AstNode, scope);
        const orValue = name === 'orValue';
        return (f) => {
          const o = r(f);
          if (f.t !== undefined) charge(f.t, 1);
          if (!(o instanceof Optional)) return err(`no such overload: ${typeNameOf(o)}.${name}()`);
          if (o.value !== undefined) return orValue ? o.value : o;
          const v = alt(f);
          if (!orValue && !(v instanceof Optional)) return err(`no such overload: optional.or(${typeNameOf(v)})`);
          return v;
        };
      }
      case 'optMap':
      case 'optFlatMap': {
        const r = this.plan(receiver!, scope);
        const varName = macro['var'] as string;
        const slot = this.slots++;
        const exp = this.plan(macro['exp'] as AstNode, new Map(scope).set(varName, slot));
        const flat = name === 'optFlatMap';
        return (f) => {
          // cel-go's expansion: `t.hasValue() ? optional.of(cel.bind(v, t.value(), e)) : optional.none()`
          // (no optional.of for optFlatMap): hasValue 1; then t again, value() 1, the bind's `[]` 10 and
          // optional.of 1; or optional.none() 1.
          const o = r(f);
          if (f.t !== undefined) charge(f.t, 1);
          if (!(o instanceof Optional)) return err(`no such overload: ${typeNameOf(o)}.${name}()`);
          if (o.value === undefined) {
            if (f.t !== undefined) charge(f.t, 1);
            return o;
          }
          if (f.t !== undefined) {
            r(f);
            charge(f.t, flat ? 11 : 12);
          }
          f.slots[slot] = o.value;
          const v = exp(f);
          if (!flat) return Optional.of(v);
          return v instanceof Optional ? v : err(`optFlatMap: the expression must return an optional, got ${typeNameOf(v)}`);
        };
      }
      default:
        throw this.compileError(node, `unsupported macro ${name}`);
    }
  }

  private planHas(node: AstNode, macro: Record<string, unknown>, scope: Scope): Step {
    const arg = (macro['args'] as AstNode[] | undefined)?.[0];
    if (arg === undefined || arg.op !== '.') throw this.compileError(arg ?? node, 'invalid argument to has() macro');
    const [left, field] = arg.args as [AstNode, string];
    const l = this.plan(left, scope);
    return (f) => {
      const v = l(f);
      if (f.t !== undefined) charge(f.t, 1);
      return hasField(v, field);
    };
  }

  private planComprehension(name: string, receiver: AstNode, args: AstNode[], scope: Scope): Step {
    const range = this.plan(receiver, scope);
    const varName = args[0]!.args as string;
    const slot = this.slots++;
    const inner = new Map(scope).set(varName, slot);
    const items = (f: Frame): readonly CelValue[] => {
      const c = range(f);
      if (Array.isArray(c)) return c as CelList;
      if (isMap(c)) return [...c.keys()];
      return err(`expression of type '${typeNameOf(c)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
    };
    // Costs of cel-go's expansions (accumulator `@result`): a loop condition before every iteration,
    // the step, then the result.
    //  - all:        condition `@not_strictly_false(@result)` 2, step `@result && p` 1 + p, result 1;
    //                once decided (false), the next iteration's condition (2) ends the loop.
    //  - exists:     condition `@not_strictly_false(!@result)` 3, step `@result || p` 1 + p, result 1.
    //  - exists_one: condition `true` 0, step `p ? @result + 1 : @result` p + 2 | p + 1, result `@result == 1` 2.
    //  - map:        init `[]` 10, step `@result + [f]` 12 + f (with a filter q: q + (12 + f) | q + 1), result 1.
    //  - filter:     init `[]` 10, step `p ? @result + [x] : @result` p + 13 | p + 1, result 1.
    switch (name) {
      case 'all':
      case 'exists': {
        const pred = this.plan(args[1]!, inner);
        const decide = name === 'exists';
        const condCost = decide ? 3 : 2;
        return (f) => {
          let firstErr: unknown;
          const t = f.t;
          const xs = items(f);
          for (let i = 0; i < xs.length; i++) {
            if (t !== undefined) charge(t, condCost + 1);
            f.slots[slot] = xs[i]!;
            try {
              const v = pred(f);
              if (v === decide) {
                if (t !== undefined) charge(t, i + 1 < xs.length ? condCost + 1 : 1);
                return decide;
              }
              if (typeof v !== 'boolean') firstErr ??= new CelEvalError(`no such overload: ${name} predicate of type ${typeNameOf(v)}`);
            } catch (e) {
              if (e instanceof CelCostError) throw e;
              firstErr ??= e;
            }
          }
          if (t !== undefined) charge(t, 1);
          if (firstErr !== undefined) throw firstErr;
          return !decide;
        };
      }
      case 'exists_one':
      case 'existsOne': {
        const pred = this.plan(args[1]!, inner);
        return (f) => {
          let n = 0;
          const t = f.t;
          for (const x of items(f)) {
            f.slots[slot] = x;
            const v = pred(f);
            if (v === true) {
              n++;
              if (t !== undefined) charge(t, 2);
            } else if (v !== false) return err(`no such overload: exists_one predicate of type ${typeNameOf(v)}`);
            else if (t !== undefined) charge(t, 1);
          }
          if (t !== undefined) charge(t, 2);
          return n === 1;
        };
      }
      case 'map': {
        const filter = args.length === 3 ? this.plan(args[1]!, inner) : undefined;
        const transform = this.plan(args[args.length - 1]!, inner);
        return (f) => {
          const t = f.t;
          if (t !== undefined) charge(t, 10);
          const out: CelValue[] = [];
          for (const x of items(f)) {
            f.slots[slot] = x;
            if (filter !== undefined) {
              const keep = filter(f);
              if (keep === false) {
                if (t !== undefined) charge(t, 1);
                continue;
              }
              if (keep !== true) return err(`no such overload: map filter of type ${typeNameOf(keep)}`);
            }
            const v = transform(f);
            if (t !== undefined) charge(t, 12);
            out.push(v);
          }
          if (t !== undefined) charge(t, 1);
          return out;
        };
      }
      case 'filter': {
        const pred = this.plan(args[1]!, inner);
        return (f) => {
          const t = f.t;
          if (t !== undefined) charge(t, 10);
          const out: CelValue[] = [];
          for (const x of items(f)) {
            f.slots[slot] = x;
            const v = pred(f);
            if (v === true) {
              if (t !== undefined) charge(t, 13);
              out.push(x);
            } else if (v !== false) return err(`no such overload: filter predicate of type ${typeNameOf(v)}`);
            else if (t !== undefined) charge(t, 1);
          }
          if (t !== undefined) charge(t, 1);
          return out;
        };
      }
      default:
        throw new CelEvalError(`unsupported macro ${name}`);
    }
  }
}

function callStep(e: TableEntry, operands: Step[]): Step {
  const impl = e.impl;
  const cost = e.cost;
  switch (operands.length) {
    case 0:
      return (f) => {
        if (f.t !== undefined) charge(f.t, cost === undefined ? 1 : cost([]));
        return impl();
      };
    case 1: {
      const a = operands[0]!;
      return (f) => {
        const x = a(f);
        if (f.t !== undefined) charge(f.t, cost === undefined ? 1 : cost([x]));
        return impl(x);
      };
    }
    case 2: {
      const [a, b] = operands as [Step, Step];
      return (f) => {
        const x = a(f);
        const y = b(f);
        if (f.t !== undefined) charge(f.t, cost === undefined ? 1 : cost([x, y]));
        return impl(x, y);
      };
    }
    default:
      return (f) => {
        const vals = operands.map((o) => o(f));
        if (f.t !== undefined) charge(f.t, cost === undefined ? 1 : cost(vals));
        return impl(...vals);
      };
  }
}

// ---- runtime helpers ---------------------------------------------------------------------------------

export const isMap = (v: CelValue): v is CelMap => v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === 'map';
const isObject = (v: CelValue): v is CelObject => v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === 'object';

/** A map key from an index value: integral doubles look up int keys; other doubles find nothing. */
function mapKey(k: CelValue): CelMapKey | undefined {
  switch (typeof k) {
    case 'string':
    case 'bigint':
    case 'boolean':
      return k;
    case 'number':
      return Number.isInteger(k) ? BigInt(k) : undefined;
    default:
      if (k instanceof CelUint) return k;
      return err(`unsupported key type: ${typeNameOf(k)}`);
  }
}

function mapGet(m: CelMap, k: CelValue): CelValue | undefined {
  const key = mapKey(k);
  if (key === undefined) return undefined;
  const v = m.get(key);
  // A uint key also finds an int key of equal value in maps that do not normalize keys themselves.
  if (v === undefined && key instanceof CelUint) return m.get(key.value);
  return v;
}

export function mapHas(m: CelMap, k: CelValue): boolean {
  return mapGet(m, k) !== undefined;
}

export function select(v: CelValue, field: string): CelValue {
  if (v !== null && typeof v === 'object') {
    const kind = (v as { kind?: unknown }).kind;
    if (kind === 'map') {
      const x = (v as CelMap).get(field);
      return x === undefined ? noSuchKey(field) : x;
    }
    if (kind === 'object') {
      const x = (v as CelObject).field(field);
      return x === undefined ? noSuchKey(field) : x;
    }
    if (v instanceof Optional) return optionalSelect(v, field);
  }
  return err(`type '${typeNameOf(v)}' does not support field selection`);
}

function optionalSelect(v: CelValue, field: string): CelValue {
  if (v instanceof Optional) {
    if (v.value === undefined) return v;
    v = v.value;
  }
  if (isMap(v)) {
    const x = v.get(field);
    return x === undefined ? Optional.NONE : Optional.of(x);
  }
  if (isObject(v)) {
    const x = v.field(field);
    return x === undefined ? Optional.NONE : Optional.of(x);
  }
  return err(`type '${typeNameOf(v)}' does not support field selection`);
}

function listIndex(k: CelValue): number {
  let i: number;
  if (typeof k === 'bigint') i = Number(k);
  else if (k instanceof CelUint) i = Number(k.value);
  else if (typeof k === 'number' && Number.isInteger(k)) i = k;
  else return err(`unsupported index type '${typeNameOf(k)}' in list`);
  return i;
}

export function index(v: CelValue, k: CelValue): CelValue {
  if (Array.isArray(v)) {
    const i = listIndex(k);
    if (i < 0 || i >= v.length) return err(`index out of range: ${formatKey(k)}`);
    return v[i] as CelValue;
  }
  if (isMap(v)) {
    const x = mapGet(v, k);
    return x === undefined ? noSuchKey(k) : x;
  }
  if (isObject(v) && typeof k === 'string') {
    const x = v.field(k);
    return x === undefined ? noSuchKey(k) : x;
  }
  if (v instanceof Optional) return optionalIndex(v, k);
  return err(`no such overload: ${typeNameOf(v)}[${typeNameOf(k)}]`);
}

function optionalIndex(v: CelValue, k: CelValue): CelValue {
  if (v instanceof Optional) {
    if (v.value === undefined) return v;
    v = v.value;
  }
  if (Array.isArray(v)) {
    const i = listIndex(k);
    return i < 0 || i >= v.length ? Optional.NONE : Optional.of(v[i] as CelValue);
  }
  if (isMap(v)) {
    const x = mapGet(v, k);
    return x === undefined ? Optional.NONE : Optional.of(x);
  }
  if (isObject(v) && typeof k === 'string') {
    const x = v.field(k);
    return x === undefined ? Optional.NONE : Optional.of(x);
  }
  return err(`no such overload: ${typeNameOf(v)}[?${typeNameOf(k)}]`);
}

function hasField(v: CelValue, field: string): boolean {
  if (isMap(v)) return v.has(field);
  if (isObject(v)) return v.hasField(field);
  if (v instanceof Optional) return v.value !== undefined && hasField(v.value, field);
  return err(`invalid type for field selection: ${typeNameOf(v)}`);
}

/** cel-js type names in cel-go's spelling. */
export function canonicalTypeName(name: string): string {
  if (name === 'null') return 'null_type';
  if (name === 'optional') return 'optional_type';
  return name;
}

export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let col = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      col = 0;
    } else col++;
  }
  return { line, column: col + 1 };
}

/**
 * A bytes literal: the engine decodes bytes literals char by char (a non-ASCII character becomes one
 * byte), where CEL encodes literal characters as UTF-8 and only escapes denote raw bytes. When the literal
 * text has a non-ASCII character, it is decoded again here from the source.
 */
function bytesLiteral(node: AstNode, parsed: Uint8Array): Uint8Array {
  const text = node.input.slice(node.start, node.end);
  if (!/[^\x00-\x7f]/.test(text)) return parsed;
  const m = /^([rRbB]{1,2})("""|'''|"|')([\s\S]*)\2$/.exec(text);
  if (m === null) return parsed;
  const raw = /[rR]/.test(m[1]!);
  const body = m[3]!;
  const out: number[] = [];
  const enc = new TextEncoder();
  const simple: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, '?': 63, '"': 34, "'": 39, '`': 96 };
  for (let i = 0; i < body.length; ) {
    const ch = body[i]!;
    if (ch === '\\' && !raw && i + 1 < body.length) {
      const n = body[i + 1]!;
      if (simple[n] !== undefined) {
        out.push(simple[n]!);
        i += 2;
        continue;
      }
      if (n === 'x' || n === 'X') {
        out.push(Number.parseInt(body.slice(i + 2, i + 4), 16));
        i += 4;
        continue;
      }
      if (n >= '0' && n <= '7') {
        out.push(Number.parseInt(body.slice(i + 1, i + 4), 8));
        i += 4;
        continue;
      }
      return parsed;
    }
    const cp = body.codePointAt(i)!;
    const s = String.fromCodePoint(cp);
    for (const b of enc.encode(s)) out.push(b);
    i += s.length;
  }
  return Uint8Array.from(out);
}

export { BUILTIN_TYPE_NAMES };
