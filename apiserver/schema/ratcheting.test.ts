import { errorString } from '../validation/field-error.js';
import { validateValueUpdate } from './ratcheting.js';
import type { Schema } from './schema.js';

type Json = Record<string, unknown>;

const obj = (properties: Record<string, Schema>, extra: Partial<Schema> = {}): Schema => ({ type: 'object', properties, ...extra });

/** A resource root: apiVersion, kind, metadata and spec (what the registry validates). */
const resource = (spec: Schema): Schema =>
  obj({ apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec });

const spec = obj({
  s: { type: 'string', maxLength: 3 },
  n: { type: 'integer', minimum: 0 },
  e: { type: 'string', enum: ['a', 'b'] },
  p: { type: 'string', pattern: '^[a-z]+$' },
  f: { type: 'string', format: 'date-time' },
  t: { type: 'integer' },
  req: obj({ a: { type: 'string' }, b: { type: 'string' } }, { required: ['a'] }),
  m: { type: 'object', additionalProperties: { type: 'integer', maximum: 5 } },
  mp: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 },
  ml: {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: obj({ name: { type: 'string' }, v: { type: 'integer', maximum: 5 } }),
  },
  atomic: { type: 'array', items: { type: 'integer', maximum: 5 } },
  set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer', maximum: 5 } },
  uniq: { type: 'array', uniqueItems: true, items: { type: 'integer' } },
  any: { type: 'integer', anyOf: [{ minimum: 10 }, { maximum: -10 }] } as Schema,
  emb: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
});
const schema = resource(spec);

const base = (): Json => ({ apiVersion: 'x.io/v1', kind: 'K', metadata: { name: 'o' }, spec: {} });

function update(oldSpec: Json, newSpec: Json, ratcheting?: boolean): { errors: string[]; ratcheted: string[] } {
  const old = { ...base(), spec: oldSpec };
  const now = { ...base(), metadata: { name: 'o', labels: { changed: 'yes' } }, spec: newSpec };
  const res = validateValueUpdate(now, old, schema, { style: 'crd', ...(ratcheting === undefined ? {} : { ratcheting }) });
  return { errors: res.errors.map(errorString), ratcheted: res.ratcheted.map(errorString) };
}

