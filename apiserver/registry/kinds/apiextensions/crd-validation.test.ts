/**
 * CustomResourceDefinition validation with Kubernetes v1.32's messages and field paths, as tables: the
 * name and names, versions, the structural schema rules, the extensions, the CEL rules and their cost,
 * selectable fields, printer columns and subresources, conversion, and the update rules. Each case runs
 * the create (or update) path of the registry without a store (testing.ts).
 */
import type { KubeObject } from '../../../api/object.js';
import { naming } from '../../../naming/naming.js';
import { groupOf } from '../../kind-strategy.js';
import { customResourceDefinitions } from './crd.js';
import { create, update } from './testing.js';

type Json = Record<string, unknown>;

const objectSchema = (properties: Json = {}, extra: Json = {}): Json => ({ type: 'object', properties, ...extra });
const version = (name: string, extra: Json = {}): Json => ({
  name,
  served: true,
  storage: true,
  schema: { openAPIV3Schema: objectSchema({ spec: objectSchema({ size: { type: 'integer' } }) }) },
  ...extra,
});

/** A valid definition of `widgets.example.com`, with `spec` fields merged over it. */
function crd(spec: Json = {}, metadata: Json = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com', ...metadata },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [version('v1')], ...spec },
  };
}

/** A definition whose only version has `schema` as its openAPIV3Schema. */
const withSchema = (schema: Json, versionExtra: Json = {}): KubeObject => crd({ versions: [version('v1', { schema: { openAPIV3Schema: schema }, ...versionExtra })] });

const errorsOf = (o: KubeObject, domain?: string): string[] => create(o, domain).errors;

describe('identity', () => {
  test('cluster-scoped apiextensions/v1 with the short names, category and status sub-resource kubectl knows', () => {
    const s = customResourceDefinitions;
    expect(groupOf(s, naming('k8s.io'))).toBe('apiextensions.k8s.io');
    expect(groupOf(s, naming('platform.io'))).toBe('apiextensions.platform.io');
    expect([s.version, s.kind, s.resource, s.singular, s.namespaced]).toEqual(['v1', 'CustomResourceDefinition', 'customresourcedefinitions', 'customresourcedefinition', false]);
    expect(s.shortNames).toEqual(['crd', 'crds']);
    expect(s.categories).toEqual(['api-extensions']);
    expect(s.subresources).toEqual(['status']);
    expect(s.table.columns.map((c) => c.name)).toEqual(['Name', 'Created At']);
  });

  test('the protobuf numbers of generated.proto sit beside the messages; the top level has none (not served in protobuf)', () => {
    const props = customResourceDefinitions.schema.properties!;
    expect(customResourceDefinitions.schema.protobuf).toBeUndefined();
    const spec = props.spec!;
    expect(spec.protobuf).toMatchObject({ group: 1, names: 3, scope: 4, versions: 7, conversion: { tag: 9, pointer: true }, preserveUnknownFields: 10 });
    const v = spec.properties!.versions!.items!;
    expect(v.protobuf).toMatchObject({ name: 1, served: 2, storage: 3, deprecated: 7, deprecationWarning: { tag: 8, pointer: true }, selectableFields: 9 });
    expect(props.status!.protobuf).toEqual({ conditions: 1, acceptedNames: 2, storedVersions: 3 });
    expect(v.properties!.schema!.properties!.openAPIV3Schema!['x-kubernetes-preserve-unknown-fields']).toBe(true);
  });
});

describe('defaults', () => {
  test('singular, listKind, conversion None, storedVersions, empty status', () => {
    const { obj, errors } = create({ ...crd(), status: { conditions: [{ type: 'Established', status: 'True' }] } });
    expect(errors).toEqual([]);
    const spec = obj.spec as Json;
    expect(spec.names).toEqual({ plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
    expect(spec.conversion).toEqual({ strategy: 'None' });
    expect(obj.status).toEqual({ storedVersions: ['v1'] });
  });

  test('a webhook service port defaults to 443', () => {
    const { obj } = create(crd({ conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { name: 's', namespace: 'n' } } } } }));
    expect((((obj.spec as Json).conversion as Json).webhook as Json).clientConfig).toEqual({ service: { name: 's', namespace: 'n', port: 443 } });
  });

  test('an update keeps storedVersions and appends a new storage version', () => {
    const stored = create(crd({ versions: [version('v1'), version('v2', { storage: false })] })).obj;
    const next = crd({ versions: [version('v1', { storage: false }), version('v2', { storage: true, schema: { openAPIV3Schema: objectSchema() } })] });
    const { obj, errors } = update(next, stored);
    expect(errors).toEqual([]);
    expect((obj.status as Json).storedVersions).toEqual(['v1', 'v2']);
  });
});

