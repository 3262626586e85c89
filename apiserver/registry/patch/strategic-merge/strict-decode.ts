/**
 * Decoding the result of a strategic merge patch, as kube-apiserver's `applyPatchToObject` does: the same
 * schema decode as any body (unknown fields per `fieldValidation`, pruning, nulls), plus the duplicate keys
 * of the patch itself. Under Strict the failure is not the 400 of a body but upstream's 422 about the
 * patch: ` "" is invalid: patch: Invalid value: "map[...]": strict decoding error: unknown field "x"`,
 * where the value is the patch (as the merge left it) in Go's `%v` form.
 */
import { invalid } from '../../../errors/constructors.js';
import { isStatusError } from '../../../errors/status-error.js';
import { decodeParsed, type Decoded, type FieldValidation } from '../../../schema/decode.js';
import type { Schema } from '../../../schema/schema.js';
import { goValue } from './go-format.js';

const STRICT_PREFIX = 'strict decoding error: ';

export function decodeStrategicMergeResult(
  patched: unknown,
  patch: unknown,
  duplicateFields: readonly string[],
  schema: Schema,
  fieldValidation: FieldValidation,
  /** Unknown fields the kind found itself (KindStrategy.unknownFields). */
  kindUnknown: readonly string[] = [],
): Decoded {
  try {
    return decodeParsed(patched, fieldValidation === 'Ignore' ? [] : duplicateFields, schema, fieldValidation, kindUnknown);
  } catch (err) {
    if (!isStatusError(err) || err.code !== 400 || !err.message.startsWith(STRICT_PREFIX)) throw err;
    const message = `Invalid value: ${JSON.stringify(goValue(patch))}: ${err.message}`;
    throw invalid({ group: '', kind: '' }, '', [{ reason: 'FieldValueInvalid', message, field: 'patch' }]);
  }
}