describe('schema ratcheting: unchanged invalid values do not fail an update', () => {
  // [name, old spec, new spec]: each stays invalid and unchanged in the new object.
  it.each<[string, Json]>([
    ['maxLength', { s: 'abcd' }],
    ['minimum', { n: -1 }],
    ['enum', { e: 'c' }],
    ['pattern', { p: 'A' }],
    ['format', { f: 'yesterday' }],
    ['type', { t: 'x' }],
    ['required (on the unchanged parent)', { req: { b: 'x' } }],
    ['a map value', { m: { k: 9 } }],
    ['maxProperties', { mp: { a: 'x', b: 'y' } }],
    ['a map-list entry', { ml: [{ name: 'x', v: 9 }] }],
    ['an atomic list (as a whole)', { atomic: [9] }],
    ['a set list element (as a whole)', { set: [9] }],
    ['uniqueItems', { uniq: [1, 1] }],
    ['anyOf', { any: 0 }],
  ])('%s', (_name, value) => {
    const res = update(value, { ...structuredClone(value), other: 'sibling added' });
    expect(res.errors).toEqual([]);
    expect(res.ratcheted).toHaveLength(1);
  });

  it.each<[string, Json, Json, string[]]>([
    ['a changed invalid value fails', { s: 'abcd' }, { s: 'abcde' }, ['spec.s: Too long: may not be more than 3 bytes']],
    ['a new invalid value fails', {}, { n: -1 }, ['spec.n: Invalid value: -1: spec.n in body should be greater than or equal to 0']],
    ['a valid value made invalid fails', { e: 'a' }, { e: 'c' }, ['spec.e: Unsupported value: "c": supported values: "a", "b"']],
    ['required: the parent changed', { req: { b: 'x' } }, { req: { b: 'y' } }, ['spec.req.a: Required value']],
    ['a new map key fails, the unchanged one ratchets', { m: { k: 9 } }, { m: { k: 9, l: 8 } }, ['spec.m.l: Invalid value: 8: spec.m.l in body should be less than or equal to 5']],
    [
      'map-list entries correlate by key: a moved entry ratchets, a new one fails',
      { ml: [{ name: 'x', v: 9 }] },
      { ml: [{ name: 'y', v: 8 }, { name: 'x', v: 9 }] },
      ['spec.ml[0].v: Invalid value: 8: spec.ml[0].v in body should be less than or equal to 5'],
    ],
    [
      'an atomic (untyped) list is not correlated by index: once changed, every invalid element fails',
      { atomic: [9] },
      { atomic: [9, 1] },
      ['spec.atomic[0]: Invalid value: 9: spec.atomic[0] in body should be less than or equal to 5'],
    ],
    [
      'a set list is not correlated: once changed, every invalid element fails',
      { set: [9] },
      { set: [9, 1] },
      ['spec.set[0]: Invalid value: 9: spec.set[0] in body should be less than or equal to 5'],
    ],
  ])('%s', (_name, oldSpec, newSpec, expected) => {
    expect(update(oldSpec, newSpec).errors).toEqual(expected);
  });

  it.each<[string, Json, string[]]>([
    ['set duplicates (list-type step)', { set: [1, 1] }, ['spec.set[1]: Duplicate value: 1']],
    ['map-list duplicate keys', { ml: [{ name: 'x' }, { name: 'x' }] }, ['spec.ml[1]: Duplicate value: {"name":"x"}']],
    ['map-list missing keys', { ml: [{ v: 1 }] }, ['spec.ml[0].name: Required value']],
    ['embedded resources without apiVersion and kind', { emb: {} }, ['spec.emb.apiVersion: Required value: must not be empty', 'spec.emb.kind: Required value: must not be empty']],
  ])('never ratcheted: %s', (_name, value, expected) => {
    const res = update(value, structuredClone(value));
    expect(res.errors).toEqual(expected);
    expect(res.ratcheted).toEqual([]);
  });

  test('an error inside an uncorrelated value ratchets with its unchanged correlated ancestor', () => {
    // The whole spec is unchanged: the set element's error belongs to the unchanged spec.
    const res = update({ set: [9], s: 'abcd' }, { set: [9], s: 'abcd' });
    expect(res.errors).toEqual([]);
    expect(res.ratcheted).toHaveLength(2);
  });

  test('the root apiVersion and kind are never correlated', () => {
    const strict = resource(spec);
    // metadata described down to its keys: a node with an undescribed key cannot be compared (Kubernetes'
    // CorrelatedObject), so with a bare `type: object` metadata the root is never "unchanged".
    const metadata = obj({ name: { type: 'string' }, labels: { type: 'object', additionalProperties: { type: 'string' } } });
    const s2 = obj({ ...strict.properties, metadata, kind: { type: 'string', enum: ['Other'] } });
    const old = base();
    const now = { ...base(), metadata: { name: 'o', labels: { a: 'b' } } };
    const res = validateValueUpdate(now, old, s2, { style: 'crd' });
    expect(res.errors.map(errorString)).toEqual(['kind: Unsupported value: "K": supported values: "Other"']);
    // A completely unchanged object ratchets everything, kind included (its root is unchanged).
    expect(validateValueUpdate(base(), old, s2, { style: 'crd' }).errors).toEqual([]);
  });

  test('without an old object, or with ratcheting off, nothing ratchets', () => {
    const v = { ...base(), spec: { s: 'abcd' } };
    expect(validateValueUpdate(v, undefined, schema).errors).toHaveLength(1);
    expect(update({ s: 'abcd' }, { s: 'abcd' }, false).errors).toEqual(['spec.s: Too long: may not be more than 3 bytes']);
  });
});
