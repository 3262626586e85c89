/**
 * The schema engine's CEL step (validate-rules.ts): small schemas with rules, one behaviour per table row
 * (objects, maps, map-lists correlated by key, transition rules, optionalOldSelf, messageExpression,
 * reason, fieldPath, the budget, ratcheting, the blocking errors), then the Gateway API definitions as
 * they are published: their examples validate clean, hand-made invalid objects fail with the rules' own
 * messages.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CostBudget } from '../cel/cost/budget.js';
import { errorString, FieldPath, invalidValue, messageOf, required, type FieldError } from '../validation/field-error.js';
import { applyDefaults } from './defaults.js';
import { dropNulls } from './drop-nulls.js';
import { prune } from './prune.js';
import type { Schema, ValidationRule } from './schema.js';
import { validateValue } from './validate.js';
import { blocksRules, hasValidationRules, RULES_NOT_CHECKED, validateRules, validateRulesAfter, type RuleValidationOptions } from './validate-rules.js';

type Json = Record<string, unknown>;

const rules = (...r: ValidationRule[]): { 'x-kubernetes-validations': ValidationRule[] } => ({ 'x-kubernetes-validations': r });

/** `field: message` of every error, the form a 422's causes are read in. */
const texts = (errs: readonly FieldError[]): string[] => errs.map(errorString);

function run(schema: Schema, value: unknown, options: RuleValidationOptions = {}): { errors: string[]; warnings: string[] } {
  const res = validateRules(value, schema, options);
  return { errors: texts(res.errors), warnings: res.warnings };
}

const root = (props: Record<string, Schema>, extra: Partial<Schema> = {}): Schema => ({
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, ...props },
  ...extra,
});

describe('rules on objects, scalars and maps', () => {
  const schema = root({
    spec: {
      type: 'object',
      properties: {
        min: { type: 'integer' },
        max: { type: 'integer' },
        name: { type: 'string', ...rules({ rule: "self.startsWith('a')", message: '  name must start with a  ' }) },
        labels: {
          type: 'object',
          additionalProperties: { type: 'string', ...rules({ rule: 'self.size() <= 3' }) },
          ...rules({ rule: "!('forbidden' in self)", message: 'no forbidden key' }),
        },
        nullableThing: { type: 'string', nullable: true, ...rules({ rule: 'false', message: 'never holds' }) },
      },
      ...rules({ rule: 'self.min <= self.max' }),
    },
  });

  test.each<[string, unknown, string[]]>([
    ['a valid object', { spec: { min: 1, max: 2, name: 'abc', labels: { a: 'xyz' } } }, []],
    ['an object rule: the default message quotes the rule, the value is the schema type', { spec: { min: 3, max: 2 } }, ['spec: Invalid value: "object": failed rule: self.min <= self.max']],
    ['a scalar rule: its message, trimmed', { spec: { min: 1, max: 2, name: 'b' } }, ['spec.name: Invalid value: "string": name must start with a']],
    ['map values: the path holds the key in brackets', { spec: { min: 1, max: 1, labels: { ok: 'a', 'x.y': 'long' } } }, ['spec.labels[x.y]: Invalid value: "string": failed rule: self.size() <= 3']],
    ['a rule on the map itself', { spec: { min: 1, max: 1, labels: { forbidden: 'a' } } }, ['spec.labels: Invalid value: "object": no forbidden key']],
    ['null and absent values are never evaluated', { spec: { min: 1, max: 1, nullableThing: null } }, []],
    ['several failures are all reported', { spec: { min: 3, max: 1, name: 'z' } }, ['spec: Invalid value: "object": failed rule: self.min <= self.max', 'spec.name: Invalid value: "string": name must start with a']],
  ])('%s', (_, value, expected) => {
    expect(run(schema, value).errors).toEqual(expected);
  });

  test('the path prefix option', () => {
    expect(run(schema.properties!.spec!, { min: 2, max: 1 }, { path: FieldPath.root('spec'), resourceRoot: false }).errors).toEqual([
      'spec: Invalid value: "object": failed rule: self.min <= self.max',
    ]);
  });

  test('a resource root sees apiVersion, kind and metadata.name', () => {
    const s = root({}, rules({ rule: "self.metadata.name.startsWith('x-') && self.kind == 'Thing'", message: 'bad name' }));
    expect(run(s, { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'x-1' } }).errors).toEqual([]);
    expect(run(s, { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'y' } }).errors).toEqual(['Invalid value: "object": bad name']);
  });

  test('a schema without rules has nothing to do', () => {
    const plain = root({ spec: { type: 'object', properties: { a: { type: 'string' } } } });
    expect(hasValidationRules(plain)).toBe(false);
    expect(hasValidationRules(schema)).toBe(true);
    expect(validateRules({ spec: { a: 'x' } }, plain)).toEqual({ errors: [], warnings: [] });
  });
});

