/**
 * Field errors: what validation produces, one per offending field, with Kubernetes' types, messages and
 * Status cause reasons. `invalid(gk, name, toCauses(errors))` (errors/constructors.ts) turns a list into
 * the 422 response: `Secret "x" is invalid: data[a b]: Invalid value: "a b": a valid config key must ...`.
 *
 * Paths use Kubernetes' notation: `metadata.labels`, `spec.containers[0].name`, `data[my-key]` (map keys in
 * brackets, unquoted).
 */
import type { FieldCause } from '../errors/constructors.js';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose message omits the value (Kubernetes prints no value for these). */
const omitsValue = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

export interface FieldError {
  readonly type: FieldErrorType;
  /** The field path: `spec.containers[0].name`. */
  readonly field: string;
  /** The offending value, printed in the message where the type shows values. */
  readonly value?: unknown;
  readonly detail?: string;
}

/** A path builder: `root('spec').child('containers').index(0).child('name')` -> `spec.containers[0].name`. */
export class FieldPath {
  private constructor(private readonly text: string) {}

  static root(name = ''): FieldPath {
    return new FieldPath(name);
  }

  child(name: string): FieldPath {
    return new FieldPath(this.text === '' ? name : `${this.text}.${name}`);
  }

  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }

  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }

  toString(): string {
    return this.text;
  }
}

type At = FieldPath | string;
const str = (p: At): string => (typeof p === 'string' ? p : p.toString());

export const required = (field: At, detail?: string): FieldError => ({ type: 'FieldValueRequired', field: str(field), detail });
export const invalidValue = (field: At, value: unknown, detail?: string): FieldError => ({ type: 'FieldValueInvalid', field: str(field), value, detail });
export const notSupported = (field: At, value: unknown, valid: readonly string[]): FieldError => ({
  type: 'FieldValueNotSupported',
  field: str(field),
  value,
  detail: valid.length > 0 ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : undefined,
});
export const duplicate = (field: At, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: str(field), value });
export const forbidden = (field: At, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: str(field), detail });
export const notFoundField = (field: At, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: str(field), value });
export const tooLong = (field: At, maxLength: number): FieldError => ({
  type: 'FieldValueTooLong',
  field: str(field),
  detail: `may not be more than ${maxLength} bytes`,
});
export const tooMany = (field: At, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field: str(field),
  detail: `must have at most ${max} items`,
  value: actual,
});
export const typeInvalid = (field: At, value: unknown, detail: string): FieldError => ({ type: 'FieldValueTypeInvalid', field: str(field), value, detail });
export const internalError = (field: At, detail: string): FieldError => ({ type: 'InternalError', field: str(field), detail });

/** Kubernetes' rendering of a value inside a message: strings quoted, numbers and booleans bare, else JSON. */
function printValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** The message without the field: `Invalid value: "a b": must be ...`. */
export function messageOf(e: FieldError): string {
  let msg = typeText[e.type];
  if (!omitsValue.has(e.type) && e.value !== undefined) msg += `: ${printValue(e.value)}`;
  if (e.detail !== undefined && e.detail !== '') msg += `: ${e.detail}`;
  return msg;
}

/** `field: message`, as in the summary line of an Invalid Status. */
export function errorString(e: FieldError): string {
  return e.field === '' ? messageOf(e) : `${e.field}: ${messageOf(e)}`;
}

/** The Status causes of a list of field errors, for `invalid(...)`. */
export function toCauses(errors: readonly FieldError[]): FieldCause[] {
  return errors.map((e) => ({ reason: e.type, message: messageOf(e), field: e.field }));
}
