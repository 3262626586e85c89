/**
 * The cost model against Kubernetes 1.32.
 *
 * Static rows: each rule over a reference schema, without and with maxItems/maxProperties/maxLength; the
 * expected numbers are computed by hand from Kubernetes' rules (comment per row) and are the numbers
 * Kubernetes' own CRD cost tests expect for the same rule and schema (apiextensions-apiserver
 * schema/cel TestCostEstimation, names kept). Sizes (3 MiB = 3145728 bytes):
 *   string without maxLength: 3145726 (3 MiB - 2); with maxLength n: 4n
 *   list without maxItems: floor(3145726 / (min item size + 1)); map without maxProperties:
 *   floor(3145726 / (min value size + 6)); min sizes: number/int 1, string 2, bool 4, list/map/object 2
 *   (+ required properties), duration 3, date 12, date-time 21, int-or-string 1.
 * Comprehension `self.all(x, p)`: self 1 + result 1 + n x (condition 2 + step 1 + p).
 *
 * Runtime rows: inputs whose actual cost is computed by hand with cel-go's runtime costs.
 */
import { CelCostError } from '../errors.js';
import { CelEnvironment, type CelProgram } from '../interpreter/environment.js';
import { KUBERNETES_LIBRARIES } from '../library/libraries.js';
import { objectTypesOf, schemaDeclType, type DeclType } from '../types/decl-type.js';
import type { SchemaNode } from '../types/schema-node.js';
import { EntryMap } from '../values/entry-map.js';
import type { CelValue } from '../values/value.js';
import { CostBudget, CostBudgetExceededError } from './budget.js';
import { declTypeSizeEstimator } from './decl-sizes.js';
import { estimateCost } from './estimator.js';
import { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from './limits.js';
import { COST_LIMIT_EXCEEDED, costExceedsBudgetMessage, OUT_OF_BUDGET, RULE_COST_NAME } from './messages.js';
import { ruleCostProblem, totalCostProblem } from './static-check.js';

// ---- schemas ------------------------------------------------------------------------------------------

type Max = number | undefined;
const prim = (type: string, format?: string): SchemaNode => (format === undefined ? { type } : { type, format });
const scalar = (t: string): SchemaNode => {
  if (t === 'int-or-string') return { 'x-kubernetes-int-or-string': true };
  if (t === 'duration' || t === 'date' || t === 'date-time') return prim('string', t);
  return prim(t);
};
const withMax = (s: SchemaNode, key: string, max: Max): SchemaNode => (max === undefined ? s : { ...s, [key]: max });
const arrayOf = (items: SchemaNode, max: Max): SchemaNode => withMax({ type: 'array', items }, 'maxItems', max);
const mapOf = (value: SchemaNode, max: Max): SchemaNode => withMax({ type: 'object', additionalProperties: value }, 'maxProperties', max);
const str = (max: Max): SchemaNode => withMax({ type: 'string' }, 'maxLength', max);
const objectWithRequired = (): SchemaNode => ({
  type: 'object',
  required: ['required'],
  properties: { required: { type: 'string' }, optional: { type: 'string' } },
});
const object = (props: Record<string, SchemaNode>): SchemaNode => ({ type: 'object', properties: props });

// ---- compile and estimate -------------------------------------------------------------------------------

interface Compiled {
  readonly env: CelEnvironment;
  readonly program: CelProgram;
  readonly decl: DeclType;
}

function compileOver(schema: SchemaNode, rule: string): Compiled {
  const decl = schemaDeclType(schema)!;
  const types = [...objectTypesOf(decl).values()].reverse().map((o) => ({
    name: o.name,
    fields: Object.fromEntries([...o.fields].map(([n, f]) => [n, f.type.celType])),
  }));
  const env = CelEnvironment.create({ libraries: KUBERNETES_LIBRARIES, types, variables: { self: decl.celType, oldSelf: decl.celType } });
  return { env, program: env.compile(rule), decl };
}

function estimate(schema: SchemaNode, rule: string): { min: bigint; max: bigint } {
  const { env, program, decl } = compileOver(schema, rule);
  return estimateCost(program.ast!, env, { sizes: declTypeSizeEstimator(decl) });
}

// ---- the reference table ----------------------------------------------------------------------------

interface Row {
  readonly name: string;
  readonly schema: (max: Max) => SchemaNode;
  readonly rule: string;
  /** The max estimate without the bound. */
  readonly calc: bigint;
  readonly setMax: number;
  /** The max estimate with the bound set to setMax. */
  readonly set: bigint;
}

const N = 1572863n; // numbers: floor(3145726 / 2)

const ROWS: readonly Row[] = [
  // 1 + 1 + 1572863 x 3 = 4718591; with 10 items: 2 + 30
  { name: 'number array with all', schema: (m) => arrayOf(prim('number'), m), rule: 'self.all(x, true)', calc: 4718591n, setMax: 10, set: 32n },
  // n = floor(3145726 / 3) = 1048575: 2 + 3n = 3145727; 20 items: 62
  { name: 'string array with all', schema: (m) => arrayOf(prim('string'), m), rule: 'self.all(x, true)', calc: 3145727n, setMax: 20, set: 62n },
  // n = floor(3145726 / 5) = 629145: 2 + 3n = 1887437; 5 items: 17
  { name: 'boolean array with all', schema: (m) => arrayOf(prim('boolean'), m), rule: 'self.all(x, true)', calc: 1887437n, setMax: 5, set: 17n },
  // inner arrays are at least `[]` (2): n = 1048575 -> 3145727; 100 items: 302
  { name: 'array of number arrays with all', schema: (m) => arrayOf(arrayOf(prim('number'), undefined), m), rule: 'self.all(x, true)', calc: 3145727n, setMax: 100, set: 302n },
  // object min size 2 + len("required") 8 + 2 + 4 = 16: n = floor(3145726 / 17) = 185042 -> 555128; 50: 152
  { name: 'array of objects with all', schema: (m) => arrayOf(objectWithRequired(), m), rule: 'self.all(x, true)', calc: 555128n, setMax: 50, set: 152n },
  // map of numbers: n = floor(3145726 / 7) = 449389 -> 2 + 3n = 1348169; 10: 32
  { name: 'map of numbers with all', schema: (m) => mapOf(prim('number'), m), rule: 'self.all(x, true)', calc: 1348169n, setMax: 10, set: 32n },
  // map of strings: n = floor(3145726 / 8) = 393215 -> 1179647; 3: 11
  { name: 'map of strings with all', schema: (m) => mapOf(prim('string'), m), rule: 'self.all(x, true)', calc: 1179647n, setMax: 3, set: 11n },
  // map of booleans: n = floor(3145726 / 10) = 314572 -> 943718; 100: 302
  { name: 'map of booleans with all', schema: (m) => mapOf(prim('boolean'), m), rule: 'self.all(x, true)', calc: 943718n, setMax: 100, set: 302n },
  // self 1 + ceil(0.1 x 3145726) x ceil(0.1 x 4) = 1 + 314573 = 314574; maxLength 10 (40 bytes): 1 + 4 x 1
  { name: 'string with contains', schema: str, rule: "self.contains('test')", calc: 314574n, setMax: 10, set: 5n },
  // startsWith costs the argument: 1 + ceil(0.4) = 2 either way
  { name: 'string with startsWith', schema: str, rule: "self.startsWith('test')", calc: 2n, setMax: 15, set: 2n },
  { name: 'string with endsWith', schema: str, rule: "self.endsWith('test')", calc: 2n, setMax: 30, set: 2n },
  // self 1 + concat ceil(0.1 x (3145726 + 5)) = 314574 + size 1 + size 1 + > 1 = 314578; maxLength 4: 1 + ceil(2.1) + 3 = 7
  { name: 'concat string', schema: str, rule: 'size(self + "hello") > size("hello")', calc: 314578n, setMax: 4, set: 7n },
  // self 1 + index 1 + == on a number (schema size 0: cost 0) = 2
  { name: 'index of array with numbers', schema: (m) => arrayOf(prim('number'), m), rule: 'self[1] == 0.0', calc: 2n, setMax: 5000, set: 2n },
  // (1 + 1) x 2 + ceil(0.1 x 3145726) = 314577 (the items have no maxLength either way)
  { name: 'index of array with strings', schema: (m) => arrayOf(prim('string'), m), rule: 'self[1] == self[1]', calc: 314577n, setMax: 8, set: 314577n },
  // 10 items: inner = 2 + 10 x 3 = 32; outer 2 + 10 x (2 + 1 + 32) = 352; unbounded: 2 + N x (3 + 2 + 3N)
  {
    name: 'O(n^2) loop with numbers',
    schema: (m) => arrayOf(prim('number'), m),
    rule: 'self.all(x, self.all(y, true))',
    calc: 2n + N * (3n + 2n + 3n * N),
    setMax: 10,
    set: 352n,
  },
  // 10 items: 2 + 10 x (3 + 352) = 3552; unbounded: c1 = 2 + 3N, c2 = 2 + N(3 + c1), c3 = 2 + N(3 + c2) (about 1.2e19, under 2^64)
  {
    name: 'O(n^3) loop with numbers',
    schema: (m) => arrayOf(prim('number'), m),
    rule: 'self.all(x, self.all(y, self.all(z, true)))',
    calc: 2n + N * (3n + 2n + N * (3n + 2n + 3n * N)),
    setMax: 10,
    set: 3552n,
  },
  // 1 + ceil(0.1 x (3145726 + 1)) x ceil(0.25 x 1) = 314574; maxLength 50 (200): 1 + ceil(20.1) x 1 = 22
  { name: 'regex matches simple', schema: str, rule: 'self.matches("x")', calc: 314574n, setMax: 50, set: 22n },
  // literals: ceil(0.1 x 1) x ceil(0.25 x 25) = 7
  { name: 'regex matches empty string', schema: str, rule: '"".matches("(((((((((())))))))))[0-9]")', calc: 7n, setMax: 10, set: 7n },
  // an empty regex: ceil(0.25 x 0) = 0 -> 1
  { name: 'regex matches empty regex', schema: str, rule: 'self.matches("")', calc: 1n, setMax: 100, set: 1n },
  // keys estimate as size 0 (Kubernetes' key type), so contains is 0: per entry 2 + 1 + (1 + 3 + 0) = 7; 2 + 7 x 393215
  {
    name: 'map of strings with value length',
    schema: (m) => mapOf(str(m), m),
    rule: 'self.all(x, x.contains(self[x]))',
    calc: 2752507n,
    setMax: 10,
    set: 72n,
  },
  { name: 'set array maxLength to zero', schema: (m) => arrayOf(prim('number'), m), rule: 'self[3] == 0.0', calc: 2n, setMax: 0, set: 2n },
  // self 1 + index 1 + == 0 (number schema size 0)
  { name: 'set map maxLength to zero', schema: (m) => mapOf(prim('number'), m), rule: 'self["x"] == 0.0', calc: 2n, setMax: 0, set: 2n },
  // == : min(3145726, 1) = 1 -> ceil(0.1) = 1, total 2; maxLength 0: min(0, 1) = 0 -> 0, total 1
  { name: 'set string maxLength to zero', schema: str, rule: 'self == "x"', calc: 2n, setMax: 0, set: 1n },
  { name: 'set bytes maxLength to zero', schema: (m) => withMax(prim('string', 'byte'), 'maxLength', m), rule: 'self == b"x"', calc: 2n, setMax: 0, set: 1n },
  // per item 2 + 1 + (x 1 + == 0) = 4: 2 + 4N = 6291454; 6291456 items: 2 + 4 x 6291456 = 25165826
  {
    name: 'set maxLength greater than estimated maxLength',
    schema: (m) => arrayOf(prim('number'), m),
    rule: 'self.all(x, x == 0.0)',
    calc: 6291454n,
    setMax: 3 * 1024 * 2048,
    set: 25165826n,
  },
  // items are maps (min 2): n = 1048575; per item 2 + 1 + (x 1 + index 1 + select 1 + == 1) = 7 -> 7340027; 10: 72
  {
    name: 'nested types with root rule with all supporting maxLength',
    schema: (m) => arrayOf(withMax(mapOf(withMax(objectWithRequired(), 'maxProperties', m), m), 'maxProperties', m), m),
    rule: 'self.all(x, x["y"].required == "z")',
    calc: 7340027n,
    setMax: 10,
    set: 72n,
  },
  // int-or-string min size 1: as numbers
  { name: 'int-or-string array with all', schema: (m) => arrayOf(scalar('int-or-string'), m), rule: 'self.all(x, true)', calc: 4718591n, setMax: 10, set: 32n },
  // self 1 + index 1 + == min(3145726, 1) -> 1 = 3
  { name: 'index of array with int-or-strings', schema: (m) => arrayOf(scalar('int-or-string'), m), rule: 'self[0] == 5', calc: 3n, setMax: 10, set: 3n },
  // self 1 + index 1 + select 1 (on a map) + > 1 = 4
  { name: 'index of array of number maps', schema: (m) => arrayOf(mapOf(prim('number'), undefined), m), rule: 'self[0].x > 2.0', calc: 4n, setMax: 3000, set: 4n },
  // durations min 3: n = floor(3145726 / 9) = 349525 -> 2 + 3n = 1048577
  { name: 'map of durations with all', schema: (m) => mapOf(scalar('duration'), m), rule: 'self.all(x, true)', calc: 1048577n, setMax: 5, set: 17n },
  // dates min 12: n = floor(3145726 / 13) = 241978 -> 725936
  { name: 'date array with all', schema: (m) => arrayOf(scalar('date'), m), rule: 'self.all(x, true)', calc: 725936n, setMax: 15, set: 47n },
  // date-times min 21: n = floor(3145726 / 22) = 142987 -> 428963
  { name: 'date-time array with all', schema: (m) => arrayOf(scalar('date-time'), m), rule: 'self.all(x, true)', calc: 428963n, setMax: 25, set: 77n },
  // self 1 + index 1 + getHours 1 + == 1 (an int result: scalar size 1) = 4
  { name: 'index of duration array', schema: (m) => arrayOf(scalar('duration'), m), rule: 'self[0].getHours() == 2', calc: 4n, setMax: 525, set: 4n },
  // find: ceil(0.1 x 3145727) x ceil(0.25 x 6) = 314573 x 2 = 629146; == '' (size 0) 0; + self 1; maxLength 10: ceil(4.1) x 2 + 1 = 11
  { name: 'extended library regex find', schema: str, rule: "self.find('[0-9]+') == ''", calc: 629147n, setMax: 10, set: 11n },
  // join: size = 1048575 x 3145726 + 1 x 1048574; ceil(0.1 x size) = 329853068904, + self 1 + == 1 (min with 5 chars)
  // bounded 10/10: size = 10 x 40 + 9 = 409 -> 41 + 1 + 1 = 43
  {
    name: 'extended library join',
    schema: (m) => arrayOf(str(m), m),
    rule: "self.join(' ') == 'aa bb'",
    calc: 329853068905n,
    setMax: 10,
    set: 43n,
  },
  // isSorted on strings: n x (1 + ceil(0.1 x 3145726)) = 1048575 x 314574, + self 1 + == 1; 10/10: 10 x 5 + 2 = 52
  { name: 'extended library isSorted', schema: (m) => arrayOf(str(m), m), rule: 'self.isSorted() == true', calc: 329854432052n, setMax: 10, set: 52n },
  // replace: ceil(0.2 x 3145726) = 629146; operands 2 + 2 + 2; == against 15 chars: ceil(1.5) = 2 -> 629154; maxLength 4: ceil(3.2) + 6 + 2 = 12
  {
    name: 'extended library replace',
    schema: (m) => object({ str: str(m), before: str(2), after: str(4) }),
    rule: "self.str.replace(self.before, self.after) == 'does not matter'",
    calc: 629154n,
    setMax: 4,
    set: 12n,
  },
  // split: ceil(0.2 x 3145726) = 629146 + operands 4 + [] 10 + == 0 (empty list) = 629160; maxLength 10: 8 + 4 + 10 = 22
  {
    name: 'extended library split',
    schema: (m) => object({ str: str(m), separator: str(m) }),
    rule: 'self.str.split(self.separator) == []',
    calc: 629160n,
    setMax: 10,
    set: 22n,
  },
  // lowerAscii: 1 + 314573 + == ceil(0.1 x 6) = 314575; maxLength 10: 1 + 4 + 1 = 6
  { name: 'extended library lowerAscii', schema: str, rule: "self.lowerAscii() == 'lower!'", calc: 314575n, setMax: 10, set: 6n },
  // oldSelf 1 + size 1 + self 1 + size 1 + == 1
  { name: 'check cost of size call', schema: (m) => mapOf(prim('integer'), m), rule: 'oldSelf.size() == self.size()', calc: 5n, setMax: 10, set: 5n },
  // (1 + 1) x 2 + == ceil(0.1 x 32) (date-time schema size 32) = 8
  { name: 'check cost of timestamp comparison', schema: (m) => mapOf(scalar('date-time'), m), rule: 'self["a"] == self["b"]', calc: 8n, setMax: 7, set: 8n },
  { name: 'check cost of duration comparison', schema: (m) => mapOf(scalar('duration'), m), rule: 'self["c"] == self["d"]', calc: 8n, setMax: 42, set: 8n },
  // enum without maxLength: longest value 9 bytes -> 1 + ceil(0.9) x ceil(0.1) = 2; maxLength 1000 (4000): 1 + 400 = 401
  {
    name: 'enums with maxLength equals to the longest possible value',
    schema: (m) => withMax({ type: 'string', enum: ['A', 'B', 'C', 'LongValue'] }, 'maxLength', m),
    rule: "self.contains('A')",
    calc: 2n,
    setMax: 1000,
    set: 401n,
  },
];

describe('static estimate: Kubernetes reference rules', () => {
  it('has at least 30 reference rules', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(30);
  });
  for (const row of ROWS) {
    it(`${row.name}: ${row.rule} (no bound)`, () => {
      expect(estimate(row.schema(undefined), row.rule).max).toBe(row.calc);
    });
    it(`${row.name}: ${row.rule} (bound ${row.setMax})`, () => {
      expect(estimate(row.schema(row.setMax), row.rule).max).toBe(row.set);
    });
  }

  it('min is the cheapest path: && stops after a false left side', () => {
    // self 1 + ident... `self.size() > 0 && self.all(x, x > 0)`: min = size 1 + self 1 + > 1 = 3
    const c = estimate(arrayOf(prim('integer'), 10), 'self.size() > 0 && self.all(x, x > 0)');
    expect(c.min).toBe(3n);
    // max: 3 + (self 1 + result 1 + 10 x (2 + 1 + x 1 + > 1)) = 3 + 52
    expect(c.max).toBe(55n);
  });

  it('is deterministic: the same rule and schema give the same number every time', () => {
    const s = arrayOf(object({ name: str(63), ports: arrayOf(prim('integer'), 16) }), 100);
    const rule = "self.all(p, p.name.matches('^[a-z-]+$') && p.ports.all(q, q > 0 && q < 65536))";
    const first = estimate(s, rule);
    for (let i = 0; i < 5; i++) expect(estimate(s, rule)).toEqual(first);
  });
});

