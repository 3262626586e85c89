/**
 * The interpreter's tricky semantics, through the compile API (cel-js checks, our planner evaluates):
 * int64/uint64 overflow, error absorption, heterogeneous equality, Kubernetes set/map lists, nanosecond
 * timestamps with zones, RE2 refusals, compile error wording, the cost tracker, and the error boundary.
 * Also prints (never asserts) the evaluation speed of a simple field comparison.
 */
import { CelCompileError, CelCostError, CelEvalError } from '../errors.js';
import type { CelLibrary } from '../library/library.js';
import { EntryMap } from '../values/entry-map.js';
import { CelUint, Duration, tagList, Timestamp, type CelObject, type CelValue } from '../values/value.js';
import { CelEnvironment } from './environment.js';

const env = CelEnvironment.create({ variables: { s: 'string', p: 'string', x: 'dyn', a: 'list<dyn>', b: 'list<dyn>', m: 'map<string, int>' } });

const run = (expr: string, act: Record<string, CelValue> = {}): CelValue => env.compile(expr).evaluate(act);
const evalError = (expr: string, act: Record<string, CelValue> = {}): string => {
  try {
    run(expr, act);
  } catch (e) {
    if (e instanceof CelEvalError) return e.message;
    throw e;
  }
  throw new Error(`${expr} evaluated without an error`);
};

describe('integer arithmetic', () => {
  test.each([
    ['9223372036854775807 + 1', 'integer overflow'],
    ['-9223372036854775808 - 1', 'integer overflow'],
    ['-(-9223372036854775807 - 1)', 'integer overflow'],
    ['(-9223372036854775807 - 1) / -1', 'integer overflow'],
    ['(-9223372036854775807 - 1) % -1', 'integer overflow'],
    ['4611686018427387904 * 2', 'integer overflow'],
    ['0u - 1u', 'unsigned integer overflow'],
    ['18446744073709551615u + 1u', 'unsigned integer overflow'],
    ['1 / 0', 'division by zero'],
    ['1 % 0', 'modulus by zero'],
    ['int(1e19)', 'range error converting 1e+19 to int'],
    ['int(-9223372036854775808.0)', 'range error'],
    ['uint(-1)', 'range error converting int to uint'],
    ['int(18446744073709551615u)', 'range error converting uint to int'],
    ["int('9223372036854775808')", 'value out of range'],
  ])('%s is an error (%s)', (expr, message) => {
    expect(evalError(expr)).toContain(message);
  });

  test('the int64 extremes and exact 64-bit values', () => {
    expect(run('-9223372036854775808')).toBe(-(2n ** 63n));
    expect(run('9223372036854775806 + 1')).toBe(2n ** 63n - 1n);
    expect(run('9007199254740993 + 2')).toBe(9007199254740995n);
    expect(run('-7 / 2')).toBe(-3n); // truncation toward zero, as Go
    expect(run('-7 % 2')).toBe(-1n);
    expect(run('18446744073709551615u')).toEqual(new CelUint(2n ** 64n - 1n));
    expect(run('1.0 / 0.0')).toBe(Infinity);
  });

  test('an int literal out of range is a compile error', () => {
    expect(() => env.compile('9223372036854775808')).toThrow(CelCompileError);
  });
});

describe('logical operators and error absorption', () => {
  test.each([
    ['false && (1 / 0 == 1)', false],
    ['(1 / 0 == 1) && false', false],
    ['true || (1 / 0 == 1)', true],
    ['(1 / 0 == 1) || true', true],
    ['[0, 1].exists(i, 1 / i > 0)', true],
    ['[1, 0].all(i, 1 / i > 1)', false],
    ["x || true", true],
  ])('%s is %s', (expr, want) => {
    expect(run(expr, { x: 'not a bool' })).toBe(want);
  });

  test.each([['(1 / 0 == 1) && true'], ['false || (1 / 0 == 1)'], ['[0, 1].all(i, 1 / i > 0)'], ['[0, 1].exists_one(i, 1 / i > 0)'], ['x && true']])('%s is the error', (expr) => {
    expect(() => run(expr, { x: 1n })).toThrow(CelEvalError);
  });

  test('the ternary only evaluates the branch taken', () => {
    expect(run('true ? 1 : 1 / 0')).toBe(1n);
    expect(evalError('x ? 1 : 2', { x: 'a' })).toContain('no such overload');
  });
});

