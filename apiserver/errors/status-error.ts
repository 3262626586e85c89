import { reasonCodes, type CauseType, type StatusReason } from './reasons.js';

/** One entry of `Status.details.causes`. */
export interface StatusCause {
  /** Machine-readable cause type (`FieldValueInvalid` ...); absent for free-form causes. */
  readonly reason?: CauseType | string;
  readonly message?: string;
  /** JSON path of the offending field (`spec.replicas`, `metadata.name`). */
  readonly field?: string;
}

/** `Status.details`: which object the error is about, why, and when to retry. */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  /** The resource (plural, as in the URL) or the kind, as Kubernetes fills it per reason. */
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

/**
 * The ONE error type of the HTTP layer (invariant 7). Anything a filter or handler throws that is not a
 * `StatusError` is logged and answered as a 500 without internals by the recover filter.
 *
 * `code` is derived from `reason` through the reason table unless given (a few Kubernetes errors carry a
 * code that differs from their reason's usual one, e.g. a generic 404 with reason NotFound is the same,
 * but an unknown upstream code becomes InternalError with its own code).
 */
export class StatusError extends Error {
  override readonly name = 'StatusError';
  readonly code: number;

  /**
   * `metadata` is the Status's ListMeta: a 410 for an expired continue token carries a fresh token in
   * `metadata.continue` so the client can go on at the latest revision.
   */
  constructor(
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    code?: number,
    readonly metadata?: { readonly continue?: string; readonly resourceVersion?: string },
  ) {
    super(message);
    this.code = code ?? reasonCodes[reason];
  }
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}
