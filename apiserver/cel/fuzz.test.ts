/**
 * Fuzz test of issue 11: random expressions (testing/expression-fuzzer.ts: a typed grammar over literals,
 * variables of several types, operators, macros, every Kubernetes library, optionals, plus deliberate
 * breakage) with random activations (huge strings and lists, NaN, infinities, int64/uint64 bounds), each
 * compiled in the table environment and evaluated with a cost tracker (limit 1,000,000).
 *
 * Asserted: every outcome is a value, a CelCompileError, a CelEvalError or a CelCostError — no other throw
 * escapes compile() or evaluate(); and no JavaScript failure hides behind the error boundary (an "internal
 * error: ..." CelEvalError, or a compile error that is a JavaScript TypeError/RangeError in disguise).
 * Reported, never asserted: outcome counts, and the wall-clock time per evaluation (max, p99, count over
 * 10 ms) — a cost-bounded evaluation must not run long.
 *
 * `CEL_FUZZ_ITERATIONS` (default 100,000) and `CEL_FUZZ_SEED` (default printed below) override the run.
 */
import { performance } from 'node:perf_hooks';
import { CelCompileError, CelCostError, CelEvalError } from './errors.js';
import { tableActivation, tableEnvironment } from './testing/expression-env.js';
import { ExpressionGenerator, randomVariables, rng } from './testing/expression-fuzzer.js';
import type { CelValue } from './values/value.js';

const ITERATIONS = Number(process.env.CEL_FUZZ_ITERATIONS ?? 100_000);
const SEED = Number(process.env.CEL_FUZZ_SEED ?? 0x5eed11);
const LIMIT = 1_000_000;
const SLOW_MS = 10;

/** JavaScript failures that the boundary turned into CEL errors: bugs, not CEL outcomes. */
const JS_FAILURE = /internal error|is not a function|Cannot read propert|is not iterable|undefined is not|Maximum call stack|Invalid string length|Invalid array length|BigInt|is not defined/;

interface Finding {
  readonly expression: string;
  readonly input: string;
  readonly message: string;
}

const describeInput = (vars: Record<string, CelValue>): string =>
  Object.entries(vars)
    .map(([k, v]) => `${k}=${preview(v)}`)
    .join(' ');

function preview(v: CelValue): string {
  if (typeof v === 'string') return v.length > 40 ? `'${v.slice(0, 12)}…'(${v.length} chars)` : JSON.stringify(v);
  if (typeof v === 'bigint') return `${v}`;
  if (Array.isArray(v)) return v.length > 8 ? `[…${v.length} items]` : `[${v.map(preview).join(',')}]`;
  if (typeof v === 'number') return Object.is(v, -0) ? '-0.0' : String(v);
  if (v !== null && typeof v === 'object' && 'size' in v && 'kind' in v) return `{map of ${String((v as { size: number }).size)}}`;
  return String(v);
}

describe('CEL fuzz', () => {
  test(`${ITERATIONS} random expressions and inputs: only values or typed CEL errors`, () => {
    console.log(`CEL fuzz: seed ${SEED} (CEL_FUZZ_SEED), ${ITERATIONS} iterations (CEL_FUZZ_ITERATIONS)`);
    const r = rng(SEED);
    const gen = new ExpressionGenerator(r);
    const env = tableEnvironment();
    const base = tableActivation();
    const counts = { value: 0, compileError: 0, evalError: 0, costError: 0 };
    const escaped: Finding[] = [];
    const hidden: Finding[] = [];
    const times = new Float64Array(ITERATIONS);
    let evaluations = 0;
    let slow = 0;
    let slowestMs = 0;
    /** The five slowest evaluations, for the report. */
    const slowest: Array<Finding & { ms: number }> = [];
    const started = performance.now();

    for (let n = 0; n < ITERATIONS; n++) {
      const expression = gen.expression();
      const vars = randomVariables(r);
      let program;
      try {
        program = env.compile(expression);
      } catch (e) {
        if (e instanceof CelCompileError) {
          counts.compileError++;
          if (JS_FAILURE.test(e.message)) hidden.push({ expression, input: '', message: e.message });
        } else escaped.push({ expression, input: '(compile)', message: String(e) });
        continue;
      }
      const activation = { ...base, ...vars };
      const t0 = performance.now();
      let outcome: 'value' | 'evalError' | 'costError' | undefined;
      let message = '';
      try {
        program.evaluate(activation, { cost: 0, limit: LIMIT });
        outcome = 'value';
      } catch (e) {
        if (e instanceof CelCostError) outcome = 'costError';
        else if (e instanceof CelEvalError) {
          outcome = 'evalError';
          message = e.message;
        } else escaped.push({ expression, input: describeInput(vars), message: String(e) });
      }
      const ms = performance.now() - t0;
      times[evaluations++] = ms;
      if (ms > SLOW_MS) slow++;
      if (ms > slowestMs) slowestMs = ms;
      if (slowest.length < 5 || ms > slowest[slowest.length - 1]!.ms) {
        slowest.push({ expression, input: describeInput(vars), message: outcome ?? 'escaped', ms });
        slowest.sort((a, b) => b.ms - a.ms);
        slowest.length = Math.min(slowest.length, 5);
      }
      if (outcome !== undefined) counts[outcome]++;
      if (outcome === 'evalError' && JS_FAILURE.test(message)) hidden.push({ expression, input: describeInput(vars), message });
    }

    const total = performance.now() - started;
    const sorted = Array.from(times.subarray(0, evaluations)).sort((a, b) => a - b);
    const p99 = sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
    const p50 = sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!;
    console.log(
      [
        `CEL fuzz outcomes: ${counts.value} values, ${counts.compileError} compile errors, ${counts.evalError} runtime errors, ${counts.costError} cost errors, ${escaped.length} escaped throws, ${hidden.length} JavaScript failures behind the boundary`,
        `evaluation wall time (${evaluations} evaluations): p50 ${p50.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms, max ${slowestMs.toFixed(1)} ms, ${slow} over ${SLOW_MS} ms; whole run ${(total / 1000).toFixed(1)} s`,
        ...slowest.map((f) => `slow (${f.ms.toFixed(1)} ms): ${f.expression}  with ${f.input} -> ${f.message}`),
        ...[...escaped, ...hidden].slice(0, 20).map((f) => `FINDING: ${f.expression}  with ${f.input}: ${f.message}`),
      ].join('\n'),
    );

    expect(counts.value + counts.compileError + counts.evalError + counts.costError + escaped.length).toBe(ITERATIONS);
    expect(escaped).toEqual([]);
    expect(hidden).toEqual([]);
    // The generator must exercise evaluation, not only the checker.
    expect(counts.value).toBeGreaterThan(ITERATIONS * 0.2);
    expect(counts.evalError).toBeGreaterThan(0);
    expect(counts.costError).toBeGreaterThan(0);
  }, 600_000);
});