describe('lists', () => {
  const item: Schema = {
    type: 'object',
    required: ['name'],
    properties: { name: { type: 'string' }, value: { type: 'integer' } },
    ...rules({ rule: 'self.value >= 0', message: 'value must not be negative' }, { rule: 'self.value >= oldSelf.value', message: 'value may only grow' }),
  };
  const schema = root({
    spec: {
      type: 'object',
      properties: {
        byKey: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: item },
        atomic: { type: 'array', items: item },
        set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', ...rules({ rule: 'self == oldSelf', message: 'never correlated' }) } },
      },
    },
  });

  test('elements are validated at their index', () => {
    const v = { spec: { byKey: [{ name: 'a', value: 1 }, { name: 'b', value: -1 }] } };
    expect(run(schema, v).errors).toEqual(['spec.byKey[1]: Invalid value: "object": value must not be negative']);
  });

  test('map-list elements correlate with their old element by key, whatever the order', () => {
    const old = { spec: { byKey: [{ name: 'a', value: 5 }, { name: 'b', value: 1 }] } };
    // reordered: b grew, a shrank; c is new (its transition rule is skipped)
    const now = { spec: { byKey: [{ name: 'b', value: 2 }, { name: 'c', value: 0 }, { name: 'a', value: 4 }] } };
    expect(run(schema, now, { old }).errors).toEqual(['spec.byKey[2]: Invalid value: "object": value may only grow']);
  });

  test('atomic lists do not correlate: transition rules on their elements never run', () => {
    const old = { spec: { atomic: [{ name: 'a', value: 5 }] } };
    expect(run(schema, { spec: { atomic: [{ name: 'a', value: 1 }] } }, { old }).errors).toEqual([]);
  });

  test('set lists do not correlate either', () => {
    expect(run(schema, { spec: { set: ['x'] } }, { old: { spec: { set: ['y'] } } }).errors).toEqual([]);
  });
});

describe('transition rules', () => {
  const schema = root({
    spec: {
      type: 'object',
      properties: {
        immutable: { type: 'string', ...rules({ rule: 'self == oldSelf', message: 'Value is immutable' }) },
        counter: {
          type: 'integer',
          ...rules({ rule: 'oldSelf.hasValue() ? self >= oldSelf.value() : self == 0', optionalOldSelf: true, messageExpression: "'counter is ' + string(self)" }),
        },
      },
    },
  });

  test.each<[string, unknown, unknown, string[]]>([
    ['create: a transition rule is skipped', { spec: { immutable: 'a' } }, undefined, []],
    ['update: unchanged', { spec: { immutable: 'a' } }, { spec: { immutable: 'a' } }, []],
    ['update: changed', { spec: { immutable: 'b' } }, { spec: { immutable: 'a' } }, ['spec.immutable: Invalid value: "string": Value is immutable']],
    ['update: the field is new (no old value): skipped', { spec: { immutable: 'b' } }, { spec: {} }, []],
    ['optionalOldSelf on create: oldSelf is none', { spec: { counter: 1 } }, undefined, ['spec.counter: Invalid value: "integer": counter is 1']],
    ['optionalOldSelf on create: holds', { spec: { counter: 0 } }, undefined, []],
    ['optionalOldSelf on update: oldSelf has the value', { spec: { counter: 3 } }, { spec: { counter: 4 } }, ['spec.counter: Invalid value: "integer": counter is 3']],
    ['optionalOldSelf on update: holds', { spec: { counter: 5 } }, { spec: { counter: 4 } }, []],
    ['optionalOldSelf, field new on update: none', { spec: { counter: 5 } }, { spec: {} }, ['spec.counter: Invalid value: "integer": counter is 5']],
  ])('%s', (_, value, old, expected) => {
    expect(run(schema, value, { old }).errors).toEqual(expected);
  });

  test('a failing transition rule is never ratcheted', () => {
    const res = run(schema, { spec: { immutable: 'b' } }, { old: { spec: { immutable: 'a' } } });
    expect(res.warnings).toEqual([]);
  });
});

