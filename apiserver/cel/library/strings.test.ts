import { CelEvalError } from '../errors.js';
import type { CelValue } from '../values/value.js';
import type { CelLibrary } from './library.js';
import { stringFormatLibrary } from './string-format.js';
import { stringsLibrary } from './strings.js';

function call(lib: CelLibrary, signature: string, ...args: CelValue[]): CelValue {
  const o = lib.overloads.find((x) => x.signature === signature);
  if (!o) throw new Error(`no overload ${signature}`);
  return o.impl(...args);
}
const s = (sig: string, ...args: CelValue[]) => call(stringsLibrary, sig, ...args);
const f = (fmt: string, ...args: CelValue[]) => call(stringFormatLibrary, 'string.format(list<dyn>): string', fmt, args);

describe('strings extension', () => {
  // [signature, args, expected result or {error}] — sources: cel-spec string_ext conformance (cel-go's answers).
  const rows: Array<[string, CelValue[], CelValue | { error: string }]> = [
    ['string.charAt(int): string', ['tacocat', 3n], 'o'], // string_ext char_at middle_index
    ['string.charAt(int): string', ['tacocat', 7n], ''], // char_at end_index
    ['string.charAt(int): string', ['©αT', 1n], 'α'], // char_at multiple (code points)
    ['string.charAt(int): string', ['tacocat', 30n], { error: 'index out of range: 30' }], // value_errors
    ['string.indexOf(string): int', ['tacocat', ''], 0n], // index_of empty_index
    ['string.indexOf(string): int', ['tacocat', 'ac'], 1n], // index_of string_index
    ['string.indexOf(string, int): int', ['ta©o©αT', '©', 3n], 4n], // code-point indices
    ['string.indexOf(string, int): int', ['ta©o©αT', '©α', 5n], -1n],
    ['string.indexOf(string, int): int', ['tacocat', 'a', 30n], { error: 'index out of range: 30' }], // value_errors
    ['string.indexOf(string): int', ['a😀b😀', '😀'], 1n], // astral code point counts once
    ['string.indexOf(string, int): int', ['a😀b😀', '😀', 2n], 3n],
    ['string.lastIndexOf(string): int', ['tacocat', ''], 7n], // last_index_of
    ['string.lastIndexOf(string, int): int', ['ta©o©αT', '©', 3n], 2n],
    ['string.lastIndexOf(string, int): int', ['bananananana', 'nana', 7n], 6n],
    ['string.lastIndexOf(string, int): int', ['tacocat', 'a', -1n], { error: 'index out of range: -1' }],
    ['string.lowerAscii(): string', ['TacoCÆt Xii'], 'tacocÆt xii'], // ascii_casing: non-ASCII unchanged
    ['string.upperAscii(): string', ['tacoCαt'], 'TACOCαT'],
    ['string.lowerAscii(): string', ['ÀB'], 'Àb'], // observed Kubernetes answer (docs/cel-engine.md)
    ['string.replace(string, string): string', ['{0} days {0} hours', '{0}', '2'], '2 days 2 hours'], // replace
    ['string.replace(string, string, int): string', ['{0} days {0} hours', '{0}', '2', 1n], '2 days {0} hours'],
    ['string.replace(string, string): string', ['ab', '', '-'], '-a-b-'], // Go strings.Replace with empty old
    ['string.split(string): list<string>', ['hello world', ' '], ['hello', 'world']], // split
    ['string.split(string, int): list<string>', ['hello world events!', ' ', 0n], []],
    ['string.split(string, int): list<string>', ['hello world events!', ' ', 1n], ['hello world events!']],
    ['string.split(string, int): list<string>', ['o©o©o©o', '©', -1n], ['o', 'o', 'o', 'o']],
    ['string.split(string): list<string>', ['a😀', ''], ['a', '😀']], // empty separator splits code points
    ['string.substring(int): string', ['tacocat', 4n], 'cat'], // substring
    ['string.substring(int, int): string', ['ta©o©αT', 2n, 6n], '©o©α'],
    ['string.substring(int): string', ['tacocat', 40n], { error: 'index out of range: 40' }], // value_errors
    ['string.substring(int, int): string', ['tacocat', 49n, 50n], { error: 'index out of range: 49' }],
    ['string.substring(int, int): string', ['tacocat', 4n, 3n], { error: 'invalid substring range. start: 4, end: 3' }],
    ['string.trim(): string', [' \f\n\r\t\vtext  '], 'text'], // trim
    ['string.trim(): string', ['\u0085\u00a0\u1680text\u2028\u3000'], 'text'],
    ['string.trim(): string', ['\u180etext\u200b\ufeff'], '\u180etext\u200b\ufeff'], // not Go spaces
    ['list<string>.join(): string', [['x', 'y']], 'xy'], // join
    ['list<string>.join(string): string', [['x', 'y'], '-'], 'x-y'],
    ['list<string>.join(string): string', [[], '-'], ''],
  ];
  it.each(rows)('%s %p', (sig, args, want) => {
    if (want !== null && typeof want === 'object' && 'error' in want) {
      expect(() => s(sig, ...args)).toThrow(new CelEvalError(want.error));
    } else {
      expect(s(sig, ...args)).toEqual(want);
    }
  });

  it('declares cel-js built-ins as such and charges Kubernetes costs', () => {
    const builtin = stringsLibrary.overloads.filter((o) => o.checkerBuiltin).map((o) => o.signature);
    expect(builtin).not.toContain('string.charAt(int): string');
    expect(builtin).toContain('string.lowerAscii(): string');
    const cost = (sig: string, ...args: CelValue[]) => stringsLibrary.overloads.find((o) => o.signature === sig)!.cost!(args);
    expect(cost('string.lowerAscii(): string', 'a'.repeat(25))).toBe(3); // ceil(25 * 0.1)
    expect(cost('string.split(string): list<string>', 'a'.repeat(25), ',')).toBe(5); // ceil(25 * 0.2)
    expect(cost('string.indexOf(string): int', 'é'.repeat(10), 'x')).toBe(2); // floor(20 bytes * 0.1)
    expect(cost('list<string>.join(string): string', ['ab', 'cd'], ', ')).toBe(2); // result 'ab, cd': ceil(6 * 0.2)
  });
});

