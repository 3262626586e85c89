/**
 * The expression table of issue 11: CEL expressions with their expected outcome in Kubernetes 1.32 (cel-go
 * v0.22) — a value, a compile (type) error, a runtime error, or a cost error — evaluated by
 * `apiserver/cel/expressions.test.ts` in the environment of `expression-env.ts` (every 1.32 library, plain
 * variables, a schema-typed `self`/`oldSelf`).
 *
 * Every row carries its source (`src`): the spec (`/work/shared/spec/3-admission-crd-cel.md`), a Kubernetes
 * library's documentation or test (named), cel-go's documentation or the cel-spec conformance data, Go's
 * documented semantics that Kubernetes inherits, or an observed Kubernetes answer. Nothing here is guessed.
 *
 * A row whose expectation our implementation does not meet yet carries `known` (the reason); the test
 * asserts that it STILL fails, so a fix shows up as a failing test that asks to drop the mark.
 *
 * Expected values use a plain representation (see `plain()` in the test): bigint for int, number for
 * double, string, boolean, null, arrays for lists, and tagged objects for the rest (`u()`, `dur()`, `ts()`,
 * `opt()`, `NONE`, `bytes()`, `map()`, `typ()`).
 */
import { EntryMap } from '../values/entry-map.js';
import type { CelValue } from '../values/value.js';
import { OLD_SELF_DATA } from './expression-env.js';

export type Plain = bigint | number | string | boolean | null | readonly Plain[] | { readonly [tag: string]: unknown };

export const u = (n: bigint): Plain => ({ uint: n });
export const dur = (s: string): Plain => ({ duration: s });
export const ts = (s: string): Plain => ({ timestamp: s });
export const opt = (v: Plain): Plain => ({ optional: v });
export const NONE: Plain = { optional: 'none' };
export const bytes = (...b: number[]): Plain => ({ bytes: b });
export const map = (...entries: Array<[Plain, Plain]>): Plain => ({ map: entries });
export const typ = (name: string): Plain => ({ type: name });

export type Expectation =
  | { readonly value: Plain }
  /** A CelCompileError whose message contains `compileError`. */
  | { readonly compileError: string }
  /** A CelEvalError (not a cost error) whose message is exactly `evalError`, or matches it when a RegExp. */
  | { readonly evalError: string | RegExp }
  /** A CelCostError (the tracker's limit, default 1,000,000, passed). */
  | { readonly costError: true };

export interface Row {
  readonly group: string;
  readonly expr: string;
  readonly expect: Expectation;
  /** Where the expected outcome comes from (one line). */
  readonly src: string;
  /** Variables replacing the default activation's. */
  readonly vars?: Readonly<Record<string, CelValue>>;
  /** `oldSelf` data replacing the default (adapted with the schema of `self`). */
  readonly oldSelf?: unknown;
  /** The tracker's limit (default 1,000,000: Kubernetes' PerCallLimit). */
  readonly limit?: number;
  /** Our implementation does not meet the expectation yet: the reason (asserted to still fail). */
  readonly known?: string;
  /**
   * The environment: `new` (default; an expression being written to a 1.32 server, compatibility
   * version 1.31) or `stored` (an expression already persisted: everything the server knows).
   */
  readonly mode?: 'new' | 'stored';
}

// ---- sources ---------------------------------------------------------------------------------------
const SPEC = 'spec 3-admission-crd-cel.md, Expression language reference';
const STRINGS_DOC = 'cel-go ext/strings.go docs (Strings, version 2 in Kubernetes 1.32)';
const STRING_EXT = 'cel-spec conformance string_ext.textproto';
const FORMAT_TEST = 'cel-go ext/formatting_test.go (formatter of cel-go v0.22, Kubernetes 1.32)';
const LISTS_DOC = 'Kubernetes library docs: apiserver/pkg/cel/library/lists.go';
const REGEX_DOC = 'Kubernetes library docs: apiserver/pkg/cel/library/regex.go';
const URLS_DOC = 'Kubernetes library docs: apiserver/pkg/cel/library/urls.go';
const QUANTITY_TEST = 'Kubernetes apiserver/pkg/cel/library/quantity_test.go';
const SETS_DOC = 'cel-go ext/sets.go docs (Sets, Kubernetes 1.29+)';
const IP_TEST = 'Kubernetes apiserver/pkg/cel/library/ip_test.go';
const CIDR_TEST = 'Kubernetes apiserver/pkg/cel/library/cidr_test.go';
const FORMAT_LIB_TEST = 'Kubernetes apiserver/pkg/cel/library/format_test.go';
const AUTHZ_DOC = 'Kubernetes library docs: apiserver/pkg/cel/library/authz.go (decision of the table authorizer)';
const OPTIONALS = 'cel-spec conformance optionals.textproto / cel-go optional library docs';
const COMPARISONS = 'cel-spec conformance comparisons.textproto (cross-type numeric comparisons, Kubernetes 1.28+)';
const INT_MATH = 'cel-spec conformance integer_math.textproto';
const CONVERSIONS = 'cel-spec conformance conversions.textproto';
const TIMESTAMPS = 'cel-spec conformance timestamps.textproto';
const MACROS = 'cel-spec conformance macros.textproto';
const CEL_SPEC = 'cel-spec langdef.md';
const VALUES_GO = 'Kubernetes apiserver/pkg/cel/common/values.go (list Equal/Add decided by the left operand)';
const ESCAPING = 'spec 3-admission-crd-cel.md, escaping table; facts cel-crd-admission.md Property-name escaping';
const VALIDATORS = 'cel-go cel/validator.go (ValidateRegexLiterals/Duration/Timestamp, Kubernetes 1.29+ base env)';
const BASE_ENV = 'Kubernetes apiserver/pkg/cel/environment/base.go (1.32 library set)';
const GO_REGEXP = 'Go regexp docs (RE2 syntax; FindAllString: empty matches abutting a preceding match are ignored)';
const COST = 'facts cel-crd-admission.md cost constants (PerCallLimit 1,000,000); cel-go "operation cancelled: actual cost limit exceeded"';
const CHECKER = 'cel-go checker wording (found no matching overload / undeclared reference / undefined field)';

// ---- reasons of known failures (each asserted to still fail) ---------------------------------------
const KNOWN_OPTIONAL_ENTRIES = 'the cel-js parser does not accept optional entries in list and map literals (`[?x]`, `{?k: v}`): parse error';
const KNOWN_TWO_VAR =
  "two-variable comprehensions: Kubernetes 1.32's base.go introduces ext.TwoVarComprehensions at version 1.32 (kubernetes/kubernetes#128593), so a 1.32 server refuses them in new expressions (compatibility version 1.31: rows above) and compiles them only in stored expressions; the cel-js parser has no two-variable macros (`all(i, v, p)` is a call with an undeclared `v`), so our stored environment refuses them too";

const rows: Row[] = [];
let group = '';
const section = (name: string): void => {
  group = name;
};
const v = (expr: string, value: Plain, src: string, extra: Partial<Row> = {}): void => {
  rows.push({ group, expr, expect: { value }, src, ...extra });
};
const ce = (expr: string, compileError: string, src: string, extra: Partial<Row> = {}): void => {
  rows.push({ group, expr, expect: { compileError }, src, ...extra });
};
const ee = (expr: string, evalError: string | RegExp, src: string, extra: Partial<Row> = {}): void => {
  rows.push({ group, expr, expect: { evalError }, src, ...extra });
};
const cost = (expr: string, src: string, extra: Partial<Row> = {}): void => {
  rows.push({ group, expr, expect: { costError: true }, src, ...extra });
};

