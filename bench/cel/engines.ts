/**
 * Issue 11 step 1: the two CEL engine candidates side by side — cel-spec "simple" conformance pass rates
 * per section (through apiserver/cel/conformance's adapters), evaluations per second of a field
 * comparison with a map binding, compile time per typical Kubernetes rule, and whether a rule with a type
 * error is refused at compile time. The conformance table has a third column: our environment (cel-js's
 * parser and checker, our interpreter and the Kubernetes libraries: conformance/platform-adapter.ts, the
 * adapter `make test` runs). Part `cel` of `bench/run.ts`, followed by bench/cel/environment.ts.
 *
 * Run alone: `npx tsx bench/cel/engines.ts [--scale=1]` prints the markdown section.
 */
import { performance } from 'node:perf_hooks';
import { Environment } from '@marcbachmann/cel-js';
import { celEnv, isCelError, parse as bufParse, plan as bufPlan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { createBufAdapter } from '../../apiserver/cel/conformance/bufbuild-adapter.js';
import { createCelJsAdapter } from '../../apiserver/cel/conformance/cel-js-adapter.js';
import { createPlatformAdapter } from '../../apiserver/cel/conformance/platform-adapter.js';
import { formatRate, runAll, type SectionTally } from '../../apiserver/cel/conformance/runner.js';
import { loadSimpleSuite } from '../../apiserver/cel/conformance/suite.js';
import { KUBERNETES_LIBRARIES } from '../../apiserver/cel/library/libraries.js';
import { fmt, table } from '../measure.js';

/** A typical rule and the declaration of `self` it is written against (cel-js type syntax). */
interface Rule {
  readonly expr: string;
  readonly selfType: string;
}

const RULES: readonly Rule[] = [
  { expr: 'self.replicas <= self.maxReplicas', selfType: 'map<string, int>' },
  { expr: "self.all(x, x.name.startsWith('a'))", selfType: 'list<map<string, string>>' },
  { expr: 'has(self.spec) && self.spec.size() < 10', selfType: 'map<string, map<string, string>>' },
  { expr: "self.metadata.name.matches('^[a-z]+$')", selfType: 'map<string, map<string, string>>' },
  { expr: 'self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas', selfType: 'map<string, int>' },
];

/** Rules with a type error: a checker refuses them before they are stored. */
const TYPE_ERRORS: readonly Rule[] = [
  { expr: "self.replicas + 'a' > 0", selfType: 'map<string, int>' },
  { expr: 'self.name.startsWith(1)', selfType: 'map<string, string>' },
  { expr: 'self.replicas.size() > 0', selfType: 'map<string, int>' },
];

const celJsBase = new Environment({ homogeneousAggregateLiterals: false, enableOptionalTypes: true });
celJsBase.clone(); // freezes the base: each rule's environment is a cheap clone

const celJsEnv = (selfType: string): Environment => celJsBase.clone().registerVariable('self', selfType);
const bufEnv = celEnv({ funcs: strings });

/** Runs `fn` `n` times and returns operations per second (after a warm-up of n/10). */
function opsPerSecond(n: number, fn: (i: number) => unknown): number {
  for (let i = 0; i < Math.ceil(n / 10); i++) fn(i);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return n / ((performance.now() - t0) / 1000);
}

function celJsCompileUs(rule: Rule, n: number): number {
  const env = celJsEnv(rule.selfType);
  return 1e6 / opsPerSecond(n, () => {
    const program = env.parse(rule.expr);
    if (!program.check().valid) throw new Error(`cel-js refused ${rule.expr}`);
  });
}

function bufCompileUs(rule: Rule, n: number): number {
  return 1e6 / opsPerSecond(n, () => bufPlan(bufEnv, bufParse(rule.expr)));
}

function celJsRefuses(rule: Rule): string {
  try {
    const r = celJsEnv(rule.selfType).check(rule.expr);
    return r.valid ? 'no (accepted)' : `yes: ${(r.error?.message ?? '').split('\n')[0]}`;
  } catch (err) {
    return `throws ${String(err)}`;
  }
}

function bufRefuses(rule: Rule): string {
  try {
    bufPlan(bufEnv, bufParse(rule.expr));
    return 'no (no type checker; the error surfaces at evaluation)';
  } catch (err) {
    return `yes: ${err instanceof Error ? err.message : String(err)}`;
  }
}

function evalRates(n: number): { celJsTyped: number; celJsDyn: number; buf: number } {
  const contexts = [
    { self: new Map<string, bigint>([['replicas', 3n], ['maxReplicas', 5n]]) },
    { self: new Map<string, bigint>([['replicas', 7n], ['maxReplicas', 5n]]) },
  ];
  const expr = 'self.replicas <= self.maxReplicas';
  const typed = celJsEnv('map<string, int>').parse(expr);
  if (!typed.check().valid) throw new Error('cel-js check failed');
  const dyn = celJsEnv('dyn').parse(expr);
  if (!dyn.check().valid) throw new Error('cel-js check failed');
  const planned = bufPlan(bufEnv, bufParse(expr));
  // Sanity: all three agree before being timed.
  for (const c of contexts) {
    const want = c.self.get('replicas')! <= c.self.get('maxReplicas')!;
    const got = [typed(c), dyn(c), planned(c as Record<string, CelInput>)];
    if (got.some((g) => isCelError(g) || g !== want)) throw new Error(`engines disagree: ${String(got)}`);
  }
  return {
    celJsTyped: opsPerSecond(n, (i) => typed(contexts[i & 1])),
    celJsDyn: opsPerSecond(n, (i) => dyn(contexts[i & 1])),
    buf: opsPerSecond(n, (i) => planned(contexts[i & 1] as Record<string, CelInput>)),
  };
}

const REQUIRED = ['basic', 'comparisons', 'conversions', 'integer_math', 'lists', 'logic', 'macros', 'string', 'string_ext', 'timestamps', 'optionals'];

/** The markdown section: conformance side by side, evaluation and compile speed, type-error refusals. */
export async function benchCelEngines({ scale }: { readonly scale: number }): Promise<string> {
  const { cases, registry } = loadSimpleSuite();
  const celJs = runAll(createCelJsAdapter(), cases, registry).tallies;
  const buf = runAll(createBufAdapter(), cases, registry).tallies;
  const ours = runAll(createPlatformAdapter(KUBERNETES_LIBRARIES), cases, registry).tallies;
  const byFile = (ts: SectionTally[]): Map<string, SectionTally> => new Map(ts.map((t) => [t.file, t]));
  const a = byFile(celJs);
  const b = byFile(buf);
  const o = byFile(ours);
  const sum = (ts: Iterable<SectionTally>): SectionTally => {
    const s: SectionTally = { file: '', pass: 0, fail: 0, unsupported: 0 };
    for (const t of ts) {
      s.pass += t.pass;
      s.fail += t.fail;
      s.unsupported += t.unsupported;
    }
    return s;
  };
  const cell = (t: SectionTally | undefined): string => (t === undefined ? '-' : `${formatRate(t)}, ${t.fail} fail, ${t.unsupported} unsup.`);
  const conformanceRows = celJs.map((t) => [REQUIRED.includes(t.file) ? `**${t.file}**` : t.file, cell(t), cell(b.get(t.file)), cell(o.get(t.file))]);
  conformanceRows.push(['required sections (bold)', ...[a, b, o].map((m) => cell(sum(REQUIRED.map((f) => m.get(f)!))))]);
  conformanceRows.push(['all', cell(sum(celJs)), cell(sum(buf)), cell(sum(ours))]);

  const evalN = Math.max(1000, Math.round(1_000_000 * scale));
  const rates = evalRates(evalN);
  const compileN = Math.max(100, Math.round(20_000 * scale));
  // One untimed pass over every rule first, so the first rule measured does not pay for the JIT.
  for (const r of RULES) {
    celJsCompileUs(r, Math.ceil(compileN / 5));
    bufCompileUs(r, Math.ceil(compileN / 5));
  }
  const compileRows = RULES.map((r) => [`\`${r.expr}\``, fmt(celJsCompileUs(r, compileN), 1), fmt(bufCompileUs(r, compileN), 1)]);
  const errorRows = TYPE_ERRORS.map((r) => [`\`${r.expr}\``, celJsRefuses(r), bufRefuses(r)]);

  return [
    '### CEL engines (issue 11 step 1)',
    '',
    'cel-spec v0.25.1 "simple" conformance (from `@bufbuild/cel-spec` 0.6.1), per file: passed/total, failures, unsupported (the engine cannot express the input: protobuf messages for cel-js and ours, deduced types for an engine without a checker, unknowns). Ours is the environment `make test` runs the suite against (Kubernetes 1.32 libraries); its failures are listed with reasons in `apiserver/cel/conformance/known-failures.ts`.',
    '',
    table(['section', '@marcbachmann/cel-js 8.0.0 (raw)', '@bufbuild/cel 0.6.1', 'ours (cel-js parser + checker, our interpreter)'], conformanceRows),
    '',
    `Evaluations per second of \`self.replicas <= self.maxReplicas\` with a map binding (${fmt(evalN)} evaluations, two alternating inputs, one thread):`,
    '',
    table(['engine', 'evals/s'], [
      ['cel-js, `self` declared `map<string, int>` (checked)', fmt(rates.celJsTyped)],
      ['cel-js, `self` declared `dyn` (checked)', fmt(rates.celJsDyn)],
      ['@bufbuild/cel (unchecked, planned once)', fmt(rates.buf)],
    ]),
    '',
    `Compile time per rule in µs, mean over ${fmt(compileN)} compilations (cel-js: parse + type check; @bufbuild/cel: parse + plan, it has no checker):`,
    '',
    table(['rule', 'cel-js µs', '@bufbuild/cel µs'], compileRows),
    '',
    'Is a rule with a type error refused at compile time?',
    '',
    table(['rule', 'cel-js', '@bufbuild/cel'], errorRows),
  ].join('\n');
}

// Run alone with tsx: print the section.
if (process.argv[1] !== undefined && /engines\.ts$/.test(process.argv[1])) {
  const arg = process.argv.find((x) => x.startsWith('--scale='));
  const scale = arg === undefined ? 1 : Number(arg.slice('--scale='.length));
  benchCelEngines({ scale })
    .then((md) => process.stdout.write(`${md}\n`))
    .catch((err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    });
}
