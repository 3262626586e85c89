/**
 * The compile-time checks cel-go makes and cel-js does not (validate.ts): literal regexes, literal format
 * strings, literal durations and timestamps, has() on any operand; each refused with cel-go's words at
 * cel-go's position.
 */
import { baseEnvironment } from './base.js';
import { compileIn } from './compile.js';
import { CelExpressionError } from './errors.js';
import { compileSchemaRule, evaluateSchemaRule } from './schema-rules.js';

const env = { env: baseEnvironment('new').env, base: baseEnvironment('new'), objectTypes: new Map() };

function refusal(expression: string): CelExpressionError {
  try {
    compileIn(env, expression);
  } catch (e) {
    if (e instanceof CelExpressionError) return e;
    throw e;
  }
  throw new Error(`${expression} compiled`);
}

describe('literal regexes RE2 refuses', () => {
  test('matches: the literal validator (1.29) refuses at the pattern', () => {
    const e = refusal("'abc'.matches('a(?=b)')");
    expect(e.detail).toBe("compilation failed: ERROR: <input>:1:15: invalid matches argument\n | 'abc'.matches('a(?=b)')\n | ..............^");
    expect([e.line, e.column]).toEqual([1, 15]);
  });

  test('find and findAll: refused when the program is planned (Kubernetes: program instantiation failed), position kept', () => {
    const e = refusal("'abc'.find('a(?=b)') == ''");
    expect(e.detail).toBe('program instantiation failed: error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    expect([e.line, e.column]).toEqual([1, 12]);
    const all = refusal("size('x'.findAll('[a')) == 0 &&\n  'y'.findAll('(a)\\\\1', 2) == []");
    expect(all.detail).toMatch(/^program instantiation failed: error parsing regexp: missing closing \]: `\[a`/);
    expect([all.line, all.column]).toEqual([1, 18]);
  });

  test('before 1.29 a bad matches literal is a planning failure too', () => {
    const old = { env: baseEnvironment('new', { compatibilityVersion: 28 }).env, base: baseEnvironment('new', { compatibilityVersion: 28 }), objectTypes: new Map() };
    expect(() => compileIn(old, "'a'.matches('a(?!b)')")).toThrow(/^program instantiation failed: error parsing regexp: invalid or unsupported Perl syntax: `\(\?!`/);
  });

  test('patterns that are not literals are checked when evaluated', () => {
    const r = compileSchemaRule({ type: 'string' }, { rule: "'abc'.find(self) == ''" });
    expect(r.error).toBeUndefined();
    expect(() => evaluateSchemaRule(r, { self: 'a(?=b)' })).toThrow(/Illegal regex: error parsing regexp/);
    expect(evaluateSchemaRule(r, { self: 'x' })).toBe(true);
  });

  test('valid literal patterns compile and run with RE2 semantics', () => {
    expect(compileIn(env, "'a1b22'.findAll('[0-9]+')").program.evaluate({})).toEqual(['1', '22']);
    expect(compileIn(env, "'abc'.matches('^a.c$')").program.evaluate({})).toBe(true);
  });
});

