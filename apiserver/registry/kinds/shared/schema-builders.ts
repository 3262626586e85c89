/**
 * Small constructors for the built-in kinds' schemas, so each field reads as one line. They build plain
 * `Schema` data once, at module load; nothing here runs per request.
 *
 * As Kubernetes publishes them: required scalars carry Go's zero value as `default` (`""`, `0`) and
 * non-pointer struct fields `default: {}`, so defaulting then validation behaves like decoding into Go
 * structs (a missing taint key becomes "" and fails as Kubernetes reports it).
 */
import type { Schema } from '../../../schema/schema.js';

type Extra = Omit<Schema, 'type' | 'description'>;

export const str = (description: string, extra: Extra = {}): Schema => ({ type: 'string', description, ...extra });
export const int32 = (description: string, extra: Extra = {}): Schema => ({ type: 'integer', format: 'int32', description, ...extra });
export const int64 = (description: string, extra: Extra = {}): Schema => ({ type: 'integer', format: 'int64', description, ...extra });
export const bool = (description: string, extra: Extra = {}): Schema => ({ type: 'boolean', description, ...extra });
/** `metav1.Time`: RFC 3339 with second precision. */
export const time = (description: string): Schema => ({ type: 'string', format: 'date-time', description });

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

/** `map[string]string`; `atomic` maps are replaced whole by apply. */
export const stringMap = (description: string, atomic = false): Schema => ({
  type: 'object',
  description,
  additionalProperties: { type: 'string', default: '' },
  ...(atomic ? { 'x-kubernetes-map-type': 'atomic' as const } : {}),
});

/** `map[string][]byte`: values are base64 in JSON and YAML. */
export const byteMap = (description: string): Schema => ({ type: 'object', description, additionalProperties: { type: 'string', format: 'byte' } });
