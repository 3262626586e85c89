/**
 * The static cost estimator: the worst-case (and best-case) cost of a checked expression, by cel-go's
 * estimation rules (checker/cost.go) with Kubernetes' library estimates (the overloads' `estimate` hooks)
 * and sizes from the schema (decl-sizes.ts). It walks cel-js's checked AST (the nodes the planner reads);
 * macros are costed as cel-go's expansions would be, since cel-go estimates the expanded comprehension:
 *
 * | node                          | cost                                                                 |
 * |-------------------------------|----------------------------------------------------------------------|
 * | literal                       | 0                                                                    |
 * | identifier                    | 1 (variables, iteration variables, accumulators alike)               |
 * | `a.f`                         | cost(a) + 1 when `a` is a map or an object (0 on `dyn`, as cel-go)   |
 * | `has(a.f)`                    | cost(a) + 1                                                          |
 * | list / map literal            | items + 10 / entries + 30                                            |
 * | `&&`, `\|\|`                  | min: left's min; max: left + right                                   |
 * | `c ? a : b`                   | c + union(a, b)                                                      |
 * | call                          | operands + the function's cost (union over the overloads that fit)   |
 * | comprehension over range r    | r + init + result + size(r) x (loop condition + step)                |
 * | `cel.bind(v, i, e)`           | 10 (the empty range list) + i + e                                    |
 *
 * Function costs (cel-go): `==`, `!=` and string/bytes ordering `ceil(0.1 x min(max sizes))` (min 1 when
 * that is > 0); string/bytes `+` `ceil(0.1 x (size a + size b))`; `in` on a list its size; `contains`
 * `ceil(0.1 x size s) x ceil(0.1 x size t)`; `startsWith`/`endsWith` `ceil(0.1 x size of the argument)`;
 * `matches` `ceil(0.1 x (size + 1)) x ceil(0.25 x size of the regex)`; `bytes(string)`, `string(bytes)`,
 * `format` and `strings.quote` a traversal; everything else 1, unless the overload's `estimate` hook
 * (Kubernetes' cost.go) says otherwise.
 *
 * Sizes: a literal's own size, a call's result size, then the schema's size for the node's field path,
 * then 1 for fixed-size scalars (bool, int, uint, double, timestamp, duration), else unknown
 * (0 .. 2^64 - 1). Everything saturates at 2^64 - 1; the result is a pure function of the expression and
 * the schema, so every replica computes the same number.
 *
 * Version notes: cel-go changed details after v0.22 (entry sizes of literal lists, the target of global
 * calls); the rules here are the ones every Kubernetes 1.32 reference row agrees with (cost.test.ts).
 * A global function (namespaced ones included) has no target in the hook's context; Kubernetes' rules
 * for global functions (`isIP`, `cidr`, `quantity`, `ip.isCanonical`) read their first argument, as
 * cel-go v0.22 lets them (kubernetes-estimates.ts).
 */
import { CelCompileError } from '../errors.js';
import { parseTypeTree, staticFit, tableKey, type TableEntry, type TypeTree } from '../interpreter/dispatch.js';
import type { AstNode, PlanEnvironment } from '../interpreter/plan.js';
import type { CallEstimate, EstimateContext, EstimateNode } from './call-estimate.js';
import type { SizeEstimator } from './decl-sizes.js';
import {
  CONST_COST,
  LIST_CREATE_BASE_COST,
  MAP_CREATE_BASE_COST,
  REGEX_STRING_LENGTH_COST_FACTOR,
  SELECT_AND_IDENT_COST,
  STRING_TRAVERSAL_COST_FACTOR,
} from './limits.js';
import { add, addU64, fixed, multiply, mulFactor, ONE, sum, union, UNKNOWN_SIZE, UINT64_MAX, ZERO, type CostEstimate, type SizeEstimate } from './units.js';

export interface EstimateOptions {
  /** Sizes of the declared variables' data (a CRD rule: the schema's DeclType tree); none for untyped data. */
  readonly sizes?: SizeEstimator;
}