describe('messageExpression', () => {
  const withMessage = (messageExpression: string, message?: string): Schema =>
    root({ spec: { type: 'object', properties: { n: { type: 'integer' } }, ...rules({ rule: 'self.n < 10', messageExpression, ...(message !== undefined ? { message } : {}) }) } });
  const value = { spec: { n: 12 } };

  test.each<[string, string, string | undefined, string]>([
    ['its result, trimmed', "'  n is ' + string(self.n) + '  '", undefined, 'n is 12'],
    ['empty: the message', "'   '", 'static message', 'static message'],
    ['empty, no message: the default', "''", undefined, 'failed rule: self.n < 10'],
    ['multi-line: the message', "'a\\nb'", 'static message', 'static message'],
    ['a runtime error: the message', "string(self.n / 0)", 'static message', 'static message'],
  ])('%s', (_, expr, message, detail) => {
    expect(run(withMessage(expr, message), value).errors).toEqual([`spec: Invalid value: "object": ${detail}`]);
  });

  test('a result over 5 KiB falls back, exactly 5 KiB does not', () => {
    const long = root({
      spec: {
        type: 'object',
        properties: { s: { type: 'string' } },
        ...rules({ rule: 'false', messageExpression: 'self.s', message: 'too long' }),
      },
    });
    expect(run(long, { spec: { s: 'y'.repeat(5121) } }).errors).toEqual(['spec: Invalid value: "object": too long']);
    expect(run(long, { spec: { s: 'y'.repeat(5120) } }).errors).toEqual([`spec: Invalid value: "object": ${'y'.repeat(5120)}`]);
    // bytes, not characters: 2-byte characters
    expect(run(long, { spec: { s: 'é'.repeat(2561) } }).errors).toEqual(['spec: Invalid value: "object": too long']);
  });
});

