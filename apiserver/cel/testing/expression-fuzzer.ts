/**
 * A seeded generator of random CEL expressions and activations for the fuzz test (fuzz.test.ts), over the
 * table environment's variables (expression-env.ts).
 *
 * Expressions come from a typed grammar: `gen(type, depth)` picks a production whose result has that type
 * (literals from edge-case pools, variables, operators, macros with bound iteration variables, member and
 * global functions of every Kubernetes library, optionals), so most of them type-check and exercise
 * evaluation; a share is mutated on purpose (a random operand of another type, a truncated text) so the
 * checker and parser see broken input too. Activations mix ordinary values with extremes: huge strings and
 * lists, NaN, infinities, -0, int64/uint64 bounds, astral code points.
 *
 * Deterministic for a seed (mulberry32), so a failure is reproduced with `CEL_FUZZ_SEED`.
 */
import { EntryMap } from '../values/entry-map.js';
import { CelUint, INT64_MAX, INT64_MIN, UINT64_MAX, type CelValue } from '../values/value.js';

export type Rng = () => number;

/** mulberry32: a small, fast, seedable PRNG (uniform in [0, 1)). */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type T = 'int' | 'uint' | 'double' | 'string' | 'bool' | 'bytes' | 'list<int>' | 'list<string>' | 'map<string, int>' | 'dyn' | 'duration' | 'timestamp' | 'optional<int>' | 'optional<string>';
const TYPES: readonly T[] = ['int', 'uint', 'double', 'string', 'bool', 'bytes', 'list<int>', 'list<string>', 'map<string, int>', 'dyn', 'duration', 'timestamp', 'optional<int>', 'optional<string>'];

const INT_LITS = ['0', '1', '-1', '2', '7', '100', '9223372036854775807', '-9223372036854775808', '4611686018427387904', '9007199254740993', '-9007199254740993', '1000000'];
const UINT_LITS = ['0u', '1u', '7u', '18446744073709551615u', '9223372036854775808u'];
const DOUBLE_LITS = ['0.0', '-0.0', '1.5', '-2.25', '1e308', '-1e308', '2.5e-308', '0.1', '9.223372036854775807e18', '(0.0 / 0.0)', '(1.0 / 0.0)', '(-1.0 / 0.0)', "double('NaN')", "double('-Inf')"];
const STRING_LITS = [
  "''", "'a'", "'hello'", "'ÀB'", "'😀x©'", "'%d'", "'%s %s'", "'%.3f'", "'%x'", "'%'", "'a,b,c'", "'  x  '", "','", "'10Mi'", "'1.5Gi'", "'50m'",
  "'9999999999999999999999999999999999999G'", "'8Ei'", "'-1'", "'https://user@example.com:80/p?q=1&q=2#f'", "'/abs'", "'::1'", "'10.0.0.0/8'", "'192.168.0.1'",
  "'2001:db8::/32'", "'[0-9]+'", "'a*'", "'('", "'(a)\\\\1'", "'a(?=b)'", "'.*'", "'(a+)+$'", "'\\\\pL+'", "'(?i)ABC'", "'\\u0000'", "'2024-01-01T00:00:00Z'",
  "'1h'", "'-1.5s'", "'UTC'", "'Australia/Sydney'", "'+01:00'", "'Invalid/Zone'", "'9223372036854775807'", "'1e3'", "'true'", "'app'",
];
const REGEX_LITS = ["'[0-9]+'", "'a*'", "'^h'", "'(a|b)+'", "'.'", "'(?i)l+'", "'\\\\d'", "''", "'x{2,3}'", "'[[:alpha:]]+'", "'\\\\pL'"];
const DURATION_LITS = ["duration('1h')", "duration('-1.5s')", "duration('0s')", "duration('2562047h')", "duration('1ms')", "duration('100000h')"];
const TIMESTAMP_LITS = ["timestamp('2024-01-01T00:00:00Z')", "timestamp('0001-01-01T00:00:00Z')", "timestamp('9999-12-31T23:59:59.999999999Z')", "timestamp('1970-01-01T00:00:00.5+02:00')"];
const TZ_LITS = ["'UTC'", "'Australia/Sydney'", "'-08:00'", "'America/New_York'"];

