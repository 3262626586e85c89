/**
 * The errors of strategic merge patch (apimachinery `mergepatch` and `strategicpatch`), and the HTTP status
 * each becomes, as kube-apiserver's patch handler answers them (`interpretStrategicMergePatchError`):
 *
 * - 400 BadRequest with the message: invalid JSON document, invalid patch format of primitive list /
 *   retainKeys / setElementOrder list, strategic merge patch format is not supported;
 * - 422 Invalid `the server rejected our request due to an error in our request` with the message as an
 *   `UnexpectedServerResponse` cause: lists of lists are not supported;
 * - anything else (a missing merge key, an unknown `$patch` value, element types that differ, ...) is not
 *   translated upstream and reaches the client as a 500 whose message is the error text. Every one of them
 *   is a fault of the patch, not of the server: this server answers 400 BadRequest with the same message
 *   (a deliberate difference, docs/differences.md; bad input never gets a 5xx, test/fuzz).
 */
import { badRequest } from '../../../errors/constructors.js';
import { StatusError } from '../../../errors/status-error.js';
import { goType, goValue } from './go-format.js';

export type SmpErrorKind = 'bad-request' | 'invalid' | 'unknown';

export class StrategicMergeError extends Error {
  override readonly name = 'StrategicMergeError';
  constructor(
    readonly kind: SmpErrorKind,
    message: string,
  ) {
    super(message);
  }
}

const bad = (m: string) => (): StrategicMergeError => new StrategicMergeError('bad-request', m);
export const errBadPatchFormatForPrimitiveList = bad('invalid patch format of primitive list');
export const errBadPatchFormatForRetainKeys = bad('invalid patch format of retainKeys');
export const errBadPatchFormatForSetElementOrderList = bad('invalid patch format of setElementOrder list');
export const errNoListOfLists = (): StrategicMergeError => new StrategicMergeError('invalid', 'lists of lists are not supported');
export const unknownError = (message: string): StrategicMergeError => new StrategicMergeError('unknown', message);

export const errNoMergeKey = (m: unknown, key: string): StrategicMergeError =>
  unknownError(`map: ${goValue(m)} does not contain declared merge key: ${key}`);
export const errBadArgType = (expected: string, actual: unknown): StrategicMergeError =>
  unknownError(`expected a ${expected}, but received a ${goType(actual)}`);
export const errBadPatchType = (type: unknown, m: unknown): StrategicMergeError =>
  unknownError(`unknown patch type: ${typeof type === 'string' ? type : `%!s(${goType(type)}=${goValue(type)})`} in map: ${goValue(m)}`);

export const MAP_TYPE = 'map[string]interface {}';
export const SLICE_TYPE = '[]interface {}';

/** The `StatusError` kube-apiserver answers for a strategic merge error. */
export function strategicMergeStatus(err: StrategicMergeError): StatusError {
  switch (err.kind) {
    case 'bad-request':
      return badRequest(err.message);
    case 'invalid':
      return new StatusError('Invalid', 'the server rejected our request due to an error in our request', {
        causes: [{ reason: 'UnexpectedServerResponse', message: err.message }],
      });
    default:
      return badRequest(err.message);
  }
}