describe('strings v2: format and quote', () => {
  // [format, args, expected] — sources: cel-go ext/formatting_test.go (v1 formatter, Kubernetes 1.32) and cel-spec string_ext.
  const rows: Array<[string, CelValue[], string]> = [
    ['no substitution', [], 'no substitution'],
    ['str is %s and some more', ['filler'], 'str is filler and some more'],
    ['%%%s%%', ['text'], '%text%'],
    ['%d %d %d, %s %s %s', [1n, 2n, 3n, 'A', 'B', 'C'], '1 2 3, A B C'],
    ['%.3f', [1.2345], '1.234'],
    ['%.0f', [2.5], '2'], // Go rounds exact ties to even
    ['%.0f', [3.5001], '4'],
    ['%f', [2.71828], '2.718280'],
    ['%.2f', [1234567.891], '1,234,567.89'], // en_US grouping (x/text printer)
    ['%e', [2.71828], '2.718280\u202f×\u202f10⁰⁰'], // formatting_test "default precision for scientific notation"
    ['%.6e', [1052.032911275], '1.052033\u202f×\u202f10⁰³'],
    ['%f', ['NaN'], 'NaN'],
    ['%f', ['Infinity'], '∞'],
    ['%f', ['-Infinity'], '-∞'],
    ['this is 5 in binary: %b', [5n], 'this is 5 in binary: 101'],
    ['%b', [-5n], '-101'],
    ['%b', [true], '1'],
    ['%o', [11n], '13'],
    ['%x is 30 in hexadecimal', [30n], '1e is 30 in hexadecimal'],
    ['%X', ['Hello world!'], '48656C6C6F20776F726C6421'],
    ['%x', [new Uint8Array([0, 0, 0x62])], '000062'],
    ['%s', [2.71], '2.71'],
    ['%s', [0.000000002], '2e-09'], // Go %g exponent form
    ['%s', [[2.71]], '[2.710000]'], // list members as %.6f
    ['%s', [[0.000000002]], '[0.000000]'],
    ['%s', [[NaN, Infinity, -Infinity]], '["NaN", "+Inf", "-Inf"]'],
    ['%s', [Infinity], '+Inf'],
    ['%s', [null], 'null'],
    ['%s', [999999999999n], '999999999999'],
    ['%s', [new Uint8Array([0x78, 0x79, 0x7a])], 'xyz'],
    ['%s', [['abc', 3n, null, [9n, 8n]]], '["abc", 3, null, [9, 8]]'],
  ];
  it.each(rows)('%p.format(%p)', (fmt, args, want) => {
    expect(f(fmt, ...args)).toBe(want);
  });

  // [format, args, cel-go's error] — source: cel-spec string_ext format_errors and formatting.go messages.
  const errors: Array<[string, CelValue[], string]> = [
    ['%a', [1n], 'could not parse formatting clause: unrecognized formatting clause "a"'],
    ['%d %d %d', [0n, 1n], 'index 2 out of range'],
    ['string is %b', ['abc'], 'error during formatting: only integers and bools can be formatted as binary, was given string'],
    ['%d', [1.5], 'error during formatting: decimal clause can only be used on integers, was given double'],
    ['octal: %o', ['a string'], 'error during formatting: octal clause can only be used on integers, was given string'],
    ['double is %x', [0.5], 'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double'],
    ['null: %f', [null], 'error during formatting: fixed-point clause can only be used on doubles, was given null_type'],
    ['null: %e', [null], 'error during formatting: scientific clause can only be used on doubles, was given null_type'],
    ['%.', [1.5], 'could not parse formatting clause: error while parsing precision: could not find end of precision specifier'],
    ['%', [1n], 'unexpected end of string'],
  ];
  it.each(errors)('%p.format(%p) fails', (fmt, args, message) => {
    expect(() => f(fmt, ...args)).toThrow(new CelEvalError(message));
  });

  // Source: cel-spec string_ext quote.
  it.each([
    ['first\nsecond', '"first\\nsecond"'],
    ['bell\x07', '"bell\\a"'],
    ['mid string " quote', '"mid string \\" quote"'],
    ['ends with \\', '"ends with \\\\"'],
    ['printable unicode😀', '"printable unicode😀"'],
    ['', '""'],
  ])('strings.quote(%p)', (input, want) => {
    expect(call(stringFormatLibrary, 'strings.quote(string): string', input)).toBe(want);
  });
});