// ---- strings extension -------------------------------------------------------------------------------
section('strings ext');
v("'hello'.charAt(4)", 'o', STRINGS_DOC);
v("'hello'.charAt(5)", '', STRINGS_DOC);
ee("'hello'.charAt(-1)", 'index out of range: -1', STRINGS_DOC);
v("'©αT'.charAt(1)", 'α', STRING_EXT);
ee("'tacocat'.charAt(30)", 'index out of range: 30', STRING_EXT);
v("'hello mellow'.indexOf('')", 0n, STRINGS_DOC);
v("'hello mellow'.indexOf('ello')", 1n, STRINGS_DOC);
v("'hello mellow'.indexOf('jello')", -1n, STRINGS_DOC);
v("'hello mellow'.indexOf('', 2)", 2n, STRINGS_DOC);
v("'hello mellow'.indexOf('ello', 2)", 7n, STRINGS_DOC);
ee("'hello mellow'.indexOf('ello', 20)", 'index out of range: 20', STRINGS_DOC);
v("'ta©o©αT'.indexOf('©', 3)", 4n, STRING_EXT);
v("'hello mellow'.lastIndexOf('')", 12n, STRINGS_DOC);
v("'hello mellow'.lastIndexOf('ello')", 7n, STRINGS_DOC);
v("'hello mellow'.lastIndexOf('jello')", -1n, STRINGS_DOC);
v("'hello mellow'.lastIndexOf('ello', 6)", 1n, STRINGS_DOC);
ee("'hello mellow'.lastIndexOf('ello', -1)", 'index out of range: -1', STRINGS_DOC);
v("'bananananana'.lastIndexOf('nana', 7)", 6n, STRING_EXT);
v("['hello', 'mellow'].join()", 'hellomellow', STRINGS_DOC);
v("['hello', 'mellow'].join(' ')", 'hello mellow', STRINGS_DOC);
v('[].join()', '', STRINGS_DOC);
v("[].join('/')", '', STRINGS_DOC);
v("'TacoCat'.lowerAscii()", 'tacocat', STRINGS_DOC);
v("'TacoCÆt Xii'.lowerAscii()", 'tacocÆt xii', STRINGS_DOC + ': ASCII only');
v("'TacoCat'.upperAscii()", 'TACOCAT', STRINGS_DOC);
v("'TacoCÆt Xii'.upperAscii()", 'TACOCÆT XII', STRINGS_DOC + ': ASCII only');
v("'ÀB'.lowerAscii()", 'Àb', 'observed Kubernetes answer (docs/cel-engine.md): non-ASCII letters keep their case');
v("'straße'.upperAscii()", 'STRAßE', STRINGS_DOC + ': no Unicode case mapping (ß stays)');
v("'ǅ'.lowerAscii() == 'ǅ'", true, STRINGS_DOC + ': no Unicode case mapping');
v("'hello hello'.replace('he', 'we')", 'wello wello', STRINGS_DOC);
v("'hello hello'.replace('he', 'we', -1)", 'wello wello', STRINGS_DOC);
v("'hello hello'.replace('he', 'we', 1)", 'wello hello', STRINGS_DOC);
v("'hello hello'.replace('he', 'we', 0)", 'hello hello', STRINGS_DOC);
v("'{0} days {0} hours'.replace('{0}', '2', 1)", '2 days {0} hours', STRING_EXT);
v("'hello hello hello'.split(' ')", ['hello', 'hello', 'hello'], STRINGS_DOC);
v("'hello hello hello'.split(' ', 0)", [], STRINGS_DOC);
v("'hello hello hello'.split(' ', 1)", ['hello hello hello'], STRINGS_DOC);
v("'hello hello hello'.split(' ', 2)", ['hello', 'hello hello'], STRINGS_DOC);
v("'hello hello hello'.split(' ', -1)", ['hello', 'hello', 'hello'], STRINGS_DOC);
v("'o©o©o©o'.split('©', -1)", ['o', 'o', 'o', 'o'], STRING_EXT);
v("'tacocat'.substring(4)", 'cat', STRINGS_DOC);
v("'tacocat'.substring(0, 4)", 'taco', STRINGS_DOC);
ee("'tacocat'.substring(-1)", 'index out of range: -1', STRINGS_DOC);
ee("'tacocat'.substring(2, 1)", 'invalid substring range. start: 2, end: 1', STRINGS_DOC);
v("'ta©o©αT'.substring(2, 6)", '©o©α', STRING_EXT);
ee("'tacocat'.substring(40)", 'index out of range: 40', STRING_EXT);
v("'  \\ttrim\\n    '.trim()", 'trim', STRINGS_DOC);
v("'\\u180etext\\u200b'.trim() == '\\u180etext\\u200b'", true, STRINGS_DOC + ': zero-width spaces are not whitespace');
v("'tacocat'.contains('coca') && 'tacocat'.startsWith('taco') && 'tacocat'.endsWith('cat')", true, CEL_SPEC + ' (standard string functions)');
v("size('ta©o') == 4 && 'ta©o'.size() == 4", true, 'cel-spec conformance string.textproto (size counts code points)');
ce("'abc'.reverse()", "'reverse'", BASE_ENV + ': reverse is strings version 3, not in 1.32');
ce("'a'.charAt('b')", "found no matching overload for 'charAt'", CHECKER);
ce("'abc'.lowerAscii(1)", "'lowerAscii'", CHECKER);

// ---- strings v2: format and quote --------------------------------------------------------------------
section('format / quote');
v("'no substitution'.format([])", 'no substitution', FORMAT_TEST);
v("'str is %s and some more'.format(['filler'])", 'str is filler and some more', FORMAT_TEST);
v("'%%%s%%'.format(['text'])", '%text%', FORMAT_TEST);
v("'%d %d %d, %s %s %s'.format([1, 2, 3, 'A', 'B', 'C'])", '1 2 3, A B C', FORMAT_TEST + ' (mixed list literal exempt inside format: ' + VALIDATORS + ')');
v("'%d %s'.format([dyn(1), dyn('A')])", '1 A', FORMAT_TEST + ' (the same with dyn elements)');
v("'%.3f'.format([1.2345])", '1.234', FORMAT_TEST);
v("'%f'.format([2.71828])", '2.718280', FORMAT_TEST);
v("'this is 5 in binary: %b'.format([5])", 'this is 5 in binary: 101', FORMAT_TEST);
v("'%o'.format([11])", '13', FORMAT_TEST);
v("'%x is 30 in hexadecimal'.format([30])", '1e is 30 in hexadecimal', FORMAT_TEST);
v("'%X'.format(['Hello world!'])", '48656C6C6F20776F726C6421', FORMAT_TEST);
v("'%s'.format([null])", 'null', FORMAT_TEST);
v("'%s'.format([['abc', 3, null, [9, 8]]])", '["abc", 3, null, [9, 8]]', FORMAT_TEST + ' (mixed list exempt from homogeneous literals in format)');
v("'%s'.format([[dyn('abc'), dyn(3), dyn(null), dyn([9, 8])]])", '["abc", 3, null, [9, 8]]', FORMAT_TEST + ' (the same with dyn elements)');
v("'%s'.format([true])", 'true', FORMAT_TEST);
v("'%d items'.format([3u])", '3 items', FORMAT_TEST);
v("'%s'.format([duration('1h45m47s')])", '6347s', STRINGS_DOC + ' (Format examples)');
v("'%s'.format([timestamp('2023-02-03T23:31:20+00:00')])", '2023-02-03T23:31:20Z', STRINGS_DOC + ' (Format examples)');
// A literal format string with a list literal is checked when the rule is written (cel-go ext/strings.go
// adds its stringFormatValidator with `format`); the same clauses from a variable fail at run time.
const FORMAT_VALIDATOR = "cel-go ext/strings.go stringFormatValidator (literal format strings are checked at compile time)";
ce("'%a'.format([1])", 'could not parse formatting clause: unrecognized formatting clause "a"', FORMAT_VALIDATOR);
ee('s.format([1])', 'could not parse formatting clause: unrecognized formatting clause "a"', FORMAT_TEST + ' / cel-spec string_ext format_errors', { vars: { s: '%a' } });
ce("'%d %d %d'.format([0, 1])", 'index 2 out of range', FORMAT_VALIDATOR);
ee('s.format([0, 1])', 'index 2 out of range', FORMAT_TEST, { vars: { s: '%d %d %d' } });
ce("'%d'.format([1.5])", 'error during formatting: decimal clause can only be used on integers, was given double', FORMAT_VALIDATOR);
ee('s.format([1.5])', 'error during formatting: decimal clause can only be used on integers, was given double', FORMAT_TEST, { vars: { s: '%d' } });
ce("'string is %b'.format(['abc'])", 'error during formatting: only integers and bools can be formatted as binary, was given string', FORMAT_VALIDATOR);
ee("s.format(['abc'])", 'error during formatting: only integers and bools can be formatted as binary, was given string', FORMAT_TEST, { vars: { s: 'string is %b' } });
v("strings.quote('first\\nsecond')", '"first\\nsecond"', STRING_EXT + ' quote');
v("strings.quote('mid string \" quote')", '"mid string \\" quote"', STRING_EXT + ' quote');
v("strings.quote('ends with \\\\')", '"ends with \\\\"', STRING_EXT + ' quote');
v("strings.quote('')", '""', STRING_EXT + ' quote');
v("strings.quote('printable unicode😀')", '"printable unicode😀"', STRING_EXT + ' quote');

