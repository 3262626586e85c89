/**
 * A definition's `openAPIV3Schema`, checked as Kubernetes v1.32 checks it (apiextensions validation
 * `validateCustomResourceDefinitionValidation` and `ValidateCustomResourceDefinitionOpenAPISchema`), with
 * its messages and paths:
 *
 * - the root: not nullable; with the status subresource only some members at the root and type object;
 * - the structural rules (structural-schema.ts); only a structural schema gets its CEL rules compiled;
 * - every node: a known type, none of the draft-4 members Kubernetes does not support (`id`, `$ref`,
 *   `additionalItems`, `patternProperties`, `definitions`, `dependencies`, `type: null`, items as a list,
 *   `uniqueItems: true`), properties exclusive with additionalProperties, no defaults in the top-level
 *   `apiVersion`/`kind`/`metadata` nor under additionalProperties inside them, embedded-resource not
 *   inside resource metadata;
 * - the extensions: preserve-unknown-fields true or absent; map-type only on objects (granular, atomic);
 *   list-type only on arrays (atomic, set, map); set items atomic; map lists with scalar, required (or
 *   defaulted), non-nullable keys that name item properties, without duplicates; set and map items not
 *   nullable;
 * - the validation rules: entry checks, then (when the schema has no other error at or below the node)
 *   compilation and cost (crd-rules.ts);
 * - once the schema is structural, its defaults (default-validation.ts).
 *
 * Extension names follow the naming (`x-kubernetes-*` in k8s.io mode, `x-platform-*` otherwise), in
 * paths and in messages.
 */
import { FieldPath, forbidden, invalidValue, notSupported, required, type FieldError } from '../../../validation/field-error.js';
import { childCardinality, TotalCost, validateNodeRules, validateRuleEntries, type CelScope, type PreexistingExpressions } from './crd-rules.js';
import { Extensions, isObject, isSet, objectAt, schemaList, schemaMap, stringAt, truthy, type Json } from './json-schema-node.js';
import { validFieldPath } from './schema-field-path.js';
import { validateDefaults } from './default-validation.js';
import { validateStructural } from './structural-schema.js';
import { MAX_SCHEMA_DEPTH, schemaDepth } from './schema-depth.js';

export interface SchemaValidationOptions {
  readonly x: Extensions;
  /** Per node: a known OpenAPI type (relaxed on update when the stored definition already breaks it). */
  readonly requireValidPropertyType: boolean;
  readonly requireStructuralSchema: boolean;
  readonly requireAtomicSetType: boolean;
  readonly requireMapListKeysMapSetValidation: boolean;
  /** Defaults must not carry fields their schema prunes (relaxed on update, update-leniency.ts). */
  readonly requirePrunedDefaults: boolean;
  readonly preexisting?: PreexistingExpressions;
  /** The version's schema is unchanged by this update: no per-expression cost limit. */
  readonly suppressPerExpressionCost: boolean;
}

/** The context a node is checked in (Kubernetes' `specStandardValidator`). */
interface NodeContext {
  readonly allowDefaults: boolean;
  readonly disallowDefaultsReason: string;
  readonly insideResourceMeta: boolean;
  readonly uncorrelatable?: FieldPath;
}

interface Errors {
  readonly schema: FieldError[];
  readonly cel: FieldError[];
}

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/**
 * The members of JSONSchemaProps in Kubernetes' struct order (the root check under the status subresource
 * reports the first offending one), with their Go names.
 */