/** The function table and namespaces the expression was compiled with (a `CelEnvironment` is one). */
export type EstimateEnvironment = Pick<PlanEnvironment, 'functions' | 'namespaces'>;

/** The estimated cost range of a checked expression. Throws CelCompileError for an unchecked AST. */
export function estimateCost(ast: AstNode, env: EstimateEnvironment, options: EstimateOptions = {}): CostEstimate {
  if (ast.checkedType === undefined) throw new CelCompileError(ast.input ?? '', 'cost estimation needs a type-checked expression', 1, 1);
  return new Coster(env, options.sizes).cost(ast);
}

const ACCUMULATOR = '@result';
const STRING_FACTOR = STRING_TRAVERSAL_COST_FACTOR;
const FIXED_1 = fixed(1);
const IDENT = fixed(SELECT_AND_IDENT_COST);
const LIST_BASE = fixed(LIST_CREATE_BASE_COST);
const MAP_BASE = fixed(MAP_CREATE_BASE_COST);
const CONST = fixed(CONST_COST);

const SCALARS = new Set(['bool', 'int', 'uint', 'double', 'google.protobuf.Timestamp', 'google.protobuf.Duration']);
const NOT_STRUCT = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'null',
  'null_type',
  'list',
  'map',
  'dyn',
  'type',
  'optional',
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
]);

interface EntrySize {
  readonly container: 'list' | 'map';
  readonly key: SizeEstimate;
  readonly val: SizeEstimate;
}

interface LocalVar {
  readonly path: readonly string[] | undefined;
  readonly size: SizeEstimate | undefined;
  readonly entry: EntrySize | undefined;
}

const unionSize = (a: SizeEstimate, b: SizeEstimate): SizeEstimate => union(a, b);
const addSize = (a: SizeEstimate, b: SizeEstimate): SizeEstimate => add(a, b);
const unionEntry = (a: EntrySize | undefined, b: EntrySize | undefined): EntrySize | undefined =>
  a === undefined || b === undefined ? undefined : { container: a.container, key: unionSize(a.key, b.key), val: unionSize(a.val, b.val) };

class Coster {
  private readonly paths = new Map<AstNode, readonly string[]>();
  private readonly sizes = new Map<AstNode, SizeEstimate>();
  private readonly entries = new Map<AstNode, EntrySize>();
  private readonly locals = new Map<string, LocalVar[]>();

  constructor(
    private readonly env: EstimateEnvironment,
    private readonly estimator: SizeEstimator | undefined,
  ) {}

  cost(n: AstNode): CostEstimate {
    switch (n.op) {
      case 'value':
        return CONST;
      case 'id':
        return this.costIdent(n);
      case '.':
        return this.costSelect(n);
      case '.?': {
        // `a.?f` is the call `_?._(a, 'f')`: a function of cost 1.
        const [left] = n.args as [AstNode, string];
        return add(this.cost(left), ONE);
      }
      case '[]':
      case '[?]':
        return this.costIndex(n);
      case 'call':
      case 'rcall':
        return this.costCall(n);
      case 'list':
        return this.costList(n);
      case 'map':
        return this.costMap(n);
      case '?:':
        return this.costConditional(n);
      case '&&':
      case '||': {
        const [a, b] = n.args as [AstNode, AstNode];
        const l = this.cost(a);
        const r = this.cost(b);
        return { min: l.min, max: addU64(l.max, r.max) };
      }
      case '!_':
        return add(this.cost(n.args as AstNode), ONE);
      case '-_': {
        const a = n.args as AstNode;
        // cel-go's parser folds a negated numeric literal into a literal.
        if (a.op === 'value' && (typeof a.args === 'bigint' || typeof a.args === 'number')) return CONST;
        return add(this.cost(a), ONE);
      }
      default:
        return this.costOperator(n);
    }
  }

  // ---- variables, paths and sizes ----------------------------------------------------------------