describe('reason and fieldPath', () => {
  const make = (rule: Partial<ValidationRule>): Schema =>
    root({
      spec: {
        type: 'object',
        properties: {
          a: { type: 'object', properties: { b: { type: 'string' } } },
          m: { type: 'object', additionalProperties: { type: 'string' } },
        },
        ...rules({ rule: 'false', message: 'nope', ...rule }),
      },
    });

  test.each<[string, Partial<ValidationRule>, string]>([
    ['no reason: Invalid', {}, 'spec: Invalid value: "object": nope'],
    ['FieldValueForbidden', { reason: 'FieldValueForbidden' }, 'spec: Forbidden: nope'],
    ['FieldValueRequired', { reason: 'FieldValueRequired' }, 'spec: Required value: nope'],
    ['FieldValueDuplicate: only the value', { reason: 'FieldValueDuplicate' }, 'spec: Duplicate value: "object"'],
    ['FieldValueInvalid', { reason: 'FieldValueInvalid' }, 'spec: Invalid value: "object": nope'],
    ['fieldPath to a property', { fieldPath: '.a.b' }, 'spec.a.b: Invalid value: "object": nope'],
    ['fieldPath with a quoted property', { fieldPath: ".a['b']" }, 'spec.a.b: Invalid value: "object": nope'],
    ['fieldPath to a map key', { fieldPath: ".m['x.y']" }, 'spec.m[x.y]: Invalid value: "object": nope'],
    ['fieldPath and reason together', { fieldPath: '.a', reason: 'FieldValueForbidden' }, 'spec.a: Forbidden: nope'],
    ['a fieldPath that does not resolve is ignored', { fieldPath: '.nope' }, 'spec: Invalid value: "object": nope'],
    ['a fieldPath with an index is ignored', { fieldPath: '.a[0]' }, 'spec: Invalid value: "object": nope'],
  ])('%s', (_, rule, expected) => {
    expect(run(make(rule), { spec: { a: {}, m: {} } }).errors).toEqual([expected]);
  });

  test('the Status cause keeps the type: reason is a FieldValue* type', () => {
    const res = validateRules({ spec: {} }, make({ reason: 'FieldValueForbidden' }));
    expect(res.errors[0]!.type).toBe('FieldValueForbidden');
    expect(messageOf(res.errors[0]!)).toBe('Forbidden: nope');
  });
});

describe('runtime errors and compile errors', () => {
  test.each<[string, Schema, unknown, string]>([
    [
      'a missing map key',
      root({ spec: { type: 'object', additionalProperties: { type: 'integer' }, ...rules({ rule: "self['k'] == 1" }) } }),
      { spec: { j: 1 } },
      "spec: Invalid value: \"object\": no such key: k evaluating rule: self['k'] == 1",
    ],
    [
      'the rule is named by its message',
      root({ spec: { type: 'object', additionalProperties: { type: 'integer' }, ...rules({ rule: "self['k'] == 1", message: 'k must be 1' }) } }),
      { spec: { j: 1 } },
      'spec: Invalid value: "object": no such key: k evaluating rule: k must be 1',
    ],
    [
      'a rule that does not compile',
      root({ spec: { type: 'object', properties: { a: { type: 'integer' } }, ...rules({ rule: 'self.b == 1' }) } }),
      { spec: { a: 1 } },
      "spec: Invalid value: \"object\": rule compile error: compilation failed: ERROR: <input>:1:5: undefined field 'b'\n | self.b == 1\n | ....^",
    ],
  ])('%s', (_, schema, value, expected) => {
    expect(run(schema, value).errors).toEqual([expected]);
  });

  test('blank rules are skipped', () => {
    expect(run(root({ spec: { type: 'object', ...rules({ rule: '  ' }) } }), { spec: {} }).errors).toEqual([]);
  });
});

