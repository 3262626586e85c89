/**
 * Label selectors: the text syntax of `?labelSelector=` (apimachinery `labels.Parse`) and the selector
 * object that matches label maps. Every parse error is a 400 BadRequest carrying the upstream parser's
 * message (`unable to parse requirement: ...`, `found ',', expected: identifier after ','` ...).
 */
import { badRequest } from '../errors/constructors.js';
import { maxSelectorRequirements } from '../request/limits.js';
import { isQualifiedName, isValidLabelValue } from '../validation/names.js';
import { lexLabelSelector, type Token } from './label-lexer.js';
import type { LabelOperator, LabelRequirement, LabelSelector } from './selector.js';

/** The binary operators, in the order upstream lists them in `expected:` messages. */
const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

/** An error inside one requirement; `parse` prefixes it with `unable to parse requirement: `. */
export class RequirementError extends Error {}

/** A syntax error of the whole selector. */
class SelectorSyntaxError extends Error {}

/** A Go `%#v` rendering of a string slice, as field errors print them: `[]string{"a", "b"}`. */
const goStrings = (values: readonly string[]): string => `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const decimalRe = /^[+-]?[0-9]+$/;

/** Go's `strconv.ParseInt(s, 10, 64)`; undefined when it would fail. */
export function parseInt64(s: string): bigint | undefined {
  if (!decimalRe.test(s)) return undefined;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

interface Compiled extends LabelRequirement {
  /** For gt/lt: the parsed bound. */
  readonly bound?: bigint;
}

/**
 * Validates and builds one requirement, as `labels.NewRequirement` (all problems joined as upstream's
 * aggregate: one message alone, several as `[a, b]`). Values of `in`/`notin` are sorted and deduplicated.
 * `path` prefixes field paths (`''` for text selectors, which print `key`, `values[0]`...).
 */
export function newRequirement(key: string, operator: LabelOperator, values: readonly string[], path = ''): LabelRequirement {
  const at = (child: string): string => (path === '' ? child : `${path}.${child}`);
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(`${at('key')}: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
  const valuesPath = at('values');
  let bound: bigint | undefined;
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errs.push(`${valuesPath}: Invalid value: ${goStrings(values)}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errs.push(`${valuesPath}: Invalid value: ${goStrings(values)}: exact-match compatibility requires one single value`);
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errs.push(`${valuesPath}: Invalid value: ${goStrings(values)}: values set must be empty for exists and does not exist`);
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errs.push(`${valuesPath}: Invalid value: ${goStrings(values)}: for 'Gt', 'Lt' operators, exactly one value is required`);
      values.forEach((v, i) => {
        const n = parseInt64(v);
        if (n === undefined) errs.push(`${valuesPath}[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
        else bound = n;
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0) errs.push(`${valuesPath}[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${valueErrs.join('; ')}`);
  });
  if (errs.length > 0) throw new RequirementError(errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`);
  const sorted = operator === 'in' || operator === 'notin' ? [...new Set(values)].sort() : [...values];
  const r: Compiled = bound === undefined ? { key, operator, values: sorted } : { key, operator, values: sorted, bound };
  return r;
}

/**
 * The value sets of requirements with long value lists, made on first use (keyed by the requirement
 * itself): a long `in`/`notin` list costs one lookup per object, however many values it holds.
 */
const valueSets = new WeakMap<LabelRequirement, ReadonlySet<string>>();

function hasValue(r: Compiled, value: string): boolean {
  if (r.values.length <= 8) return r.values.includes(value);
  let set = valueSets.get(r);
  if (set === undefined) {
    set = new Set(r.values);
    valueSets.set(r, set);
  }
  return set.has(value);
}

function requirementMatches(r: Compiled, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && hasValue(r, labels[r.key]!);
    case 'notin':
    case '!=':
      return !has || !hasValue(r, labels[r.key]!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || r.bound === undefined) return false;
      const v = parseInt64(labels[r.key]!);
      if (v === undefined) return false;
      return r.operator === 'gt' ? v > r.bound : v < r.bound;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  const values = r.values.join(',');
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
      return `${r.key} in (${values})`;
    case 'notin':
      return `${r.key} notin (${values})`;
    case 'gt':
      return `${r.key}>${values}`;
    case 'lt':
      return `${r.key}<${values}`;
    default:
      return `${r.key}${r.operator}${values}`;
  }
}

/** The selector of a list of requirements, sorted by key (stable), as upstream. */
export function selectorOf(requirements: readonly LabelRequirement[]): LabelSelector {
  const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const text = sorted.map(requirementString).join(',');
  return Object.freeze({
    requirements: sorted,
    empty: sorted.length === 0,
    matches(labels: Readonly<Record<string, string>> | undefined): boolean {
      for (const r of sorted) if (!requirementMatches(r, labels)) return false;
      return true;
    },
    toString: () => text,
  });
}

/** Matches every object. */
export const everything: LabelSelector = selectorOf([]);

/** Matches no object (a nil metav1.LabelSelector); `empty` is false, its text is ''. */
export const nothing: LabelSelector = Object.freeze({
  requirements: [],
  empty: false,
  matches: () => false,
  toString: () => '',
});

/** A recursive-descent parser over the token list, mirroring upstream's so errors arise at the same points. */
class Parser {
  private pos = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  /** `in`/`notin` read where values are expected are plain identifiers (`a=in` is valid). */
  private peek(values: boolean): Token {
    const t = this.tokens[this.pos]!;
    return values && (t.kind === 'in' || t.kind === 'notIn') ? { kind: 'identifier', literal: t.literal } : t;
  }

  private next(values: boolean): Token {
    const t = this.peek(values);
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }

  parse(): LabelRequirement[] {
    const out: LabelRequirement[] = [];
    for (;;) {
      const t = this.peek(true);
      if (t.kind === 'eos') return out;
      if (t.kind !== 'identifier' && t.kind !== 'doesNotExist') {
        throw new SelectorSyntaxError(`found '${t.literal}', expected: !, identifier, or 'end of string'`);
      }
      try {
        out.push(this.requirement());
      } catch (e) {
        if (e instanceof RequirementError) throw new SelectorSyntaxError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const sep = this.next(true);
      if (sep.kind === 'eos') return out;
      if (sep.kind !== 'comma') throw new SelectorSyntaxError(`found '${sep.literal}', expected: ',' or 'end of string'`);
      const after = this.peek(true);
      if (after.kind !== 'identifier' && after.kind !== 'doesNotExist') {
        throw new SelectorSyntaxError(`found '${after.literal}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let t = this.next(true);
    let unary: LabelOperator | undefined;
    if (t.kind === 'doesNotExist') {
      unary = '!';
      t = this.next(true);
    }
    if (t.kind !== 'identifier') throw new RequirementError(`found '${t.literal}', expected: identifier`);
    const key = t.literal;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length > 0) throw new RequirementError(`<nil>: Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
    const ahead = this.peek(true).kind;
    // `!key` ends the requirement whatever follows: `!a=b` then fails on the `=` as a separator.
    if (unary !== undefined) return newRequirement(key, '!', []);
    if (ahead === 'eos' || ahead === 'comma') return newRequirement(key, 'exists', []);
    const op = this.operator();
    return newRequirement(key, op, this.valuesFor(op));
  }

  private operator(): LabelOperator {
    const t = this.next(false);
    switch (t.kind) {
      case 'in':
        return 'in';
      case 'notIn':
        return 'notin';
      case 'equals':
        return '=';
      case 'doubleEquals':
        return '==';
      case 'notEquals':
        return '!=';
      case 'greaterThan':
        return 'gt';
      case 'lessThan':
        return 'lt';
      default:
        throw new RequirementError(`found '${t.literal}', expected: ${binaryOperators}`);
    }
  }

  private valuesFor(op: LabelOperator): string[] {
    return op === 'in' || op === 'notin' ? this.setValues() : this.exactValue();
  }

  private setValues(): string[] {
    const open = this.next(true);
    if (open.kind !== 'openPar') throw new RequirementError(`found '${open.literal}' expected: '('`);
    const t = this.peek(true);
    if (t.kind === 'closedPar') {
      this.next(true);
      return [''];
    }
    if (t.kind !== 'identifier' && t.kind !== 'comma') {
      throw new RequirementError(`found '${t.literal}', expected: ',', ')' or identifier`);
    }
    const values = this.identifierList();
    if (this.next(true).kind !== 'closedPar') throw new RequirementError(`found '${t.literal}', expected: ')'`);
    return values;
  }

  /** `a, b`, with empty entries (`(,a)`, `(a,)`, `(a,,b)`) standing for the empty value. */
  private identifierList(): string[] {
    const values = new Set<string>();
    for (;;) {
      const t = this.next(true);
      if (t.kind === 'identifier') {
        values.add(t.literal);
        const ahead = this.peek(true);
        if (ahead.kind === 'comma') continue;
        if (ahead.kind === 'closedPar') return [...values];
        throw new RequirementError(`found '${ahead.literal}', expected: ',' or ')'`);
      }
      if (t.kind === 'comma') {
        if (values.size === 0) values.add('');
        const ahead = this.peek(true);
        if (ahead.kind === 'closedPar') {
          values.add('');
          return [...values];
        }
        if (ahead.kind === 'comma') {
          this.next(true);
          values.add('');
        }
        continue;
      }
      throw new RequirementError(`found '${t.literal}', expected: ',', or identifier`);
    }
  }

  private exactValue(): string[] {
    const ahead = this.peek(true);
    if (ahead.kind === 'eos' || ahead.kind === 'comma') return [''];
    const t = this.next(true);
    if (t.kind === 'identifier') return [t.literal];
    throw new RequirementError(`found '${t.literal}', expected: identifier`);
  }
}

/**
 * Parses a label selector in Kubernetes' text syntax: comma-separated requirements `k=v`, `k==v`,
 * `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` (exists), `!k` (does not exist), `k>5`, `k<5` (integers
 * only, as upstream's `labels.Parse` accepts them in list selectors too). Whitespace around tokens is free;
 * `a=` means the empty value; `in ()` holds the empty value. Keys must be qualified names and values
 * label values. The empty (or blank) text selects everything. Requirements are sorted by key.
 *
 * Throws a 400 BadRequest StatusError with upstream's message on any error, and (before parsing) for more
 * than `maxSelectorRequirements` requirements.
 */
export function parseLabelSelector(text: string): LabelSelector {
  checkRequirementCount('labelSelector', topLevelTerms(text));
  try {
    return selectorOf(new Parser(lexLabelSelector(text)).parse());
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw badRequest(e.message);
    throw e;
  }
}

/** Top-level comma-separated terms of a label selector text (commas inside `in (...)` lists do not count). */
function topLevelTerms(text: string): number {
  let terms = 1;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x28) depth++;
    else if (c === 0x29) depth = Math.max(0, depth - 1);
    else if (c === 0x2c && depth === 0) terms++;
  }
  return terms;
}

/**
 * 400 when a selector holds more than `maxSelectorRequirements` requirements (request/limits.ts), in the
 * words of Kubernetes' field errors: `labelSelector: Too many: 1001: must have at most 1000 requirements`.
 */
export function checkRequirementCount(parameter: string, count: number): void {
  if (count > maxSelectorRequirements) throw badRequest(`${parameter}: Too many: ${count}: must have at most ${maxSelectorRequirements} requirements`);
}
