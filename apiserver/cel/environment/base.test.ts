/**
 * Base environments by compatibility version (Kubernetes' base.go): what a new expression may use at
 * each version, the stored environment that has everything, and caching.
 */
import { CelCompileError } from '../errors.js';
import {
  baseEnvironment,
  DEFAULT_COMPATIBILITY_VERSION,
  environmentSet,
  SERVER_MINOR_VERSION,
  type BaseEnvironment,
} from './base.js';
import { compileIn } from './compile.js';
import { CelExpressionError } from './errors.js';
import { compileSchemaRule, evaluateSchemaRule } from './schema-rules.js';

const plain = (base: BaseEnvironment) => ({ env: base.env, base, objectTypes: new Map() });

function compiles(version: number, expression: string): boolean {
  try {
    compileIn(plain(baseEnvironment('new', { compatibilityVersion: version })), expression);
    return true;
  } catch (e) {
    if (e instanceof CelExpressionError) return false;
    throw e;
  }
}

describe('versioned features (base.go introduced versions)', () => {
  // [feature, expression, the first compatibility version that accepts it in new expressions]
  test.each([
    ['strings ext v0', "'abc'.charAt(1) == 'b'", 0],
    ['lists', '[3, 1].min() == 1', 0],
    ['regex find', "'abc'.find('b') == 'b'", 0],
    ['url', "url('https://x.io/a').getHost() == 'x.io'", 0],
    ['authorizer types', 'type(1) == int', 0],
    ['quantity', "quantity('1Gi').isGreaterThan(quantity('1Mi'))", 28],
    ['optional types', "{'a': 1}.?a.orValue(0) == 1", 28],
    ['optional namespace', 'optional.of(1).hasValue()', 28],
    ['cross-type numeric comparisons', '1 < 1.5', 28],
    ['sets', 'sets.contains([1, 2], [1])', 29],
    ['strings v2 format', "'%d'.format([1]) == '1'", 29],
    ['strings v2 quote', "strings.quote('a') == '\"a\"'", 29],
    ['ip', "ip('1.2.3.4').family() == 4", 30],
    ['cidr', "cidr('10.0.0.0/8').containsIP('10.1.2.3')", 30],
    ['format library', "format.dns1123Label().validate('a').hasValue() == false", 31],
  ])('%s: %s from %d', (_, expression, since) => {
    if (since > 0) expect(compiles(since - 1, expression)).toBe(false);
    expect(compiles(since, expression)).toBe(true);
    expect(compiles(DEFAULT_COMPATIBILITY_VERSION, expression)).toBe(true);
    const stored = compileIn(plain(baseEnvironment('stored')), expression);
    expect(stored.program.evaluate({})).toBe(true);
  });

  test('a 1.29 function is refused in a new expression at 1.28 but a stored one keeps evaluating (rollback)', () => {
    const schema = { type: 'object', properties: { a: { type: 'array', items: { type: 'integer' } }, b: { type: 'array', items: { type: 'integer' } } } };
    const rule = { rule: 'sets.intersects(self.a, self.b)' };
    const refused = compileSchemaRule(schema, rule, { compatibilityVersion: 28 });
    expect(refused.error?.detail).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'sets' (in container '')\n | sets.intersects(self.a, self.b)\n | ^");
    const stored = compileSchemaRule(schema, rule, { compatibilityVersion: 28, mode: 'stored' });
    expect(stored.error).toBeUndefined();
    expect(evaluateSchemaRule(stored, { self: { a: [1, 2], b: [2, 3] } })).toBe(true);
    expect(evaluateSchemaRule(stored, { self: { a: [1], b: [3] } })).toBe(false);
  });

  test("the refusals before 1.28 are cel-go's: optional syntax and cross-type comparisons", () => {
    const b = plain(baseEnvironment('new', { compatibilityVersion: 27 }));
    expect(() => compileIn(b, "{'a': 1}.?a.hasValue()")).toThrow("compilation failed: ERROR: <input>:1:9: unsupported syntax '.?'");
    expect(() => compileIn(b, '[1][?0].hasValue()')).toThrow("compilation failed: ERROR: <input>:1:4: unsupported syntax '[?'");
    expect(() => compileIn(b, 'optional.none() == optional.none()')).toThrow("compilation failed: ERROR: <input>:1:1: undeclared reference to 'optional' (in container '')");
    expect(() => compileIn(b, '1 < 1.5')).toThrow("compilation failed: ERROR: <input>:1:3: found no matching overload for '_<_' applied to '(int, double)'");
    expect(() => compileIn(b, '2u >= 1')).toThrow("found no matching overload for '_>=_' applied to '(uint, int)'");
    expect(compileIn(b, '1 < 2').program.evaluate({})).toBe(true);
  });

  test('the literal validators arrive at 1.29: before, a bad literal only fails when evaluated', () => {
    const old = plain(baseEnvironment('new', { compatibilityVersion: 28 }));
    const p = compileIn(old, "duration('1x') > duration('1s')");
    expect(() => p.program.evaluate({})).toThrow(/invalid duration/);
    expect(() => compileIn(plain(baseEnvironment('new', { compatibilityVersion: 29 })), "duration('1x') > duration('1s')")).toThrow(
      "compilation failed: ERROR: <input>:1:10: invalid duration argument",
    );
  });

  test('authorizer selectors: 1.31 with the AuthorizeWithSelectors gate (on by default)', () => {
    const env = (v: number, gate = true) => baseEnvironment('new', { compatibilityVersion: v, authorizeWithSelectors: gate });
    const declares = (b: BaseEnvironment) => b.libraries.includes('kubernetes.authzSelectors');
    expect(declares(env(30))).toBe(false);
    expect(declares(env(31))).toBe(true);
    expect(declares(env(31, false))).toBe(false);
  });

  test('compatibility version: the minor before the server (a rollback target understands new expressions)', () => {
    expect(SERVER_MINOR_VERSION).toBe(32);
    expect(DEFAULT_COMPATIBILITY_VERSION).toBe(31);
    expect(baseEnvironment('new').compatibilityVersion).toBe(31);
    expect(() => baseEnvironment('new', { compatibilityVersion: -1 })).toThrow(/compatibility version/);
  });
});

