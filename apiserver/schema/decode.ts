/**
 * Decoding a request body against a kind's schema, per `fieldValidation`:
 * - Strict: duplicate keys and unknown fields become one 400 `strict decoding error: ...` listing all.
 * - Warn: each becomes a warning (`unknown field "spec.foo"`), for `Warning: 299` headers.
 * - Ignore: nothing is reported.
 * Unknown fields are pruned in every mode, so the result only holds declared fields, and nulls of
 * non-nullable fields are dropped (see drop-nulls.ts).
 */
import { dropNulls } from './drop-nulls.js';
import { parseJsonStrict } from './json-strict.js';
import { pruneReporting, prune } from './prune.js';
import type { Schema } from './schema.js';
import { duplicateFieldMessage, strictDecodingError, unknownFieldMessage } from './unknown-fields.js';
import { parseYamlStrict } from './yaml-strict.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface Decoded {
  readonly object: unknown;
  readonly warnings: string[];
}

/** Decodes a JSON body (400 on invalid JSON). */
export function decodeObject(text: string, schema: Schema, fieldValidation: FieldValidation): Decoded {
  const { value, duplicateFields } = parseJsonStrict(text, fieldValidation !== 'Ignore');
  return decodeParsed(value, duplicateFields, schema, fieldValidation);
}

/** Decodes a YAML body (400 on invalid YAML or several documents). */
export function decodeYamlObject(text: string, schema: Schema, fieldValidation: FieldValidation): Decoded {
  const { value, duplicateFields } = parseYamlStrict(text, fieldValidation !== 'Ignore');
  return decodeParsed(value, duplicateFields, schema, fieldValidation);
}

/**
 * The shared tail for any codec: `value` is already parsed (and owned by the caller: it is pruned in
 * place), `duplicateFields` are the paths of repeated keys the parser saw, `codecUnknown` the unknown
 * fields a codec dropped itself (protobuf field numbers its schema lacks: `metadata.#15`).
 */
export function decodeParsed(
  value: unknown,
  duplicateFields: readonly string[],
  schema: Schema,
  fieldValidation: FieldValidation,
  codecUnknown: readonly string[] = [],
): Decoded {
  if (fieldValidation === 'Ignore') {
    prune(value, schema);
    dropNulls(value, schema);
    return { object: value, warnings: [] };
  }
  const unknown = pruneReporting(value, schema);
  if (codecUnknown.length > 0) unknown.push(...codecUnknown);
  dropNulls(value, schema);
  if (unknown.length === 0 && duplicateFields.length === 0) return { object: value, warnings: [] };
  const messages = [...duplicateFields.map(duplicateFieldMessage), ...unknown.map(unknownFieldMessage)];
  if (fieldValidation === 'Strict') throw strictDecodingError(messages);
  return { object: value, warnings: messages };
}
