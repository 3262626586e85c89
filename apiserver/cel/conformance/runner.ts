/**
 * Runs conformance cases against an engine adapter and judges each one against its expectation, the way
 * cel-go's simple-test runner does:
 *
 * - `value`: the expression must evaluate to that value (neutral-value matching);
 * - `evalError` / `anyEvalErrors`: any error counts — at parse, check or evaluation time;
 * - `typedResult`: the checker's deduced type must equal the expected type and, unless the test is
 *   check-only, the value must match too. An engine without a checker cannot be judged on these: the
 *   case is unsupported for it;
 * - `unknown` / `anyUnknowns`: unsupported (neither candidate has unknown tracking).
 *
 * An adapter never throws for a case; `runCase` still catches, so one engine bug cannot stop a run (an
 * escaped throw is a failure, not an expected error).
 */
import type { Registry } from '@bufbuild/protobuf';
import { fromExprValue, formatNeutral, neutralEquals, UnsupportedValue, type NeutralValue } from './neutral-value.js';
import { formatCheckedType, type ConformanceCase } from './suite.js';
import type { SimpleTest } from '@bufbuild/cel-spec/cel/expr/conformance/test/simple_pb.js';

/** What an engine did with one case, before judging. */
export type EngineOutcome =
  | { readonly kind: 'unsupported'; readonly reason: string }
  /** Parse or type-check error. */
  | { readonly kind: 'compile-error'; readonly message: string }
  /** A check-only case compiled; `type` is the deduced type in canonical text. */
  | { readonly kind: 'checked'; readonly type: string }
  | { readonly kind: 'eval-error'; readonly message: string; readonly type?: string }
  | { readonly kind: 'value'; readonly value: NeutralValue; readonly type?: string }
  /** The engine threw something that is not one of its own CEL errors (a crash). */
  | { readonly kind: 'crash'; readonly message: string };

export interface EngineAdapter {
  readonly name: string;
  /** Whether the engine type-checks (deduced types are compared only for engines that do). */
  readonly typeChecks: boolean;
  /**
   * Whether the engine has protobuf messages and enum types. For one that has not, cases that construct a
   * message (`Type{...}`) or expect a message or enum value are unsupported rather than failed.
   */
  readonly supportsMessages: boolean;
  /** Compiles (type-checking unless `test.disableCheck`), binds and evaluates; never throws. */
  execute(test: SimpleTest, registry: Registry): EngineOutcome;
}

export type Verdict =
  | { readonly status: 'pass' }
  | { readonly status: 'fail'; readonly reason: string }
  | { readonly status: 'unsupported'; readonly reason: string };

export interface CaseResult {
  readonly path: string;
  readonly file: string;
  readonly verdict: Verdict;
}

const clip = (s: string, n = 160): string => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > n ? `${line.slice(0, n - 1)}…` : line;
};

/** Judges one case; never throws. */
export function runCase(adapter: EngineAdapter, c: ConformanceCase, registry: Registry): CaseResult {
  let verdict: Verdict;
  try {
    verdict = judge(adapter, c.test, registry);
  } catch (err) {
    verdict = { status: 'fail', reason: `runner: escaped throw ${clip(err instanceof Error ? `${err.name}: ${err.message}` : String(err))}` };
  }
  return { path: c.path, file: c.file, verdict };
}