describe('name, group, scope and names', () => {
  test.each([
    ['name not plural.group', crd({}, { name: 'gadgets.example.com' }), ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group']],
    ['group without a dot', crd({ group: 'example' }, { name: 'widgets.example' }), ['spec.group: Invalid value: "example": should be a domain with at least one dot']],
    ['group missing', crd({ group: '' }, { name: 'widgets.' }), ['spec.group: Required value']],
    ['scope unsupported', crd({ scope: 'Global' }), ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']],
    ['scope missing', crd({ scope: '' }), ['spec.scope: Required value']],
    [
      'plural not a DNS-1035 label',
      crd({ names: { plural: 'Widgets', kind: 'Widget' } }, { name: 'Widgets.example.com' }),
      [
        'spec.names.plural: Invalid value: "Widgets": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
      ],
    ],
    [
      'kind with mixed case is fine, with underscores is not',
      crd({ names: { plural: 'widgets', kind: 'Wid_get' } }),
      [
        'spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
      ],
    ],
    ['kind equals listKind', crd({ names: { plural: 'widgets', kind: 'Widget', listKind: 'Widget' } }), ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same']],
    ['plural and kind missing', crd({ names: {} }, { name: '.example.com' }), ['spec.names.plural: Required value', 'spec.names.kind: Required value']],
  ])('%s', (_name, obj, expected) => {
    expect(errorsOf(obj)).toEqual(expect.arrayContaining(expected));
  });

  test('shortNames and categories are DNS-1035 labels', () => {
    const errs = errorsOf(crd({ names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd', 'W'], categories: ['all', 'my_cat'] } }));
    expect(errs.map((e) => e.split(': ')[0])).toEqual(['spec.names.shortNames[1]', 'spec.names.categories[1]']);
  });
});

describe('versions', () => {
  test.each([
    ['no storage version', crd({ versions: [version('v1', { storage: false })] }), 'must have exactly one version marked as storage version'],
    ['two storage versions', crd({ versions: [version('v1'), version('v2')] }), 'spec.versions: Invalid value: '],
    ['duplicate names', crd({ versions: [version('v1'), version('v1', { storage: false })] }), 'must contain unique version names'],
    ['name not a DNS-1035 label', crd({ versions: [version('1')] }), 'spec.versions[0].name: Invalid value: "1": a DNS-1035 label'],
    ['deprecationWarning without deprecated', crd({ versions: [version('v1', { deprecationWarning: 'old' })] }), 'spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions'],
    ['deprecationWarning too long', crd({ versions: [version('v1', { deprecated: true, deprecationWarning: 'x'.repeat(257) })] }), 'must be <= 256 characters long'],
    ['deprecationWarning empty', crd({ versions: [version('v1', { deprecated: true, deprecationWarning: '' })] }), 'must not be an empty string'],
    [
      'deprecationWarning with a control character (byte offset)',
      crd({ versions: [version('v1', { deprecated: true, deprecationWarning: 'é\tx' })] }),
      'must only contain printable UTF-8 characters; non-printable character found at index 2',
    ],
    ['a version without a schema', crd({ versions: [version('v1', { schema: undefined })] }), 'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required'],
  ])('%s', (_name, obj, expected) => {
    expect(errorsOf(obj).join('\n')).toContain(expected);
  });

  test('a deprecated version may carry a warning', () => {
    expect(errorsOf(crd({ versions: [version('v1', { deprecated: true, deprecationWarning: 'use v2' })] }))).toEqual([]);
  });

  test('schemas identical in every version are reported at spec.validation, different ones per version', () => {
    const bad = { openAPIV3Schema: { type: 'object', properties: { spec: {} } } };
    const same = errorsOf(crd({ versions: [version('v1', { schema: bad }), version('v2', { storage: false, schema: bad })] }));
    expect(same).toEqual(['spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
    const different = errorsOf(crd({ versions: [version('v1', { schema: bad }), version('v2', { storage: false })] }));
    expect(different).toEqual(['spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
  });

  test('stored versions must stay in spec.versions', () => {
    const stored = create(crd({ versions: [version('v1'), version('v2', { storage: false })] })).obj;
    const errs = update(crd({ versions: [version('v2')] }), stored).errors;
    expect(errs).toContain(
      'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
    );
  });
});

describe('structural schemas', () => {
  const S = 'spec.validation.openAPIV3Schema';
  test.each<[string, Json, string[]]>([
    ['root without type', { properties: {} }, [`${S}.type: Required value: must not be empty at the root`]],
    ['root not an object', { type: 'array', items: { type: 'string' } }, [`${S}.type: Invalid value: "array": must be object at the root`]],
    ['array without items', objectSchema({ a: { type: 'array' } }), [`${S}.properties[a].items: Required value: must be specified`]],
    ['items without type', objectSchema({ a: { type: 'array', items: {} } }), [`${S}.properties[a].items.type: Required value: must not be empty for specified array items`]],
    ['additionalProperties at the root', { type: 'object', additionalProperties: { type: 'string' } }, [`${S}.additionalProperties: Forbidden: must not be used at the root`]],
    [
      'properties with additionalProperties',
      objectSchema({ a: { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: { type: 'string' } } }),
      [`${S}.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
    ],
    [
      'type and description inside anyOf',
      objectSchema({ a: { type: 'string', anyOf: [{ type: 'string', description: 'd' }] } }),
      [`${S}.properties[a].anyOf[0].description: Forbidden: must be empty to be structural`, `${S}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`],
    ],
    [
      'a property only under allOf',
      { type: 'object', properties: {}, allOf: [{ properties: { a: { minLength: 1 } } }] },
      [`${S}.properties[a]: Required value: because it is defined in ${S}.allOf[0].properties[a]`],
    ],
    [
      'extensions under a junctor',
      objectSchema({ a: { type: 'object', properties: { b: { type: 'string' } }, not: { 'x-kubernetes-preserve-unknown-fields': true, nullable: true } } }),
      [`${S}.properties[a].not.nullable: Forbidden: must be false to be structural`, `${S}.properties[a].not.x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`],
    ],
    [
      'metadata restricting more than name',
      objectSchema({ metadata: { type: 'object', properties: { labels: { type: 'object' } } } }),
      [`${S}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
    ],
    ['kind not a string', objectSchema({ kind: { type: 'integer' } }), [`${S}.properties[kind].type: Invalid value: "integer": must be string`]],
    ['default in top-level metadata', objectSchema({ metadata: { type: 'object', default: {} } }), [`${S}.properties[metadata].default: Forbidden: must not be set in top-level metadata`]],
    ['$ref', objectSchema({ a: { type: 'string', $ref: '#/x' } }), [`${S}.properties[a].$ref: Forbidden: $ref is not supported`]],
    ['type null', objectSchema({ a: { type: 'null' } }), [`${S}.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative`]],
    ['unknown type', objectSchema({ a: { type: 'float' } }), [`${S}.properties[a].type: Unsupported value: "float": supported values: "array", "boolean", "integer", "number", "object", "string"`]],
    ['items as a list', objectSchema({ a: { type: 'array', items: [{ type: 'string' }] } }), [`${S}.properties[a].items: Forbidden: items must be a schema object and not an array`]],
    ['uniqueItems', objectSchema({ a: { type: 'array', items: { type: 'string' }, uniqueItems: true } }), [`${S}.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`]],
    [
      'a pattern RE2 rejects',
      objectSchema({ a: { type: 'string', pattern: '(?=x)' } }),
      [`${S}.properties[a].pattern: Invalid value: "(?=x)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``],
    ],
    ['nullable root', { type: 'object', nullable: true }, [`${S}.nullable: Forbidden: nullable cannot be true at the root`]],
  ])('%s', (_name, schema, expected) => {
    expect(errorsOf(withSchema(schema))).toEqual(expect.arrayContaining(expected));
  });

  test('the int-or-string patterns are structural', () => {
    const ios = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    const allOf = { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9]+%?$' }] };
    expect(errorsOf(withSchema(objectSchema({ a: ios, b: allOf })))).toEqual([]);
  });

  test('with the status sub-resource the root may hold only some members', () => {
    const errs = errorsOf(withSchema({ type: 'object', properties: {}, minProperties: 1 }, { subresources: { status: {} } }));
    expect(errs[0]).toMatch(/^spec\.validation\.openAPIV3Schema: Invalid value: .*: only \[Description Type Format Title Maximum .* XValidations\] fields are allowed at the root of the schema if the status subresource is enabled$/);
  });
});

describe('extensions', () => {
  const S = 'spec.validation.openAPIV3Schema.properties[a]';
  const list = (extra: Json, items: Json = { type: 'object', properties: { k: { type: 'string' } }, required: ['k'] }): Json => objectSchema({ a: { type: 'array', items, ...extra } });
  test.each<[string, Json, string[]]>([
    ['preserve-unknown-fields false', objectSchema({ a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } }), [`${S}.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`]],
    ['map-type on a string', objectSchema({ a: { type: 'string', 'x-kubernetes-map-type': 'atomic' } }), [`${S}.type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`]],
    ['unknown map-type', objectSchema({ a: { type: 'object', 'x-kubernetes-map-type': 'deep' } }), [`${S}.x-kubernetes-map-type: Unsupported value: "deep": supported values: "atomic", "granular"`]],
    ['list-type on an object', objectSchema({ a: { type: 'object', 'x-kubernetes-list-type': 'set' } }), [`${S}.type: Invalid value: "object": must be array if x-kubernetes-list-type is specified`]],
    ['unknown list-type', list({ 'x-kubernetes-list-type': 'bag' }), [`${S}.x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`]],
    ['map keys without list-type map', list({ 'x-kubernetes-list-map-keys': ['k'] }), [`${S}.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty`]],
    ['map list without keys', list({ 'x-kubernetes-list-type': 'map' }), [`${S}.x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`]],
    [
      'map list of strings',
      list({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] }, { type: 'string' }),
      [`${S}.items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map`],
    ],
    [
      'map key not a property',
      list({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] }),
      [`${S}.x-kubernetes-list-map-keys: Invalid value: ["name"]: entries must all be names of item properties`],
    ],
    [
      'map key neither required nor defaulted, and nullable',
      list({ 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['k'] }, { type: 'object', properties: { k: { type: 'string', nullable: true } } }),
      [
        `${S}.items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
        `${S}.items.properties[k].nullable: Forbidden: this property is in x-kubernetes-list-map-keys, so it cannot be nullable`,
      ],
    ],
    [
      'set of granular objects',
      list({ 'x-kubernetes-list-type': 'set' }),
      [`${S}.items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`],
    ],
    [
      'embedded resource not an object',
      objectSchema({ a: { type: 'string', 'x-kubernetes-embedded-resource': true } }),
      [`${S}.type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`],
    ],
    [
      'embedded resource without properties',
      objectSchema({ a: { type: 'object', 'x-kubernetes-embedded-resource': true } }),
      [`${S}.properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`],
    ],
    [
      'int-or-string with preserve-unknown-fields',
      objectSchema({ a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } }),
      [`${S}.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`],
    ],
  ])('%s', (_name, schema, expected) => {
    expect(errorsOf(withSchema(schema))).toEqual(expect.arrayContaining(expected));
  });

  test('platform mode spells the extensions x-platform-* and ignores x-kubernetes-*', () => {
    const o = withSchema(objectSchema({ a: { type: 'object', 'x-platform-map-type': 'deep', 'x-kubernetes-map-type': 'deep' } }));
    o.apiVersion = 'apiextensions.platform.io/v1';
    expect(errorsOf(o, 'platform.io')).toEqual([
      'spec.validation.openAPIV3Schema.properties[a].x-platform-map-type: Unsupported value: "deep": supported values: "atomic", "granular"',
    ]);
  });
});

describe('CEL rules at write time', () => {
  const S = 'spec.validation.openAPIV3Schema';
  const rules = (...r: Json[]): Json => objectSchema({ spec: objectSchema({ a: { type: 'string', maxLength: 10 }, l: { type: 'array', items: { type: 'string' } } }) }, { 'x-kubernetes-validations': r });

  test('good rules compile', () => {
    expect(errorsOf(withSchema(rules({ rule: 'self.spec.a.size() < 5', messageExpression: "'a is ' + self.spec.a" })))).toEqual([]);
  });

  test.each<[string, Json, string]>([
    ['a type error', { rule: 'self.spec.a > 1' }, `${S}.x-kubernetes-validations[0].rule: Invalid value: `],
    ['an unknown field', { rule: 'self.spec.nope == "x"' }, "undefined field 'nope'"],
    ['not a bool', { rule: 'self.spec.a' }, 'cel expression must evaluate to a bool'],
    ['empty rule', { rule: ' ' }, `${S}.x-kubernetes-validations[0].rule: Required value: rule is not specified`],
    ['a line break without a message', { rule: 'true &&\ntrue' }, `${S}.x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks`],
    ['a blank message', { rule: 'true', message: ' ' }, `${S}.x-kubernetes-validations[0].message: Invalid value: " ": message must be non-empty if specified`],
    ['an unknown reason', { rule: 'true', reason: 'Nope' }, `${S}.x-kubernetes-validations[0].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`],
    ['a fieldPath that does not resolve', { rule: 'true', fieldPath: '.spec.b' }, `${S}.x-kubernetes-validations[0].fieldPath: Invalid value: ".spec.b": fieldPath must be a valid path`],
    ['a messageExpression that is not a string', { rule: 'true', messageExpression: '1' }, `${S}.x-kubernetes-validations[0].messageExpression: Invalid value: `],
    ['optionalOldSelf without oldSelf', { rule: 'true', optionalOldSelf: true }, `${S}.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`],
  ])('%s', (_name, rule, expected) => {
    expect(errorsOf(withSchema(rules(rule))).join('\n')).toContain(expected);
  });

  test('a valid fieldPath, reason and message pass', () => {
    expect(errorsOf(withSchema(rules({ rule: 'self.spec.a != ""', fieldPath: '.spec.a', reason: 'FieldValueForbidden', message: 'no' })))).toEqual([]);
  });

  test('oldSelf under an atomic list is refused', () => {
    const schema = objectSchema({ l: { type: 'array', items: { type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } });
    expect(errorsOf(withSchema(schema))).toEqual([
      `${S}.properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${S}.properties[l]`,
    ]);
  });

  test('rules are not compiled while the schema has other errors', () => {
    const schema = objectSchema({ a: { type: 'array', 'x-kubernetes-validations': [{ rule: 'self.nope' }] } });
    expect(errorsOf(withSchema(schema))).toEqual([`${S}.properties[a].items: Required value: must be specified`]);
  });

  test('a rule over an unbounded list of unbounded strings exceeds the per-rule limit', () => {
    const schema = objectSchema({ l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, x.contains("a"))' }] } });
    const errs = errorsOf(withSchema(schema));
    // Alone over 100M, it also passes the per-definition total, as in Kubernetes.
    expect(errs).toEqual([
      `${S}.properties[l].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
      `${S}.properties[l].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${S}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
  });

  test('bounds bring it under the limit', () => {
    const schema = objectSchema({ l: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, x.contains("a"))' }] } });
    expect(errorsOf(withSchema(schema))).toEqual([]);
  });

  test('a rule under an unbounded list counts once per possible element (cardinality)', () => {
    const item = { type: 'object', properties: { s: { type: 'string', maxLength: 4096 } }, 'x-kubernetes-validations': [{ rule: 'self.s.matches("^[a-z]+$")' }] };
    const unbounded = errorsOf(withSchema(objectSchema({ l: { type: 'array', items: item } })));
    expect(unbounded.join('\n')).toContain(`${S}.properties[l].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of`);
    expect(errorsOf(withSchema(objectSchema({ l: { type: 'array', maxItems: 5, items: item } })))).toEqual([]);
  });

  test('the whole schema is held to the per-definition total, naming the most expensive rules', () => {
    // Each rule about 5M (under 10M alone); 25 of them pass 100M together.
    const rule = { rule: 'self.all(x, x.contains("a"))' };
    const props: Json = {};
    for (let i = 0; i < 25; i++) props[`l${i}`] = { type: 'array', maxItems: 1250, items: { type: 'string', maxLength: 10000 }, 'x-kubernetes-validations': [rule] };
    const errs = errorsOf(withSchema(objectSchema(props)));
    expect(errs.some((e) => e.includes('estimated rule cost exceeds budget'))).toBe(false);
    expect(errs.filter((e) => e.endsWith('contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'))).toHaveLength(4);
    expect(errs[errs.length - 1]).toMatch(
      /^spec\.validation\.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of [0-9.]+x \(try simplifying/,
    );
  });

  test('an unchanged schema is not held to the per-rule limit on update (a stored definition never locks)', () => {
    // About 40M: over the per-rule limit, under the per-definition total (which always applies).
    const schema = objectSchema({ l: { type: 'array', maxItems: 10000, items: { type: 'string', maxLength: 10000 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, x.contains("a"))' }] } });
    const stored = create(withSchema(objectSchema())).obj;
    const storedWithRule = { ...stored, spec: { ...(stored.spec as Json), versions: [version('v1', { schema: { openAPIV3Schema: schema } })] } };
    expect(update(storedWithRule, storedWithRule).errors).toEqual([]);
    expect(update(storedWithRule, stored).errors.join('\n')).toContain('estimated rule cost exceeds budget');
  });
});

describe('selectable fields, printer columns, subresources', () => {
  const schema = objectSchema({
    spec: objectSchema({ color: { type: 'string', enum: ['red'] }, size: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } }, m: { type: 'object', additionalProperties: { type: 'string' } } }),
    metadata: { type: 'object' },
  });
  const sf = (...paths: string[]): KubeObject => withSchema(schema, { selectableFields: paths.map((jsonPath) => ({ jsonPath })) });

  test('string, enum and integer fields are selectable', () => {
    expect(errorsOf(sf('.spec.color', '.spec.size', '.spec.m.x'))).toEqual([]);
  });

  test.each<[string, string[], string]>([
    ['an array', ['.spec.tags'], 'spec.selectableFields[0].jsonPath: Invalid value: ".spec.tags": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'],
    ['a missing field', ['.spec.nope'], 'spec.selectableFields[0].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field'],
    ['array notation', [".spec['color']"], 'spec.selectableFields[0].jsonPath: Invalid value: ".spec[\'color\']": is an invalid path: array notation is not allowed'],
    ['no leading dot', ['spec.color'], 'spec.selectableFields[0].jsonPath: Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec'],
    ['a duplicate', ['.spec.color', '.spec.color'], 'spec.selectableFields[1].jsonPath: Duplicate value: ".spec.color"'],
    ['empty', [''], 'spec.selectableFields[0].jsonPath: Required value'],
  ])('%s', (_name, paths, expected) => {
    expect(errorsOf(sf(...paths))).toContain(expected);
  });

  test('metadata is refused', () => {
    const s = objectSchema({ metadata: { type: 'object', properties: { name: { type: 'string' } } } });
    expect(errorsOf(withSchema(s, { selectableFields: [{ jsonPath: '.metadata.name' }] }))).toContain(
      'spec.selectableFields[0].jsonPath: Invalid value: ".metadata.name": must not point to fields in metadata',
    );
  });

  test('at most 8 distinct fields', () => {
    const props: Json = {};
    for (let i = 0; i < 9; i++) props[`f${i}`] = { type: 'string' };
    const o = withSchema(objectSchema({ spec: objectSchema(props) }), { selectableFields: Object.keys(props).map((k) => ({ jsonPath: `.spec.${k}` })) });
    expect(errorsOf(o)).toEqual(['spec.selectableFields: Too many: 9: must have at most 8 items']);
  });

  test('different selectable fields per version are checked per version', () => {
    const o = crd({ versions: [version('v1', { selectableFields: [{ jsonPath: '.spec.nope' }] }), version('v2', { storage: false })] });
    expect(errorsOf(o)).toEqual(['spec.versions[0].selectableFields[0].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field']);
  });

  test.each<[string, Json, string]>([
    ['column type', { name: 'X', type: 'float', jsonPath: '.spec.size' }, 'spec.additionalPrinterColumns[0].type: Invalid value: "float": must be one of boolean,date,integer,number,string'],
    ['column format', { name: 'X', type: 'string', format: 'uuid', jsonPath: '.spec.size' }, 'spec.additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password'],
    ['column path', { name: 'X', type: 'string', jsonPath: 'spec.size' }, 'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .'],
    ['column name', { name: '', type: 'string', jsonPath: '.spec.size' }, 'spec.additionalPrinterColumns[0].name: Required value'],
  ])('%s', (_name, column, expected) => {
    expect(errorsOf(crd({ versions: [version('v1', { additionalPrinterColumns: [column] })] }))).toContain(expected);
  });

  test.each<[string, Json, string]>([
    ['spec path outside .spec', { specReplicasPath: '.status.r', statusReplicasPath: '.status.r' }, 'spec.subresources.scale.specReplicasPath: Invalid value: ".status.r": should be a json path under .spec'],
    ['status path missing', { specReplicasPath: '.spec.r', statusReplicasPath: '' }, 'spec.subresources.scale.statusReplicasPath: Required value'],
    ['selector path', { specReplicasPath: '.spec.r', statusReplicasPath: '.status.r', labelSelectorPath: '.metadata.x' }, 'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.x": should be a json path under either .spec or .status'],
  ])('%s', (_name, scale, expected) => {
    expect(errorsOf(crd({ versions: [version('v1', { subresources: { scale } })] }))).toContain(expected);
  });
});

describe('conversion', () => {
  const P = 'spec.conversion';
  const webhook = (clientConfig: Json | undefined, conversionReviewVersions: unknown = ['v1']): KubeObject =>
    crd({ conversion: { strategy: 'Webhook', webhook: { ...(clientConfig === undefined ? {} : { clientConfig }), conversionReviewVersions } } });

  test('a webhook by URL or by service is accepted', () => {
    expect(errorsOf(webhook({ url: 'https://conv.example.com:8443/convert' }))).toEqual([]);
    expect(errorsOf(webhook({ service: { name: 'conv', namespace: 'ns', path: '/convert/v1', port: 8443 } }))).toEqual([]);
  });

  test.each<[string, KubeObject, string[]]>([
    ['unknown strategy', crd({ conversion: { strategy: 'Magic' } }), [`${P}.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"`]],
    ['webhook without client config', webhook(undefined), [`${P}.webhookClientConfig: Required value: required when strategy is set to Webhook`]],
    ['both url and service', webhook({ url: 'https://a', service: { name: 's', namespace: 'n' } }), [`${P}.webhookClientConfig: Required value: exactly one of url or service is required`]],
    [
      'http with user, query and fragment',
      webhook({ url: 'http://u:p@host/p?q=1#f' }),
      [
        `${P}.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
        `${P}.webhookClientConfig.url: Invalid value: "u:p": user information is not permitted in the URL`,
        `${P}.webhookClientConfig.url: Invalid value: "f": fragments are not permitted in the URL`,
        `${P}.webhookClientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL`,
      ],
    ],
    ['no host', webhook({ url: 'https:///p' }), [`${P}.webhookClientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]`]],
    [
      'service without name, bad port and path',
      webhook({ service: { name: '', namespace: 'n', port: 70000, path: 'x//Y' } }),
      [
        `${P}.webhookClientConfig.service.name: Required value: service name is required`,
        `${P}.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive`,
        `${P}.webhookClientConfig.service.path: Invalid value: "x//Y": must start with a '/'`,
        `${P}.webhookClientConfig.service.path: Invalid value: "x//Y": segment[1] may not be empty`,
      ],
    ],
    ['no review versions', webhook({ url: 'https://a' }, []), [`${P}.conversionReviewVersions: Required value`]],
    ['no known review version', webhook({ url: 'https://a' }, ['v2']), [`${P}.conversionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1`]],
    ['duplicate review version', webhook({ url: 'https://a' }, ['v1', 'v1']), [`${P}.conversionReviewVersions[1]: Invalid value: "v1": duplicate version`]],
    [
      'webhook settings with strategy None',
      crd({ conversion: { strategy: 'None', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://a' } } } }),
      [`${P}.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook`, `${P}.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook`],
    ],
  ])('%s', (_name, obj, expected) => {
    expect(errorsOf(obj)).toEqual(expect.arrayContaining(expected));
  });

  test('preserveUnknownFields true is refused on a new definition', () => {
    expect(errorsOf(crd({ preserveUnknownFields: true }))).toContain(
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    );
  });

  test('a bad caBundle is accepted before the definition is Established, refused after', () => {
    const bad = webhook({ url: 'https://a', caBundle: Buffer.from('not a cert').toString('base64') });
    expect(errorsOf(bad)).toEqual([]);
    const stored = create(webhook({ url: 'https://a' })).obj;
    stored.status = { ...(stored.status as Json), conditions: [{ type: 'Established', status: 'True' }] };
    expect(update(bad, stored).errors).toContain(
      `${P}.webhookClientConfig.caBundle: Invalid value: "${Buffer.from('not a cert').toString('base64')}": data does not contain any valid RSA or ECDSA certificates`,
    );
  });
});

describe('update rules and API approval', () => {
  test('group and plural are immutable; scope and kind once Established', () => {
    const stored = create(crd()).obj;
    const changed = crd({ group: 'example.org', scope: 'Cluster', names: { plural: 'widgets', kind: 'Gadget' } }, { name: 'widgets.example.org' });
    expect(update(changed, stored).errors).toEqual(['spec.group: Invalid value: "example.org": field is immutable']);
    stored.status = { ...(stored.status as Json), conditions: [{ type: 'Established', status: 'True' }] };
    expect(update(changed, stored).errors).toEqual([
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'spec.names.kind: Invalid value: "Gadget": field is immutable',
      'spec.group: Invalid value: "example.org": field is immutable',
    ]);
  });

  test('community groups need the approval annotation', () => {
    const obj = crd({ group: 'x.k8s.io' }, { name: 'widgets.x.k8s.io' });
    expect(errorsOf(obj)).toEqual([
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    expect(errorsOf(crd({ group: 'x.k8s.io' }, { name: 'widgets.x.k8s.io', annotations: { 'api-approved.kubernetes.io': 'unapproved, testing' } }))).toEqual([]);
    expect(errorsOf(crd({ group: 'x.k8s.io' }, { name: 'widgets.x.k8s.io', annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/pull/1111' } }))).toEqual([]);
  });
});

describe('bounds', () => {
  /** An object schema `depth` levels deep (the root counts), each level one property `a`. */
  const nested = (depth: number): Json => {
    let node: Json = { type: 'string' };
    for (let i = 1; i < depth; i++) node = objectSchema({ a: node });
    return node;
  };

  test('a schema nested deeper than 64 levels is refused before anything walks it; 64 levels are fine', () => {
    expect(errorsOf(withSchema(nested(64)))).toEqual([]);
    expect(errorsOf(withSchema(nested(65)))).toEqual(// One version's schema is reported where Kubernetes reports it, hoisted to spec.validation.
    ['spec.validation.openAPIV3Schema: Forbidden: must not nest schemas more than 64 levels deep']);
    // Far deeper: still one error, the schema checks never walk it (a general body nesting limit is issue 18's).
    expect(errorsOf(withSchema(nested(2_000)))).toHaveLength(1);
  });
});
