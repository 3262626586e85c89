/**
 * Built-in kinds are decoded into typed structs in Kubernetes, so a value of the wrong JSON type (`"yes"` for
 * a boolean, an object for a string, 2^40 for an int32) fails decoding with 400 BadRequest, before any
 * validation: `Job in version "v1" cannot be handled as a Job: json: cannot unmarshal string into Go struct
 * field Job.spec.suspend of type bool`. Custom resources are decoded as unstructured JSON and keep the schema's
 * 422 for the same mistake, except in `metadata`, which Kubernetes decodes into the typed ObjectMeta for them too.
 *
 * The schema walk already finds these values (FieldValueTypeInvalid, and the int32/int64 range checks), so
 * this is a reading of the first such error, not a second walk: Go's decoder stops at the first one too.
 * Go's struct type names are not known here; the kind's name stands for the outer struct, and the type of
 * the field is given in Go's spelling from the schema (`bool`, `int32`, `[]string`, `map[string]string`,
 * `struct` for a nested object).
 */
import { badRequest, type GroupKind } from '../../errors/constructors.js';
import type { StatusError } from '../../errors/status-error.js';
import type { Schema } from '../../schema/schema.js';
import type { FieldError } from '../../validation/field-error.js';

const RANGE = /^must be of type (int32|int64): /;

/** The 400 for the first wrongly typed value among `errs`, or undefined when there is none. */
export function decodeError(gk: GroupKind, version: string, schema: Schema, errs: readonly FieldError[]): StatusError | undefined {
  for (const e of errs) {
    let what: string;
    if (e.type === 'FieldValueTypeInvalid') what = jsonTypeOf(String(e.value));
    else if (e.type === 'FieldValueInvalid' && typeof e.value === 'number' && RANGE.test(e.detail ?? '')) what = `number ${e.value}`;
    else continue;
    const { field, target } = structField(schema, e.field);
    const goType = target === undefined ? 'interface {}' : goTypeOf(target);
    return badRequest(`${gk.kind} in version "${version}" cannot be handled as a ${gk.kind}: json: cannot unmarshal ${what} into Go struct field ${gk.kind}.${field} of type ${goType}`);
  }
  return undefined;
}

/** encoding/json's names of JSON value kinds, from the schema walk's type names. */
function jsonTypeOf(actual: string): string {
  switch (actual) {
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return actual; // string, array, object
  }
}

/** The Go spelling of the type a schema node decodes into. */
function goTypeOf(s: Schema): string {
  if (s['x-kubernetes-int-or-string'] === true) return 'intstr.IntOrString';
  switch (s.type) {
    case 'boolean':
      return 'bool';
    case 'integer':
      return s.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'string':
      return s.format === 'byte' ? '[]uint8' : 'string';
    case 'array':
      return `[]${s.items === undefined ? 'interface {}' : goTypeOf(s.items)}`;
    case 'object':
      if (s.properties === undefined && typeof s.additionalProperties === 'object') return `map[string]${goTypeOf(s.additionalProperties)}`;
      return 'struct';
    default:
      return 'interface {}';
  }
}

/**
 * The schema node at a field path (`spec.containers[0].ports[1].containerPort`, `data.key`), and the path as
 * Go names the struct field: struct members only, no list indexes or map keys (`spec.containers.ports`,
 * `data`). `target` is undefined when the path leaves the schema.
 */
function structField(root: Schema, path: string): { field: string; target: Schema | undefined } {
  let s: Schema | undefined = root;
  const names: string[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) {
    if (s === undefined) break;
    const member: Schema | undefined = m[1] === undefined ? undefined : s.properties?.[m[1]];
    if (member !== undefined) {
      names.push(m[1]!);
      s = member;
    } else {
      s = s.items ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    }
  }
  return { field: names.join('.'), target: s };
}