  private local(name: string): LocalVar | undefined {
    const s = this.locals.get(name);
    return s === undefined || s.length === 0 ? undefined : s[s.length - 1];
  }

  private push(name: string, v: LocalVar): void {
    const s = this.locals.get(name) ?? [];
    s.push(v);
    this.locals.set(name, s);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private path(n: AstNode): readonly string[] | undefined {
    if (n.op === 'id') {
      const v = this.local(n.args as string);
      if (v !== undefined) return v.path;
    }
    return this.paths.get(n);
  }

  private type(n: AstNode): TypeTree {
    return parseTypeTree(n.checkedType?.name ?? 'dyn');
  }

  /** cel-go's computeSize: recorded size, literal size, schema size by path, scalar size, local variable size. */
  private size(n: AstNode): SizeEstimate | undefined {
    const recorded = this.sizes.get(n);
    if (recorded !== undefined) return recorded;
    const lit = literalSize(n);
    if (lit !== undefined) return lit;
    const path = this.path(n);
    if (path !== undefined && path.length > 0 && path[0] !== ACCUMULATOR && this.estimator !== undefined) {
      const s = this.estimator(path);
      if (s !== undefined) {
        this.sizes.set(n, s);
        return s;
      }
    }
    if (SCALARS.has(this.type(n).name)) return FIXED_1;
    if (n.op === 'id') return this.local(n.args as string)?.size;
    return undefined;
  }

  private sizeOrUnknown(n: AstNode): SizeEstimate {
    return this.size(n) ?? UNKNOWN_SIZE;
  }

  private entrySize(n: AstNode): EntrySize | undefined {
    const e = this.entries.get(n);
    if (e !== undefined) return e;
    if (n.op === 'id') return this.local(n.args as string)?.entry;
    return undefined;
  }

  private estimateNode(n: AstNode): EstimateNode {
    const path = this.path(n);
    return {
      path: path !== undefined && path[0] === ACCUMULATOR ? undefined : path,
      type: n.checkedType?.name ?? 'dyn',
      ...(n.op === 'value' ? { literal: n.args } : {}),
      computedSize: this.size(n),
    };
  }

  // ---- nodes -------------------------------------------------------------------------------------

  private costIdent(n: AstNode): CostEstimate {
    const name = n.args as string;
    const v = this.local(name);
    if (v === undefined) this.paths.set(n, [name]);
    return IDENT;
  }

  private costSelect(n: AstNode): CostEstimate {
    const [left, field] = n.args as [AstNode, string];
    let c = this.cost(left);
    if (isMapOrStruct(this.type(left))) c = add(c, IDENT);
    this.paths.set(n, [...(this.path(left) ?? []), field]);
    return c;
  }

  private costIndex(n: AstNode): CostEstimate {
    const [coll, idx] = n.args as [AstNode, AstNode];
    const c = add(add(this.cost(coll), this.cost(idx)), ONE);
    if (n.op === '[]') {
      const k = this.type(coll).name;
      if (k === 'list' || k === 'map') {
        const entry = this.entrySize(coll);
        this.paths.set(n, [...(this.path(coll) ?? []), k === 'list' ? '@items' : '@values']);
        const s = entry?.val ?? this.size(n);
        if (s !== undefined) this.sizes.set(n, s);
      }
    }
    return c;
  }

  private costList(n: AstNode): CostEstimate {
    const items = n.args as AstNode[];
    let c = ZERO;
    let val: SizeEstimate = { min: items.length === 0 ? 0n : UINT64_MAX, max: 0n };
    for (const it of items) {
      c = add(c, this.cost(it));
      val = unionSize(val, this.sizeOrUnknown(it));
    }
    this.entries.set(n, { container: 'list', key: FIXED_1, val });
    return add(c, LIST_BASE);
  }

  private costMap(n: AstNode): CostEstimate {
    const entries = n.args as [AstNode, AstNode][];
    let c = ZERO;
    let key: SizeEstimate = { min: entries.length === 0 ? 0n : UINT64_MAX, max: 0n };
    let val = key;
    for (const [k, v] of entries) {
      c = add(add(c, this.cost(k)), this.cost(v));
      key = unionSize(key, this.sizeOrUnknown(k));
      val = unionSize(val, this.sizeOrUnknown(v));
    }
    this.entries.set(n, { container: 'map', key, val });
    return add(c, MAP_BASE);
  }

  private costConditional(n: AstNode): CostEstimate {
    const [c, a, b] = n.args as [AstNode, AstNode, AstNode];
    const cc = this.cost(c);
    const ca = this.cost(a);
    const cb = this.cost(b);
    this.sizes.set(n, unionSize(this.sizeOrUnknown(a), this.sizeOrUnknown(b)));
    const e = unionEntry(this.entrySize(a), this.entrySize(b));
    if (e !== undefined) this.entries.set(n, e);
    return add(cc, union(ca, cb));
  }

  /** Binary operators: cel-go's function rules by overload (equality, string ordering, concatenation, `in`). */
  private costOperator(n: AstNode): CostEstimate {
    const [a, b] = n.args as [AstNode, AstNode];
    const args = add(this.cost(a), this.cost(b));
    const ta = this.type(a).name;
    const tb = this.type(b).name;
    switch (n.op) {
      case '==':
      case '!=':
        return add(this.minSizeTraversal(a, b), args);
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const textual = (t: string): boolean => t === 'string' || t === 'bytes';
        if (textual(ta) || textual(tb)) return add(this.minSizeTraversal(a, b), args);
        if (ta === 'dyn' && tb === 'dyn') return add(union(this.minSizeTraversal(a, b), ONE), args);
        return add(ONE, args);
      }
      case '+': {
        const kind = ta === 'dyn' ? tb : ta;
        if (kind === 'string' || kind === 'bytes' || kind === 'list') {
          const size = addSize(this.sizeOrUnknown(a), this.sizeOrUnknown(b));
          this.sizes.set(n, size);
          const e = unionEntry(this.entrySize(a), this.entrySize(b));
          if (e !== undefined) this.entries.set(n, e);
          return add(kind === 'list' ? ONE : mulFactor(size, STRING_FACTOR), args);
        }
        return add(ONE, args);
      }
      case 'in': {
        if (tb === 'list') return add(mulFactor(this.sizeOrUnknown(b), 1), args);
        if (tb === 'dyn') return add(union(mulFactor(this.sizeOrUnknown(b), 1), ONE), args);
        return add(ONE, args);
      }
      default:
        return add(ONE, args);
    }
  }