describe('the per-object cost budget', () => {
  const list: Schema = { type: 'array', items: { type: 'integer' }, ...rules({ rule: 'self.all(x, x >= 0)', message: 'all non-negative' }) };
  const schema = root({ spec: { type: 'object', properties: { a: list, b: list, c: list } } });
  const value = { spec: { a: Array.from({ length: 100 }, (_, i) => i), b: [1], c: [2] } };

  test('the default budget is ample', () => {
    expect(run(schema, value).errors).toEqual([]);
  });

  test('running out stops the walk with Kubernetes\' message, keeping earlier errors', () => {
    const bad = { spec: { a: [-1], b: Array.from({ length: 100 }, (_, i) => i), c: [-2] } };
    const res = run(schema, bad, { budget: new CostBudget(50) });
    expect(res.errors).toEqual([
      'spec.a: Invalid value: "array": all non-negative',
      'spec.b: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
  });

  test('the per-call limit names the rule', () => {
    const res = run(schema, value, { budget: new CostBudget(10_000_000, 20) });
    expect(res.errors).toEqual([
      "spec.a: Invalid value: \"array\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: all non-negative",
    ]);
  });

  test('a budget already spent gives the message at the next node with rules', () => {
    const budget = new CostBudget(1_000);
    budget.evaluate({ evaluate: (_a, t) => ((t!.cost = 1_000), true) }, {});
    expect(run(schema, value, { budget }).errors).toEqual([
      'spec.a: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
  });

  test('a messageExpression past the budget', () => {
    const s = root({
      spec: {
        type: 'object',
        properties: { xs: { type: 'array', items: { type: 'integer' } } },
        ...rules({ rule: 'false', messageExpression: "self.xs.map(x, string(x)).join(',')" }),
      },
    });
    const res = run(s, { spec: { xs: Array.from({ length: 50 }, (_, i) => i) } }, { budget: new CostBudget(20) });
    expect(res.errors).toEqual([
      'spec: Invalid value: "object": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run',
    ]);
  });
});

describe('ratcheting (unchanged values do not block an update)', () => {
  const schema = root({
    spec: {
      type: 'object',
      properties: {
        a: { type: 'string', ...rules({ rule: "self != 'bad'", message: 'a is bad' }) },
        b: { type: 'string' },
        m: { type: 'object', additionalProperties: { type: 'string', ...rules({ rule: "self != 'bad'", message: 'entry is bad' }) } },
        items: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, v: { type: 'string' } }, ...rules({ rule: "self.v != 'bad'", message: 'item is bad' }) },
        },
        untyped: { type: 'array', items: { type: 'string', ...rules({ rule: "self != 'bad'", message: 'element is bad' }) } },
        setList: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', ...rules({ rule: "self != 'bad'", message: 'member is bad' }) } },
      },
      ...rules({ rule: "!has(self.b) || self.b != 'bad'", message: 'b is bad' }),
    },
  });
  const old = {
    spec: { a: 'bad', b: 'bad', m: { k: 'bad' }, items: [{ name: 'x', v: 'bad' }], untyped: ['bad'], setList: ['bad'] },
  };

  test('an unchanged invalid object: all failures become warnings', () => {
    const res = run(schema, structuredClone(old), { old });
    expect(res.errors).toEqual([]);
    expect(res.warnings).toEqual([
      'spec: Invalid value: "object": b is bad',
      'spec.a: Invalid value: "string": a is bad',
      'spec.m[k]: Invalid value: "string": entry is bad',
      'spec.items[0]: Invalid value: "object": item is bad',
      'spec.untyped[0]: Invalid value: "string": element is bad',
      'spec.setList[0]: Invalid value: "string": member is bad',
    ]);
  });

  test('only the changed nodes fail: a sibling change ratchets the unchanged fields, not their parent', () => {
    const now = structuredClone(old) as Json;
    (now.spec as Json).a = 'fine';
    const res = run(schema, now, { old });
    // spec changed, so the rule on spec (b is bad) is not ratcheted; unchanged children still are.
    expect(res.errors).toEqual(['spec: Invalid value: "object": b is bad']);
    expect(res.warnings).toContain('spec.m[k]: Invalid value: "string": entry is bad');
  });

  // In the cases below spec itself changed, so its own rule (b is bad) fails too.
  test('a map-list entry that moved is still unchanged (correlated by key); a new bad entry fails', () => {
    const now = structuredClone(old) as { spec: Json };
    now.spec.items = [{ name: 'y', v: 'bad' }, { name: 'x', v: 'bad' }];
    const res = run(schema, now, { old });
    expect(res.errors).toEqual(['spec: Invalid value: "object": b is bad', 'spec.items[0]: Invalid value: "object": item is bad']);
    expect(res.warnings).toContain('spec.items[1]: Invalid value: "object": item is bad');
  });

  test('a changed map value fails; a new key fails', () => {
    const now = structuredClone(old) as { spec: Json };
    now.spec.m = { k: 'bad', n: 'bad' };
    const res = run(schema, now, { old });
    expect(res.errors).toEqual(['spec: Invalid value: "object": b is bad', 'spec.m[n]: Invalid value: "string": entry is bad']);
    expect(res.warnings).toContain('spec.m[k]: Invalid value: "string": entry is bad');
  });

  test('a set element is not correlated: it ratchets with its list, and fails once the list changed', () => {
    const now = structuredClone(old) as { spec: Json };
    now.spec.setList = ['bad', 'ok'];
    const res = run(schema, now, { old });
    expect(res.errors).toEqual(['spec: Invalid value: "object": b is bad', 'spec.setList[0]: Invalid value: "string": member is bad']);
  });

  test('untyped lists are atomic: elements are not correlated by index, a changed list fails whole', () => {
    const now = structuredClone(old) as { spec: Json };
    now.spec.untyped = ['bad', 'bad'];
    const res = run(schema, now, { old });
    expect(res.errors).toEqual([
      'spec: Invalid value: "object": b is bad',
      'spec.untyped[0]: Invalid value: "string": element is bad',
      'spec.untyped[1]: Invalid value: "string": element is bad',
    ]);
  });

  test('create never ratchets; ratcheting can be turned off', () => {
    expect(run(schema, structuredClone(old)).errors).toHaveLength(6);
    expect(run(schema, structuredClone(old), { old, ratcheting: false }).errors).toHaveLength(6);
  });
});

describe('allOf branches and the platform.io spelling', () => {
  test('rules in an allOf branch are evaluated against the node', () => {
    const s = root({
      spec: {
        type: 'object',
        properties: { a: { type: 'integer' } },
        allOf: [{ 'x-kubernetes-validations': [{ rule: 'self.a > 0', message: 'a positive' }], properties: { a: { 'x-kubernetes-validations': [{ rule: 'self < 5', message: 'a small' }] } as Schema } }],
      } as Schema,
    });
    expect(run(s, { spec: { a: 0 } }).errors).toEqual(['spec: Invalid value: "object": a positive']);
    expect(run(s, { spec: { a: 7 } }).errors).toEqual(['spec.a: Invalid value: "integer": a small']);
  });

  test('x-platform-validations with extensionPrefix x-platform-', () => {
    const s = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { items: { type: 'array', 'x-platform-list-type': 'map', 'x-platform-list-map-keys': ['k'], items: { type: 'object', properties: { k: { type: 'string' }, v: { type: 'integer' } }, 'x-platform-validations': [{ rule: 'self.v >= oldSelf.v', message: 'v may only grow' }] } } },
          'x-platform-validations': [{ rule: 'size(self.items) < 3', message: 'at most 2 items' }],
        },
      },
    } as unknown as Schema;
    expect(hasValidationRules(s)).toBe(false);
    expect(hasValidationRules(s, 'x-platform-')).toBe(true);
    const old = { spec: { items: [{ k: 'a', v: 2 }] } };
    expect(run(s, { spec: { items: [{ k: 'b', v: 0 }, { k: 'a', v: 1 }, { k: 'c', v: 0 }] } }, { old, extensionPrefix: 'x-platform-' }).errors).toEqual([
      'spec: Invalid value: "object": at most 2 items',
      'spec.items[1]: Invalid value: "object": v may only grow',
    ]);
  });
});