/** Variables of the table environment by type, for leaves. */
const VARS: Partial<Record<T, readonly string[]>> = {
  int: ['i', 'self.replicas', 'self.big', 'm.a'],
  uint: ['u'],
  double: ['d', 'self.ratio'],
  string: ['s', 'self.name', "self.labels['app']", 'self.metadata.name'],
  bool: ['b', 'self.flag'],
  bytes: ['self.data'],
  'list<int>': ['l'],
  'list<string>': ['ls', 'self.tags', 'self.atomicTags'],
  'map<string, int>': ['m'],
  dyn: ['x', 'self.port', 'oldSelf.port'],
  duration: ['self.timeout'],
  timestamp: ['self.created', 'self.day'],
};

interface Scope {
  readonly vars: ReadonlyArray<readonly [string, T]>;
  readonly next: number;
}

export class ExpressionGenerator {
  constructor(private readonly r: Rng) {}

  private pick<X>(xs: readonly X[]): X {
    return xs[Math.floor(this.r() * xs.length)]!;
  }

  private chance(p: number): boolean {
    return this.r() < p;
  }

  /** A random expression (mostly well-typed; ~10% mutated). */
  expression(): string {
    const type = this.chance(0.55) ? 'bool' : this.pick(TYPES);
    let e = this.gen(type, 2 + Math.floor(this.r() * 3), { vars: [], next: 0 });
    if (this.chance(0.05)) e = `${e} ${this.pick(['+', '==', '<', '&&', 'in', '/'])} ${this.gen(this.pick(TYPES), 1, { vars: [], next: 0 })}`;
    if (this.chance(0.03)) e = e.slice(0, Math.floor(this.r() * e.length));
    if (this.chance(0.02)) e = e.replace(/\)/, '');
    return e;
  }

  private leaf(t: T, sc: Scope): string {
    const bound = sc.vars.filter(([, vt]) => vt === t);
    if (bound.length > 0 && this.chance(0.5)) return this.pick(bound)[0];
    const vars = VARS[t];
    if (vars !== undefined && this.chance(0.4)) return this.pick(vars);
    switch (t) {
      case 'int':
        return this.pick(INT_LITS);
      case 'uint':
        return this.pick(UINT_LITS);
      case 'double':
        return this.pick(DOUBLE_LITS);
      case 'string':
        return this.pick(STRING_LITS);
      case 'bool':
        return this.pick(['true', 'false']);
      case 'bytes':
        return this.pick(["b'abc'", "b''", "b'\\xff\\x00'", "bytes('😀')"]);
      case 'list<int>':
        return this.pick(['[]', '[1, 2, 3]', '[3, 1, 2]', '[9223372036854775807, 1]', '[-9223372036854775808]', 'l']);
      case 'list<string>':
        return this.pick(["['a', 'b']", '[]', "['b', 'a', 'a']", "['', '😀']", 'ls']);
      case 'map<string, int>':
        return this.pick(["{'a': 1}", '{}', "{'a': 1, 'b': 2}", 'm']);
      case 'dyn':
        return this.pick(['x', 'dyn(1)', "dyn('a')", 'dyn(1u)', 'dyn(1.5)', 'dyn([1, 2])', "dyn({'k': 1})", 'dyn(null)', 'self.port']);
      case 'duration':
        return this.pick(DURATION_LITS);
      case 'timestamp':
        return this.pick(TIMESTAMP_LITS);
      case 'optional<int>':
        return this.pick(['optional.of(1)', 'optional.none()', 'l[?0]', "m[?'a']"]);
      case 'optional<string>':
        return this.pick(["optional.of('a')", 'optional.none()', 'ls[?1]', 'self.?name', 'self.?optionalField']);
    }
  }

  /** A comprehension over a list or map, with a fresh iteration variable bound in the body. */
  private bind(sc: Scope, t: T): [string, Scope] {
    const name = `v${sc.next}`;
    return [name, { vars: [...sc.vars, [name, t]], next: sc.next + 1 }];
  }

  gen(t: T, depth: number, sc: Scope): string {
    if (depth <= 0 || this.chance(0.25)) return this.leaf(t, sc);
    const g = (tt: T): string => this.gen(tt, depth - 1, sc);
    const p = (): string => this.pick(REGEX_LITS);
    // A wrongly-typed operand now and then: the checker must refuse it, never crash.
    const any = (tt: T): string => (this.chance(0.02) ? g(this.pick(TYPES)) : g(tt));
    const options: Array<() => string> = [];
    const add = (...fs: Array<() => string>): void => {
      options.push(...fs);
    };
    switch (t) {
      case 'int':
        add(
          () => `${any('int')} ${this.pick(['+', '-', '*', '/', '%'])} ${g('int')}`,
          () => `-${g('int')}`,
          () => `size(${g(this.pick(['string', 'list<int>', 'list<string>', 'bytes', 'map<string, int>'] as const))})`,
          () => `${g('string')}.indexOf(${g('string')}${this.chance(0.5) ? `, ${g('int')}` : ''})`,
          () => `${g('string')}.lastIndexOf(${g('string')}${this.chance(0.5) ? `, ${g('int')}` : ''})`,
          () => `${g('list<int>')}.${this.pick(['sum', 'min', 'max'])}()`,
          () => `${g('list<int>')}.indexOf(${g('int')})`,
          () => `int(${g(this.pick(['double', 'uint', 'string', 'timestamp', 'int'] as const))})`,
          () => `${g('list<int>')}[${g('int')}]`,
          () => `${g('map<string, int>')}[${g('string')}]`,
          () => `${g('bool')} ? ${g('int')} : ${g('int')}`,
          () => `quantity(${g('string')}).${this.pick(['asInteger()', 'sign()', `compareTo(quantity(${g('string')}))`])}`,
          () => `ip(${g('string')}).family()`,
          () => `cidr(${g('string')}).prefixLength()`,
          () => `${g('duration')}.${this.pick(['getSeconds', 'getMinutes', 'getHours', 'getMilliseconds'])}()`,
          () => `${g('timestamp')}.${this.pick(['getFullYear', 'getMonth', 'getDayOfYear', 'getHours', 'getDate'])}(${this.chance(0.5) ? this.pick(TZ_LITS) : ''})`,
          () => `${g('optional<int>')}.${this.pick(['value()', `orValue(${g('int')})`])}`,
          () => {
            const [v, inner] = this.bind(sc, 'int');
            return `${g('list<int>')}.filter(${v}, ${this.gen('bool', depth - 1, inner)}).size()`;
          },
          () => `${g('list<string>')}.lastIndexOf(${g('string')})`,
          () => `int(${g('dyn')})`,
        );
        break;
      case 'uint':
        add(
          () => `${g('uint')} ${this.pick(['+', '-', '*', '/', '%'])} ${g('uint')}`,
          () => `uint(${g(this.pick(['int', 'double', 'string'] as const))})`,
          () => `[${g('uint')}, ${g('uint')}].sum()`,
        );
        break;
      case 'double':
        add(
          () => `${g('double')} ${this.pick(['+', '-', '*', '/'])} ${g('double')}`,
          () => `double(${g(this.pick(['int', 'uint', 'string'] as const))})`,
          () => `quantity(${g('string')}).asApproximateFloat()`,
          () => `[${g('double')}, ${g('double')}].${this.pick(['sum', 'min', 'max'])}()`,
          () => `-${g('double')}`,
        );
        break;
      case 'string':
        add(
          () => `${g('string')} + ${g('string')}`,
          () => `${g('string')}.${this.pick(['lowerAscii', 'upperAscii', 'trim'])}()`,
          () => `${g('string')}.replace(${g('string')}, ${g('string')}${this.chance(0.5) ? `, ${g('int')}` : ''})`,
          () => `${g('string')}.substring(${g('int')}${this.chance(0.5) ? `, ${g('int')}` : ''})`,
          () => `${g('string')}.charAt(${g('int')})`,
          () => `${g('list<string>')}.join(${this.chance(0.5) ? g('string') : ''})`,
          () => `string(${g(this.pick(['int', 'uint', 'double', 'bool', 'bytes', 'timestamp', 'duration', 'string'] as const))})`,
          () => `${g('string')}.find(${this.chance(0.8) ? p() : g('string')})`,
          () => `${this.pick(["'%s'", "'%d'", "'%s and %s'", "'%.2f'", "'%b'", "'%x %o'", "'%e'", "'%%'", "'%10s'"])}.format([${g(this.pick(TYPES))}${this.chance(0.5) ? `, ${g(this.pick(TYPES))}` : ''}])`,
          () => `strings.quote(${g('string')})`,
          () => `url(${g('string')}).${this.pick(['getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath'])}()`,
          () => `string(ip(${g('string')}))`,
          () => `string(cidr(${g('string')})${this.chance(0.5) ? '.masked()' : ''})`,
          () => `${g('bool')} ? ${g('string')} : ${g('string')}`,
          () => `${g('optional<string>')}.orValue(${g('string')})`,
          () => `${g('list<string>')}[${g('int')}]`,
          () => `authorizer.group('').resource(${g('string')}).check(${g('string')}).reason()`,
        );
        break;
      case 'bool':
        add(
          () => {
            const tt = this.pick(TYPES);
            return `${any(tt)} ${this.pick(['==', '!='])} ${g(tt)}`;
          },
          () => {
            const tt = this.pick(['int', 'uint', 'double', 'string', 'duration', 'timestamp', 'bytes', 'bool'] as const);
            const other = tt === 'int' || tt === 'uint' || tt === 'double' ? this.pick(['int', 'uint', 'double'] as const) : tt;
            return `${g(tt)} ${this.pick(['<', '<=', '>', '>='])} ${g(other)}`;
          },
          () => `${g('bool')} ${this.pick(['&&', '||'])} ${g('bool')}`,
          () => `!${g('bool')}`,
          () => `${g('string')}.${this.pick(['contains', 'startsWith', 'endsWith'])}(${g('string')})`,
          () => `${g('string')}.matches(${this.chance(0.7) ? p() : g('string')})`,
          () => `${g('int')} in ${g('list<int>')}`,
          () => `${g('string')} in ${g(this.pick(['list<string>', 'map<string, int>'] as const))}`,
          () => {
            const lt = this.pick(['list<int>', 'list<string>', 'map<string, int>'] as const);
            const [v, inner] = this.bind(sc, lt === 'list<int>' ? 'int' : 'string');
            return `${g(lt)}.${this.pick(['all', 'exists', 'exists_one'])}(${v}, ${this.gen('bool', depth - 1, inner)})`;
          },
          () => `${this.pick(['isURL', 'isIP', 'isCIDR', 'isQuantity'])}(${g('string')})`,
          () => `sets.${this.pick(['contains', 'intersects', 'equivalent'])}(${g('list<string>')}, ${g('list<string>')})`,
          () => `${g(this.pick(['list<int>', 'list<string>'] as const))}.isSorted()`,
          () => `quantity(${g('string')}).${this.pick(['isLessThan', 'isGreaterThan'])}(quantity(${g('string')}))`,
          () => `quantity(${g('string')}).isInteger()`,
          () => `ip(${g('string')}).${this.pick(['isLoopback', 'isUnspecified', 'isGlobalUnicast', 'isLinkLocalMulticast', 'isLinkLocalUnicast'])}()`,
          () => `cidr(${g('string')}).${this.pick(['containsIP', 'containsCIDR'])}(${g('string')})`,
          () => `ip.isCanonical(${g('string')})`,
          () => `${g(this.pick(['optional<int>', 'optional<string>'] as const))}.hasValue()`,
          () => `format.${this.pick(['dns1123Label', 'dns1123Subdomain', 'qualifiedName', 'uri', 'uuid', 'byte', 'date', 'datetime', 'labelValue'])}().validate(${g('string')}).hasValue()`,
          () => `authorizer.group('').resource(${g('string')}).check(${g('string')}).allowed()`,
          () => `type(${g('dyn')}) == ${this.pick(['int', 'string', 'list', 'map', 'double', 'uint', 'bool', 'null_type'])}`,
          () => `has(self.${this.pick(['optionalField', 'name', 'nested', 'labels', 'port'])})`,
          () => `has(m.${this.pick(['a', 'b'])})`,
          () => `self.tags == oldSelf.tags || self.ports == oldSelf.ports`,
          () => `${g('dyn')} == ${g('dyn')}`,
          () => `${g('dyn')} < ${g(this.pick(['int', 'double', 'uint', 'dyn'] as const))}`,
        );
        break;
      case 'bytes':
        add(
          () => `bytes(${g('string')})`,
          () => `${g('bytes')} + ${g('bytes')}`,
        );
        break;
      case 'list<int>':
        add(
          () => `[${g('int')}, ${g('int')}]`,
          () => {
            const [v, inner] = this.bind(sc, 'int');
            return `${g('list<int>')}.map(${v}, ${this.gen('int', depth - 1, inner)})`;
          },
          () => {
            const [v, inner] = this.bind(sc, 'int');
            return `${g('list<int>')}.filter(${v}, ${this.gen('bool', depth - 1, inner)})`;
          },
          () => `${g('list<int>')} + ${g('list<int>')}`,
          () => {
            const [v, inner] = this.bind(sc, 'string');
            return `${g('list<string>')}.map(${v}, size(${this.gen('string', depth - 1, inner)}))`;
          },
          () => `[?${g('optional<int>')}, ${g('int')}]`,
        );
        break;
      case 'list<string>':
        add(
          () => `${g('string')}.split(${g('string')}${this.chance(0.5) ? `, ${g('int')}` : ''})`,
          () => `${g('string')}.findAll(${this.chance(0.8) ? p() : g('string')}${this.chance(0.4) ? `, ${g('int')}` : ''})`,
          () => `[${g('string')}, ${g('string')}]`,
          () => `${g('list<string>')} + ${g('list<string>')}`,
          () => {
            const [v, inner] = this.bind(sc, 'int');
            return `${g('list<int>')}.map(${v}, string(${this.gen('int', depth - 1, inner)}))`;
          },
          () => `${g('map<string, int>')}.map(k, k)`,
          () => `url(${g('string')}).getQuery()[${g('string')}]`,
          () => `format.${this.pick(['dns1123Label', 'uuid'])}().validate(${g('string')}).orValue([])`,
          () => `self.tags + ${g('list<string>')}`,
        );
        break;
      case 'map<string, int>':
        add(
          () => `{${g('string')}: ${g('int')}}`,
          () => `{${g('string')}: ${g('int')}, ${g('string')}: ${g('int')}}`,
        );
        break;
      case 'dyn':
        add(
          () => `dyn(${g(this.pick(TYPES))})`,
          () => `${g('bool')} ? dyn(${g('int')}) : dyn(${g('string')})`,
          () => `[${g('dyn')}, ${g('dyn')}][${g('int')}]`,
          () => `{'k': ${g('dyn')}}.k`,
        );
        break;
      case 'duration':
        add(
          () => `${g('duration')} ${this.pick(['+', '-'])} ${g('duration')}`,
          () => `${g('timestamp')} - ${g('timestamp')}`,
          () => `duration(${g('string')})`,
          () => `[${g('duration')}, ${g('duration')}].${this.pick(['sum', 'min', 'max'])}()`,
        );
        break;
      case 'timestamp':
        add(
          () => `${g('timestamp')} ${this.pick(['+', '-'])} ${g('duration')}`,
          () => `timestamp(${g(this.pick(['string', 'int'] as const))})`,
        );
        break;
      case 'optional<int>':
        add(
          () => `optional.of(${g('int')})`,
          () => `optional.ofNonZeroValue(${g('int')})`,
          () => `${g('list<int>')}[?${g('int')}]`,
          () => `${g('map<string, int>')}[?${g('string')}]`,
          () => `${g('optional<int>')}.or(${g('optional<int>')})`,
          () => {
            const [v, inner] = this.bind(sc, 'int');
            return `${g('optional<int>')}.optMap(${v}, ${this.gen('int', depth - 1, inner)})`;
          },
          () => `m.?${this.pick(['a', 'b'])}`,
        );
        break;
      case 'optional<string>':
        add(
          () => `optional.of(${g('string')})`,
          () => `${g('list<string>')}[?${g('int')}]`,
          () => `self.?nested.?inner.?value`,
          () => `${g('optional<string>')}.or(${g('optional<string>')})`,
        );
        break;
    }
    return this.pick(options)();
  }
}

