import type { StatusDetails, StatusError } from './status-error.js';

/** The wire form of a failure: a `v1 Status` object, keys in Kubernetes' order. */
export interface StatusBody {
  readonly kind: 'Status';
  readonly apiVersion: 'v1';
  readonly metadata: { readonly continue?: string; readonly resourceVersion?: string };
  readonly status: 'Failure';
  readonly message: string;
  /** Absent when empty (Kubernetes' StatusReasonUnknown), as Go omits it. */
  readonly reason?: string;
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
    ...(err.reason === '' ? {} : { reason: err.reason }),
    ...(err.details === undefined ? {} : { details: err.details }),
    code: err.code,
  };
}

/**
 * `details` as Go serializes StatusDetails (every member `omitempty`): empty name, group, kind and uid, and
 * an empty causes list and a zero retryAfterSeconds, are left out, so a core-group error reads `{"name":"x","kind":"secrets"}`.
 */
export function wireDetails(details: StatusDetails): StatusDetails {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details)) {
    if (v === undefined || v === '' || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out as StatusDetails;
}
