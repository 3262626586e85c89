/**
 * Unknown fields and the messages of `fieldValidation`: Strict turns them (and duplicate JSON keys) into
 * one 400 `strict decoding error: ...`; Warn turns each message into a warning; Ignore drops them.
 */
import { badRequest } from '../errors/constructors.js';
import type { StatusError } from '../errors/status-error.js';
import type { Schema } from './schema.js';
import { walkUnknown } from './unknown-walk.js';

/**
 * Paths of the fields of `value` that `schema` does not declare (`spec.foo`, `spec.containers[0].foo`),
 * in document order; map keys (`metadata.labels`) are never reported. `value` is not changed.
 */
export function unknownFields(value: unknown, schema: Schema): string[] {
  const out: string[] = [];
  walkUnknown(value, schema, false, out);
  return out;
}

/** `unknown field "spec.foo"`. */
export const unknownFieldMessage = (path: string): string => `unknown field "${path}"`;

/** `duplicate field "metadata.name"`. */
export const duplicateFieldMessage = (path: string): string => `duplicate field "${path}"`;

/** 400 BadRequest `strict decoding error: unknown field "spec.foo", duplicate field "x"`. */
export function strictDecodingError(messages: readonly string[]): StatusError {
  return badRequest(`strict decoding error: ${messages.join(', ')}`);
}