describe('heterogeneous numeric equality and ordering', () => {
  test.each([
    ['dyn(1) == 1.0', true],
    ['dyn(1u) == 1', true],
    ['dyn(1.5) == 1', false],
    ['x == [dyn(1.0), dyn(2u)]', true],
    ['1u in x', true],
    ['2.0 in x', true],
    ['dyn(1) < 1.5', true],
    ['dyn(2u) > -1', true],
    ['dyn(9223372036854775807) < 9223372036854775808.0', false],
    ["dyn({1: 'a'}) == {1u: 'a'}", true],
    ["dyn({1: 'a'}) == {1u: 'b'}", false],
    ["{1: 'a'}[dyn(1u)]", 'a'],
    ["{1: 'a'}[dyn(1.0)]", 'a'],
    ["dyn('a') == 1", false],
    ['dyn(0.0 / 0.0) == dyn(0.0 / 0.0)', false],
    ["b'abc' < b'abd'", true],
  ])('%s → %s', (expr, want) => {
    expect(run(expr, { x: [1n, 2n] })).toBe(want);
  });

  test('incomparable kinds are an error, not false', () => {
    expect(evalError("dyn('a') < 1")).toContain('no such overload');
  });
});

describe('Kubernetes set and map lists', () => {
  const set = (...xs: CelValue[]) => tagList(xs, { type: 'set' });
  const entry = (name: string, v: bigint) => EntryMap.of([['name', name], ['v', v]]);
  const mapList = (...xs: CelValue[]) => tagList(xs, { type: 'map', keys: ['name'] });

  test('set equality ignores order; atomic equality does not', () => {
    expect(run('a == b', { a: set(1n, 2n, 3n), b: set(3n, 1n, 2n) })).toBe(true);
    expect(run('a == b', { a: [1n, 2n], b: [2n, 1n] })).toBe(false);
    expect(run('a == b', { a: set(1n, 2n), b: set(1n, 3n) })).toBe(false);
  });

  test('set concatenation is a union keeping the left order', () => {
    const out = run('a + b', { a: set(1n, 2n, 3n), b: set(3n, 4n, 1n, 5n) });
    expect(out).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(run('(a + b) == b + a', { a: set(1n, 2n), b: set(2n, 3n) })).toBe(true); // still a set: order ignored
  });

  test('map list concatenation replaces by key in place and appends the rest', () => {
    const out = run('a + b', { a: mapList(entry('x', 1n), entry('y', 2n)), b: mapList(entry('y', 20n), entry('z', 3n)) }) as CelValue[];
    expect(out.map((e) => [(e as EntryMap).get('name'), (e as EntryMap).get('v')])).toEqual([
      ['x', 1n],
      ['y', 20n],
      ['z', 3n],
    ]);
    expect(run('a == b', { a: mapList(entry('x', 1n), entry('y', 2n)), b: mapList(entry('y', 2n), entry('x', 1n)) })).toBe(true);
    expect(run('a == b', { a: mapList(entry('x', 1n), entry('y', 2n)), b: mapList(entry('y', 3n), entry('x', 1n)) })).toBe(false);
  });
});

