/**
 * The cel-spec "simple" conformance suite against our CEL environment (issue 11): cel-js parses and
 * type-checks, our interpreter evaluates (platform-adapter.ts), with the standard library and every
 * Kubernetes 1.32 library. Every case runs; the ones it does not pass are listed with their reasons in
 * known-failures.ts. Per section this asserts that every unlisted case passes and that every listed case
 * still does not (a fixed case must be removed from the list), and prints the pass rate per section.
 * (The raw cel-js engine is measured by bench/cel with cel-js-adapter.ts.)
 */
import { KUBERNETES_LIBRARIES } from '../library/libraries.js';
import { KNOWN_FAILURES } from './known-failures.js';
import { createPlatformAdapter } from './platform-adapter.js';
import { formatRate, runAll, type CaseResult } from './runner.js';
import { loadSimpleSuite } from './suite.js';

const { cases, registry } = loadSimpleSuite();
const { results, tallies } = runAll(createPlatformAdapter(KUBERNETES_LIBRARIES), cases, registry);
const files = tallies.map((t) => t.file);

/** The sections issue 11 requires to pass (the suite has no `maps` file: map behaviour is in fields, comparisons, macros). */
const REQUIRED = ['basic', 'comparisons', 'conversions', 'integer_math', 'lists', 'logic', 'macros', 'optionals', 'string', 'string_ext', 'timestamps'];

afterAll(() => {
  const width = Math.max(...files.map((f) => f.length));
  const sum = (ts: typeof tallies) => ts.reduce((s, t) => ({ pass: s.pass + t.pass, fail: s.fail + t.fail, unsupported: s.unsupported + t.unsupported }), { pass: 0, fail: 0, unsupported: 0 });
  const lines = tallies.map((t) => `  ${t.file.padEnd(width)}  ${formatRate(t)}  (${t.fail} fail, ${t.unsupported} unsupported)`);
  const required = sum(tallies.filter((t) => REQUIRED.includes(t.file)));
  process.stdout.write(
    `cel-spec simple conformance, our environment (cel-js checker + our interpreter):\n${lines.join('\n')}\n  ${'required'.padEnd(width)}  ${formatRate(required)}\n  ${'all'.padEnd(width)}  ${formatRate(sum(tallies))}\n`,
  );
});

const describeCase = (r: CaseResult): string => `${r.path}: ${r.verdict.status === 'pass' ? 'passes' : r.verdict.reason}`;

test('the suite is the whole cel-spec v0.25.1 simple suite, with unique case names', () => {
  expect(cases.length).toBe(2344);
  expect(new Set(cases.map((c) => c.path)).size).toBe(cases.length);
  expect(files).toEqual(expect.arrayContaining(REQUIRED));
});

test('every known failure names a case of the suite, in its own section', () => {
  const paths = new Map(cases.map((c) => [c.path, c.file]));
  const stale: string[] = [];
  for (const [file, section] of Object.entries(KNOWN_FAILURES)) {
    expect(section.why.length).toBeGreaterThan(0);
    for (const path of Object.keys(section.cases)) if (paths.get(path) !== file) stale.push(path);
  }
  expect(stale).toEqual([]);
});

test.each(files)('section %s: unlisted cases pass, listed ones still do not', (file) => {
  const known = KNOWN_FAILURES[file]?.cases ?? {};
  const section = results.filter((r) => r.file === file);
  const unexpectedFailures = section.filter((r) => r.verdict.status !== 'pass' && !(r.path in known)).map(describeCase);
  const nowPassing = section.filter((r) => r.verdict.status === 'pass' && r.path in known).map((r) => `${r.path} (remove it from known-failures.ts)`);
  expect(unexpectedFailures).toEqual([]);
  expect(nowPassing).toEqual([]);
});

test('no case crashes the environment: every outcome is a value, a compile error or an evaluation error', () => {
  const crashes = results.filter((r) => r.verdict.status === 'fail' && r.verdict.reason.startsWith('engine crashed')).map(describeCase);
  expect(crashes).toEqual([]);
});

test('Kubernetes-relevant semantics the raw engine got wrong pass here', () => {
  const pass = (path: string) => expect([path, results.find((x) => x.path === path)?.verdict.status]).toEqual([path, 'pass']);
  pass('comparisons/eq_literal/eq_mixed_types'); // unchecked 1.0 == 1: heterogeneous equality
  pass('lists/in/uint_in_doubles'); // `in` across numeric kinds
  pass('integer_math/int64_math/int64_min_negate'); // -(-2^63) overflows
  pass('conversions/int/double_int_max_range'); // int(9.2e18) range error
  pass('logic/AND/short_circuit_type_left'); // error absorption
  pass('timestamps/timestamp_selectors_tz/getHours'); // fixed-offset time zone
  pass('timestamps/timestamp_range/add_duration_over'); // range error after arithmetic
  pass('comparisons/lt_literal/lt_bytes'); // bytes ordering
});