  /** Equality and ordering of strings/bytes: `ceil(0.1 x min(max sizes))`, min 1 when that max is > 0. */
  private minSizeTraversal(a: AstNode, b: AstNode): CostEstimate {
    const l = this.sizeOrUnknown(a);
    const r = this.sizeOrUnknown(b);
    const smallestMax = r.max < l.max ? r.max : l.max;
    return mulFactor({ min: smallestMax > 0n ? 1n : 0n, max: smallestMax }, STRING_FACTOR);
  }

  // ---- calls and macros --------------------------------------------------------------------------

  private costCall(n: AstNode): CostEstimate {
    const member = n.op === 'rcall';
    const a = n.args as unknown[];
    const name = a[0] as string;
    const receiver = member ? (a[1] as AstNode) : undefined;
    const argNodes = (member ? a[2] : a[1]) as AstNode[];
    if (n.meta.alternate?.op === 'comprehension') return this.costComprehension(n, name, receiver!, argNodes);
    if (n.meta.macro !== undefined) return this.costMacro(n, name, receiver, n.meta.macro);

    let fname = name;
    let target = receiver;
    if (receiver !== undefined && receiver.op === 'id' && this.local(receiver.args as string) === undefined && this.env.namespaces.has(receiver.args as string)) {
      fname = `${receiver.args as string}.${name}`;
      target = undefined;
    }
    if (target === undefined && fname === 'dyn' && argNodes.length === 1) {
      // `dyn(x)` is 1 plus its argument, with the argument's sizes.
      const c = this.cost(argNodes[0]!);
      this.copySizes(n, argNodes[0]!);
      return add(ONE, c);
    }
    const argCosts = argNodes.map((x) => this.cost(x));
    let total = ZERO;
    if (target !== undefined) total = add(total, this.cost(target));
    const argSum = sum(argCosts);
    const candidates = this.candidates(target !== undefined, fname, target, argNodes);
    const targetNode = target === undefined ? undefined : this.estimateNode(target);
    const argEst = argNodes.map((x) => this.estimateNode(x));
    let fn: CostEstimate | undefined;
    let resultSize: SizeEstimate | undefined;
    const consider = (e: CallEstimate): void => {
      fn = fn === undefined ? e.cost : union(fn, e.cost);
      if (e.resultSize !== undefined) resultSize = resultSize === undefined ? e.resultSize : unionSize(resultSize, e.resultSize);
    };
    for (const c of candidates) {
      const hooked = c.estimate?.(this.context(targetNode, argEst));
      consider(hooked ?? this.builtinCall(fname, c, target, argNodes));
    }
    if (fn === undefined) consider(this.builtinCall(fname, undefined, target, argNodes));
    const size = resultSize ?? this.size(n);
    if (size !== undefined) this.sizes.set(n, size);
    return add(add(total, fn!), argSum);
  }