describe('timestamps and durations', () => {
  test('nanosecond precision', () => {
    expect(run("timestamp('2023-01-01T00:00:00.000000001Z') > timestamp('2023-01-01T00:00:00Z')")).toBe(true);
    expect(run("string(timestamp('2023-01-01T10:00:00.120000000+02:00'))")).toBe('2023-01-01T08:00:00.12Z');
    expect(run("timestamp('2023-01-01T00:00:00.5Z') - timestamp('2023-01-01T00:00:00.000000001Z')")).toEqual(new Duration(0n, 499999999));
    expect(run("duration('1h2m3.5s')")).toEqual(new Duration(3723n, 500000000));
    expect(run("string(duration('-1.5s'))")).toBe('-1.5s');
    expect(run("int(timestamp('1970-01-02T00:00:00Z'))")).toBe(86400n);
  });

  test('accessors with IANA and fixed-offset zones', () => {
    // Berlin switches to summer time on 2023-03-26 at 01:00 UTC.
    expect(run("timestamp('2023-03-26T00:30:00Z').getHours('Europe/Berlin')")).toBe(1n);
    expect(run("timestamp('2023-03-26T01:30:00Z').getHours('Europe/Berlin')")).toBe(3n);
    expect(run("timestamp('2023-01-01T00:30:00Z').getHours('-02:30')")).toBe(22n);
    expect(run("timestamp('2023-01-01T00:30:00Z').getFullYear('-02:30')")).toBe(2022n);
    expect(run("timestamp('2023-12-31T12:00:00Z').getDayOfYear()")).toBe(364n);
    expect(run("timestamp('2024-02-29T12:00:00Z').getDayOfWeek()")).toBe(4n);
    expect(run("timestamp('2024-02-29T12:00:00.123456789Z').getMilliseconds()")).toBe(123n);
    expect(run("timestamp('2024-02-29T12:00:00Z').getMonth('Asia/Tokyo')")).toBe(1n);
    expect(evalError("timestamp('2024-02-29T12:00:00Z').getHours('Mars/Olympus')")).toContain('time zone');
  });

  test('range errors', () => {
    expect(evalError("timestamp('9999-12-31T23:59:59Z') + duration('1s')")).toContain('range');
    expect(evalError("timestamp('0001-01-01T00:00:00Z') - duration('1ns')")).toContain('range');
    expect(evalError("duration('320000000000s')")).toContain('range');
    expect(evalError("timestamp('2023-02-30T00:00:00Z')")).toContain('timestamp');
    expect(evalError("duration('1d')")).toContain('invalid duration');
  });

  test('values of the model come through unchanged', () => {
    const t = new Timestamp(1700000000n, 999999999);
    expect(env.extend({ variables: { t: 'google.protobuf.Timestamp' } }).compile('t + duration("1ns")').evaluate({ t })).toEqual(new Timestamp(1700000001n, 0));
  });
});

describe('regular expressions (RE2)', () => {
  test('a literal pattern RE2 refuses is a compile error', () => {
    expect(() => env.compile("s.matches('a(?=b)')")).toThrow(/invalid or unsupported Perl syntax/);
    expect(() => env.compile("matches(s, '(a)\\\\1')")).toThrow(CelCompileError);
  });

  test('a pattern known only at run time is an evaluation error', () => {
    expect(evalError('s.matches(p)', { s: 'ab', p: 'a(?=b)' })).toContain('invalid or unsupported Perl syntax');
    expect(run('s.matches(p)', { s: 'xaab', p: 'a+b$' })).toBe(true);
  });
});

describe('maps, selection, optionals', () => {
  test('a missing key is `no such key`', () => {
    expect(evalError("{'a': 1}.b")).toBe('no such key: b');
    expect(evalError("m['zz']", { m: EntryMap.of([['a', 1n]]) })).toBe('no such key: zz');
    expect(evalError("{'a': 1, 'a': 2}")).toContain('repeated key');
  });

  test('has(), optional selection and optional helpers', () => {
    const m = EntryMap.of([['a', 1n]]);
    expect(run('has(m.a) && !has(m.b)', { m })).toBe(true);
    expect(run('m.?b.orValue(5)', { m })).toBe(5n);
    expect(run('m.?a.optMap(v, v * 10).value()', { m })).toBe(10n);
    expect(run('optional.ofNonZeroValue(0).hasValue()')).toBe(false);
    expect(run('[1, 2][?5].orValue(0)')).toBe(0n);
    expect(evalError('optional.none().value()')).toContain('optional.none()');
  });

  test('comprehensions over lists and maps', () => {
    const m = EntryMap.of([['a', 1n], ['b', 2n]]);
    expect(run('m.all(k, m[k] > 0)', { m })).toBe(true);
    expect(run('m.map(k, m[k] * 2)', { m })).toEqual([2n, 4n]);
    expect(run('[1, 2, 3, 4].map(i, i % 2 == 0, i * i)')).toEqual([4n, 16n]);
    expect(run('[1, 2, 3].filter(i, i > 1).exists_one(i, i == 3)')).toBe(true);
    expect(run('cel.bind(y, 3, y * y)')).toBe(9n);
  });
});

