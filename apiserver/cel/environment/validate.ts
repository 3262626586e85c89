/**
 * The AST passes around the checker (`CompileOptions.beforeCheck` / `afterCheck`): what cel-go does at
 * parse, check or plan time that cel-js does not, and the version gates of the base environments.
 *
 * Before the check (rewrites in place; positions are kept because nodes keep their source ranges):
 *  - `has(e.f)` with any operand `e` (`has(self.matches[0].path)`): cel-js's macro checks only a chain of
 *    selections from an identifier. Its type check is replaced by one that checks `e` fully; the field
 *    itself is then checked by `checkFieldSelections` (types/field-check.ts) like any `has()`. An operand
 *    that is not a selection is cel-go's `invalid argument to has() macro`.
 *  - qualified variable names (`authorizer.requestResource`): cel-go resolves the dotted name as one
 *    identifier; the selection node is turned into an identifier of that name (declared by the caller).
 *  - optional syntax where optional types are not introduced yet: `.?` and `[?` are cel-go's parse errors
 *    `unsupported syntax '.?'` / `unsupported syntax '[?'`, `optional.of(...)` an undeclared reference.
 *
 * After the check (refusals, as cel-go's checker and AST validators word them, at cel-go's positions):
 *  - homogeneous aggregate literals (cel-go's validator, always on in Kubernetes): the elements of a list
 *    literal, and the keys and values of a map literal, have one type (`expected type 'int' but found
 *    'string'`), except inside the arguments of a `format` call;
 *  - field selections of schema object types (types/field-check.ts);
 *  - without cross-type numeric comparisons: `<`, `<=`, `>`, `>=` between different numeric types;
 *  - with the literal validators (1.29): `duration('...')`, `timestamp('...')` and `matches` with a
 *    literal argument 0 that fails: `invalid duration argument`, `invalid timestamp argument`,
 *    `invalid matches argument` (argument 0 of `matches` is the pattern of the member form but the
 *    subject of the global form, as cel-go's validator reads it);
 *  - with strings ext v2: `'...'.format([...])` with a literal format string and a list literal: clause
 *    syntax, argument count and argument types (cel-go's stringFormatValidator);
 *  - literal patterns of `find`/`findAll` and `matches` (those the validator did not refuse) that RE2 refuses: cel-go compiles
 *    constant regexes when it plans the program, so Kubernetes reports `program instantiation failed:
 *    error parsing regexp: ...`. These are collected (not thrown) for the caller to word.
 */
import { CelCompileError } from '../errors.js';
import { parseDuration, parseTimestamp } from '../interpreter/time.js';
import type { AstNode } from '../interpreter/plan.js';
import { validateRe2 } from '../library/re2.js';
import type { ObjectDecl } from '../types/decl-type.js';
import { checkFieldSelections, lineColumn } from '../types/field-check.js';
import type { LanguageFeatures } from './base.js';

/** A node as the passes read and rewrite it (cel-js ASTNode). */
interface Node extends AstNode {
  op: string;
  args: unknown;
  readonly checkedType?: { readonly name: string; readonly kind?: string };
  setMeta(key: string, value: unknown): Node;
  readonly meta: AstNode['meta'] & { readonly check?: unknown };
}

/** A failure Kubernetes reports as `program instantiation failed: <detail>`. */
export interface PlanningFailure {
  readonly detail: string;
  readonly line: number;
  readonly column: number;
}

export interface PassOptions {
  readonly features: LanguageFeatures;
  /** Object types of the declared variables (schema types, request types), for field checks. */
  readonly objectTypes?: ReadonlyMap<string, ObjectDecl>;
  /** Dotted variable names (`authorizer.requestResource`). */
  readonly qualifiedVariables?: ReadonlySet<string>;
}

function children(node: Node): Node[] {
  const out: Node[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === 'object' && 'op' in v && 'args' in v) out.push(v as Node);
  };
  if (node.op !== 'value' && node.op !== 'id') walk(node.args);
  return out;
}

function visit(node: Node, f: (n: Node) => void): void {
  f(node);
  for (const c of children(node)) visit(c, f);
}

const argsOf = (n: Node): unknown[] => n.args as unknown[];

/** Offset of cel-go's position for a node: operators at their token, calls at `(`, selections at `.`. */
function celGoOffset(n: Node): number {
  const input = n.input;
  switch (n.op) {
    case '.':
    case '.?': {
      const left = argsOf(n)[0] as Node;
      const i = input.indexOf('.', left.end);
      return i < 0 ? n.pos : i;
    }
    case '[]':
    case '[?]': {
      const left = argsOf(n)[0] as Node;
      const i = input.indexOf('[', left.end);
      return i < 0 ? n.pos : i;
    }
    case 'rcall': {
      const receiver = argsOf(n)[1] as Node;
      const i = input.indexOf('(', receiver.end);
      return i < 0 ? n.pos : i;
    }
    case 'call': {
      const i = input.indexOf('(', n.start);
      return i < 0 ? n.pos : i;
    }
    case '<':
    case '<=':
    case '>':
    case '>=': {
      const [l] = argsOf(n) as Node[];
      const i = input.indexOf(n.op, l!.end);
      return i < 0 ? n.pos : i;
    }
    default:
      return n.start;
  }
}