describe('after schema validation: blocking errors', () => {
  const schema = root({ spec: { type: 'object', required: ['a'], properties: { a: { type: 'integer', maximum: 5 } }, ...rules({ rule: 'self.a > 1', message: 'a > 1' }) } });

  test.each<[string, FieldError[], boolean]>([
    ['Required blocks', [required('spec.a', '')], true],
    ['Invalid does not', [invalidValue('spec.a', 9, 'should be less than or equal to 5')], false],
    ['TypeInvalid blocks', [{ type: 'FieldValueTypeInvalid', field: 'spec.a', value: 'string', detail: 'x' }], true],
    ['NotSupported blocks', [{ type: 'FieldValueNotSupported', field: 'spec.a', value: 'x' }], true],
    ['TooLong blocks', [{ type: 'FieldValueTooLong', field: 'spec.a' }], true],
    ['TooMany blocks', [{ type: 'FieldValueTooMany', field: 'spec.a' }], true],
    ['Duplicate does not', [{ type: 'FieldValueDuplicate', field: 'spec.a', value: 1 }], false],
    ['Forbidden does not', [{ type: 'FieldValueForbidden', field: 'spec.a' }], false],
  ])('%s', (_, errs, blocks) => {
    expect(blocksRules(errs)).toBe(blocks);
  });

  test('a blocking error: one cause instead of the rules', () => {
    const value = { spec: { a: 'x' } };
    const errs = validateValue(value, schema);
    validateRulesAfter(errs, value, schema);
    expect(texts(errs)).toEqual(['spec.a: Invalid value: "string": spec.a in body must be of type integer: "string"', `<nil>: Invalid value: "null": ${RULES_NOT_CHECKED}`]);
  });

  test('a non-blocking error: the rules run too (one 422 with all causes)', () => {
    const value = { spec: { a: 9 } };
    const errs = validateValue(value, schema);
    validateRulesAfter(errs, { spec: { a: 1 } }, schema);
    expect(texts(errs)).toEqual(['spec.a: Invalid value: 9: spec.a in body should be less than or equal to 5', 'spec: Invalid value: "object": a > 1']);
  });

  test('a schema without rules never adds the cause', () => {
    const plain: Schema = { type: 'object', required: ['a'], properties: { a: { type: 'string' } } };
    const errs = validateValue({}, plain);
    validateRulesAfter(errs, {}, plain);
    expect(texts(errs)).toEqual(['a: Required value']);
  });
});

