/**
 * Schema validation of an update with ratcheting (KEP-4008 CRDValidationRatcheting, on by default since
 * Kubernetes 1.30): an update may keep an invalid value as long as the invalid part did not change.
 *
 * The rule, as Kubernetes' ratcheting schema validator (apiextensions-apiserver
 * pkg/apiserver/validation/ratcheting.go, v1.32) applies it: the walk follows the old object beside the new
 * one (rule-correlation.ts: object properties and map keys, lists of type `map` by key; never set, atomic
 * or untyped lists, nor the root's `apiVersion` and `kind`), and every node's errors, its own and those of
 * the nodes below it, are dropped when that node deep-equals its correlated old value. So an error is
 * ratcheted when it, or any correlated node above it, is unchanged.
 *
 * What ratchets: every error of the schema validator proper (types, enums, bounds, lengths, patterns,
 * formats, `required`, property counts, `uniqueItems`, the junctors, whichever node they sit on).
 * What never does: Kubernetes' separate steps, which run without the old object: the uniqueness of `set`
 * and `map` lists and the presence of map keys (structurallisttype), the apiVersion/kind of embedded
 * resources (schemaobjectmeta), ObjectMeta validation, and CEL transition rules (validate-rules.ts).
 *
 * Ratcheted errors are dropped, not warned about: Kubernetes keeps them only as the validator's internal
 * warnings, which never reach the response. They are returned for callers that want them (tests, metrics).
 *
 * Kubernetes ratchets custom resources only; built-in kinds' validation does not ratchet (the registry's
 * validation step opts in per kind).
 */
import { KUBERNETES_EXTENSIONS, SchemaView } from '../cel/types/schema-node.js';
import type { FieldError, FieldPath } from '../validation/field-error.js';
import { Correlation } from './rule-correlation.js';
import type { Schema } from './schema.js';
import { validateValue, type ValidateOptions } from './validate.js';

export interface UpdateValidateOptions extends Omit<ValidateOptions, 'ratchet'> {
  /** CRDValidationRatcheting; default true. */
  readonly ratcheting?: boolean;
  /** Prefix of every error path; default the root. */
  readonly path?: FieldPath;
}

export interface UpdateValidation {
  /** The errors that fail the update. */
  readonly errors: FieldError[];
  /** The errors of unchanged values, set aside. */
  readonly ratcheted: FieldError[];
}

/** Schemas kept by the server spell extensions as Kubernetes does (schema.ts), as validate.ts reads them. */
const VIEW = new SchemaView(KUBERNETES_EXTENSIONS);

/**
 * Validates `value`, the new object of an update, against `schema`, ratcheting against `old`. Without an
 * old value (or with ratcheting off) this is `validateValue`.
 */
export function validateValueUpdate(value: unknown, old: unknown, schema: Schema, options: UpdateValidateOptions = {}): UpdateValidation {
  const style = options.style === undefined ? {} : { style: options.style };
  if (old === undefined || old === null || options.ratcheting === false) {
    return { errors: validateValue(value, schema, options.path, style), ratcheted: [] };
  }
  const ratcheted: FieldError[] = [];
  const errors = validateValue(value, schema, options.path, { ...style, ratchet: { root: new Correlation(value, old, schema, VIEW), ratcheted } });
  return { errors, ratcheted };
}
