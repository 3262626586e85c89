/**
 * The expression table of issue 11 (`testing/expression-table.ts`): each row is compiled in the table
 * environment (the environment layer's new-expression environment of this server: every Kubernetes 1.32
 * library, plain variables, a schema-typed `self`/`oldSelf`; `testing/expression-env.ts`) and
 * evaluated with a cost tracker (Kubernetes' per-call limit unless the row sets one); the outcome — a
 * value, a compile error (the environment's CelExpressionError, Kubernetes' `compilation failed: ...` or
 * `program instantiation failed: ...`), a CelEvalError or a CelCostError — must be the row's. Rows marked `known`
 * must still fail (the mark documents a gap; a fix makes the row fail here until the mark is dropped).
 */
import { CelExpressionError } from './environment/errors.js';
import { CelCostError, CelEvalError } from './errors.js';
import { compileTableExpression, selfDeclType, tableActivation } from './testing/expression-env.js';
import { TABLE, type Expectation, type Plain, type Row } from './testing/expression-table.js';
import { adaptValue } from './types/adapt.js';
import { CelOpaque, CelType, CelUint, Duration, Optional, Timestamp, type CelMap, type CelValue } from './values/value.js';

const PER_CALL_LIMIT = 1_000_000;

type Outcome =
  | { readonly kind: 'value'; readonly value: Plain }
  | { readonly kind: 'compile'; readonly message: string }
  | { readonly kind: 'eval'; readonly message: string }
  | { readonly kind: 'cost'; readonly message: string }
  | { readonly kind: 'crash'; readonly message: string };

function run(row: Row): Outcome {
  let program;
  try {
    program = compileTableExpression(row.expr, row.mode).program;
  } catch (e) {
    if (e instanceof CelExpressionError && e.type === 'Invalid') return { kind: 'compile', message: e.message };
    return { kind: 'crash', message: String(e) };
  }
  const act: Record<string, CelValue> = { ...tableActivation(), ...row.vars };
  if (row.oldSelf !== undefined) act.oldSelf = adaptValue(row.oldSelf, selfDeclType());
  try {
    const value = program.evaluate(act, { cost: 0, limit: row.limit ?? PER_CALL_LIMIT });
    return { kind: 'value', value: plain(value) };
  } catch (e) {
    if (e instanceof CelCostError) return { kind: 'cost', message: e.message };
    if (e instanceof CelEvalError) return { kind: 'eval', message: e.message };
    return { kind: 'crash', message: String(e) };
  }
}

/** A CEL value in the table's plain representation (see expression-table.ts). */
function plain(v: CelValue): Plain {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof CelUint) return { uint: v.value };
  if (v instanceof Uint8Array) return { bytes: [...v] };
  if (v instanceof Duration) return { duration: durationText(v) };
  if (v instanceof Timestamp) return { timestamp: `${v.seconds}.${v.nanos}` };
  if (v instanceof CelType) return { type: v.name };
  if (v instanceof Optional) return { optional: v.hasValue ? plain(v.value!) : 'none' };
  if (v instanceof CelOpaque) return { opaque: v.typeName };
  if ((v as CelMap).kind === 'map') {
    const m = v as CelMap;
    return { map: [...m.keys()].map((k) => [plain(k), plain(m.get(k)!)]) };
  }
  return { object: (v as { typeName: string }).typeName };
}

/** Go's Duration.String() shape as CEL prints durations: seconds with a fraction, `s` suffix. */
function durationText(d: Duration): string {
  const neg = d.seconds < 0n || d.nanos < 0;
  const s = d.seconds < 0n ? -d.seconds : d.seconds;
  const n = Math.abs(d.nanos);
  const frac = n === 0 ? '' : `.${String(n).padStart(9, '0').replace(/0+$/, '')}`;
  return `${neg ? '-' : ''}${s}${frac}s`;
}

/** Whether `o` is what `want` asks; a description of the mismatch otherwise. */
function mismatch(o: Outcome, want: Expectation): string | undefined {
  if ('value' in want) {
    if (o.kind !== 'value') return `expected a value, got ${o.kind}: ${o.message}`;
    try {
      expect(o.value).toEqual(want.value);
      return undefined;
    } catch {
      return `expected ${show(want.value)}, got ${show(o.value)}`;
    }
  }
  if ('compileError' in want) {
    if (o.kind !== 'compile') return `expected a compile error, got ${describeOutcome(o)}`;
    return o.message.includes(want.compileError) ? undefined : `compile error ${JSON.stringify(o.message)} lacks ${JSON.stringify(want.compileError)}`;
  }
  if ('evalError' in want) {
    if (o.kind !== 'eval') return `expected a runtime error, got ${describeOutcome(o)}`;
    const ok = typeof want.evalError === 'string' ? o.message === want.evalError : want.evalError.test(o.message);
    return ok ? undefined : `runtime error ${JSON.stringify(o.message)} is not ${String(want.evalError)}`;
  }
  return o.kind === 'cost' ? undefined : `expected a cost error, got ${describeOutcome(o)}`;
}

const describeOutcome = (o: Outcome): string => (o.kind === 'value' ? `value ${show(o.value)}` : `${o.kind}: ${o.message}`);
const show = (p: unknown): string => JSON.stringify(p, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x));

describe('the expression table', () => {
  test('has at least 300 rows, each with a source', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(300);
    for (const r of TABLE) expect(r.src.trim()).not.toBe('');
  });

  const live = TABLE.filter((r) => r.known === undefined);
  const known = TABLE.filter((r) => r.known !== undefined);

  test.each(live.map((r) => [r.group, r.expr, r] as const))('[%s] %s', (_g, _e, row) => {
    const o = run(row);
    expect(o.kind).not.toBe('crash');
    expect(mismatch(o, row.expect)).toBeUndefined();
  });

  test.each(known.map((r) => [r.group, r.expr, r] as const))('[%s] known failure: %s', (_g, _e, row) => {
    const o = run(row);
    expect(o.kind).not.toBe('crash');
    // Still failing for the recorded reason; when this assertion breaks, the gap is fixed: drop `known`.
    expect(mismatch(o, row.expect)).toBeDefined();
  });

  test('coverage per group (printed)', () => {
    const counts = new Map<string, number>();
    for (const r of TABLE) counts.set(r.group, (counts.get(r.group) ?? 0) + 1);
    const lines = [...counts].map(([g, n]) => `${g.padEnd(24)} ${n}`);
    console.log(`expression table: ${TABLE.length} rows (${known.length} known failures)\n${lines.join('\n')}`);
    expect(counts.size).toBeGreaterThan(15);
  });
});