// ---- lists library -----------------------------------------------------------------------------------
section('lists');
v('[1, 2, 3].isSorted()', true, LISTS_DOC);
v("['a', 'b', 'b', 'c'].isSorted()", true, LISTS_DOC);
v('[2.0, 1.0].isSorted()', false, LISTS_DOC);
v('[1].isSorted()', true, LISTS_DOC);
v('[].isSorted()', true, LISTS_DOC);
v("[duration('1s'), duration('1m')].isSorted()", true, LISTS_DOC + ' (comparable types include duration)');
v("[timestamp('2024-01-01T00:00:00Z'), timestamp('2023-01-01T00:00:00Z')].isSorted()", false, LISTS_DOC + ' (timestamp)');
v('[1, 3].sum()', 4n, LISTS_DOC);
v('[1.0, 3.0].sum()', 4, LISTS_DOC);
v('[1u, 2u].sum()', u(3n), LISTS_DOC + ' (uint)');
v("[duration('1m'), duration('1s')].sum()", dur('61s'), LISTS_DOC + " (['1m', '1s'].sum() is '1m1s')");
v('l.filter(x, x > 5).sum()', 0n, LISTS_DOC + ' (emptyIntList.sum() is 0)');
v('[].sum()', 0n, LISTS_DOC);
ee('[9223372036854775807, 1].sum()', 'integer overflow', LISTS_DOC + ' (sum uses int addition: ' + INT_MATH + ')');
v('[1, 3].min()', 1n, LISTS_DOC);
v('[1, 3].max()', 3n, LISTS_DOC);
ee('[].min()', 'min called on empty list', LISTS_DOC);
ee('[].max()', 'max called on empty list', LISTS_DOC);
v('[1].min()', 1n, LISTS_DOC);
v('([0] + l.filter(x, x > 5)).min()', 0n, LISTS_DOC + ' (([0] + emptyList).min())');
v("['b', 'a', 'c'].max()", 'c', LISTS_DOC + ' (strings are comparable)');
v("[b'b', b'a'].min()", bytes(0x61), LISTS_DOC + ' (bytes are comparable)');
v('[true, false].min()', false, LISTS_DOC + ' (bool is comparable)');
v('[1, 2, 2, 3].indexOf(2)', 1n, LISTS_DOC);
v("['a', 'b', 'b', 'c'].lastIndexOf('b')", 2n, LISTS_DOC);
v('[1.0].indexOf(1.1)', -1n, LISTS_DOC);
v("[].indexOf('string')", -1n, LISTS_DOC);
ce('[[1], [2]].isSorted()', "'isSorted'", LISTS_DOC + ': only comparable element types');
ce("[{'a': 1}].min()", "'min'", LISTS_DOC + ': only comparable element types');
ce("['a'].sum()", "'sum'", LISTS_DOC + ': only number and duration sums');
ce('[1, 2].includes(1)', "'includes'", BASE_ENV + ': includes is lists version 1, not in 1.32');