  /** The overloads of a call that fit the checked operand types (as the planner binds them). */
  private candidates(member: boolean, fname: string, target: AstNode | undefined, args: AstNode[]): TableEntry[] {
    const all = this.env.functions.get(tableKey(member, fname, args.length)) ?? [];
    const operands = target === undefined ? args : [target, ...args];
    const types = operands.map((x) => this.type(x));
    const out: TableEntry[] = [];
    for (const e of all) {
      let ok = true;
      for (let i = 0; i < e.params.length && ok; i++) ok = staticFit(e.params[i]!, types[i] ?? parseTypeTree('dyn')) !== 'no';
      if (ok) out.push(e);
    }
    return out;
  }

  private context(target: EstimateNode | undefined, args: readonly EstimateNode[]): EstimateContext {
    const estimator = this.estimator;
    return {
      target,
      args,
      size(node: EstimateNode): SizeEstimate {
        if (node.computedSize !== undefined) return node.computedSize;
        if (node.path !== undefined && node.path.length > 0 && estimator !== undefined) return estimator(node.path) ?? UNKNOWN_SIZE;
        return UNKNOWN_SIZE;
      },
      elementNode(list: EstimateNode): EstimateNode | undefined {
        const t = parseTypeTree(list.type);
        const elem = t.params[0];
        if (elem === undefined) return undefined;
        return { path: list.path === undefined ? undefined : [...list.path, '@items'], type: typeText(elem), computedSize: undefined };
      },
    };
  }