function errorAt(n: Node, detail: string, offset = celGoOffset(n)): CelCompileError {
  const { line, column } = lineColumn(n.input, offset);
  return new CelCompileError(n.input, detail, line, column);
}

// ---- before the check --------------------------------------------------------------------------------

interface MacroCheck {
  args: Node[];
  typeCheck: (chk: CheckerLike, macro: MacroCheck, ctx: unknown) => unknown;
}
interface CheckerLike {
  check(node: Node, ctx: unknown): unknown;
  getType(name: string): unknown;
}

export function beforeCheck(ast: AstNode, options: PassOptions): void {
  visit(ast as Node, (n) => {
    switch (n.op) {
      case 'call': {
        const [name, args] = n.args as [string, Node[]];
        if (name === 'has' && args.length === 1) rewriteHas(n, args[0]!);
        break;
      }
      case 'rcall': {
        const receiver = argsOf(n)[1] as Node;
        if (!options.features.optionalTypes && receiver.op === 'id' && receiver.args === 'optional') {
          throw errorAt(receiver, "undeclared reference to 'optional' (in container '')", receiver.start);
        }
        break;
      }
      case '.': {
        const [left, field] = n.args as [Node, string];
        if (options.qualifiedVariables !== undefined && left.op === 'id' && options.qualifiedVariables.has(`${String(left.args)}.${field}`)) {
          // The identifier's own check, on this node: cel-js then looks up the dotted variable.
          const idCheck = left.meta.check;
          n.op = 'id';
          n.args = `${String(left.args)}.${field}`;
          n.setMeta('check', idCheck);
        }
        break;
      }
      case '.?':
        if (!options.features.optionalTypes) throw errorAt(n, "unsupported syntax '.?'");
        break;
      case '[?]':
        if (!options.features.optionalTypes) throw errorAt(n, "unsupported syntax '[?'");
        break;
    }
  });
}

/** Replaces the type check of a `has()` whose operand cel-js would refuse (see the file comment). */
function rewriteHas(call: Node, arg: Node): void {
  if (arg.op !== '.') throw errorAt(arg, 'invalid argument to has() macro', arg.op === 'id' || arg.op === 'value' ? arg.start : celGoOffset(arg));
  let root = arg;
  while (root.op === '.' || root.op === '.?') root = argsOf(root)[0] as Node;
  if (root.op === 'id') return; // cel-js checks a selection chain itself
  const macro = call.meta.macro as unknown as MacroCheck | undefined;
  if (macro === undefined) return;
  macro.typeCheck = (chk, m, ctx) => {
    const operand = argsOf(m.args[0]!)[0] as Node;
    chk.check(operand, ctx);
    return chk.getType('bool');
  };
}

// ---- after the check ---------------------------------------------------------------------------------

const NUMERIC = new Set(['int', 'uint', 'double']);
const OPERATOR_NAMES: Record<string, string> = { '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_' };

/**
 * The checks after the checker. Throws the first compile error; returns the planning failures (literal
 * regexes RE2 refuses where cel-go refuses them when planning).
 */