// ---- the Gateway API definitions, as published ----------------------------------------------------

const GATEWAY = '/work/shared/testdata/crds/gateway-api-standard';

function yamlDocs(path: string): Json[] {
  return parseAllDocuments(readFileSync(path, 'utf8'))
    .map((d) => d.toJS() as Json)
    .filter((d) => d !== null && typeof d === 'object');
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : /\.ya?ml$/.test(f) ? [p] : [];
  });
}

/** `group/version/kind` -> the version's schema. */
const gatewaySchemas = new Map<string, Schema>();
for (const file of filesUnder(join(GATEWAY, 'crds'))) {
  for (const crd of yamlDocs(file).filter((d) => d.kind === 'CustomResourceDefinition')) {
    const spec = crd.spec as Json;
    const kind = (spec.names as Json).kind as string;
    for (const v of spec.versions as Json[]) gatewaySchemas.set(`${String(spec.group)}/${String(v.name)}/${kind}`, (v.schema as Json).openAPIV3Schema as Schema);
  }
}
const schemaFor = (obj: Json): Schema => gatewaySchemas.get(`${String(obj.apiVersion)}/${String(obj.kind)}`)!;

/** What the server does with a custom resource body before validating it, then schema + rules. */
function admit(obj: Json, old?: Json): { errors: string[]; warnings: string[] } {
  const schema = schemaFor(obj);
  const data = structuredClone(obj);
  prune(data, schema);
  dropNulls(data, schema);
  applyDefaults(data, schema);
  const errs = validateValue(data, schema);
  const warnings = validateRulesAfter(errs, data, schema, old === undefined ? {} : { old });
  return { errors: texts(errs), warnings };
}

/** The object as stored (pruned and defaulted), to serve as the old object of an update. */
function stored(obj: Json): Json {
  const schema = schemaFor(obj);
  const data = structuredClone(obj);
  prune(data, schema);
  applyDefaults(data, schema);
  return data;
}

describe('Gateway API: the published examples validate clean', () => {
  const examples = filesUnder(join(GATEWAY, 'examples'))
    .flatMap((f) => yamlDocs(f).map((doc) => ({ file: f.slice(GATEWAY.length + 1), doc })))
    .filter(({ doc }) => gatewaySchemas.has(`${String(doc.apiVersion)}/${String(doc.kind)}`));

  test('there are many', () => {
    expect(examples.length).toBeGreaterThan(40);
  });

  test.each(examples.map((e) => [`${e.file} ${String(e.doc.kind)} ${String((e.doc.metadata as Json | undefined)?.name)}`, e.doc] as const))('%s', (_, doc) => {
    expect(admit(doc)).toEqual({ errors: [], warnings: [] });
    // and as an update of itself
    expect(admit(doc, stored(doc))).toEqual({ errors: [], warnings: [] });
  });
});

