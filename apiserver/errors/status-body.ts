import type { StatusDetails, StatusError } from './status-error.js';

/** The wire form of a failure: a `v1 Status` object, keys in Kubernetes' order. */
export interface StatusBody {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: { readonly continue?: string; readonly resourceVersion?: string };
  readonly status: 'Failure';
  readonly message: string;
  readonly reason: string;
  readonly details?: StatusDetails;
  readonly code: number;
}

/** Renders a `StatusError` as a Status body. `details` is omitted when the error has none. */
export function statusBody(err: StatusError): StatusBody {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: err.metadata ?? {},
    status: 'Failure',
    message: err.message,
    reason: err.reason,
    ...(err.details === undefined ? {} : { details: err.details }),
    code: err.code,
  };
}