export function afterCheck(ast: AstNode, options: PassOptions): PlanningFailure[] {
  if (options.objectTypes !== undefined && options.objectTypes.size > 0) checkFieldSelections(ast as never, options.objectTypes);
  checkHomogeneous(ast as Node, false);
  const planning: PlanningFailure[] = [];
  visit(ast as Node, (n) => {
    if (OPERATOR_NAMES[n.op] !== undefined && !options.features.crossTypeNumericComparisons) {
      const [l, r] = argsOf(n) as Node[];
      const lt = l!.checkedType?.name;
      const rt = r!.checkedType?.name;
      if (lt !== undefined && rt !== undefined && lt !== rt && NUMERIC.has(lt) && NUMERIC.has(rt)) {
        throw errorAt(n, `found no matching overload for '${OPERATOR_NAMES[n.op]}' applied to '(${lt}, ${rt})'`);
      }
    }
    if (n.op !== 'call' && n.op !== 'rcall') return;
    const member = n.op === 'rcall';
    const a = argsOf(n);
    const name = a[0] as string;
    const receiver = member ? (a[1] as Node) : undefined;
    const args = (member ? a[2] : a[1]) as Node[];
    // Namespaced globals (`optional.of`) are rcalls on an identifier: not the functions below.
    const literal = (x: Node | undefined): string | undefined => (x !== undefined && x.op === 'value' && typeof x.args === 'string' ? x.args : undefined);
    switch (name) {
      case 'duration':
      case 'timestamp': {
        if (member || args.length !== 1 || !options.features.literalValidators) break;
        const text = literal(args[0]);
        if (text === undefined) break;
        try {
          if (name === 'duration') parseDuration(text);
          else parseTimestamp(text);
        } catch {
          throw errorAt(args[0]!, `invalid ${name} argument`);
        }
        break;
      }
      case 'matches': {
        if (member ? args.length !== 1 : args.length !== 2) break;
        // cel-go's validator checks argument 0 of the call: the pattern of `s.matches(re)`, but the
        // subject of `matches(s, re)` (its arguments exclude the receiver).
        const first = literal(args[0]);
        if (options.features.literalValidators && first !== undefined && validateRe2(first) !== undefined) throw errorAt(args[0]!, 'invalid matches argument');
        // The pattern (last operand) of either form is compiled when the program is planned (cel-go's
        // MatchesRegexOptimization under OptOptimize): Kubernetes' `program instantiation failed`.
        const pattern = args[args.length - 1]!;
        const text = literal(pattern);
        const problem = text === undefined ? undefined : validateRe2(text);
        if (problem !== undefined) planning.push(planningFailure(pattern, problem));
        break;
      }
      case 'find':
      case 'findAll': {
        if (!member || args.length < 1) break;
        const text = literal(args[0]);
        if (text === undefined) break;
        const problem = validateRe2(text);
        if (problem !== undefined) planning.push(planningFailure(args[0]!, problem));
        break;
      }
      case 'format':
        if (member && options.features.stringFormat && args.length === 1) validateFormatCall(n, receiver!, args[0]!);
        break;
    }
  });
  return planning;
}

function planningFailure(n: Node, detail: string): PlanningFailure {
  const { line, column } = lineColumn(n.input, n.start);
  return { detail, line, column };
}

// ---- homogeneous aggregate literals -------------------------------------------------------------------

/** Type names equal, `dyn` (an unresolved element type such as that of `[]`) matching anything. */
function equivalentTypes(a: string, b: string): boolean {
  if (a === b) return true;
  const ta = a.split(/([<>,\s]+)/).filter((x) => x.trim() !== '');
  const tb = b.split(/([<>,\s]+)/).filter((x) => x.trim() !== '');
  if (ta.length !== tb.length) return a.includes('dyn') || b.includes('dyn') ? loose(a, b) : false;
  return ta.every((x, i) => x === tb[i] || x === 'dyn' || tb[i] === 'dyn');
}

/** Different shapes with a dyn somewhere: compare the outer constructor only. */
const loose = (a: string, b: string): boolean => a === 'dyn' || b === 'dyn' || a.split('<')[0] === b.split('<')[0];

const celGoTypeName = (n: Node): string => {
  const name = n.checkedType?.name ?? 'dyn';
  return name.replace(/\bnull\b/g, 'null_type');
};

function checkHomogeneous(node: Node, inFormat: boolean): void {
  if (node.op === 'list' && !inFormat) {
    let first: string | undefined;
    for (const e of node.args as Node[]) {
      const t = e.checkedType?.name;
      if (t === undefined) continue;
      if (first === undefined) first = t;
      else if (!equivalentTypes(first, t)) throw errorAt(e, `expected type '${first.replace(/\bnull\b/g, 'null_type')}' but found '${celGoTypeName(e)}'`);
    }
  }
  if (node.op === 'map' && !inFormat) {
    let kt: string | undefined;
    let vt: string | undefined;
    for (const [k, v] of node.args as [Node, Node][]) {
      const a = k.checkedType?.name;
      const b = v.checkedType?.name;
      if (a === undefined || b === undefined) continue;
      if (kt === undefined) {
        kt = a;
        vt = b;
        continue;
      }
      if (!equivalentTypes(kt, a)) throw errorAt(k, `expected type '${kt.replace(/\bnull\b/g, 'null_type')}' but found '${celGoTypeName(k)}'`);
      if (!equivalentTypes(vt!, b)) throw errorAt(v, `expected type '${vt!.replace(/\bnull\b/g, 'null_type')}' but found '${celGoTypeName(v)}'`);
    }
  }
  // cel-go exempts literals whose parent is a `format` call, or a list/map literal under one.
  const isFormat = (node.op === 'rcall' || node.op === 'call') && argsOf(node)[0] === 'format';
  for (const c of children(node)) {
    const aggregate = c.op === 'list' || c.op === 'map';
    checkHomogeneous(c, aggregate && (isFormat || (inFormat && (node.op === 'list' || node.op === 'map'))));
  }
}

