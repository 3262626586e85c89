/**
 * Following a value's schema while walking it, for the one thing CBOR needs from the schema: which strings
 * are `format: byte` (Go `[]byte`), written as CBOR byte strings and read back as base64 text. Unknown
 * places (no schema, `x-kubernetes-preserve-unknown-fields` without properties, `additionalProperties:
 * true`) give `undefined`: plain values there.
 */
import type { Schema } from '../../schema/schema.js';

/** The schema of property `key` of an object described by `s`. */
export function propertySchema(s: Schema | undefined, key: string): Schema | undefined {
  if (s === undefined) return undefined;
  const p = s.properties?.[key];
  if (p !== undefined) return p;
  const ap = s.additionalProperties;
  return typeof ap === 'object' ? ap : undefined;
}

/** The schema of the elements of an array described by `s`. */
export function itemSchema(s: Schema | undefined): Schema | undefined {
  return s?.items;
}

/** Whether strings described by `s` are bytes (Go `[]byte`, base64 in JSON). */
export function isBytes(s: Schema | undefined): boolean {
  return s !== undefined && s.format === 'byte';
}

/** Whether numbers described by `s` are floating point (Go float64: written as CBOR floats even when whole). */
export function isFloat(s: Schema | undefined): boolean {
  return s !== undefined && s.type === 'number';
}
