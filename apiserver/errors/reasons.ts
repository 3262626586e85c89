/**
 * Kubernetes `Status.reason` values and the HTTP code each one is answered with (apimachinery's
 * `metav1.StatusReason*` and `apierrors` constructors). One table, so a reason never drifts from its code.
 */
export const reasonCodes = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
  /** StatusReasonUnknown: a plain error turned into a Status (500 unless a code is given), written without a reason. Last, so 500 maps back to InternalError. */
  '': 500,
} as const satisfies Record<string, number>;

export type StatusReason = keyof typeof reasonCodes;

/** Field-level cause types used in `details.causes[].reason` (apimachinery `metav1.CauseType`). */
export type CauseType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid'
  | 'UnexpectedServerResponse'
  | 'FieldManagerConflict'
  | 'ResourceVersionTooLarge';