  /** cel-go's built-in rules by overload (functionCost), for a call without a library estimate. */
  private builtinCall(fname: string, entry: TableEntry | undefined, target: AstNode | undefined, args: AstNode[]): CallEstimate {
    const sig = entry?.signature.replace(/\s/g, '') ?? '';
    if (target !== undefined) {
      const tt = this.type(target).name;
      if (tt === 'string' && args.length === 1) {
        switch (fname) {
          case 'contains':
            return { cost: multiply(mulFactor(this.sizeOrUnknown(target), STRING_FACTOR), mulFactor(this.sizeOrUnknown(args[0]!), STRING_FACTOR)) };
          case 'startsWith':
          case 'endsWith':
            return { cost: mulFactor(this.sizeOrUnknown(args[0]!), STRING_FACTOR) };
          case 'matches': {
            const str = mulFactor(addSize(this.sizeOrUnknown(target), FIXED_1), STRING_FACTOR);
            const re = mulFactor(this.sizeOrUnknown(args[0]!), REGEX_STRING_LENGTH_COST_FACTOR);
            return { cost: multiply(str, re) };
          }
          case 'format':
            return { cost: mulFactor(this.sizeOrUnknown(target), STRING_FACTOR) };
          default:
        }
      }
      return { cost: ONE };
    }
    if (args.length === 1) {
      const at = this.type(args[0]!).name;
      const sz = this.sizeOrUnknown(args[0]!);
      if ((fname === 'bytes' && at === 'string') || sig === 'bytes(string):bytes') {
        return { cost: mulFactor(sz, STRING_FACTOR), resultSize: { min: sz.min, max: sz.max * 4n > UINT64_MAX ? UINT64_MAX : sz.max * 4n } };
      }
      if ((fname === 'string' && at === 'bytes') || sig === 'string(bytes):string') {
        return { cost: mulFactor(sz, STRING_FACTOR), resultSize: { min: sz.min / 4n, max: sz.max } };
      }
      if (fname === 'strings.quote') {
        return { cost: mulFactor(sz, STRING_FACTOR), resultSize: { min: addU64(sz.min, 2n), max: addU64(sz.max * 2n > UINT64_MAX ? UINT64_MAX : sz.max * 2n, 2n) } };
      }
    }
    return { cost: ONE };
  }

  private copySizes(dst: AstNode, src: AstNode): void {
    const s = this.size(src);
    if (s !== undefined) this.sizes.set(dst, s);
    const e = this.entrySize(src);
    if (e !== undefined) this.entries.set(dst, e);
    const p = this.path(src);
    if (p !== undefined) this.paths.set(dst, p);
  }

  private costMacro(n: AstNode, name: string, receiver: AstNode | undefined, macro: Record<string, unknown>): CostEstimate {
    switch (name) {
      case 'has': {
        const arg = (macro['args'] as AstNode[] | undefined)?.[0];
        if (arg === undefined || arg.op !== '.') return ONE;
        const [left] = arg.args as [AstNode, string];
        return add(IDENT, this.cost(left));
      }
      case 'bind': {
        // cel.bind(v, init, e): a comprehension over `[]` (a list literal, 10) with v as its accumulator.
        const varName = macro['var'] as string;
        const init = macro['val'] as AstNode;
        const exp = macro['exp'] as AstNode;
        let c = add(LIST_BASE, this.cost(init));
        this.push(varName, { path: this.path(init), size: this.size(init), entry: this.entrySize(init) });
        c = add(c, this.cost(exp));
        this.pop(varName);
        this.copySizes(n, exp);
        return c;
      }
      case 'or':
      case 'orValue': {
        // Member functions of optionals in cel-go: 1 plus operands.
        const r = this.cost(macro['receiver'] as AstNode);
        const alt = this.cost(macro['arg'] as AstNode);
        return add(add(ONE, r), alt);
      }
      case 'optMap':
      case 'optFlatMap': {
        // cel-go's expansion: `t.hasValue() ? optional.of(cel.bind(v, t.value(), e)) : optional.none()`
        // (optFlatMap without the optional.of).
        const t = receiver ?? (macro['receiver'] as AstNode);
        const tc = this.cost(t);
        const varName = macro['var'] as string;
        this.push(varName, { path: undefined, size: undefined, entry: undefined });
        const e = this.cost(macro['exp'] as AstNode);
        this.pop(varName);
        const bound = add(add(add(LIST_BASE, ONE), tc), e);
        const some = name === 'optMap' ? add(ONE, bound) : bound;
        return add(add(ONE, tc), union(some, ONE));
      }
      default:
        return ONE;
    }
  }