// ---- regex -----------------------------------------------------------------------------------------------
section('regex');
v("'abc 123'.find('[0-9]+')", '123', REGEX_DOC);
v("'abc 123'.find('xyz')", '', REGEX_DOC);
v("'123 abc 456'.findAll('[0-9]+')", ['123', '456'], REGEX_DOC);
v("'123 abc 456'.findAll('[0-9]+', 1)", ['123'], REGEX_DOC);
v("'123 abc 456'.findAll('xyz')", [], REGEX_DOC);
v("'123 abc 456'.findAll('[0-9]+', 0)", [], REGEX_DOC + ' (limit 0: Go FindAllString n=0 returns nil)');
v("'123 abc 456'.findAll('[0-9]+', -1)", ['123', '456'], REGEX_DOC + ' (negative limit: all)');
v("'abc 123'.find('[0-9]*')", '', GO_REGEXP + ' (leftmost match is empty at 0)');
v("'123 abc 456'.findAll('[0-9]*')", ['123', '', '', '', '', '456'], GO_REGEXP);
v("'aaa'.findAll('a*')", ['aaa'], GO_REGEXP);
v("'hello'.matches('^h.*o$')", true, CEL_SPEC + ' (matches: RE2, unanchored)');
v("'hello'.matches('ell')", true, CEL_SPEC + ' (matches is a partial match)');
v("matches('hello', 'l+')", true, CEL_SPEC + ' (global form)');
v("'ABC'.matches('(?i)abc')", true, GO_REGEXP + ' (inline flags)');
v("'a\\nb'.matches('a.b')", false, GO_REGEXP + ' (. excludes newline)');
v("'a\\nb'.matches('(?s)a.b')", true, GO_REGEXP + ' (s flag)');
v("'abc'.matches('\\\\Aabc\\\\z')", true, GO_REGEXP + ' (\\A and \\z)');
v("'x'.matches('^\\\\pL$')", true, GO_REGEXP + ' (Unicode classes)');
v("'١'.matches('^\\\\d$')", false, GO_REGEXP + ' (\\d is ASCII only)');
v("'aaa'.matches('^a{2}$')", false, GO_REGEXP);
ce("'abc'.matches('a(?=b)')", 'invalid matches argument', SPEC + ': RE2 refuses lookahead; a literal pattern is a compile error (' + VALIDATORS + ': "invalid matches argument", no regexp detail)');
ce("'abc'.matches('(?<!a)b')", 'invalid matches argument', SPEC + ': RE2 refuses lookbehind (compile error for a literal, ' + VALIDATORS + ')');
ce("'aa'.matches('(a)\\\\1')", 'invalid matches argument', SPEC + ': RE2 refuses backreferences (compile error for a literal, ' + VALIDATORS + ')');
ce("matches('x', 'a(?!b)')", 'program instantiation failed: error parsing regexp: invalid or unsupported Perl syntax: `(?!`', VALIDATORS + ' checks argument 0 of matches (the pattern of the member form, the subject of the global form); the global form\'s literal pattern is compiled when the program is planned (cel-go interpreter MatchesRegexOptimization, RegexIndex 1, on by OptOptimize in base.go)');
ce("'x'.matches('a(?!b)')", 'invalid matches argument', SPEC + ': RE2 refuses negative lookahead (compile error for a literal, ' + VALIDATORS + ')');
ce("'abc'.matches('a(?=b)')", 'ERROR: <input>:1:15: invalid matches argument', VALIDATORS + ": Kubernetes' wording, at the literal argument");
ee('s.matches(x)', 'error parsing regexp: invalid escape sequence: `\\1`', GO_REGEXP + ' (a pattern from a variable fails at run time with Go\'s error text)', { vars: { s: 'aa', x: '(a)\\1' } });
ee("'abc'.matches(s + '(?=b)')", 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`', GO_REGEXP + ' (a computed pattern fails at run time, Go error text)');
ee("'abc'.find(s + '(?=b)')", 'Illegal regex: error parsing regexp: invalid or unsupported Perl syntax: `(?=`', REGEX_DOC + ' (find: "Illegal regex: " + Go error)');
ee("'abc'.findAll(s + '(')", 'Illegal regex: error parsing regexp: missing closing ): `hello(`', REGEX_DOC + ' (findAll: "Illegal regex: " + Go error)');
ce("'abc'.find('a(?=b)')", 'program instantiation failed: error parsing regexp: invalid or unsupported Perl syntax: `(?=`', REGEX_DOC + ': literal patterns are compiled when the program is built (OptimizeRegex), so the rule is refused at write time');
ce("'abc'.matches(1)", "found no matching overload for 'matches'", CHECKER);

// ---- url -------------------------------------------------------------------------------------------------
section('url');
v("isURL('https://user:pass@example.com:80/path?query=val#fragment')", true, URLS_DOC);
v("isURL('/absolute-path')", true, URLS_DOC);
v("isURL('https://a:b:c/')", false, URLS_DOC);
v("isURL('../relative-path')", false, URLS_DOC);
ee("url('https://a:b:c/')", 'URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host', URLS_DOC + ' (Go net/url error text)');
ee("url('../relative-path')", 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request', URLS_DOC + ' (Go net/url error text)');
v("url('/path').getScheme()", '', URLS_DOC);
v("url('https://example.com/a?b=c') == url('https://example.com/a?b=c')", true, 'Kubernetes apiserver/pkg/cel/url.go (URL.Equal compares the URL texts)');
v("url('https://example.com/a') != url('https://example.com/b')", true, 'Kubernetes apiserver/pkg/cel/url.go (URL.Equal)');
v("url('https://example.com/').getScheme()", 'https', URLS_DOC);
v("url('https://example.com:80/').getHost()", 'example.com:80', URLS_DOC);
v("url('https://example.com/').getHost()", 'example.com', URLS_DOC);
v("url('https://[::1]:80/').getHost()", '[::1]:80', URLS_DOC);
v("url('https://[::1]/').getHost()", '[::1]', URLS_DOC);
v("url('/path').getHost()", '', URLS_DOC);
v("url('https://example.com:80/').getHostname()", 'example.com', URLS_DOC);
v("url('https://127.0.0.1:80/').getHostname()", '127.0.0.1', URLS_DOC);
v("url('https://[::1]:80/').getHostname()", '::1', URLS_DOC);
v("url('/path').getHostname()", '', URLS_DOC);
v("url('https://example.com:80/').getPort()", '80', URLS_DOC);
v("url('https://example.com/').getPort()", '', URLS_DOC);
v("url('/path').getPort()", '', URLS_DOC);
v("url('https://example.com/path').getEscapedPath()", '/path', URLS_DOC);
v("url('https://example.com/path with spaces/').getEscapedPath()", '/path%20with%20spaces/', URLS_DOC);
v("url('https://example.com').getEscapedPath()", '', URLS_DOC);
v("url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()", map(['k1', ['a']], ['k2', ['b', 'c']]), URLS_DOC);
v("url('https://example.com/path?key with spaces=value with spaces').getQuery()", map(['key with spaces', ['value with spaces']]), URLS_DOC);
v("url('https://example.com/path?').getQuery()", map(), URLS_DOC);
v("url('https://example.com/path').getQuery()", map(), URLS_DOC);
v("url('https://example.com/path?a=1#frag').getQuery()['a'][0]", '1', URLS_DOC + ' (fragment re-parsed away)');

// ---- quantity ------------------------------------------------------------------------------------------
section('quantity');
v("quantity('12Mi') == quantity('12582912')", true, QUANTITY_TEST + ' (parse)');
ee("quantity('10Mo')", /^quantities must match the regular expression/, QUANTITY_TEST + ' (parseInvalidSuffix)');
ee("quantity('10Mm')", /unable to parse quantity's suffix/, QUANTITY_TEST + ' (parseInvalidSuffixPassesRegex)');
ee("quantity('1Ki5')", "unable to parse quantity's suffix", 'Kubernetes apimachinery resource.ParseQuantity (ErrSuffix: the shape passes the regular expression, the suffix is not one), returned as is by quantity()');
v("type(quantity('1')) == kubernetes.Quantity", true, 'Kubernetes apiserver/pkg/cel/library/quantity.go (cel.Types registers kubernetes.Quantity: its name is a type value)');
v("quantity('1') != quantity('1000m')", false, QUANTITY_TEST + ' (!= follows == : equal values)');
v("quantity('12Mi').compareTo(quantity('12582912')) == 0", true, QUANTITY_TEST + ' (parse, compared with compareTo)');
v("quantity('200M').compareTo(quantity('0.2G')) == 0 && quantity('200M').compareTo(quantity('0.3G')) != 0", true, QUANTITY_TEST + ' (equality cases through compareTo)');
v("quantity('50k').add(quantity('20')).compareTo(quantity('50.02k'))", 0n, QUANTITY_TEST + ' (add_quantity through compareTo)');
v("isQuantity('20')", true, QUANTITY_TEST);
v("isQuantity('20M')", true, QUANTITY_TEST);
v("isQuantity('20Mi')", true, QUANTITY_TEST);
v("isQuantity('20Mo')", false, QUANTITY_TEST);
v("isQuantity('10Mm')", false, QUANTITY_TEST);
ce('isQuantity([1, 2, 3])', "found no matching overload for 'isQuantity' applied to", QUANTITY_TEST + ' (isQuantity_noOverload)');
v("quantity('200M') == quantity('200M')", true, QUANTITY_TEST + ' (equality_reflexivity)');
v("quantity('200M') == quantity('0.2G') && quantity('0.2G') == quantity('200M')", true, QUANTITY_TEST + ' (equality_symmetry)');
v("quantity('2M') == quantity('0.002G') && quantity('2000k') == quantity('2M') && quantity('0.002G') == quantity('2000k')", true, QUANTITY_TEST + ' (equality_transitivity)');
v("quantity('200M') == quantity('0.3G')", false, QUANTITY_TEST + ' (inequality)');
v("quantity('50M').isLessThan(quantity('50Mi'))", true, QUANTITY_TEST);
v("quantity('50M').isLessThan(quantity('100M'))", true, QUANTITY_TEST);
v("quantity('100M').isLessThan(quantity('50M'))", false, QUANTITY_TEST);
v("quantity('50Mi').isGreaterThan(quantity('50M'))", true, QUANTITY_TEST);
v("quantity('150Mi').isGreaterThan(quantity('100Mi'))", true, QUANTITY_TEST);
v("quantity('50M').isGreaterThan(quantity('100M'))", false, QUANTITY_TEST);
v("quantity('200M').compareTo(quantity('0.2G'))", 0n, QUANTITY_TEST);
v("quantity('50M').compareTo(quantity('50Mi'))", -1n, QUANTITY_TEST);
v("quantity('50Mi').compareTo(quantity('50M'))", 1n, QUANTITY_TEST);
v("quantity('50k').add(quantity('20')) == quantity('50.02k')", true, QUANTITY_TEST);
v("quantity('50k').add(20).isLessThan(quantity('50020'))", false, QUANTITY_TEST);
v("quantity('50k').sub(quantity('20')) == quantity('49.98k')", true, QUANTITY_TEST);
v("quantity('50k').sub(20) == quantity('49980')", true, QUANTITY_TEST);
v("quantity('50k').add(20).sub(quantity('100k')).asInteger()", -49980n, QUANTITY_TEST + ' (arith_chain_1)');
v("quantity('50k').add(20).sub(quantity('100k')).sub(-50000).asInteger()", 20n, QUANTITY_TEST + ' (arith_chain)');
v("quantity('50k').asInteger()", 50000n, QUANTITY_TEST);
ee("quantity('9999999999999999999999999999999999999G').asInteger()", 'cannot convert value to integer', QUANTITY_TEST + ' (as_integer_error: overflow)');
v("quantity('9999999999999999999999999999999999999G').isInteger()", false, QUANTITY_TEST);
v("quantity('50').isInteger()", true, QUANTITY_TEST);
v("quantity('50.703k').asApproximateFloat()", 50703, QUANTITY_TEST);
v("quantity('9223372036854775807').asInteger()", 9223372036854775807n, SPEC + ': asInteger() within int64');
ee("quantity('9223372036854775807').add(1).asInteger()", 'cannot convert value to integer', SPEC + ': asInteger() errors on overflow (quantity arithmetic itself does not overflow)');
v("quantity('9223372036854775807').add(1).isInteger()", false, SPEC + ': isInteger() false beyond int64');
ee("quantity('8Ei').asInteger()", 'cannot convert value to integer', SPEC + ': 8Ei = 2^63 overflows int64');
v("quantity('7Ei').asInteger()", 8070450532247928832n, SPEC + ': asInteger() exact beyond 2^53');
ee("quantity('50m').asInteger()", 'cannot convert value to integer', SPEC + ': asInteger() errors on precision loss');
v("quantity('50m').isInteger()", false, SPEC + ': isInteger()');
v("quantity('1e3').asApproximateFloat() == 1000.0", true, SPEC + ': asApproximateFloat()');
v("quantity('-5').sign()", -1n, SPEC + ': sign()');
v("quantity('0').sign()", 0n, SPEC + ': sign()');
v("quantity('5m').sign()", 1n, SPEC + ': sign()');
v("quantity('1Gi').compareTo(quantity('1024Mi'))", 0n, SPEC + ': compareTo()');

// ---- sets ----------------------------------------------------------------------------------------------
section('sets');
v('sets.contains([], [])', true, SETS_DOC);
v('sets.contains([1], [])', true, SETS_DOC);
v('sets.contains([1, 2, 3, 4], [2, 3])', true, SETS_DOC);
v('sets.contains([2], [1])', false, SETS_DOC);
v('sets.contains([1, 2], [dyn(2u), dyn(1.0)])', true, SETS_DOC + ' (heterogeneous numeric equality)');
ce('sets.contains([1, 2], [2u, 1.0])', "expected type 'uint' but found 'double'", VALIDATORS + ' (the docs example mixes types; Kubernetes refuses mixed literals)');
v('sets.equivalent([], [])', true, SETS_DOC);
v('sets.equivalent([1], [1, 1])', true, SETS_DOC);
v('sets.equivalent([1], [1, 2])', false, SETS_DOC);
v('sets.equivalent([1, 2, 3], [3, 2, 1])', true, SETS_DOC);
v('sets.intersects([1], [])', false, SETS_DOC);
v('sets.intersects([1], [1, 2])', true, SETS_DOC);
v("sets.intersects(['a'], ['b'])", false, SETS_DOC);
v("sets.contains(self.tags, ['a', 'c'])", true, SETS_DOC + ' over a schema set list');
ce("sets.contains([1], ['a'])", "'contains'", SETS_DOC + ': both lists of one element type');

// ---- ip --------------------------------------------------------------------------------------------------
section('ip');
v("string(ip('192.168.0.1'))", '192.168.0.1', IP_TEST);
ee("ip('192.168.0.1.0')", 'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long', IP_TEST);
v("isIP('192.168.0.1')", true, IP_TEST);
v("isIP('192.168.0.1.0')", false, IP_TEST);
v("ip.isCanonical('127.0.0.1')", true, IP_TEST);
ee("ip.isCanonical('127.0.0.1.0')", 'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long', IP_TEST);
v("ip('192.168.0.1').family()", 4n, IP_TEST);
v("ip('0.0.0.0').isUnspecified()", true, IP_TEST);
v("ip('127.0.0.1').isUnspecified()", false, IP_TEST);
v("ip('127.0.0.1').isLoopback()", true, IP_TEST);
v("ip('1.2.3.4').isLoopback()", false, IP_TEST);
v("ip('224.0.0.1').isLinkLocalMulticast()", true, IP_TEST);
v("ip('224.0.1.1').isLinkLocalMulticast()", false, IP_TEST);
v("ip('169.254.169.254').isLinkLocalUnicast()", true, IP_TEST);
v("ip('192.168.0.1').isLinkLocalUnicast()", false, IP_TEST);
v("ip('192.168.0.1').isGlobalUnicast()", true, IP_TEST);
v("ip('255.255.255.255').isGlobalUnicast()", false, IP_TEST);
v("string(ip('2001:db8::68'))", '2001:db8::68', IP_TEST);
ee("ip('2001:db8:::68')", 'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")', IP_TEST);
v("isIP('2001:db8::68')", true, IP_TEST);
v("isIP('2001:db8:::68')", false, IP_TEST);
v("ip.isCanonical('2001:db8::68')", true, IP_TEST);
v("ip.isCanonical('2001:DB8::68')", false, IP_TEST);
v("ip('2001:db8::68').family()", 6n, IP_TEST);
v("ip('::').isUnspecified()", true, IP_TEST);
v("ip('::1').isUnspecified()", false, IP_TEST);
v("ip('::1').isLoopback()", true, IP_TEST);
v("ip('2001:db8::abcd').isLoopback()", false, IP_TEST);
v("ip('ff02::1').isLinkLocalMulticast()", true, IP_TEST);
v("ip('fd00::1').isLinkLocalMulticast()", false, IP_TEST);
v("ip('fe80::1').isLinkLocalUnicast()", true, IP_TEST);
v("ip('fd80::1').isLinkLocalUnicast()", false, IP_TEST);
v("ip('2001:db8::abcd').isGlobalUnicast()", true, IP_TEST);
v("ip('ff00::1').isGlobalUnicast()", false, IP_TEST);
ce("isIP(cidr('192.168.0.0/24'))", "found no matching overload for 'isIP' applied to '(net.CIDR)'", IP_TEST);
v("type(ip('192.168.0.1')) == net.IP", true, IP_TEST);
v("ip('192.168.0.1') == ip('192.168.0.1')", true, IP_TEST + ' (IP values compare by address)');
v("ip('::1') == ip('0:0::1')", true, 'Kubernetes apiserver/pkg/cel/ip.go (IP.Equal compares the parsed addresses)');
v("ip('10.0.0.1') != ip('10.0.0.2')", true, 'Kubernetes apiserver/pkg/cel/ip.go (IP.Equal)');
v("type(ip('192.168.0.1')) == net.CIDR", false, IP_TEST + ' (distinct library types)');

// ---- cidr ------------------------------------------------------------------------------------------------
section('cidr');
ce('cidr(192168)', "found no matching overload for 'cidr' applied to '(int)'", CIDR_TEST);
v("string(cidr(dyn('192.168.0.0/24')))", '192.168.0.0/24', CIDR_TEST);
ee("cidr('192.168.0.0/')", 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""', CIDR_TEST);
v("cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))", true, CIDR_TEST);
v("cidr('192.168.0.0/24').containsIP(ip('192.168.1.1'))", false, CIDR_TEST);
v("cidr('192.168.0.0/24').containsIP('192.168.0.1')", true, CIDR_TEST);
v("cidr('192.168.0.0/24').containsIP('192.168.1.1')", false, CIDR_TEST);
v("cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25'))", true, CIDR_TEST);
v("cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/23'))", false, CIDR_TEST);
v("cidr('192.168.0.0/24').containsCIDR('192.168.0.0/25')", true, CIDR_TEST);
v("cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23')", false, CIDR_TEST);
v("cidr('192.168.0.0/24').ip() == ip('192.168.0.0')", true, CIDR_TEST);
v("string(cidr('192.168.0.0/24').ip())", '192.168.0.0', CIDR_TEST + ' (returns IP ipv4)');
v("string(cidr('2001:db8::/32').ip())", '2001:db8::', CIDR_TEST + ' (returns IP ipv6)');
v("string(cidr('192.168.0.1/24').masked())", '192.168.0.0/24', CIDR_TEST);
v("cidr('192.168.0.0/24').prefixLength()", 24n, CIDR_TEST);
ee("cidr('2001:db8::/')", 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""', CIDR_TEST);
v("cidr('2001:db8::/32').containsIP(ip('2001:db8::1'))", true, CIDR_TEST);
v("cidr('2001:db8::/32').containsIP('2001:dc8::1')", false, CIDR_TEST);
v("cidr('2001:db8::/32').containsCIDR(cidr('2001:db8::/33'))", true, CIDR_TEST);
v("cidr('2001:db8::/32').containsCIDR('2001:db8::/31')", false, CIDR_TEST);
v("string(cidr('2001:db8:1::/32').masked())", '2001:db8::/32', CIDR_TEST);
v("cidr('2001:db8::/32').prefixLength()", 32n, CIDR_TEST);
v("string(cidr('192.168.0.0/24'))", '192.168.0.0/24', CIDR_TEST);
v("type(cidr('192.168.0.0/24')) == net.CIDR", true, CIDR_TEST);
v("cidr('10.0.0.0/8') == cidr('10.0.0.0/8')", true, 'Kubernetes apiserver/pkg/cel/cidr.go (CIDR.Equal compares the prefixes)');
v("cidr('10.0.0.1/8') == cidr('10.0.0.0/8')", false, 'Kubernetes apiserver/pkg/cel/cidr.go (CIDR.Equal compares the unmasked prefixes: 10.0.0.1/8 is not 10.0.0.0/8)');
ee("cidr('::ffff:1.2.3.4/120')", 'network address parse error during conversion from string: IPv4-mapped IPv6 address "::ffff:1.2.3.4/120" is not allowed', 'Kubernetes library source: apiserver/pkg/cel/library/cidr.go (parseCIDR refuses IPv4-mapped prefixes)');
v("isCIDR('10.0.0.0/8')", true, 'Kubernetes library docs: apiserver/pkg/cel/library/cidr.go (isCIDR)');
v("isCIDR('10.0.0.0')", false, 'Kubernetes library docs: apiserver/pkg/cel/library/cidr.go (isCIDR)');

// ---- format library ----------------------------------------------------------------------------------
section('format');
v("format.dns1123Label().validate('my-label-name')", NONE, FORMAT_LIB_TEST);
v("format.dns1123Subdomain().validate('apiextensions.k8s.io')", NONE, FORMAT_LIB_TEST);
v("format.qualifiedName().validate('apiextensions.k8s.io/v1beta1')", NONE, FORMAT_LIB_TEST);
v("format.dns1123LabelPrefix().validate('my-label-prefix-')", NONE, FORMAT_LIB_TEST);
v("format.dns1123SubdomainPrefix().validate('mysubdomain.prefix.-')", NONE, FORMAT_LIB_TEST);
v("format.dns1035LabelPrefix().validate('my-label-prefix-')", NONE, FORMAT_LIB_TEST);
v("format.uri().validate('http://example.com')", NONE, FORMAT_LIB_TEST);
v("format.uuid().validate('123e4567-e89b-12d3-a456-426614174000')", NONE, FORMAT_LIB_TEST);
v("format.byte().validate('aGVsbG8=')", NONE, FORMAT_LIB_TEST);
v("format.date().validate('2021-01-01')", NONE, FORMAT_LIB_TEST);
v("format.datetime().validate('2021-01-01T00:00:00Z')", NONE, FORMAT_LIB_TEST);
v(
  "format.dns1123Label().validate('contains a space')",
  opt(["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"]),
  FORMAT_LIB_TEST,
);
v(
  "format.dns1035Label().validate('contains a space')",
  opt(["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]),
  FORMAT_LIB_TEST,
);
v(
  "format.qualifiedName().validate('contains a space')",
  opt(["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]),
  FORMAT_LIB_TEST,
);
v("format.byte().validate('aGVsbG8')", opt(['invalid base64']), FORMAT_LIB_TEST);
v("format.date().validate('2020-01-32')", opt(['invalid date']), FORMAT_LIB_TEST);
v("format.datetime().validate('2020-01-32T00:00:00Z')", opt(['invalid datetime']), FORMAT_LIB_TEST);
v("format.named('unknown').hasValue()", false, FORMAT_LIB_TEST);
v("format.labelValue().validate('my-cool-label-Value')", NONE, FORMAT_LIB_TEST);
v("format.named('dns1123Label').value() == format.dns1123Label()", true, FORMAT_LIB_TEST + ' (lookup and comparison)');
v('format.dns1123Label() == format.dns1035Label()', false, FORMAT_LIB_TEST + ' (distinct constants)');
v("format.named('dns1123Label').value().validate('Not Valid').hasValue()", true, FORMAT_LIB_TEST + ' (a looked-up format validates)');
v("format.named('uuid').hasValue()", true, FORMAT_LIB_TEST);

// ---- authorizer ----------------------------------------------------------------------------------------
section('authorizer');
v("authorizer.group('').resource('pods').namespace('n').name('p').check('get').allowed()", true, AUTHZ_DOC);
v("authorizer.group('apps').resource('deployments').check('update').allowed()", false, AUTHZ_DOC);
v("authorizer.group('apps').resource('deployments').check('update').reason()", 'asked update deployments', AUTHZ_DOC);
v("authorizer.group('').resource('pods').subresource('log').check('get').allowed()", true, AUTHZ_DOC);
v("authorizer.path('/healthz').check('GET').allowed()", true, AUTHZ_DOC);
v("authorizer.path('/healthz').check('GET').reason()", 'asked get /healthz', AUTHZ_DOC + ': the HTTP verb is lower-cased');
v("authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('list').allowed()", true, AUTHZ_DOC);
v("authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n').labelSelector('a=b').check('list').allowed()", true, AUTHZ_DOC + ' (AuthorizeWithSelectors, 1.31)');
v("authorizer.group('').resource('pods').check('get').errored()", false, AUTHZ_DOC);

// ---- optionals -----------------------------------------------------------------------------------------
section('optionals');
v('optional.of(1).hasValue()', true, OPTIONALS);
v('optional.none().hasValue()', false, OPTIONALS);
v('optional.of(1).value()', 1n, OPTIONALS);
ee('optional.none().value()', 'optional.none() dereference', OPTIONALS);
v('optional.ofNonZeroValue(0).hasValue()', false, OPTIONALS);
v("optional.ofNonZeroValue('').hasValue()", false, OPTIONALS);
v('optional.ofNonZeroValue([1]).hasValue()', true, OPTIONALS);
v('optional.none().orValue(42)', 42n, OPTIONALS);
v('optional.of(1).or(optional.of(2)).value()', 1n, OPTIONALS);
v('optional.none().or(optional.of(2)).value()', 2n, OPTIONALS);
v("{'a': 1}.?a", opt(1n), OPTIONALS);
v("{'a': 1}.?b.hasValue()", false, OPTIONALS);
v("{'a': 1}[?'b'].orValue(5)", 5n, OPTIONALS);
v('[1, 2][?1]', opt(2n), OPTIONALS);
v('[1, 2][?5].hasValue()', false, OPTIONALS);
v("{?'k': optional.none()}", map(), OPTIONALS, { known: KNOWN_OPTIONAL_ENTRIES });
v("{?'k': optional.of(1)}", map(['k', 1n]), OPTIONALS, { known: KNOWN_OPTIONAL_ENTRIES });
v('[?optional.none(), 1]', [1n], OPTIONALS, { known: KNOWN_OPTIONAL_ENTRIES });
v('[?optional.of(0), 1]', [0n, 1n], OPTIONALS, { known: KNOWN_OPTIONAL_ENTRIES });
v('optional.of(2).optMap(y, y * 2).value()', 4n, OPTIONALS);
v('optional.none().optMap(y, y * 2).hasValue()', false, OPTIONALS);
v('optional.of(2).optFlatMap(y, optional.of(y + 1)).value()', 3n, OPTIONALS);
v("m.?missing.orValue(7)", 7n, OPTIONALS, { vars: { m: mapValue({ a: 1n }) } });
v('self.?optionalField.hasValue()', false, OPTIONALS + ' on an unset schema field');
v("self.?optionalField.orValue('none')", 'none', OPTIONALS + ' on an unset schema field');
v('self.?nested.?inner.?value', opt('deep'), OPTIONALS + ' (chained)');
ce("self.nested.?inner.?missing.orValue('x')", "undefined field 'missing'", CHECKER + ' (optional selection of an undeclared field is still a type error)');
ce('self.nested.inner.missing', "undefined field 'missing'", CHECKER + ' (plain selection of an undeclared field)');
v('optional.of(1) == optional.of(1)', true, OPTIONALS);
v('optional.none() == optional.none()', true, OPTIONALS);
v('type(optional.none()) == optional_type', true, OPTIONALS);

// ---- cross-type numeric comparisons ----------------------------------------------------------------
section('cross-type numeric');
v('1 < 1.5', true, COMPARISONS);
v('1u < 2', true, COMPARISONS);
v('2.0 > 1u', true, COMPARISONS);
v('-1 < 1u', true, COMPARISONS);
v('18446744073709551615u > 9223372036854775807', true, COMPARISONS);
v('1.0 <= 1', true, COMPARISONS);
v('2 >= 2u', true, COMPARISONS);
v('dyn(1) == 1.0', true, COMPARISONS + ' (heterogeneous equality)');
v('dyn(1u) == 1', true, COMPARISONS);
v('dyn(1.5) == 1', false, COMPARISONS);
v('dyn([1]) == [1.0]', true, COMPARISONS + ' (lists compare element-wise with heterogeneous equality)');
v("dyn({1: 'a'}) == {1u: 'a'}", true, COMPARISONS);
v('dyn(1u) in [1.0, 2.0]', true, COMPARISONS + " ('in' uses heterogeneous equality at run time)");
ce('1u in [1.0, 2.0]', "found no matching overload for '@in'", CHECKER + " ('in' is (A, list(A)); cross-type comparisons add only ordering)");
v("{1: 'a'}[dyn(1.0)]", 'a', 'cel-spec conformance maps.textproto (numeric keys match across types)');
v('dyn(9223372036854775807) < 9223372036854775808.0', false, 'cel-go common/types compareIntDouble: the int is compared as float64 (2^63 == 2^63)');
v('dyn(0.0 / 0.0) == dyn(0.0 / 0.0)', false, COMPARISONS + ' (NaN equals nothing)');
ce('1 == 1.0', "found no matching overload for '_==_' applied to '(int, double)'", CHECKER + ' (equality needs equal static types)');
ce('[1] == [1.0]', "found no matching overload for '_==_'", CHECKER);
ee("dyn('a') < 1", /no such overload/, COMPARISONS + ' (incomparable kinds are an error)');

// ---- integers: 2^63 overflow, exact beyond 2^53 -----------------------------------------------------
section('int64 / uint64');
ee('9223372036854775807 + 1', 'integer overflow', INT_MATH);
ee('-9223372036854775808 - 1', 'integer overflow', INT_MATH);
ee('4611686018427387904 * 2', 'integer overflow', INT_MATH);
ee('-(-9223372036854775807 - 1)', 'integer overflow', INT_MATH);
ee('(-9223372036854775807 - 1) / -1', 'integer overflow', INT_MATH);
ee('(-9223372036854775807 - 1) % -1', 'integer overflow', INT_MATH);
ee('0u - 1u', 'unsigned integer overflow', INT_MATH);
ee('18446744073709551615u + 1u', 'unsigned integer overflow', INT_MATH);
ee('1 / 0', 'division by zero', INT_MATH);
ee('1 % 0', 'modulus by zero', INT_MATH);
ce('9223372036854775808', '', CEL_SPEC + ' (an int literal beyond int64 is refused at parse)');
v('-9223372036854775808', -9223372036854775808n, INT_MATH);
v('9223372036854775806 + 1', 9223372036854775807n, INT_MATH);
v('18446744073709551615u', u(18446744073709551615n), INT_MATH);
v('9007199254740993 + 2', 9007199254740995n, INT_MATH + ' (exact beyond 2^53)');
v('9007199254740993 - 9007199254740992', 1n, INT_MATH + ' (exact beyond 2^53)');
v('string(9007199254740993)', '9007199254740993', CONVERSIONS);
v("int('9223372036854775807')", 9223372036854775807n, CONVERSIONS);
ee("int('9223372036854775808')", /out of range/, CONVERSIONS);
v('double(9007199254740993)', 9007199254740992, CONVERSIONS + ' (nearest double)');
v('-7 / 2', -3n, INT_MATH + ' (truncation toward zero)');
v('-7 % 2', -1n, INT_MATH);
ee('int(1e19)', 'range error converting 1e+19 to int', CONVERSIONS);
ee('int(9223372036854775807.0)', /range error/, CONVERSIONS + ' (2^63 as a double is out of range)');
ee('uint(-1)', /range error/, CONVERSIONS);
ee('int(18446744073709551615u)', /range error/, CONVERSIONS);
v('1.0 / 0.0', Infinity, 'cel-spec conformance fp_math.textproto (IEEE division)');
v('int(-1.5)', -1n, CONVERSIONS + ' (truncation)');
v('self.big == 9007199254740993', true, SPEC + ': schema integers are int64 (lossless beyond 2^53)');
v('self.big + 1', 9007199254740994n, SPEC + ': schema integers are int64');
ee('self.big * 1024', 'integer overflow', INT_MATH + ' (2^53 * 2^10 > 2^63 - 1)');

// ---- timestamps and durations -------------------------------------------------------------------------
section('timestamps / durations');
v("timestamp('2009-02-13T23:31:30Z').getFullYear()", 2009n, TIMESTAMPS);
v("int(timestamp('2009-02-13T23:31:30Z'))", 1234567890n, TIMESTAMPS);
v('string(timestamp(1234567890))', '2009-02-13T23:31:30Z', TIMESTAMPS);
v("timestamp('2009-02-13T23:31:30Z').getMonth()", 1n, TIMESTAMPS + ' (0-based month)');
v("timestamp('2009-02-13T23:31:30Z').getDayOfMonth()", 12n, TIMESTAMPS + ' (0-based)');
v("timestamp('2009-02-13T23:31:30Z').getDate()", 13n, TIMESTAMPS + ' (1-based)');
v("timestamp('2009-02-13T23:31:30Z').getDayOfWeek()", 5n, TIMESTAMPS + ' (Friday, Sunday = 0)');
v("timestamp('2009-02-13T23:31:30Z').getDayOfYear()", 43n, TIMESTAMPS + ' (0-based)');
v("timestamp('2009-02-13T23:31:30Z').getHours()", 23n, TIMESTAMPS);
v("timestamp('2009-02-13T23:31:30Z').getMinutes()", 31n, TIMESTAMPS);
v("timestamp('2009-02-13T23:31:30Z').getSeconds()", 30n, TIMESTAMPS);
v("timestamp('2009-02-13T23:31:30.123Z').getMilliseconds()", 123n, TIMESTAMPS);
v("timestamp('2009-02-13T23:31:30Z').getHours('Australia/Sydney')", 10n, TIMESTAMPS + ' (time zone names; UTC+11 in February)');
v("timestamp('2009-02-13T23:31:30Z').getDate('Australia/Sydney')", 14n, TIMESTAMPS + ' (time zone names)');
v("timestamp('2009-02-13T23:31:30Z').getHours('-08:00')", 15n, TIMESTAMPS + ' (fixed offsets)');
v("string(timestamp('2009-02-13T23:31:30Z') + duration('1h'))", '2009-02-14T00:31:30Z', TIMESTAMPS);
v("timestamp('2009-02-13T23:31:30Z') - timestamp('2009-02-13T23:31:00Z')", dur('30s'), TIMESTAMPS);
v("string(timestamp('2009-02-13T23:31:30Z') - duration('30s'))", '2009-02-13T23:31:00Z', TIMESTAMPS);
v("timestamp('2023-01-01T00:00:00.000000001Z') > timestamp('2023-01-01T00:00:00Z')", true, TIMESTAMPS + ' (nanosecond precision)');
v("string(timestamp('2023-01-01T10:00:00.120000000+02:00'))", '2023-01-01T08:00:00.12Z', TIMESTAMPS + ' (RFC 3339 output in UTC)');
v("duration('1h2m3s').getSeconds()", 3723n, TIMESTAMPS + ' (duration total seconds)');
v("duration('1h2m3s').getMinutes()", 62n, TIMESTAMPS);
v("duration('1h2m3s').getHours()", 1n, TIMESTAMPS);
v("duration('123.321456789s').getMilliseconds()", 321n, TIMESTAMPS + ' get_milliseconds (the milliseconds component, not the total)');
v("string(duration('1m30s'))", '90s', TIMESTAMPS);
v("string(duration('-1.5s'))", '-1.5s', TIMESTAMPS);
v("duration('1h') > duration('59m')", true, TIMESTAMPS);
v("duration('1h') + duration('1m')", dur('3660s'), TIMESTAMPS);
v("timestamp('2024-02-29T00:00:00Z').getDayOfYear()", 59n, TIMESTAMPS + ' (leap year)');
ee("timestamp(s)", /timestamp|cannot parse/, TIMESTAMPS + ' (an invalid string at run time)', { vars: { s: 'not a time' } });
ce("timestamp('10000-01-01T00:00:00Z')", 'invalid timestamp argument', VALIDATORS + ': an invalid timestamp literal is a compile error in 1.29+');
ce("duration('1x')", 'invalid duration argument', VALIDATORS + ': an invalid duration literal is a compile error in 1.29+');
ee("timestamp('9999-12-31T23:59:59Z') + duration('1s')", /range|overflow/, TIMESTAMPS + ' (beyond year 9999)');
ee("duration('2000000h') + duration('2000000h')", /range|overflow/, TIMESTAMPS + ' (durations are int64 nanoseconds, about 2562047h)');
v('self.created.getMilliseconds()', 123n, SPEC + ': format date-time -> timestamp (nanoseconds kept)');
v('string(self.created)', '2024-01-02T03:04:05.123456789Z', SPEC + ': format date-time -> timestamp');
v('self.day.getDayOfWeek()', 4n, SPEC + ': format date -> timestamp (2024-02-29 is a Thursday)');
v('self.timeout', dur('90s'), SPEC + ': format duration -> duration');
v("self.timeout < duration('2m')", true, SPEC + ': format duration -> duration');
ce('self.created.getNanos()', "'getNanos'", CHECKER + ' (no such timestamp accessor in CEL)');

// ---- macros and standard functions --------------------------------------------------------------------
section('macros / std');
v('[1, 2, 3].all(e, e > 0)', true, MACROS);
v('[1, 2, 3].exists(e, e > 2)', true, MACROS);
v('[1, 2, 3].exists_one(e, e > 1)', false, MACROS);
v('[1, 2, 3].map(e, e * 2)', [2n, 4n, 6n], MACROS);
v('[1, 2, 3].map(e, e > 1, e * 10)', [20n, 30n], MACROS + ' (map with filter)');
v('[1, 2, 3].filter(e, e % 2 == 1)', [1n, 3n], MACROS);
v("{'a': 1, 'b': 2}.all(k, k.size() == 1)", true, MACROS + ' (map iteration over keys)');
v("has({'a': 1}.a)", true, MACROS + ' (has on a map literal)');
v("has({'a': 1}.b)", false, MACROS);
v('has(m.a)', true, MACROS + ' (has on a map variable)', { vars: { m: mapValue({ a: 1n }) } });
v('has(m.b)', false, MACROS + ' (has on a map variable)', { vars: { m: mapValue({ a: 1n }) } });
v('[0, 1].exists(e, 1 / e > 0)', true, MACROS + ' (an error absorbed by a true result)');
ee('[0, 1].all(e, 1 / e > 0)', 'division by zero', MACROS + ' (the error when no false decides)');
v('false && (1 / 0 == 1)', false, 'cel-spec conformance logic.textproto (commutative error absorption)');
v('(1 / 0 == 1) || true', true, 'cel-spec conformance logic.textproto (commutative error absorption)');
v('true ? 1 : 1 / 0', 1n, 'cel-spec conformance logic.textproto (only the taken branch)');
v("type(1) == int && type('a') == string && type([]) == list && type({}) == map", true, 'cel-spec conformance types.textproto');
v("l.map(e, e * i)", [42n, 84n, 126n], MACROS + ' (variables in the body)');
v("'abc' + 'def'", 'abcdef', CEL_SPEC);
v('[1] + [2]', [1n, 2n], CEL_SPEC + ' (atomic list concatenation)');
v("b'abc' < b'abd'", true, CEL_SPEC + ' (bytes ordering)');
v("bytes('ÿ').size()", 2n, 'cel-spec conformance conversions.textproto (UTF-8 bytes)');
ee("{'a': 1}['b']", 'no such key: b', 'cel-spec conformance maps.textproto');
ee('[1, 2][5]', /index out of (range|bounds)/, 'cel-spec conformance lists.textproto');
// Two-variable comprehensions are introduced at 1.32 (base.go): not in a 1.32 server's new expressions,
// whose checker sees a call with undeclared arguments (cel-go reports the first at its position).
const TWO_VAR_NEW = BASE_ENV + ': ext.TwoVarComprehensions introduced at 1.32, the default compatibility version of a 1.32 server is 1.31 (kubernetes/kubernetes#128593)';
ce('[1, 2].all(i, v, v > i)', "ERROR: <input>:1:15: undeclared reference to 'v'", TWO_VAR_NEW);
ce("{'a': 1}.exists(k, v, v == 1)", "ERROR: <input>:1:17: undeclared reference to 'k'", TWO_VAR_NEW);
ce('[10, 20].transformList(i, v, v + i)', "ERROR: <input>:1:27: undeclared reference to 'v'", TWO_VAR_NEW);
v('[1, 2].all(i, v, v > i)', true, BASE_ENV + ': two-variable comprehensions (index, value) in a stored expression', { mode: 'stored', known: KNOWN_TWO_VAR });
v("{'a': 1}.exists(k, v, v == 1)", true, BASE_ENV + ': two-variable comprehensions over maps (key, value) in a stored expression', { mode: 'stored', known: KNOWN_TWO_VAR });
v('[10, 20].transformList(i, v, v + i)', [10n, 21n], BASE_ENV + ': transformList in a stored expression', { mode: 'stored', known: KNOWN_TWO_VAR });

// ---- schema-typed self: list types, escaping, int-or-string ---------------------------------------------
section('schema self');
v('self.replicas <= self.maxReplicas', true, SPEC + ' (ordering of numeric fields)');
v('self.tags == oldSelf.tags', true, SPEC + ': set list equality ignores order');
v('self.ports == oldSelf.ports', true, SPEC + ': map list equality ignores order');
v("self.tags == ['c', 'b', 'a']", true, VALUES_GO + ': a set on the left ignores order');
v('oldSelf.tags == self.atomicTags', true, VALUES_GO + ': a set on the left ignores order');
v('self.atomicTags == oldSelf.tags', false, VALUES_GO + ': an atomic list on the left compares in order');
v("['c', 'b', 'a'] == self.tags", false, VALUES_GO + ': a literal list on the left compares in order (cel-go baseList.Equal)');
v("self.tags == ['a', 'b']", false, SPEC + ': sets of different sizes differ');
v("self.tags + ['d', 'a']", ['a', 'b', 'c', 'd'], SPEC + ': set concatenation is a union keeping the left positions');
v("['d', 'a'] + self.tags", ['d', 'a', 'a', 'b', 'c'], VALUES_GO + ': a literal list on the left concatenates (cel-go baseList.Add)');
v("oldSelf.tags + ['a', 'd', 'd']", ['c', 'b', 'a', 'd'], VALUES_GO + ': set union appends each new right item once');
v('(self.atomicTags + self.tags).size()', 6n, VALUES_GO + ': an atomic schema list on the left concatenates');
v("self.atomicTags + self.tags == ['a', 'b', 'c', 'a', 'b', 'c']", true, VALUES_GO + ': the concatenation of an atomic left operand is an atomic list (compared in order)');
v("(self.tags + ['d']) == ['d', 'c', 'b', 'a']", true, VALUES_GO + ': the union of a set on the left is a set list (compared ignoring order)');
v('oldSelf.ports == self.ports', true, VALUES_GO + ': a map list on the left matches items by key');
v('(self.tags + oldSelf.tags).size()', 3n, SPEC + ': set union');
v('(self.ports + oldSelf.ports).map(p, p.name + ":" + string(p.port))', ['http:80', 'https:8443', 'metrics:9090'], SPEC + ': map list concatenation replaces by key in place, appends the rest', {
  oldSelf: { ...oldSelfBase(), ports: [{ name: 'https', port: 8443 }, { name: 'metrics', port: 9090 }] },
});
v('self.ports == oldSelf.ports', false, SPEC + ': map lists with a differing value differ', {
  oldSelf: { ...oldSelfBase(), ports: [{ name: 'https', port: 443 }, { name: 'http', port: 81 }] },
});
ce('self.ports + self.otherPorts', "found no matching overload for '_+_'", CHECKER + ' (each schema path is its own object type)');
v('self.ports.exists(p, p.name == "https" && p.port > 400)', true, SPEC + ' (existence of a list item with a key and a bound)');
v("self.ports.map(p, p.name).isSorted()", true, LISTS_DOC + ' over a map list');
v('self.__dash__name', 'leading dash', ESCAPING + ' (- -> __dash__)');
v('self.dash__dash__name', 'dash', ESCAPING + ' (- -> __dash__)');
v('self.dot__dot__name', 'dot', ESCAPING + ' (. -> __dot__)');
v('self.slash__slash__name', 'slash', ESCAPING + ' (/ -> __slash__)');
v('self.double__underscores__under', 'under', ESCAPING + ' (__ -> __underscores__)');
v('self.__underscores__dunder', 'dunder', ESCAPING + ' (__ -> __underscores__)');
v('self.a__dot___a', 'dot underscore', ESCAPING + ' (a._a -> a__dot___a)');
v('self.__namespace__', 'ns', ESCAPING + ' (reserved word namespace)');
v('self.__in__', 'keyword', ESCAPING + ' (reserved word in)');
v('self.inline', 'not a keyword', ESCAPING + ' (only whole-name keyword matches are escaped)');
v('self.x__dash__kubernetes__dash__thing', 'ext', ESCAPING);
ce('self.namespace', "undefined field 'namespace'", ESCAPING + ' (the keyword property is only reachable escaped)');
ce('self.has__space', "undefined field 'has__space'", ESCAPING + ' (a space makes the property invisible)');
ce('self.__1st', "undefined field '__1st'", ESCAPING + ' (a leading digit makes the property invisible)');
v("has(self.__dash__name)", true, ESCAPING + ' (has with an escaped name)');
v("type(self.port) == string", true, SPEC + ': int-or-string is a union (string here)');
v("type(oldSelf.port) == int", true, SPEC + ': int-or-string is a union (int here)');
v("type(self.port) == string ? self.port.startsWith('h') : self.port > 0", true, SPEC + ' (int-or-string typing via type(self) == string)');
ee('self.port + 1 == 2', /no such overload/, SPEC + ': int-or-string is dyn; an int operation on its string value is a runtime error');
v('self.metadata.name', 'web-1', SPEC + ' (singleton names via self.metadata.name)');
v("self.labels['app']", 'web', SPEC + ': additionalProperties -> map');
v("'tier' in self.labels", true, SPEC + ' (membership of a key in a map)');
v('self.labels.all(k, k in ["app", "tier"])', true, SPEC + ' (keys of a map matching the items of a set)');
v("has(self.optionalField)", false, SPEC + ': an unset property is absent');
ee('self.optionalField', 'no such key: optionalField', 'observed Kubernetes answer: selecting an unset schema property is "no such key"');
v('self.data', bytes(104, 101, 108, 108, 111), SPEC + ': format byte -> bytes');
v('self.ratio * 2.0', 1, SPEC + ': number -> double');
v('self.flag', true, SPEC + ': boolean -> bool');
ce('self.nope', "undefined field 'nope'", CHECKER + ' (rules are fully type checked)');
ce("self.replicas == 'three'", "found no matching overload for '_==_' applied to '(int, string)'", CHECKER);
v('self.nested.inner.value', 'deep', SPEC + ': object with properties -> object');
v('(size(self.tags) == 0) != (size(self.ports) == 0)', false, SPEC + ' (exactly one of two lists non-empty)');
v('sets.intersects(self.tags, ["x"]) == false', true, SPEC + ' (disjointness of two sets)');

// ---- type errors -------------------------------------------------------------------------------------
section('type errors');
ce("1 + 'a'", "found no matching overload for '_+_' applied to '(int, string)'", CHECKER);
ce('undefined_var', "undeclared reference to 'undefined_var' (in container '')", CHECKER);
ce("[1, 'a']", "expected type 'int' but found 'string'", VALIDATORS + ' (homogeneous aggregate literals)');
ce("{'a': 1, 'b': 'x'}", "expected type 'int' but found 'string'", VALIDATORS + ' (homogeneous aggregate literals)');
ce('size(1)', "found no matching overload for 'size' applied to '(int)'", CHECKER);
ce('1 +', '', 'cel-spec langdef.md (syntax error)');
ce("i.startsWith('a')", "'startsWith'", CHECKER);
ce("!'a'", "'!_'", CHECKER);
ce('-true', "'-_'", CHECKER);
ce("b ? 1 : 'a'", '', CHECKER + ' (ternary branches of different types)');
ce("l.map(e, e + 'x')", "found no matching overload for '_+_'", CHECKER);
ce('s.all(c, true)', '', CHECKER + ' (all on a string)');
ce("m['a'] + 'x'", "found no matching overload for '_+_' applied to '(int, string)'", CHECKER);
ce('d % 2.0', "found no matching overload for '_%_'", CHECKER + ' (no double modulus)');
ee('x.foo == 1', 'no such key: foo', 'cel-go gradual typing: a dyn operand checks; the missing key fails at run time', { vars: { x: mapValue({ bar: 1n }) } });
v('has(x.foo)', false, 'cel-go gradual typing: has() tests a dynamic field before use', { vars: { x: mapValue({ bar: 1n }) } });

// ---- cost ------------------------------------------------------------------------------------------------
section('cost');
cost('l.all(a, l.all(b, a + b >= 0))', COST + ' (a 1000 x 1000 nested comprehension)', { vars: { l: range(1000) } });
cost("l.map(a, l.map(b, a * b)).size() > 0", COST + ' (a 1000 x 1000 nested map)', { vars: { l: range(1000) } });
cost('s.lowerAscii().size() > 0', COST + ' (string traversal cost 0.1 per character, 20M characters)', { vars: { s: 'a'.repeat(20_000_000) } });
cost('[1, 2, 3].map(e, e * 2)', COST + ' (a tiny limit)', { limit: 5 });
v('[1, 2, 3].map(e, e * 2)', [2n, 4n, 6n], COST + ' (the same under the default limit)');
cost('ls.exists(a, a.matches("b+"))', COST + ' (regex cost grows with input length)', { vars: { ls: Array.from({ length: 200 }, () => 'a'.repeat(200_000)) } });

export const TABLE: readonly Row[] = rows;

// ---- helpers used above -------------------------------------------------------------------------------

function range(n: number): bigint[] {
  return Array.from({ length: n }, (_, k) => BigInt(k));
}

function oldSelfBase(): Record<string, unknown> {
  return { ...OLD_SELF_DATA };
}

function mapValue(o: Record<string, CelValue>): CelValue {
  return EntryMap.of(Object.entries(o));
}