// ---- string.format with literals (cel-go's stringFormatValidator) -----------------------------------

class ClauseError extends Error {
  constructor(
    message: string,
    /** The argument the error is about; undefined: the call. */
    readonly arg?: Node,
  ) {
    super(message);
  }
}

const typeKind = (n: Node): string => {
  const t = n.checkedType;
  if (t === undefined) return 'dyn';
  if (t.kind === 'list' || t.name.startsWith('list<')) return 'list';
  if (t.kind === 'map' || t.name.startsWith('map<')) return 'map';
  return t.name;
};

/** cel-go's type name of a checked type for these messages (`google.protobuf.Timestamp`, `null_type`). */
const typeName = (n: Node): string => {
  const name = n.checkedType?.name ?? 'dyn';
  return name === 'null' ? 'null_type' : name;
};

function verifyTypeOneOf(n: Node, kinds: readonly string[]): boolean {
  const k = typeKind(n);
  return k === 'dyn' || kinds.includes(k);
}

const STRING_KINDS = ['list', 'map', 'int', 'uint', 'double', 'bool', 'string', 'google.protobuf.Timestamp', 'bytes', 'google.protobuf.Duration', 'type', 'null'];

/** `%s` accepts these kinds, recursively for list and map literals; returns the offending node. */
function verifyString(n: Node): Node | undefined {
  if (!verifyTypeOneOf(n, STRING_KINDS)) return n;
  if (n.op === 'list') {
    for (const m of n.args as Node[]) {
      const bad = verifyString(m);
      if (bad !== undefined) return bad;
    }
  } else if (n.op === 'map') {
    for (const [k, v] of n.args as [Node, Node][]) {
      const bad = verifyString(k) ?? verifyString(v);
      if (bad !== undefined) return bad;
    }
  }
  return undefined;
}

function validateFormatCall(call: Node, receiver: Node, list: Node): void {
  if (receiver.op !== 'value' || typeof receiver.args !== 'string' || list.op !== 'list') return;
  const format = receiver.args;
  const args = list.args as Node[];
  let requested = 0;
  try {
    let argIndex = 0;
    for (let i = 0; i < format.length; ) {
      if (format[i] !== '%') {
        i++;
        continue;
      }
      if (format[i + 1] === '%') {
        i += 2;
        continue;
      }
      requested++;
      if (i + 1 >= format.length) throw new ClauseError('unexpected end of string');
      if (argIndex >= args.length) throw new ClauseError(`index ${argIndex} out of range`);
      i += 1 + checkClause(format.slice(i + 1), args[argIndex]!);
      argIndex++;
    }
  } catch (e) {
    if (!(e instanceof ClauseError)) throw e;
    throw errorAt(e.arg ?? call, e.message);
  }
  if (args.length > requested) throw errorAt(call, `too many arguments supplied to string.format (expected ${requested}, got ${args.length})`);
}

/** One clause after its `%`: its length, or a ClauseError worded as cel-go's. */
function checkClause(rest: string, arg: Node): number {
  let i = 0;
  if (rest[0] === '.') {
    i = 1;
    while (i < rest.length && rest[i]! >= '0' && rest[i]! <= '9') i++;
    if (i >= rest.length) throw new ClauseError('could not parse formatting clause: error while parsing precision: could not find end of precision specifier');
    if (i === 1) throw new ClauseError('could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax');
  }
  const verb = String.fromCodePoint(rest.codePointAt(i)!);
  const during = (msg: string, bad: Node): never => {
    throw new ClauseError(`error during formatting: ${msg}, was given ${typeName(bad)}`, bad);
  };
  switch (verb) {
    case 's': {
      const bad = verifyString(arg);
      if (bad !== undefined) during('string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps', bad);
      break;
    }
    case 'd':
      if (!verifyTypeOneOf(arg, ['int', 'uint'])) during('decimal clause can only be used on integers', arg);
      break;
    case 'f':
      if (!verifyTypeOneOf(arg, ['double', 'string'])) during('fixed-point clause can only be used on doubles', arg);
      break;
    case 'e':
      if (!verifyTypeOneOf(arg, ['double', 'string'])) during('scientific clause can only be used on doubles', arg);
      break;
    case 'b':
      if (!verifyTypeOneOf(arg, ['int', 'uint', 'bool'])) during('only integers and bools can be formatted as binary', arg);
      break;
    case 'x':
    case 'X':
      if (!verifyTypeOneOf(arg, ['int', 'uint', 'string', 'bytes'])) during('only integers, byte buffers, and strings can be formatted as hex', arg);
      break;
    case 'o':
      if (!verifyTypeOneOf(arg, ['int', 'uint'])) during('octal clause can only be used on integers', arg);
      break;
    default:
      throw new ClauseError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
  return i + verb.length;
}