describe('Gateway API: invalid objects are rejected with the rules\' messages', () => {
  const route = (filters: unknown[]): Json => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'r', namespace: 'default' },
    spec: { parentRefs: [{ name: 'gw' }], rules: [{ filters, backendRefs: [{ name: 'svc', port: 80 }] }] },
  });

  test('an HTTPRoute filter with a member of another filter type', () => {
    const bad = route([{ type: 'RequestHeaderModifier', requestHeaderModifier: { add: [{ name: 'h', value: 'v' }] }, urlRewrite: { hostname: 'x.example.com' } }]);
    expect(admit(bad).errors).toEqual(['spec.rules[0].filters[0]: Invalid value: "object": filter.urlRewrite must be nil if the filter.type is not URLRewrite']);
  });

  test('an HTTPRoute URLRewrite filter without its member', () => {
    expect(admit(route([{ type: 'URLRewrite' }])).errors).toEqual(['spec.rules[0].filters[0]: Invalid value: "object": filter.urlRewrite must be specified for URLRewrite filter.type']);
  });

  test('a Gateway TCP listener with a hostname', () => {
    const gw: Json = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'Gateway',
      metadata: { name: 'g', namespace: 'default' },
      spec: { gatewayClassName: 'c', listeners: [{ name: 'tcp', protocol: 'TCP', port: 9000, hostname: 'a.example.com' }] },
    };
    expect(admit(gw).errors).toEqual(["spec.listeners: Invalid value: \"array\": hostname must not be specified for protocols ['TCP', 'UDP']"]);
  });

  test('a schema error blocks the rules: one cause says so', () => {
    const bad = route([{ type: 'NoSuchFilter', urlRewrite: {} }]);
    const { errors } = admit(bad);
    expect(errors[0]).toMatch(/^spec\.rules\[0\]\.filters\[0\]\.type: Unsupported value: "NoSuchFilter": supported values: /);
    expect(errors[errors.length - 1]).toBe(`<nil>: Invalid value: "null": ${RULES_NOT_CHECKED}`);
  });

  test('GatewayClass controllerName is immutable (a transition rule)', () => {
    const gc: Json = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'c' }, spec: { controllerName: 'example.com/a' } };
    const changed = structuredClone(gc) as { spec: Json };
    changed.spec.controllerName = 'example.com/b';
    expect(admit(gc).errors).toEqual([]);
    expect(admit(changed, stored(gc)).errors).toEqual(['spec.controllerName: Invalid value: "string": Value is immutable']);
  });

  test('ratcheting: a stored route that breaks a rule can still be updated elsewhere', () => {
    const bad = route([{ type: 'RequestHeaderModifier', requestHeaderModifier: { add: [{ name: 'h', value: 'v' }] }, urlRewrite: { hostname: 'x.example.com' } }]);
    const old = stored(bad);
    const updated = structuredClone(bad) as { spec: Json };
    updated.spec.hostnames = ['new.example.com'];
    const res = admit(updated, old);
    expect(res.errors).toEqual([]);
    expect(res.warnings).toEqual(['spec.rules[0].filters[0]: Invalid value: "object": filter.urlRewrite must be nil if the filter.type is not URLRewrite']);
    // touching the broken filter makes it count again
    ((updated.spec.rules as Json[])[0]!.filters as Json[])[0]!.urlRewrite = { hostname: 'y.example.com' };
    expect(admit(updated, old).errors).toEqual(['spec.rules[0].filters[0]: Invalid value: "object": filter.urlRewrite must be nil if the filter.type is not URLRewrite']);
  });
});
