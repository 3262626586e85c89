/**
 * Field errors whose value Kubernetes prints in Go syntax (`%#v`): the lists of the admissionregistration
 * types (`Invalid value: []string{"*", "pods"}: ...`, `[]admissionregistration.OperationType{"*", "CREATE"}`).
 * The rendered value goes in front of the detail, so the message reads exactly as Kubernetes' while the
 * error carries no value of its own.
 */
import type { FieldError, FieldPath } from '../../../validation/field-error.js';

/** Go's `%#v` of a slice of a string type: `[]string{"a", "b"}`, `[]admissionregistration.OperationType{}`. */
export const goStrings = (type: string, values: readonly string[]): string => `[]${type}{${values.map((v) => JSON.stringify(v)).join(', ')}}`;

/** Go's `%#v` of a slice of structs with string fields: `[]pkg.T{pkg.T{Key:"a", Value:"b"}}`. */
export function goStructs(type: string, values: readonly Readonly<Record<string, string>>[]): string {
  const one = (v: Readonly<Record<string, string>>): string =>
    `${type}{${Object.entries(v)
      .map(([k, x]) => `${k}:${JSON.stringify(x)}`)
      .join(', ')}}`;
  return `[]${type}{${values.map(one).join(', ')}}`;
}

/** An Invalid error whose value is already rendered. */
export const invalidRendered = (field: FieldPath, rendered: string, detail: string): FieldError => ({
  type: 'FieldValueInvalid',
  field: field.toString(),
  detail: `${rendered}: ${detail}`,
});
