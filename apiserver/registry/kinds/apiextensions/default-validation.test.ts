/**
 * The defaults of a definition's schema (Kubernetes' ValidateDefaults) and the update leniencies toward a
 * stored definition that already breaks a newer rule, as tables with Kubernetes' messages and paths. Each
 * case runs the create (or update) path of the registry without a store (testing.ts).
 */
import type { KubeObject } from '../../../api/object.js';
import { create, update } from './testing.js';

type Json = Record<string, unknown>;

const S = 'spec.validation.openAPIV3Schema';
const P = `${S}.properties[spec].properties`;

const objectSchema = (properties: Json = {}, extra: Json = {}): Json => ({ type: 'object', properties, ...extra });

function crd(schema: Json, versionExtra: Json = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...versionExtra }],
    },
  };
}

/** A definition whose `spec` has the given properties. */
const specWith = (properties: Json): KubeObject => crd(objectSchema({ spec: objectSchema(properties) }));

const embedded = (extra: Json = {}): Json => ({ type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, ...extra });

describe('defaults must validate against their own schema', () => {
  test.each<[string, Json, string[]]>([
    ['a valid default', { size: { type: 'integer', minimum: 0, default: 1 } }, []],
    ['below the minimum', { size: { type: 'integer', minimum: 0, default: -1 } }, [`${P}[size].default: Invalid value: -1: <root> in body should be greater than or equal to 0`]],
    ['of the wrong type', { size: { type: 'string', default: 1 } }, [`${P}[size].default: Invalid value: "integer": <root> in body must be of type string: "integer"`]],
    ['not in the enum', { mode: { type: 'string', enum: ['a', 'b'], default: 'c' } }, [`${P}[mode].default: Unsupported value: "c": supported values: "a", "b"`]],
    [
      'an object default: paths below it are relative to the default',
      { limits: objectSchema({ n: { type: 'integer', maximum: 3 } }, { default: { n: 5 } }) },
      [`${P}[limits].default.n: Invalid value: 5: n in body should be less than or equal to 3`],
    ],
    [
      'a default missing a required field of its own node',
      { limits: objectSchema({ n: { type: 'integer' } }, { required: ['n'], default: {} }) },
      [`${P}[limits].default.n: Required value`],
    ],
    ['a default inside list items', { list: { type: 'array', items: { type: 'string', maxLength: 2, default: 'abc' } } }, [`${P}[list].items.default: Too long: may not be more than 2 bytes`]],
    ['a null default is no default', { size: { type: 'integer', nullable: true, default: null } }, []],
  ])('%s', (_name, properties, expected) => {
    expect(create(specWith(properties)).errors).toEqual(expected);
  });

  test('defaults under additionalProperties are not followed (and valid ones are accepted)', () => {
    expect(create(specWith({ m: { type: 'object', additionalProperties: { type: 'integer', default: 1 } } })).errors).toEqual([]);
  });

  test('the CEL rules of the node run on its default', () => {
    const rules = [{ rule: 'self < 3', message: 'must be small' }];
    expect(create(specWith({ size: { type: 'integer', default: 5, 'x-kubernetes-validations': rules } })).errors).toEqual([
      `${P}[size].default: Invalid value: "integer": must be small`,
    ]);
    expect(create(specWith({ size: { type: 'integer', default: 2, 'x-kubernetes-validations': rules } })).errors).toEqual([]);
  });

  test('a transition rule sees the default as its own old value; optionalOldSelf rules also run without one', () => {
    const immutable = [{ rule: 'self == oldSelf', message: 'immutable' }];
    expect(create(specWith({ size: { type: 'integer', default: 5, 'x-kubernetes-validations': immutable } })).errors).toEqual([]);
    const noNewFive = [{ rule: 'oldSelf.hasValue() || self != 5', optionalOldSelf: true, message: 'no new five' }];
    expect(create(specWith({ size: { type: 'integer', default: 5, 'x-kubernetes-validations': noNewFive } })).errors).toEqual([
      `${P}[size].default: Invalid value: "integer": no new five`,
    ]);
  });

  test('the platform.io spelling of the extensions', () => {
    const o = specWith({ size: { type: 'integer', default: 5, 'x-platform-validations': [{ rule: 'self < 3', message: 'must be small' }] } });
    (o as { apiVersion: string }).apiVersion = 'apiextensions.platform.io/v1';
    expect(create(o, 'platform.io').errors).toEqual([`${P}[size].default: Invalid value: "integer": must be small`]);
  });
});