describe('options as Kubernetes', () => {
  const b = plain(baseEnvironment('stored'));

  test('homogeneous aggregate literals, except the arguments of format', () => {
    expect(() => compileIn(b, "[1, 'a'].size() == 2")).toThrow("compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'");
    expect(() => compileIn(b, "{'a': 1, 'b': 2.0}.size() == 2")).toThrow("ERROR: <input>:1:15: expected type 'int' but found 'double'");
    expect(compileIn(b, "'%d %s'.format([1, 'a'])").program.evaluate({})).toBe('1 a');
    expect(compileIn(b, "'%s'.format([[1, 'a']])").program.evaluate({})).toBe('[1, "a"]');
  });

  test('default UTC time zone', () => {
    expect(compileIn(b, "timestamp('2024-01-01T23:30:00-02:00').getHours()").program.evaluate({})).toBe(1n);
  });
});

describe('caching', () => {
  test('each base environment is built once', () => {
    expect(baseEnvironment('new', { compatibilityVersion: 30 })).toBe(baseEnvironment('new', { compatibilityVersion: 30 }));
    expect(baseEnvironment('stored')).toBe(baseEnvironment('stored', { compatibilityVersion: 20 }));
    expect(baseEnvironment('new', { compatibilityVersion: 30 })).not.toBe(baseEnvironment('new', { compatibilityVersion: 31 }));
    const set = environmentSet();
    expect(set.newExpressions).toBe(baseEnvironment('new'));
    expect(set.storedExpressions).toBe(baseEnvironment('stored'));
  });

  test('compile errors are CelExpressionError with the position kept', () => {
    try {
      compileIn(plain(baseEnvironment('new')), 'x + 1');
      throw new Error('not refused');
    } catch (e) {
      expect(e).toBeInstanceOf(CelExpressionError);
      expect((e as CelExpressionError).detail).toBe("compilation failed: ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x + 1\n | ^");
      expect([(e as CelExpressionError).line, (e as CelExpressionError).column]).toEqual([1, 1]);
      expect(e).not.toBeInstanceOf(CelCompileError);
    }
  });
});
