/**
 * Which schema rules an update of a definition is held to, from what the stored definition already
 * breaks (Kubernetes v1.32 `validationOptions` of `ValidateCustomResourceDefinitionUpdate`): a rule the
 * old definition already breaks is not applied to the new one, so a definition stored before the rule
 * existed (by an older server, or through v1beta1) stays updatable. A create is held to every rule.
 *
 * - `requireOpenAPISchema`: every old version has a schema;
 * - `requireValidPropertyType`: no old schema node has a type outside the OpenAPI v3 ones;
 * - `requireStructuralSchema`: every old schema is structural (and only then are defaults checked);
 * - `requirePrunedDefaults`: no old default carries fields its schema would prune;
 * - `requireAtomicSetType`: no old `set` list has non-atomic items;
 * - `requireMapListKeysMapSetValidation`: no old map list has a nullable, or neither required nor
 *   defaulted, key, and no old set or map list has nullable items.
 */
import { FieldPath } from '../../../validation/field-error.js';
import { deepEqual } from '../../../schema/rule-correlation.js';
import { prune } from '../../../schema/prune.js';
import { engineSchemaOf } from './engine-schema.js';
import { Extensions, isObject, objectAt, schemaList, schemaMap, stringAt, truthy, type Json } from './json-schema-node.js';
import { validateStructural } from './structural-schema.js';

export interface SchemaRequirements {
  readonly requireOpenAPISchema: boolean;
  readonly requireValidPropertyType: boolean;
  readonly requireStructuralSchema: boolean;
  readonly requirePrunedDefaults: boolean;
  readonly requireAtomicSetType: boolean;
  readonly requireMapListKeysMapSetValidation: boolean;
}

/** Every rule: a create. */
export const ALL_REQUIREMENTS: SchemaRequirements = Object.freeze({
  requireOpenAPISchema: true,
  requireValidPropertyType: true,
  requireStructuralSchema: true,
  requirePrunedDefaults: true,
  requireAtomicSetType: true,
  requireMapListKeysMapSetValidation: true,
});

const OPENAPI_V3_TYPES = new Set(['array', 'boolean', 'integer', 'number', 'object', 'string']);

/** The rules an update of a definition whose stored spec is `oldSpec` is held to. */
export function requirementsForUpdate(oldSpec: Json, x: Extensions): SchemaRequirements {
  const versions = Array.isArray(oldSpec.versions) ? oldSpec.versions.filter(isObject) : [];
  const schemas = versions.map((v) => objectAt(objectAt(v, 'schema') ?? {}, 'openAPIV3Schema')).filter((s): s is Json => s !== undefined);
  const any = (test: (node: Json) => boolean): boolean => schemas.some((s) => someNode(s, test));
  const structural = schemas.every((s) => validateStructural(s, FieldPath.root(''), x).length === 0);
  return {
    requireOpenAPISchema: versions.length > 0 && schemas.length === versions.length,
    requireValidPropertyType: !any((n) => stringAt(n, 'type') !== '' && !OPENAPI_V3_TYPES.has(stringAt(n, 'type'))),
    requireStructuralSchema: structural,
    // Kubernetes can only tell unpruned defaults of a structural schema.
    requirePrunedDefaults: !(structural && schemas.some((s) => hasUnprunedDefault(s, x))),
    requireAtomicSetType: !any((n) => nonAtomicSetItems(n, x)),
    requireMapListKeysMapSetValidation: !any((n) => mapListKeysProblem(n, x)),
  };
}

/** Whether `test` holds for any schema node under `node` (properties, additionalProperties, items, junctors). */
function someNode(node: Json, test: (node: Json) => boolean): boolean {
  if (test(node)) return true;
  const children: Json[] = [
    ...schemaMap(node, 'properties').map(([, s]) => s),
    ...['additionalProperties', 'items', 'not'].map((k) => objectAt(node, k)).filter((s): s is Json => s !== undefined),
    ...['allOf', 'anyOf', 'oneOf'].flatMap((k) => schemaList(node, k)),
  ];
  return children.some((c) => someNode(c, test));
}

function hasUnprunedDefault(schema: Json, x: Extensions): boolean {
  return someNode(schema, (n) => {
    if (n.default === undefined || n.default === null) return false;
    const pruned = structuredClone(n.default);
    prune(pruned, engineSchemaOf(n, x.prefix));
    return !deepEqual(pruned, n.default);
  });
}

function nonAtomicSetItems(n: Json, x: Extensions): boolean {
  const items = objectAt(n, 'items');
  if (n[x.listType] !== 'set' || items === undefined) return false;
  if (items.type === 'array') return items[x.listType] !== undefined && items[x.listType] !== null && items[x.listType] !== 'atomic';
  return items.type === 'object' && items[x.mapType] !== 'atomic';
}

function mapListKeysProblem(n: Json, x: Extensions): boolean {
  const listType = n[x.listType];
  const items = objectAt(n, 'items');
  if (items === undefined || (listType !== 'set' && listType !== 'map')) return false;
  if (truthy(items, 'nullable')) return true;
  if (listType !== 'map') return false;
  const requiredKeys = new Set(Array.isArray(items.required) ? items.required : []);
  const props = objectAt(items, 'properties') ?? {};
  const keys = Array.isArray(n[x.listMapKeys]) ? (n[x.listMapKeys] as unknown[]) : [];
  return keys.some((k) => {
    const prop = typeof k === 'string' ? props[k] : undefined;
    if (!isObject(prop)) return false;
    return truthy(prop, 'nullable') || (!requiredKeys.has(k) && (prop.default === undefined || prop.default === null));
  });
}
