/**
 * Structural defaulting, in place, as Kubernetes applies it to custom resources (and as the built-in kinds'
 * schemas describe their defaults): top-down, so a defaulted object gets its own fields' defaults too.
 * - A property with a `default` is set when absent, or when null and the property is not `nullable`.
 * - Map values and array items that are null get their schema's default when it has one (not nullable).
 * - Defaults are deep-copied: stored schemas are never shared with objects.
 * Only existing objects are defaulted: a missing parent is not created for its children's sake.
 */
import type { Schema } from './schema.js';

const hasOwn = Object.prototype.hasOwnProperty;

/** Compiled once per schema node: the properties that carry a default. */
const defaultedProps = new WeakMap<Schema, readonly (readonly [string, Schema])[]>();

function propsWithDefaults(schema: Schema): readonly (readonly [string, Schema])[] {
  let list = defaultedProps.get(schema);
  if (list === undefined) {
    list = schema.properties === undefined ? [] : Object.entries(schema.properties).filter(([, s]) => s.default !== undefined);
    defaultedProps.set(schema, list);
  }
  return list;
}

const needsDefault = (v: unknown, s: Schema): boolean => s.default !== undefined && (v === undefined || (v === null && s.nullable !== true));

export function applyDefaults(value: unknown, schema: Schema): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items === undefined) return;
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null && needsDefault(null, items)) value[i] = structuredClone(items.default);
      applyDefaults(value[i], items);
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const [name, prop] of propsWithDefaults(schema)) {
    const v = hasOwn.call(obj, name) ? obj[name] : undefined;
    if (needsDefault(v, prop)) obj[name] = structuredClone(prop.default);
  }
  const props = schema.properties;
  const ap = schema.additionalProperties;
  for (const key in obj) {
    const prop = props !== undefined && hasOwn.call(props, key) ? props[key] : undefined;
    if (prop !== undefined) {
      applyDefaults(obj[key], prop);
    } else if (typeof ap === 'object') {
      if (obj[key] === null && needsDefault(null, ap)) obj[key] = structuredClone(ap.default);
      applyDefaults(obj[key], ap);
    }
  }
}
