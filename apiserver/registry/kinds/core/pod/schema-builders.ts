/**
 * Small constructors for the pod schemas, so each field reads as one line. They only build plain
 * `Schema` data; nothing here is evaluated per request.
 *
 * Kubernetes publishes `default: ""` / `default: 0` on required scalar fields and `default: {}` on
 * non-pointer struct fields (Go's zero values); the builders keep that so defaulting then validation
 * behaves like decoding into Go structs (a missing container name becomes "" and fails as `Required value`).
 */
import type { Schema } from '../../../../schema/schema.js';

type Extra = Omit<Schema, 'type' | 'description'>;

export const str = (description: string, extra: Extra = {}): Schema => ({ type: 'string', description, ...extra });
export const int32 = (description: string, extra: Extra = {}): Schema => ({ type: 'integer', format: 'int32', description, ...extra });
export const int64 = (description: string, extra: Extra = {}): Schema => ({ type: 'integer', format: 'int64', description, ...extra });
export const bool = (description: string, extra: Extra = {}): Schema => ({ type: 'boolean', description, ...extra });

/** A required string: Go's zero value "" is the published default. */
export const requiredStr = (description: string): Schema => str(description, { default: '' });

export function obj(description: string, properties: Record<string, Schema>, required?: readonly string[], extra: Extra = {}): Schema {
  return required === undefined || required.length === 0
    ? { type: 'object', description, properties, ...extra }
    : { type: 'object', description, properties, required, ...extra };
}

/** A struct-valued field that is not a pointer in Go: absent means `{}`. */
export const struct = (s: Schema, description?: string): Schema => ({ ...s, ...(description === undefined ? {} : { description }), default: {} });

/** A field referring to a shared definition, with its own description. */
export const ref = (s: Schema, description: string): Schema => ({ ...s, description });

export const atomicList = (items: Schema, description: string): Schema => ({
  type: 'array',
  description,
  items,
  'x-kubernetes-list-type': 'atomic',
});

export const stringList = (description: string): Schema => atomicList({ type: 'string', default: '' }, description);

/**
 * A list merged by key: list-type `map` with `keys` for server-side apply, and the strategic merge patch
 * `mergeKey`/`strategy` (defaults: the first key, `merge`).
 */
export function keyedList(items: Schema, description: string, keys: readonly string[], strategy = 'merge', mergeKey = keys[0]!): Schema {
  return {
    type: 'array',
    description,
    items: { ...items, default: {} },
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': keys,
    'x-kubernetes-patch-merge-key': mergeKey,
    'x-kubernetes-patch-strategy': strategy,
  };
}

export const stringMap = (description: string, atomic = false): Schema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string', default: '' },
  ...(atomic ? { 'x-kubernetes-map-type': 'atomic' as const } : {}),
});

/** `resource.Quantity`: a string such as `100m` or `1Gi`, or a bare number. */
export const quantity = (description: string): Schema => ({
  description,
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
});

export const quantityMap = (description: string): Schema => ({ type: 'object', description, additionalProperties: quantity('') });

/** `IntOrString` (ports that may be named). */
export const intOrString = (description: string): Schema => ({ description, 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] });

/** A reference to an object in the same namespace by name (`LocalObjectReference`). */
export const localObjectReference = (description: string): Schema =>
  obj(description, { name: str('Name of the referent (a DNS subdomain).', { default: '' }) }, undefined, { 'x-kubernetes-map-type': 'atomic' });
