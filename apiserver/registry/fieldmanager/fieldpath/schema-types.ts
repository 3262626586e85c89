/**
 * How a structural schema node behaves for field sets and merging (structured-merge-diff's "atoms"):
 *
 * - object with `properties` (a struct) or `additionalProperties` (a map): granular, each field its own
 *   path, unless `x-kubernetes-map-type: atomic` (one leaf, replaced whole);
 * - array: `x-kubernetes-list-type` `map` (elements keyed by `x-kubernetes-list-map-keys`, `k:`), `set`
 *   (scalar elements keyed by value, `v:`) or `atomic` (the default: one leaf, replaced whole);
 * - anything else is a scalar leaf.
 *
 * Where the schema says nothing (`x-kubernetes-preserve-unknown-fields`, undeclared fields), the type is
 * deduced from the value as structured-merge-diff deduces it: objects are granular maps, arrays atomic.
 * A value whose type contradicts its schema is a leaf.
 */
import { objectMetaSchema } from '../../../schema/object-meta-schema.js';
import type { Schema } from '../../../schema/schema.js';
import { parsePE, type PE } from './path-element.js';
import { isObject } from '../../../api/json.js';

export type ListType = 'atomic' | 'set' | 'map';

export type NodeType =
  | { readonly kind: 'scalar' }
  | { readonly kind: 'object'; readonly atomic: boolean; readonly schema: Schema | undefined }
  | { readonly kind: 'list'; readonly listType: ListType; readonly keys: readonly string[]; readonly item: Schema | undefined };

const SCALAR: NodeType = { kind: 'scalar' };
const DEDUCED_OBJECT: NodeType = { kind: 'object', atomic: false, schema: undefined };
const DEDUCED_LIST: NodeType = { kind: 'list', listType: 'atomic', keys: [], item: undefined };

function isObjectSchema(s: Schema): boolean {
  return s.type === 'object' || (s.type === undefined && (s.properties !== undefined || s.additionalProperties !== undefined));
}

function isArraySchema(s: Schema): boolean {
  return s.type === 'array' || (s.type === undefined && s.items !== undefined);
}

/** The type of `value` under `schema` (undefined: deduced from the value). */
export function nodeType(schema: Schema | undefined, value: unknown): NodeType {
  if (schema === undefined || schema['x-kubernetes-int-or-string'] === true || (schema.type === undefined && !isObjectSchema(schema) && !isArraySchema(schema))) {
    if (schema?.['x-kubernetes-int-or-string'] === true) return SCALAR;
    return isObject(value) ? DEDUCED_OBJECT : Array.isArray(value) ? DEDUCED_LIST : SCALAR;
  }
  if (isArraySchema(schema)) {
    if (!Array.isArray(value)) return SCALAR;
    return { kind: 'list', listType: schema['x-kubernetes-list-type'] ?? 'atomic', keys: schema['x-kubernetes-list-map-keys'] ?? [], item: schema.items };
  }
  if (isObjectSchema(schema)) {
    if (!isObject(value)) return SCALAR;
    return { kind: 'object', atomic: schema['x-kubernetes-map-type'] === 'atomic', schema };
  }
  return SCALAR;
}

/** The schema of field `name` of an object node (undefined: deduced). */
export function fieldSchema(schema: Schema | undefined, name: string): Schema | undefined {
  if (schema === undefined) return undefined;
  const declared = schema.properties?.[name];
  if (declared !== undefined) return declared;
  if (schema['x-kubernetes-embedded-resource'] === true) {
    if (name === 'metadata') return objectMetaSchema;
    if (name === 'apiVersion' || name === 'kind') return { type: 'string' };
  }
  const ap = schema.additionalProperties;
  return typeof ap === 'object' ? ap : undefined;
}

/** Whether `name` is a declared field (a struct field, not a map key) of an object schema. */
export function isNamedField(schema: Schema | undefined, name: string): boolean {
  if (schema === undefined) return false;
  if (schema.properties?.[name] !== undefined) return true;
  return schema['x-kubernetes-embedded-resource'] === true && (name === 'metadata' || name === 'apiVersion' || name === 'kind');
}

/** The schema below a path element, navigating by schema alone (list elements: `items`). */
export function childSchema(schema: Schema | undefined, pe: PE): Schema | undefined {
  if (schema === undefined) return undefined;
  if (pe.startsWith('f:')) return fieldSchema(schema, pe.slice(2));
  parsePE(pe);
  return schema.items;
}