  /**
   * The macros as cel-go expands them (accumulator `@result`):
   *  - all:        init true,  condition `@not_strictly_false(@result)` (2), step `@result && p`, result `@result` (1)
   *  - exists:     init false, condition `@not_strictly_false(!@result)` (3), step `@result || p`, result 1
   *  - exists_one: init 0,     condition true (0), step `p ? @result + 1 : @result`, result `@result == 1` (2)
   *  - map:        init [] (10), condition true, step `@result + [f]` (12 + f), or with a filter
   *                `q ? @result + [f] : @result`; result 1
   *  - filter:     init [] (10), condition true, step `p ? @result + [x] : @result` (p + 13 | 1); result 1
   */
  private costComprehension(n: AstNode, name: string, range: AstNode, args: AstNode[]): CostEstimate {
    const rangeCost = this.cost(range);
    const iterVar = args[0]!.args as string;
    const accuInit = name === 'map' || name === 'filter' ? LIST_BASE : CONST;
    // The accumulator has no path; its size is the size of its literal initial value.
    this.push(ACCUMULATOR, { path: undefined, size: name === 'map' || name === 'filter' ? fixed(0) : FIXED_1, entry: undefined });
    const entry = this.entrySize(range);
    const kind = entry?.container ?? (this.type(range).name === 'map' ? 'map' : 'list');
    const rangePath = this.path(range) ?? [];
    this.push(iterVar, {
      path: [...rangePath, kind === 'list' ? '@items' : '@keys'],
      size: kind === 'list' ? entry?.val : entry?.key,
      entry: undefined,
    });
    let loop: CostEstimate;
    let step: CostEstimate;
    switch (name) {
      case 'all':
      case 'exists': {
        loop = name === 'all' ? fixed(2) : fixed(3);
        const p = this.cost(args[1]!);
        step = { min: IDENT.min, max: addU64(IDENT.max, p.max) };
        break;
      }
      case 'exists_one':
      case 'existsOne': {
        loop = CONST;
        const p = this.cost(args[1]!);
        step = add(p, union(fixed(2), IDENT));
        break;
      }
      case 'map': {
        loop = CONST;
        if (args.length === 3) {
          const q = this.cost(args[1]!);
          const f = this.cost(args[2]!);
          step = add(q, union(add(fixed(12), f), IDENT));
        } else {
          step = add(fixed(12), this.cost(args[1]!));
        }
        break;
      }
      case 'filter': {
        loop = CONST;
        const p = this.cost(args[1]!);
        step = add(p, union(fixed(13), IDENT));
        break;
      }
      default:
        loop = CONST;
        step = ONE;
    }
    this.pop(iterVar);
    const result = name === 'exists_one' || name === 'existsOne' ? fixed(2) : IDENT;
    this.pop(ACCUMULATOR);
    const count = this.sizeOrUnknown(range);
    if (name === 'map' || name === 'filter') this.sizes.set(n, count);
    else this.sizes.set(n, FIXED_1);
    let c = add(add(rangeCost, accuInit), result);
    c = add(c, multiply(count, add(step, loop)));
    return c;
  }
}

function isMapOrStruct(t: TypeTree): boolean {
  if (t.name === 'map') return true;
  if (/^[A-Z]$/.test(t.name)) return true; // a type parameter
  return !NOT_STRUCT.has(t.name); // a schema object type (`selfType.spec`)
}

function typeText(t: TypeTree): string {
  return t.params.length === 0 ? t.name : `${t.name}<${t.params.map(typeText).join(', ')}>`;
}

/** cel-go's sizes known from the expression itself: literals and literal lists/maps. */
function literalSize(n: AstNode): SizeEstimate | undefined {
  switch (n.op) {
    case 'value': {
      const v = n.args;
      if (typeof v === 'string') return fixed(codePointCount(v));
      if (v instanceof Uint8Array) return fixed(v.length);
      if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean' || v === null) return FIXED_1;
      const ctor = (v as { constructor?: { name?: string } }).constructor?.name;
      if (ctor === 'UnsignedInt') return FIXED_1;
      return undefined;
    }
    case 'list':
      return fixed((n.args as unknown[]).length);
    case 'map':
      return fixed((n.args as unknown[]).length);
    default:
      return undefined;
  }
}

function codePointCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}