const ROOT_MEMBERS: readonly (readonly [json: string, go: string])[] = [
  ['id', 'ID'], ['$schema', 'Schema'], ['$ref', 'Ref'], ['description', 'Description'], ['type', 'Type'], ['nullable', 'Nullable'],
  ['format', 'Format'], ['title', 'Title'], ['default', 'Default'], ['maximum', 'Maximum'], ['exclusiveMaximum', 'ExclusiveMaximum'],
  ['minimum', 'Minimum'], ['exclusiveMinimum', 'ExclusiveMinimum'], ['maxLength', 'MaxLength'], ['minLength', 'MinLength'],
  ['pattern', 'Pattern'], ['maxItems', 'MaxItems'], ['minItems', 'MinItems'], ['uniqueItems', 'UniqueItems'], ['multipleOf', 'MultipleOf'],
  ['enum', 'Enum'], ['maxProperties', 'MaxProperties'], ['minProperties', 'MinProperties'], ['required', 'Required'], ['items', 'Items'],
  ['allOf', 'AllOf'], ['oneOf', 'OneOf'], ['anyOf', 'AnyOf'], ['not', 'Not'], ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'], ['patternProperties', 'PatternProperties'], ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'], ['definitions', 'Definitions'], ['externalDocs', 'ExternalDocs'], ['example', 'Example'],
  ['preserve-unknown-fields', 'XPreserveUnknownFields'], ['embedded-resource', 'XEmbeddedResource'], ['int-or-string', 'XIntOrString'],
  ['list-map-keys', 'XListMapKeys'], ['list-type', 'XListType'], ['map-type', 'XMapType'], ['validations', 'XValidations'],
];
const ALLOWED_AT_ROOT = [
  'Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern',
  'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields',
  'XValidations',
];

/** Go's zero value test for a decoded member. */
const isZero = (v: unknown): boolean =>
  v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);

/**
 * The errors of one CustomResourceValidation (`{openAPIV3Schema}`) at `p` (`spec.validation` when all
 * versions share it, else `spec.versions[i].schema`).
 */