describe('defaults must be pruned', () => {
  test.each<[string, Json, string[]]>([
    [
      'an unknown field in an object default',
      { limits: objectSchema({ n: { type: 'integer' } }, { default: { n: 1, extra: true } }) },
      [`${P}[limits].default: Invalid value: {"n":1,"extra":true}: must not have unknown fields`],
    ],
    ['preserve-unknown-fields keeps them', { limits: objectSchema({ n: { type: 'integer' } }, { 'x-kubernetes-preserve-unknown-fields': true, default: { n: 1, extra: true } }) }, []],
    [
      'an unknown metadata field of an embedded resource default',
      { template: embedded({ default: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', bogus: 1 } } }) },
      [`${P}[template].default: Invalid value: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"a","bogus":1}}: must not have unknown fields`],
    ],
  ])('%s', (_name, properties, expected) => {
    expect(create(specWith(properties)).errors).toEqual(expected);
  });
});

describe('metadata defaults', () => {
  test.each<[string, Json, string[]]>([
    ['an embedded resource default needs apiVersion and kind', { template: embedded({ default: { metadata: {} } }) }, [
      `${P}[template].default.apiVersion: Required value: must not be empty`,
      `${P}[template].default.kind: Required value: must not be empty`,
    ]],
    ['an embedded resource default with a bad kind', { template: embedded({ default: { apiVersion: 'v1', kind: 'Bad_Kind' } }) }, [
      `${P}[template].default.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    ]],
    ['an embedded resource default with invalid labels', { template: embedded({ default: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'not valid!' } } } }) }, [
      `${P}[template].default.metadata.labels: Invalid value: "not valid!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]],
    ['metadata of the wrong shape', { template: embedded({ default: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: 'x' } } }) }, [
      `${P}[template].default.metadata: Invalid value: {"labels":"x"}: json: cannot unmarshal string into Go struct field ObjectMeta.labels of type map[string]string`,
    ]],
    [
      'a default inside an embedded resource\'s metadata must make valid metadata',
      { template: embedded({ properties: { metadata: objectSchema({ name: { type: 'string', default: 'a/b' } }) } }) },
      [`${P}[template].properties[metadata].properties[name].default: Invalid value: "a/b": must result in valid metadata: metadata.name: Invalid value: "a/b": may not contain '/'`],
    ],
    ['a valid one is accepted', { template: embedded({ properties: { metadata: objectSchema({ name: { type: 'string', default: 'a' } }) } }) }, []],
  ])('%s', (_name, properties, expected) => {
    expect(create(specWith(properties)).errors).toEqual(expected);
  });

  test('defaults in the top-level metadata are forbidden, and must still make valid metadata', () => {
    const o = crd(objectSchema({ metadata: { type: 'object', default: { name: 'a/b' } }, spec: objectSchema() }));
    expect(create(o).errors).toEqual([
      `${S}.properties[metadata].default: Forbidden: must not be set in top-level metadata`,
      `${S}.properties[metadata].default: Invalid value: {"name":"a/b"}: must result in valid metadata: metadata.name: Invalid value: "a/b": may not contain '/'`,
    ]);
  });
});

describe('update leniency toward what the stored definition already breaks', () => {
  /** An update of `stored` (never validated: written by an older server) that only adds a label. */
  const relabel = (stored: KubeObject): string[] => {
    const now = structuredClone(stored);
    now.metadata.labels = { touched: 'yes' };
    return update(now, stored).errors;
  };
  const stored = (o: KubeObject): KubeObject => ({ ...create(o).obj, metadata: { ...o.metadata, resourceVersion: '1' } });

  test.each<[string, KubeObject, string]>([
    ['an unpruned default', specWith({ limits: objectSchema({ n: { type: 'integer' } }, { default: { n: 1, extra: true } }) }), 'must not have unknown fields'],
    ['an invalid type', specWith({ size: { type: 'int' } }), 'Unsupported value: "int"'],
    ['non-atomic set items', specWith({ s: { type: 'array', 'x-kubernetes-list-type': 'set', items: objectSchema({ a: { type: 'string' } }) } }), 'must be atomic'],
    [
      'a map-list key neither required nor defaulted',
      specWith({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'], items: objectSchema({ k: { type: 'string' } }) } }),
      'must have a default or be a required property',
    ],
    ['nullable set items', specWith({ s: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', nullable: true } } }), 'cannot be nullable'],
  ])('%s: refused on create, an old definition keeps being updatable', (_name, o, message) => {
    expect(create(o).errors.join('\n')).toContain(message);
    expect(relabel(stored(o))).toEqual([]);
  });

  test('a non-structural stored schema: neither structure nor defaults are checked on update', () => {
    const o = crd(objectSchema({ spec: objectSchema({ a: { type: 'string', default: 5 } }), other: {} }));
    expect(create(o).errors).toEqual([`${S}.properties[other].type: Required value: must not be empty for specified object fields`]);
    expect(relabel(stored(o))).toEqual([]);
  });

  test('a stored version without a schema', () => {
    const o = crd(objectSchema());
    const versions = (o.spec as { versions: Json[] }).versions;
    delete versions[0]!.schema;
    expect(create(o).errors).toEqual(['spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required']);
    expect(relabel(stored(o))).toEqual([]);
  });

  test('leniency is per rule: a definition that meets a rule is held to it', () => {
    const unpruned = specWith({ limits: objectSchema({ n: { type: 'integer' } }, { default: { n: 1, extra: true } }) });
    // The stored definition has valid types, so a new invalid type is refused even though its unpruned default is kept.
    const now = structuredClone(stored(unpruned));
    ((((now.spec as Json).versions as Json[])[0]!.schema as Json).openAPIV3Schema as { properties: { spec: { properties: Json } } }).properties.spec.properties.size = { type: 'int' };
    expect(update(now, stored(unpruned)).errors).toEqual([`${P}[size].type: Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string"`]);
    // A definition without unpruned defaults may not add one.
    const clean = specWith({ limits: objectSchema({ n: { type: 'integer' } }) });
    const adding = structuredClone(stored(clean));
    ((((adding.spec as Json).versions as Json[])[0]!.schema as Json).openAPIV3Schema as { properties: { spec: { properties: Json } } }).properties.spec.properties.limits = objectSchema({ n: { type: 'integer' } }, { default: { n: 1, extra: true } });
    expect(update(adding, stored(clean)).errors).toEqual([`${P}[limits].default: Invalid value: {"n":1,"extra":true}: must not have unknown fields`]);
  });
});