// ---- activations ---------------------------------------------------------------------------------------

const HUGE_STRING = 'a'.repeat(1_000_000);
const HUGE_ASTRAL = '😀'.repeat(200_000);
const HUGE_LIST: bigint[] = Array.from({ length: 100_000 }, (_, k) => BigInt(k));
const HUGE_STRINGS: string[] = Array.from({ length: 10_000 }, (_, k) => `item-${k}`);

const STRINGS: readonly string[] = ['', 'hello', 'ÀB straße', '😀x©', 'a,b,c', '%s', '10Mi', 'https://example.com/x?y=1', '::1', '10.0.0.0/8', '(a)\\1', HUGE_STRING, HUGE_ASTRAL, '\u0000\uffff', 'a'.repeat(5000)];
const INTS: readonly bigint[] = [0n, 1n, -1n, 42n, INT64_MAX, INT64_MIN, 9007199254740993n, 2n ** 32n];
const DOUBLES: readonly number[] = [0, -0, 1.5, NaN, Infinity, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 63, -(2 ** 63), 1e-300];
const UINTS: readonly CelUint[] = [new CelUint(0n), new CelUint(1n), new CelUint(UINT64_MAX), new CelUint(2n ** 63n)];
const LISTS: readonly CelValue[][] = [[], [1n, 2n, 3n], [INT64_MAX, 1n], [INT64_MIN, -1n], HUGE_LIST, [3n, 1n, 2n]];
const STRING_LISTS: readonly string[][] = [[], ['x', 'y'], ['b', 'a', 'a'], ['', '😀'], HUGE_STRINGS];
const MAPS = [EntryMap.of([]), EntryMap.of([['a', 1n]]), EntryMap.of([['a', INT64_MAX], ['b', INT64_MIN]]), EntryMap.of(HUGE_STRINGS.slice(0, 5000).map((s, k) => [s, BigInt(k)]))];

/** Random values for the plain variables (self/oldSelf/authorizer come from the table's activation). */
export function randomVariables(r: Rng): Record<string, CelValue> {
  const pick = <X>(xs: readonly X[]): X => xs[Math.floor(r() * xs.length)]!;
  const dynPool: readonly CelValue[] = [...STRINGS.slice(0, 6), ...INTS, ...DOUBLES, ...UINTS, null, true, ...LISTS.slice(0, 3), ...MAPS.slice(0, 2)];
  return {
    s: pick(STRINGS),
    i: pick(INTS),
    d: pick(DOUBLES),
    u: pick(UINTS),
    b: r() < 0.5,
    l: pick(LISTS),
    ls: pick(STRING_LISTS),
    m: pick(MAPS),
    x: pick(dynPool),
  };
}