describe('literal format strings (cel-go stringFormatValidator)', () => {
  test.each([
    ["'%d'.format(['a'])", 14, 'error during formatting: decimal clause can only be used on integers, was given string'],
    ["'%s'.format([{1: duration('1s')}.size() > 0 ? 1u : 2u, []])", 12, 'too many arguments supplied to string.format (expected 1, got 2)'],
    ["'%d %d'.format([1])", 15, 'index 1 out of range'],
    ["'%q'.format([1])", 12, 'could not parse formatting clause: unrecognized formatting clause "q"'],
    ["'%.3'.format([1.5])", 13, 'could not parse formatting clause: error while parsing precision: could not find end of precision specifier'],
    ["'abc %'.format([1])", 15, 'unexpected end of string'],
    ["'%f'.format([true])", 14, 'error during formatting: fixed-point clause can only be used on doubles, was given bool'],
    ["'%x'.format([1.5])", 14, 'error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double'],
    ["'%b'.format(['a'])", 14, 'error during formatting: only integers and bools can be formatted as binary, was given string'],
    ["'%o'.format([1.0])", 14, 'error during formatting: octal clause can only be used on integers, was given double'],
    ["'%e'.format([1])", 14, 'error during formatting: scientific clause can only be used on doubles, was given int'],
  ])('%s refused at column %d', (expression, column, message) => {
    const e = refusal(expression);
    expect(e.detail.split('\n')[0]).toBe(`compilation failed: ERROR: <input>:1:${column}: ${message}`);
  });

  test('valid literal formats, and formats of non-literal arguments (dyn), compile', () => {
    const out = compileIn(env, "'%d%% of %s: %.2f, %x, %b, %o, %e'.format([50, 'x', 1.5, 255, true, 8, 1.0])").program.evaluate({}) as string;
    // cel-go's first formatter prints %e in the locale's exponent form (`1.000000 × 10⁰⁰`)
    expect(out.startsWith('50% of x: 1.50, ff, 1, 10, 1.000000')).toBe(true);
    expect(out.endsWith('10⁰⁰')).toBe(true);
    const r = compileSchemaRule({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { n: { 'x-kubernetes-int-or-string': true } } }, { rule: "'%d'.format([self.n]) != ''" });
    expect(r.error).toBeUndefined();
    expect(() => evaluateSchemaRule(r, { self: { n: 'a' } })).toThrow(/decimal clause can only be used on integers/);
  });
});

describe('literal durations and timestamps (1.29 validators)', () => {
  test.each([
    ["duration('1d') > duration('0s')", 10, 'invalid duration argument'],
    ["timestamp('2024-13-01T00:00:00Z') > timestamp('2024-01-01T00:00:00Z')", 11, 'invalid timestamp argument'],
  ])('%s', (expression, column, message) => {
    expect(refusal(expression).detail.split('\n')[0]).toBe(`compilation failed: ERROR: <input>:1:${column}: ${message}`);
  });
});

describe('has() on any operand', () => {
  const schema = {
    type: 'object',
    properties: {
      matches: { type: 'array', items: { type: 'object', properties: { path: { type: 'object', properties: { value: { type: 'string' } } } } } },
      byName: { type: 'object', additionalProperties: { type: 'object', properties: { x: { type: 'integer' } } } },
      n: { type: 'integer' },
    },
  };

  test.each([
    ['has(self.matches[0].path)', { matches: [{ path: { value: '/' } }] }, true],
    ['has(self.matches[0].path)', { matches: [{}] }, false],
    ['has(self.matches[0].path.value)', { matches: [{ path: {} }] }, false],
    ["has(self.byName['a'].x)", { byName: { a: { x: 1 } } }, true],
    ["has(self.byName['a'].x)", { byName: { a: {} } }, false],
    ['self.matches.all(m, !has(m.path) || has(m.path.value))', { matches: [{}, { path: { value: 'a' } }] }, true],
    ['has(self.matches.map(m, m)[0].path)', { matches: [{ path: {} }] }, true],
  ])('%s on %j is %s', (rule, self, expected) => {
    const r = compileSchemaRule(schema, { rule });
    expect(r.error).toBeUndefined();
    expect(evaluateSchemaRule(r, { self })).toBe(expected);
  });

  test('the field is still checked, at its position', () => {
    expect(compileSchemaRule(schema, { rule: 'has(self.matches[0].nope)' }).error?.detail.split('\n')[0]).toBe("compilation failed: ERROR: <input>:1:20: undefined field 'nope'");
    expect(compileSchemaRule(schema, { rule: 'has(self.matches[0].path.value.x)' }).error?.detail.split('\n')[0]).toBe(
      "compilation failed: ERROR: <input>:1:31: type 'string' does not support field selection",
    );
    // (the wording of this one is cel-js's: `Cannot index type 'int'`)
    expect(compileSchemaRule(schema, { rule: 'has(self.n[0].x)' }).error?.detail).toMatch(/^compilation failed: ERROR: <input>:1:\d+: /);
  });

  test('an index out of range under has() is a runtime error, as in cel-go', () => {
    const r = compileSchemaRule(schema, { rule: 'has(self.matches[1].path)' });
    expect(() => evaluateSchemaRule(r, { self: { matches: [] } })).toThrow(/index out of bounds|invalid_argument|out of range/);
  });
});