describe('compile errors', () => {
  test("Kubernetes' wording and position", () => {
    expect(() => env.compile('1 + foo')).toThrow("ERROR: <input>:1:5: undeclared reference to 'foo' (in container '')");
    const e = (() => {
      try {
        env.compile("s.startsWith(1)");
      } catch (err) {
        return err as CelCompileError;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(CelCompileError);
    expect(e?.message).toMatch(/^ERROR: <input>:1:\d+: found no matching overload for 'startsWith' applied to 'string\.\(int\)'$/);
    expect(() => env.compile("1 + 'a'")).toThrow("found no matching overload for '_+_' applied to '(int, string)'");
    // Functions the engine's checker knows but Kubernetes does not have are refused, not left to fail later.
    expect(() => env.compile("b'a'.hex()")).toThrow("undeclared reference to 'hex'");
  });
});

describe('cost tracking and the error boundary', () => {
  test('the tracker is charged and stops a runaway evaluation', () => {
    const prog = env.compile('a.all(i, i > 0)');
    const items = Array.from({ length: 100 }, (_, i) => BigInt(i + 1));
    const tracker = { cost: 0, limit: 1_000_000 };
    expect(prog.evaluate({ a: items }, tracker)).toBe(true);
    expect(tracker.cost).toBeGreaterThanOrEqual(100);
    expect(() => prog.evaluate({ a: items }, { cost: 0, limit: 50 })).toThrow(CelCostError);
    // A cost error is never absorbed by && or ||.
    expect(() => env.compile('false || a.exists(i, i < 0)').evaluate({ a: items }, { cost: 0, limit: 50 })).toThrow(CelCostError);
  });

  test('a throw that is not a CEL error becomes a CelEvalError', () => {
    const broken: CelLibrary = { name: 'broken', since: 0, overloads: [{ signature: 'string.explode(): string', impl: () => { throw new TypeError('boom'); } }] };
    const e = env.extend({ libraries: [broken] });
    expect(() => e.compile("'a'.explode()").evaluate({})).toThrow(CelEvalError);
    expect(() => e.compile("'a'.explode()").evaluate({})).toThrow('internal error: boom');
  });

  test('an unbound variable is an evaluation error', () => {
    expect(() => env.compile('s.size()').evaluate({})).toThrow(CelEvalError);
  });
});

test('speed: self.replicas <= self.maxReplicas with a cost tracker (printed, not asserted)', () => {
  class Obj implements CelObject {
    readonly kind = 'object' as const;
    readonly typeName = 'Scale';
    constructor(private readonly fields: Record<string, CelValue>) {}
    field(n: string): CelValue | undefined {
      return this.fields[n];
    }
    hasField(n: string): boolean {
      return n in this.fields;
    }
    fieldNames(): Iterable<string> {
      return Object.keys(this.fields);
    }
  }
  const lines: string[] = [];
  const measure = (label: string, environment: CelEnvironment, selves: CelValue[]): void => {
    const prog = environment.compile('self.replicas <= self.maxReplicas');
    const n = 1_000_000;
    const tracker = { cost: 0, limit: Number.MAX_SAFE_INTEGER };
    let ok = 0;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (prog.evaluate({ self: selves[i & 1]! }, tracker) === true) ok++;
    const ns = Number(process.hrtime.bigint() - start);
    expect(ok).toBe(n / 2);
    lines.push(`  ${label}: ${Math.round((n * 1e9) / ns).toLocaleString('en-US')} evaluations/s (cost ${tracker.cost / n} per evaluation)`);
  };
  const mapEnv = CelEnvironment.create({ variables: { self: 'map<string, int>' } });
  measure('self a CelMap (map<string, int>)', mapEnv, [EntryMap.of([['replicas', 3n], ['maxReplicas', 5n]]), EntryMap.of([['replicas', 6n], ['maxReplicas', 5n]])]);
  const objEnv = CelEnvironment.create({ types: [{ name: 'Scale', fields: { replicas: 'int', maxReplicas: 'int' } }], variables: { self: 'Scale' } });
  measure('self a CelObject (Scale)', objEnv, [new Obj({ replicas: 3n, maxReplicas: 5n }), new Obj({ replicas: 6n, maxReplicas: 5n })]);
  process.stdout.write(`CEL interpreter speed, one thread:\n${lines.join('\n')}\n`);
});
