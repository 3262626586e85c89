/**
 * Removes `null` from fields whose schema is not `nullable`, in place: for a built-in kind a JSON null is
 * the same as leaving the field out (Go decodes it to the zero value), and structural schemas drop such
 * nulls before defaulting, so a default then applies. kubectl sends `"creationTimestamp": null` in every
 * object it creates; without this it would fail validation.
 *
 * Object properties and map values are dropped; array elements are kept (a null element is an error the
 * validator reports). Below `x-kubernetes-preserve-unknown-fields` without properties, nothing is touched.
 */
import type { Schema } from './schema.js';

export function dropNulls(value: unknown, schema: Schema): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (items !== undefined) for (const v of value) dropNulls(v, items);
    return;
  }
  const obj = value as Record<string, unknown>;
  const props = schema.properties;
  const extra = schema.additionalProperties;
  for (const key of Object.keys(obj)) {
    const child = props?.[key] ?? (typeof extra === 'object' ? extra : undefined);
    if (child === undefined) continue;
    const v = obj[key];
    if (v === null) {
      if (child.nullable !== true) delete obj[key];
    } else if (typeof v === 'object') {
      dropNulls(v, child);
    }
  }
}