function judge(adapter: EngineAdapter, test: SimpleTest, registry: Registry): Verdict {
  const matcher = test.resultMatcher;
  if (matcher.case === 'unknown' || matcher.case === 'anyUnknowns') return { status: 'unsupported', reason: 'unknown-value tracking' };
  const wantsType = matcher.case === 'typedResult' && matcher.value.deducedType !== undefined;
  if ((test.checkOnly || wantsType) && !adapter.typeChecks) return { status: 'unsupported', reason: 'expects a deduced type; engine has no type checker' };

  let expected: NeutralValue | undefined;
  if (matcher.case === 'value') expected = fromExprValue(matcher.value, registry);
  else if (matcher.case === 'typedResult' && matcher.value.result !== undefined) expected = fromExprValue(matcher.value.result, registry);
  else if (matcher.case === undefined && !test.checkOnly) expected = { k: 'bool', v: true }; // cel-spec: no matcher means `true`

  if (!adapter.supportsMessages) {
    if (constructsMessage(test.expr)) return { status: 'unsupported', reason: 'constructs a protobuf message' };
    if (expected !== undefined && mentionsMessage(expected)) return { status: 'unsupported', reason: 'expects a protobuf message or enum value' };
  }

  let out: EngineOutcome;
  try {
    out = adapter.execute(test, registry);
  } catch (err) {
    if (err instanceof UnsupportedValue) return { status: 'unsupported', reason: err.message };
    throw err;
  }
  switch (out.kind) {
    case 'unsupported':
      return { status: 'unsupported', reason: out.reason };
    case 'crash':
      return { status: 'fail', reason: `engine crashed: ${clip(out.message)}` };
    case 'compile-error':
    case 'eval-error':
      if (matcher.case === 'evalError' || matcher.case === 'anyEvalErrors') return { status: 'pass' };
      return { status: 'fail', reason: `${out.kind}: ${clip(out.message)}` };
    case 'checked':
    case 'value': {
      if (matcher.case === 'evalError' || matcher.case === 'anyEvalErrors') {
        return { status: 'fail', reason: `expected an error, got ${out.kind === 'value' ? clip(formatNeutral(out.value)) : `type ${out.type}`}` };
      }
      if (wantsType && matcher.case === 'typedResult') {
        const want = formatCheckedType(matcher.value.deducedType);
        if (out.type !== want) return { status: 'fail', reason: `deduced type ${out.type ?? '(none)'}, expected ${want}` };
      }
      if (out.kind === 'checked') return expected === undefined ? { status: 'pass' } : { status: 'fail', reason: 'engine only checked a case that expects a value' };
      if (expected === undefined) return { status: 'pass' };
      if (neutralEquals(out.value, expected, registry)) return { status: 'pass' };
      return { status: 'fail', reason: `got ${clip(formatNeutral(out.value), 70)}, expected ${clip(formatNeutral(expected), 70)}` };
    }
  }
}

/** String and bytes literals (raw, triple-quoted, escaped), removed before looking at the code around them. */
const LITERALS = /[rRbB]{0,2}("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/g;

/** `Name{` outside string literals: a message construction (a map literal follows no identifier but `in`). */
export function constructsMessage(expr: string): boolean {
  const code = expr.replace(LITERALS, '""');
  for (const m of code.matchAll(/([A-Za-z_][\w.]*)\s*\{/g)) if (m[1] !== 'in') return true;
  return false;
}

function mentionsMessage(v: NeutralValue): boolean {
  switch (v.k) {
    case 'message':
    case 'enum':
      return true;
    case 'list':
      return v.v.some(mentionsMessage);
    case 'map':
      return v.v.some(([k, x]) => mentionsMessage(k) || mentionsMessage(x));
    case 'optional':
      return v.v !== undefined && mentionsMessage(v.v);
    default:
      return false;
  }
}

export interface SectionTally {
  readonly file: string;
  pass: number;
  fail: number;
  unsupported: number;
}

/** Runs every case and tallies per file (section), in first-seen order. */
export function runAll(adapter: EngineAdapter, cases: readonly ConformanceCase[], registry: Registry): { results: CaseResult[]; tallies: SectionTally[] } {
  const results = cases.map((c) => runCase(adapter, c, registry));
  const byFile = new Map<string, SectionTally>();
  for (const r of results) {
    let t = byFile.get(r.file);
    if (t === undefined) byFile.set(r.file, (t = { file: r.file, pass: 0, fail: 0, unsupported: 0 }));
    t[r.verdict.status === 'pass' ? 'pass' : r.verdict.status === 'fail' ? 'fail' : 'unsupported']++;
  }
  return { results, tallies: [...byFile.values()] };
}

/** `pass/total (pct%)`, the form every report uses. */
export function formatRate(t: { pass: number; fail: number; unsupported: number }): string {
  const total = t.pass + t.fail + t.unsupported;
  return total === 0 ? '0/0' : `${t.pass}/${total} (${((100 * t.pass) / total).toFixed(0)}%)`;
}