describe('static limit: refusal with the exact message', () => {
  it('O(n^2) over an unbounded list is refused: more than 100x', () => {
    const c = estimate(arrayOf(prim('number'), undefined), 'self.all(x, self.all(y, true))');
    expect(ruleCostProblem(c.max)).toBe(
      'estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    );
  });

  it('a factor below 1.5 is printed with six decimals (Go %f)', () => {
    // 2,500,000 items: 2 + 2500000 x (2 + 1 + x 1 + > 1) = 12,500,002 -> 1.2500002
    const c = estimate(arrayOf(prim('integer'), 2_500_000), 'self.all(x, x > 0)');
    expect(c.max).toBe(12_500_002n);
    expect(ruleCostProblem(c.max)).toBe(costExceedsBudgetMessage(RULE_COST_NAME, 12_500_002n, 10_000_000));
    expect(ruleCostProblem(c.max)).toContain('exceeds budget by factor of 1.250000x (try simplifying');
  });

  it('a factor from 1.5 to 100 has one decimal (Go %.1f)', () => {
    // 5,000,000 items: 2 + 5 x 5,000,000 = 25,000,002 -> 2.5
    const c = estimate(arrayOf(prim('integer'), 5_000_000), 'self.all(x, x > 0)');
    expect(ruleCostProblem(c.max)).toContain('estimated rule cost exceeds budget by factor of 2.5x (try simplifying the rule');
  });

  it('a rule within the limit passes; cardinality multiplies', () => {
    const c = estimate(arrayOf(prim('integer'), 100), 'self.all(x, x > 0)'); // 502
    expect(c.max).toBe(502n);
    expect(ruleCostProblem(c.max)).toBeUndefined();
    expect(ruleCostProblem(c.max, 100_000n)).toContain('by factor of 5.0x');
  });

  it('the CRD total has its own name and limit', () => {
    expect(totalCostProblem(100_000_000n)).toBeUndefined();
    expect(totalCostProblem(120_000_000n)).toBe(
      'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.200000x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    );
  });
});

// ---- runtime -------------------------------------------------------------------------------------------

const obj = (o: Record<string, CelValue>): CelValue => EntryMap.of(Object.entries(o));

function runCost(rule: string, self: CelValue, variables: Record<string, string> = { self: 'dyn' }): { value: CelValue; cost: number } {
  const env = CelEnvironment.create({ libraries: KUBERNETES_LIBRARIES, variables });
  const tracker = { cost: 0, limit: PER_CALL_LIMIT };
  const value = env.compile(rule).evaluate({ self }, tracker);
  return { value, cost: tracker.cost };
}

describe('runtime cost: cel-go units', () => {
  const cases: [string, string, CelValue, Record<string, string>, number][] = [
    // self 1 + .replicas 1 + self 1 + .maxReplicas 1 + <= 1
    ['field comparison', 'self.replicas <= self.maxReplicas', obj({ replicas: 3n, maxReplicas: 5n }), { self: 'map<string, int>' }, 5],
    // self 1 + 3 x (condition 2 + @result 1 + x 1 + > 1) + result 1 = 17
    ['all over three items', 'self.all(x, x > 0)', [1n, 2n, 3n], { self: 'list<int>' }, 17],
    // self 1 + (3 + 1 + 2) x 2 + the next condition 3 + result 1 = 17
    ['exists stops after the match', 'self.exists(x, x == 2)', [1n, 2n, 3n], { self: 'list<int>' }, 17],
    // self 1 + [] 10 + 2 x (12 + x 1 + * 1) + result 1 = 40
    ['map', 'self.map(x, x * 2)', [1n, 2n], { self: 'list<int>' }, 40],
    // self 1 + [] 10 + (2 + 1) + (2 + 13) x 2 + result 1 = 45
    ['filter', 'self.filter(x, x > 1)', [1n, 2n, 3n], { self: 'list<int>' }, 45],
    // literal 0 + self.s 2 + concat ceil(0.6) 1 + == ceil(0.6) 1 = 4
    ['string concatenation and equality', "'abc' + self.s == 'abcdef'", obj({ s: 'def' }), { self: 'map<string, string>' }, 4],
    // self.s 2 + ceil(0.1 x 6) x ceil(0.25 x 8) = 2 + 1 x 2 = 4
    ['matches', "self.s.matches('^[a-z]+$')", obj({ s: 'hello' }), { self: 'map<string, string>' }, 4],
    // [] 10 + self.a 2 + (x 1 + x 1 + + 1) = 15
    ['bind', 'cel.bind(x, self.a, x + x)', obj({ a: 1n }), { self: 'map<string, int>' }, 15],
    // [1,2,3] 10 + (x 1 + == 1 + 1) + (2 + 2) + (2 + 1) + result 2 = 22
    ['exists_one', '[1, 2, 3].exists_one(x, x == 2)', null, { self: 'dyn' }, 22],
    // has 1 + self 1; self.b 2 + ['x','y'] 10 + in 2; ! 1 = 17
    ['has, in, not', "has(self.a) && !(self.b in ['x', 'y'])", obj({ a: 'p', b: 'z' }), { self: 'map<string, string>' }, 17],
    // string equality of 20 characters: self.a 2 + self.b 2 + ceil(0.1 x 20) = 6
    ['long string equality', 'self.a == self.b', obj({ a: 'x'.repeat(20), b: 'x'.repeat(20) }), { self: 'map<string, string>' }, 6],
    // contains: self.a 2 + ceil(0.1 x 30) x ceil(0.1 x 3) = 2 + 3 = 5
    ['contains', "self.a.contains('xxx')", obj({ a: 'x'.repeat(30) }), { self: 'map<string, string>' }, 5],
  ];
  for (const [name, rule, self, vars, cost] of cases) {
    it(`${name}: ${rule} costs ${cost}`, () => {
      expect(runCost(rule, self, vars).cost).toBe(cost);
    });
  }

  it('the runtime cost never exceeds the static estimate for the same schema', () => {
    const schema = arrayOf(prim('integer'), 10);
    const rule = 'self.all(x, x > 0) && self.exists(y, y == 3)';
    const { program, decl, env } = compileOver(schema, rule);
    const est = estimateCost(program.ast!, env, { sizes: declTypeSizeEstimator(decl) });
    const tracker = { cost: 0, limit: PER_CALL_LIMIT };
    program.evaluate({ self: [1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 10n] }, tracker);
    expect(BigInt(tracker.cost)).toBeLessThanOrEqual(est.max);
    expect(BigInt(tracker.cost)).toBeGreaterThanOrEqual(est.min);
  });
});

describe('runtime limits and shared budgets', () => {
  // A list of 1,500,000 ints is what a 3 MiB request can hold (`0,` per item).
  const big: CelValue = Array.from({ length: 1_500_000 }, () => 0n);
  const crossProduct = 'self.all(x, self.all(y, x + y >= 0))';

  it('a runaway cross product stops at the per-call limit with cel-go\'s message, and no further', () => {
    const env = CelEnvironment.create({ variables: { self: 'list<int>' } });
    const program = env.compile(crossProduct);
    const tracker = { cost: 0, limit: PER_CALL_LIMIT };
    const started = process.hrtime.bigint();
    let caught: unknown;
    try {
      program.evaluate({ self: big }, tracker);
    } catch (e) {
      caught = e;
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    expect(caught).toBeInstanceOf(CelCostError);
    expect((caught as Error).message).toBe(COST_LIMIT_EXCEEDED);
    // Stopped at the first charge past the limit: no charge is larger than 4 units here.
    expect(tracker.cost).toBeGreaterThan(PER_CALL_LIMIT);
    expect(tracker.cost).toBeLessThanOrEqual(PER_CALL_LIMIT + 4);
    console.log(`runaway cross product over 1.5M items stopped at cost ${tracker.cost} after ${ms.toFixed(1)} ms`);
  });

  it('a shared budget: evaluations are charged until one does not fit; then nothing runs', () => {
    // Each evaluation over 150,000 items: 1 + 150000 x 5 + 1 = 750,002 (under the per-call limit).
    const env = CelEnvironment.create({ variables: { self: 'list<int>' } });
    const program = env.compile('self.all(x, x >= 0)');
    const items: CelValue = Array.from({ length: 150_000 }, () => 1n);
    const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET);
    for (let i = 0; i < 13; i++) expect(budget.evaluate(program, { self: items })).toBe(true);
    expect(budget.remaining).toBe(10_000_000 - 13 * 750_002); // 249,974 left
    let caught: unknown;
    try {
      budget.evaluate(program, { self: items });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CostBudgetExceededError);
    expect((caught as Error).message).toBe(OUT_OF_BUDGET);
    // It stopped as soon as the remaining budget was passed, not at the per-call limit.
    expect(budget.used).toBeLessThanOrEqual(RUNTIME_CEL_COST_BUDGET + 4);
    const used = budget.used;
    expect(() => budget.evaluate(program, { self: [] })).toThrow(OUT_OF_BUDGET);
    expect(budget.used).toBe(used); // refused without running
  });

  it('per-call limit inside a budget: the call cost message, and the budget is done', () => {
    const env = CelEnvironment.create({ variables: { self: 'list<int>' } });
    const budget = new CostBudget(RUNTIME_CEL_COST_BUDGET);
    expect(() => budget.evaluate(env.compile(crossProduct), { self: big })).toThrow(COST_LIMIT_EXCEEDED);
    expect(budget.isExhausted).toBe(true);
    expect(() => budget.evaluate(env.compile('true'), {})).toThrow(OUT_OF_BUDGET);
  });
});

describe('tracker overhead (printed, not asserted)', () => {
  it('self.replicas <= self.maxReplicas with the tracker on and off', () => {
    const env = CelEnvironment.create({ variables: { self: 'map<string, int>' } });
    const program = env.compile('self.replicas <= self.maxReplicas');
    const act = { self: obj({ replicas: 3n, maxReplicas: 5n }) };
    const rate = (withTracker: boolean): number => {
      const n = 300_000;
      const tracker = { cost: 0, limit: Number.MAX_SAFE_INTEGER };
      for (let i = 0; i < 20_000; i++) program.evaluate(act, withTracker ? tracker : undefined);
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) program.evaluate(act, withTracker ? tracker : undefined);
      return n / (Number(process.hrtime.bigint() - t0) / 1e9);
    };
    const off = rate(false);
    const on = rate(true);
    const off2 = rate(false);
    const on2 = rate(true);
    const fmt = (x: number): string => Math.round(x).toLocaleString('en-US');
    console.log(`self.replicas <= self.maxReplicas: tracker off ${fmt(off)} / ${fmt(off2)} evals/s, on ${fmt(on)} / ${fmt(on2)} evals/s`);
    expect(program.evaluate(act, { cost: 0, limit: 100 })).toBe(true);
  });
});
