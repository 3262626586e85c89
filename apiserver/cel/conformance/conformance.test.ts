/**
 * The cel-spec "simple" conformance suite against the chosen engine, @marcbachmann/cel-js (issue 11; the
 * choice is measured in docs/cel-engine.md). Every case runs; the ones the engine does not pass are listed
 * with their reasons in known-failures.ts. Per section this asserts that every unlisted case passes and
 * that every listed case still does not (a fixed case must be removed from the list), and prints the pass
 * rate per section.
 */
import { createCelJsAdapter } from './cel-js-adapter.js';
import { KNOWN_FAILURES } from './known-failures.js';
import { formatRate, runAll, type CaseResult } from './runner.js';
import { loadSimpleSuite } from './suite.js';

const { cases, registry } = loadSimpleSuite();
const { results, tallies } = runAll(createCelJsAdapter(), cases, registry);
const files = tallies.map((t) => t.file);

afterAll(() => {
  const width = Math.max(...files.map((f) => f.length));
  const all = tallies.reduce((s, t) => ({ pass: s.pass + t.pass, fail: s.fail + t.fail, unsupported: s.unsupported + t.unsupported }), { pass: 0, fail: 0, unsupported: 0 });
  const lines = tallies.map((t) => `  ${t.file.padEnd(width)}  ${formatRate(t)}  (${t.fail} fail, ${t.unsupported} unsupported)`);
  process.stdout.write(`cel-spec simple conformance, @marcbachmann/cel-js:\n${lines.join('\n')}\n  ${'all'.padEnd(width)}  ${formatRate(all)}\n`);
});

const describeCase = (r: CaseResult): string => `${r.path}: ${r.verdict.status === 'pass' ? 'passes' : r.verdict.reason}`;

test('the suite is the whole cel-spec v0.25.1 simple suite, with unique case names', () => {
  expect(cases.length).toBe(2344);
  expect(new Set(cases.map((c) => c.path)).size).toBe(cases.length);
  expect(files).toEqual(expect.arrayContaining(['basic', 'comparisons', 'conversions', 'integer_math', 'lists', 'logic', 'macros', 'optionals', 'string', 'string_ext', 'timestamps']));
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

test('a case the engine fails is reported as a failure with a reason, and a throw never escapes', () => {
  // A known gap of the engine: unchecked `1.0 == 1` (heterogeneous numeric equality) is an error in cel-js.
  const r = results.find((x) => x.path === 'comparisons/eq_literal/eq_mixed_types');
  expect(r?.verdict).toEqual({ status: 'fail', reason: expect.stringContaining('no such overload') });
  // The time zone offsets make the engine throw a RangeError (not one of its CEL errors): a failure, caught.
  const tz = results.find((x) => x.path === 'timestamps/timestamp_selectors_tz/getHours');
  expect(tz?.verdict).toEqual({ status: 'fail', reason: expect.stringContaining('engine crashed') });
});
