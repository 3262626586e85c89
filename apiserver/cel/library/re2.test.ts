import { CelEvalError } from '../errors.js';
import { compileRe2, re2Find, re2FindAll, re2Test, validateRe2 } from './re2.js';

describe('RE2 patterns', () => {
  // Each row: pattern, Go's regexp.Compile error (observed with Go 1.22's regexp package, which Kubernetes uses).
  const refused: Array<[string, string]> = [
    ['a(?=b)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'], // lookahead: RE2 has none
    ['(?<!a)b', 'error parsing regexp: invalid named capture: `(?<!a)b`'], // lookbehind: Go 1.22+ reads `(?<` as a named group
    ['(a)\\1', 'error parsing regexp: invalid escape sequence: `\\1`'], // backreference
    ['[a', 'error parsing regexp: missing closing ]: `[a`'], // unterminated class
    ['a**', 'error parsing regexp: invalid nested repetition operator: `**`'], // nested repetition
    ['a{1001}', 'error parsing regexp: invalid repeat count: `{1001}`'], // RE2 caps repeats at 1000
  ];
  it.each(refused)('refuses %s', (pattern, message) => {
    expect(validateRe2(pattern)).toBe(message);
    expect(() => compileRe2(pattern)).toThrow(CelEvalError);
    expect(() => compileRe2(pattern)).toThrow(message);
  });

  it('accepts RE2 syntax JavaScript lacks or spells differently', () => {
    expect(validateRe2('(?P<n>a)')).toBeUndefined(); // Go named group syntax
    expect(re2Test(compileRe2('(?i)ABC'), 'xabcx')).toBe(true); // inline flags, unanchored match
    expect(re2Test(compileRe2('\\p{Greek}'), 'α')).toBe(true); // Unicode classes
    expect(compileRe2('a+')).toBe(compileRe2('a+')); // cached
  });

  it('finds as Go FindString / FindAllString', () => {
    expect(re2Find(compileRe2('[0-9]+'), 'abc 123')).toBe('123'); // k8s regex library doc example
    expect(re2Find(compileRe2('xyz'), 'abc 123')).toBe(''); // k8s doc: no match is ''
    expect(re2FindAll(compileRe2('[0-9]+'), '123 abc 456', -1)).toEqual(['123', '456']);
    expect(re2FindAll(compileRe2('[0-9]+'), '123 abc 456', 1)).toEqual(['123']);
    expect(re2FindAll(compileRe2('[0-9]+'), '123 abc 456', 0)).toEqual([]);
    // Go: an empty match right after a match is skipped; positions step by code point, never inside a surrogate pair.
    expect(re2FindAll(compileRe2('x*'), 'axxb😀x', -1)).toEqual(['', 'xx', '', 'x']);
    expect(re2FindAll(compileRe2('.'), 'a😀b', -1)).toEqual(['a', '😀', 'b']);
  });
});