export function validateCustomResourceValidation(validation: Json | undefined, statusEnabled: boolean, opts: SchemaValidationOptions, p: FieldPath): FieldError[] {
  const schema = validation === undefined ? undefined : objectAt(validation, 'openAPIV3Schema');
  if (schema === undefined) return [];
  const errs: FieldError[] = [];
  const schemaPath = p.child('openAPIV3Schema');
  // Nothing else is checked on a schema past the depth bound: every other check walks it recursively.
  if (schemaDepth(schema) > MAX_SCHEMA_DEPTH) return [forbidden(schemaPath, `must not nest schemas more than ${MAX_SCHEMA_DEPTH} levels deep`)];

  if (statusEnabled) {
    for (const [json, go] of ROOT_MEMBERS) {
      const key = go.startsWith('X') ? opts.x.prefix + json : json;
      if (isZero(schema[key])) continue;
      if (go === 'Type') {
        if (schema.type !== 'object') {
          errs.push(invalidValue(p.child('openAPIV3Schema.type'), schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
          break;
        }
        continue;
      }
      if (!ALLOWED_AT_ROOT.includes(go)) {
        errs.push(invalidValue(schemaPath, schema, `only [${ALLOWED_AT_ROOT.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  if (truthy(schema, 'nullable')) errs.push(forbidden(p.child('openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));

  let scope: CelScope | undefined;
  let defaults: FieldError[] = [];
  if (opts.requireStructuralSchema) {
    const structural = validateStructural(schema, schemaPath, opts.x);
    if (structural.length > 0) errs.push(...structural);
    else {
      scope = { maxCardinality: 1n, total: new TotalCost(), resourceRoot: true };
      defaults = validateDefaults(schema, schemaPath, opts.x.prefix, opts.requirePrunedDefaults);
    }
  }
  const root: NodeContext = { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false };
  const found = validateNode(schema, schemaPath, root, true, opts, scope);
  errs.push(...found.schema, ...found.cel, ...defaults);
  if (scope !== undefined) errs.push(...scope.total.problems(schemaPath, `${opts.x.validations} estimated rule cost total for entire OpenAPIv3 schema`));
  return errs;
}

const withForbiddenDefaults = (c: NodeContext, reason: string): NodeContext => ({ ...c, allowDefaults: false, disallowDefaultsReason: reason });
const withUncorrelatable = (c: NodeContext, p: FieldPath): NodeContext => (c.uncorrelatable !== undefined ? c : { ...c, uncorrelatable: p });

/** Kubernetes' `MapIsCorrelatable`: granular (the default) and atomic maps correlate old and new values. */
const mapIsCorrelatable = (mapType: unknown): boolean => mapType === undefined || mapType === null || mapType === 'granular' || mapType === 'atomic';

/** The scope of a child of `parentNode` (embedded resources are resource roots for their rules). */
function childScope(parent: CelScope | undefined, parentNode: Json, child: Json, x: Extensions): CelScope | undefined {
  if (parent === undefined) return undefined;
  return { maxCardinality: childCardinality(parent, parentNode), total: parent.total, resourceRoot: truthy(child, x.embeddedResource) };
}

function validateNode(s: Json, p: FieldPath, c: NodeContext, isRoot: boolean, opts: SchemaValidationOptions, scope: CelScope | undefined): Errors {
  const { x } = opts;
  const out: Errors = { schema: nodeChecks(s, p, c, opts), cel: [] };
  const add = (e: Errors): void => void (out.schema.push(...e.schema), out.cel.push(...e.cel));
  const type = stringAt(s, 'type');
  const embedded = truthy(s, x.embeddedResource);

  if (s.uniqueItems === true) out.schema.push(forbidden(p.child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));

  const properties = schemaMap(s, 'properties');
  if (isSet(s, 'additionalProperties')) {
    const ap = objectAt(s, 'additionalProperties');
    if (properties.length > 0 && (s.additionalProperties === false || ap !== undefined)) {
      out.schema.push(forbidden(p.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
    if (ap !== undefined) {
      const sub = c.insideResourceMeta ? withForbiddenDefaults(c, 'inside additionalProperties applying to object metadata') : c;
      add(validateNode(ap, p.child('additionalProperties'), sub, false, opts, childScope(scope, s, ap, x)));
    }
  }
  for (const [name, prop] of properties) {
    let sub = c;
    if (!mapIsCorrelatable(s[x.mapType])) sub = withUncorrelatable(sub, p);
    if ((isRoot || embedded) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = withForbiddenDefaults(sub, `in top-level ${name}`);
    }
    add(validateNode(prop, p.child('properties').key(name), sub, false, opts, childScope(scope, s, prop, x)));
  }
  const not = objectAt(s, 'not');
  if (not !== undefined) add(validateNode(not, p.child('not'), c, false, opts, undefined));
  for (const key of ['allOf', 'oneOf', 'anyOf']) schemaList(s, key).forEach((n, i) => add(validateNode(n, p.child(key).index(i), c, false, opts, undefined)));
  for (const [name, d] of schemaMap(s, 'definitions')) add(validateNode(d, p.child('definitions').key(name), c, false, opts, undefined));

  const items = objectAt(s, 'items');
  if (s.items !== undefined && s.items !== null) {
    const sub = s[x.listType] !== 'map' ? withUncorrelatable(c, p) : c;
    if (items !== undefined) {
      add(validateNode(items, p.child('items'), sub, false, opts, childScope(scope, s, items, x)));
    } else if (Array.isArray(s.items)) {
      s.items.forEach((n, i) => {
        if (isObject(n)) add(validateNode(n, p.child('items').index(i), sub, false, opts, childScope(scope, s, n, x)));
      });
    }
  }
  for (const [name, d] of Object.entries(objectAt(s, 'dependencies') ?? {})) {
    if (isObject(d)) add(validateNode(d, p.child('dependencies').key(name), c, false, opts, undefined));
  }

  out.schema.push(...extensionChecks(s, p, type, items, opts));
  if (opts.requireMapListKeysMapSetValidation) out.schema.push(...mapListKeysMapSet(s, p, items, x));

  out.schema.push(...validateRuleEntries(s, p, x.prefix, (fieldPath) => validFieldPath(fieldPath, s).ok));
  // Compiler errors about a schema that is itself wrong would only confuse: rules compile on a clean schema.
  if (out.schema.length === 0 && scope !== undefined) {
    out.cel.push(
      ...validateNodeRules(s, p, scope, {
        extensionPrefix: x.prefix,
        suppressPerExpressionCost: opts.suppressPerExpressionCost,
        ...(opts.preexisting === undefined ? {} : { preexisting: opts.preexisting }),
        ...(c.uncorrelatable === undefined ? {} : { uncorrelatablePath: c.uncorrelatable }),
      }),
    );
  }
  return out;
}

/** Kubernetes' `specStandardValidatorV3.validate`: the members a node may not use. */
function nodeChecks(s: Json, p: FieldPath, c: NodeContext, opts: SchemaValidationOptions): FieldError[] {
  const errs: FieldError[] = [];
  const type = stringAt(s, 'type');
  if (opts.requireValidPropertyType && type !== '' && !OPENAPI_V3_TYPES.includes(type)) errs.push(notSupported(p.child('type'), type, OPENAPI_V3_TYPES));
  if (isSet(s, 'default') && !c.allowDefaults) {
    errs.push(forbidden(p.child('default'), c.disallowDefaultsReason === '' ? 'must not be set' : `must not be set ${c.disallowDefaultsReason}`));
  }
  if (stringAt(s, 'id') !== '') errs.push(forbidden(p.child('id'), 'id is not supported'));
  if (isSet(s, 'additionalItems')) errs.push(forbidden(p.child('additionalItems'), 'additionalItems is not supported'));
  if (Object.keys(objectAt(s, 'patternProperties') ?? {}).length > 0) {
    errs.push(forbidden(p.child('patternProperties'), 'patternProperties is not supported'));
  }
  if (Object.keys(objectAt(s, 'definitions') ?? {}).length > 0) errs.push(forbidden(p.child('definitions'), 'definitions is not supported'));
  if (isSet(s, 'dependencies')) errs.push(forbidden(p.child('dependencies'), 'dependencies is not supported'));
  if (isSet(s, '$ref')) errs.push(forbidden(p.child('$ref'), '$ref is not supported'));
  if (type === 'null') errs.push(forbidden(p.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) errs.push(forbidden(p.child('items'), 'items must be a schema object and not an array'));
  if (c.insideResourceMeta && truthy(s, opts.x.embeddedResource)) errs.push(forbidden(p.child(opts.x.embeddedResource), 'must not be used inside of resource meta'));
  return errs;
}

/** The list-type, map-type and preserve-unknown-fields combinations. */
function extensionChecks(s: Json, p: FieldPath, type: string, items: Json | undefined, opts: SchemaValidationOptions): FieldError[] {
  const { x } = opts;
  const errs: FieldError[] = [];
  if (s[x.preserveUnknownFields] === false) errs.push(invalidValue(p.child(x.preserveUnknownFields), false, 'must be true or undefined'));

  const mapType = s[x.mapType];
  if (isSet(s, x.mapType) && type !== 'object') {
    const detail = `must be object if ${x.mapType} is specified`;
    errs.push(type === '' ? required(p.child('type'), detail) : invalidValue(p.child('type'), type, detail));
  }
  if (isSet(s, x.mapType) && mapType !== 'atomic' && mapType !== 'granular') errs.push(notSupported(p.child(x.mapType), mapType, ['atomic', 'granular']));

  const listType = s[x.listType];
  const hasListType = isSet(s, x.listType);
  if (hasListType && type !== 'array') {
    const detail = `must be array if ${x.listType} is specified`;
    errs.push(type === '' ? required(p.child('type'), detail) : invalidValue(p.child('type'), type, detail));
  } else if (opts.requireAtomicSetType && listType === 'set' && items !== undefined) {
    const detail = `must be atomic as item of a list with ${x.listType}=set`;
    if (items.type === 'array' && isSet(items, x.listType) && items[x.listType] !== 'atomic') {
      errs.push(invalidValue(p.child('items').child(x.listType), items[x.listType], detail));
    } else if (items.type === 'object' && items[x.mapType] !== 'atomic') {
      // Kubernetes reports the item's list type here (usually unset, so null).
      errs.push(invalidValue(p.child('items').child(x.mapType), items[x.listType] ?? null, detail));
    }
  }
  if (hasListType && listType !== 'atomic' && listType !== 'set' && listType !== 'map') errs.push(notSupported(p.child(x.listType), listType, ['atomic', 'set', 'map']));

  const keys = Array.isArray(s[x.listMapKeys]) ? (s[x.listMapKeys] as unknown[]) : [];
  if (keys.length > 0) {
    const detail = `must be map if ${x.listMapKeys} is non-empty`;
    if (!hasListType) errs.push(required(p.child(x.listType), detail));
    else if (listType !== 'map') errs.push(invalidValue(p.child(x.listType), listType, detail));
  }
  if (listType === 'map') {
    if (keys.length === 0) errs.push(required(p.child(x.listMapKeys), `must not be empty if ${x.listType} is map`));
    if (s.items === undefined || s.items === null) errs.push(required(p.child('items'), `must have a schema if ${x.listType} is map`));
    else if (items === undefined) errs.push(invalidValue(p.child('items'), s.items, `must only have a single schema if ${x.listType} is map`));
    if (items !== undefined && items.type !== 'object') {
      errs.push(invalidValue(p.child('items').child('type'), stringAt(items, 'type'), `must be object if parent array's ${x.listType} is map`));
    }
    if (items !== undefined && items.type === 'object') {
      const props = objectAt(items, 'properties') ?? {};
      const seen = new Set<unknown>();
      for (const k of keys) {
        const prop = typeof k === 'string' ? props[k] : undefined;
        if (isObject(prop)) {
          if (prop.type === 'array' || prop.type === 'object') {
            errs.push(invalidValue(p.child('items').child('properties').key(String(k)).child('type'), 'object', `must be a scalar type if parent array's ${x.listType} is map`));
          }
        } else {
          errs.push(invalidValue(p.child(x.listMapKeys), keys, 'entries must all be names of item properties'));
        }
        if (seen.has(k)) errs.push(invalidValue(p.child(x.listMapKeys), keys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  return errs;
}

/** Set and map list items are not nullable; map keys are required or defaulted, and not nullable. */
function mapListKeysMapSet(s: Json, p: FieldPath, items: Json | undefined, x: Extensions): FieldError[] {
  const listType = s[x.listType];
  if (items === undefined || (listType !== 'set' && listType !== 'map')) return [];
  const errs: FieldError[] = [];
  if (truthy(items, 'nullable')) errs.push(forbidden(p.child('items').child('nullable'), `cannot be nullable when ${x.listType} is ${String(listType)}`));
  if (listType === 'map') {
    const requiredKeys = new Set(Array.isArray(items.required) ? items.required : []);
    const props = objectAt(items, 'properties') ?? {};
    const keys = Array.isArray(s[x.listMapKeys]) ? (s[x.listMapKeys] as unknown[]) : [];
    for (const k of keys) {
      const prop = typeof k === 'string' ? props[k] : undefined;
      if (!isObject(prop)) continue;
      const at = p.child('items').child('properties').key(String(k));
      if (!requiredKeys.has(k) && !isSet(prop, 'default')) {
        errs.push(required(at.child('default'), `this property is in ${x.listMapKeys}, so it must have a default or be a required property`));
      }
      if (truthy(prop, 'nullable')) errs.push(forbidden(at.child('nullable'), `this property is in ${x.listMapKeys}, so it cannot be nullable`));
    }
  }
  return errs;
}
