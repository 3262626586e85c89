/**
 * Constructors for every `StatusError` the server answers, with Kubernetes' reasons, codes and message
 * formats (apimachinery `pkg/api/errors`), so clients that match on messages (kubectl prints them as is)
 * see what they expect. Each states the exact message shape it produces.
 */
import type { CauseType } from './reasons.js';
import { StatusError, type StatusCause } from './status-error.js';

/** A resource as named in URLs: `{ group: 'apps', resource: 'deployments' }`; core group is `''`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** A kind with its group: `{ group: 'apps', kind: 'Deployment' }`. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** One field error of an Invalid answer; `message` is the part after `<field>: `. */
export interface FieldCause {
  readonly reason: CauseType;
  readonly field: string;
  readonly message: string;
}

/** `deployments.apps`, or `pods` for the core group (GroupResource.String()). */
export function qualifiedResource(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

function qualifiedKind(gk: GroupKind): string {
  return gk.group === '' ? gk.kind : `${gk.kind}.${gk.group}`;
}

/**
 * 404 NotFound. With a resource: `pods "x" not found` (details name/group/kind=resource); without: the
 * generic `the server could not find the requested resource` answered for unknown paths.
 */
export function notFound(gr?: GroupResource, name?: string): StatusError {
  if (gr === undefined) return new StatusError('NotFound', 'the server could not find the requested resource', {});
  return new StatusError('NotFound', `${qualifiedResource(gr)} "${name ?? ''}" not found`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/** 409 AlreadyExists: `namespaces "x" already exists`. */
export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError('AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/** The detail Kubernetes appends to an optimistic-lock conflict. */
export const optimisticLockMessage =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 409 Conflict: `Operation cannot be fulfilled on deployments.apps "x": <detail>`. */
export function conflict(gr: GroupResource, name: string, detail: string = optimisticLockMessage): StatusError {
  return new StatusError('Conflict', `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${detail}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/**
 * 422 Invalid: `Deployment.apps "x" is invalid: spec.replicas: Invalid value: -1: must be ...`; several
 * causes are joined as `[a, b]`. `details.kind` is the kind (not the resource), as upstream.
 */
export function invalid(gk: GroupKind, name: string, causes: readonly FieldCause[]): StatusError {
  const lines = causes.map((c) => (c.field === '' ? c.message : `${c.field}: ${c.message}`));
  const summary = lines.length === 1 ? lines[0]! : `[${lines.join(', ')}]`;
  const statusCauses: StatusCause[] = causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field }));
  return new StatusError('Invalid', `${qualifiedKind(gk)} "${name}" is invalid: ${summary}`, {
    name,
    group: gk.group,
    kind: gk.kind,
    causes: statusCauses,
  });
}

/** 400 BadRequest with the message as given. */
export function badRequest(message: string): StatusError {
  return new StatusError('BadRequest', message);
}

/** 401 Unauthorized; the authentication filter uses the default message `Unauthorized`. */
export function unauthorized(message = 'Unauthorized'): StatusError {
  return new StatusError('Unauthorized', message);
}

/**
 * 403 Forbidden: `pods "x" is forbidden: <detail>`, `pods is forbidden: <detail>` without a name,
 * `forbidden: <detail>` without a resource (non-resource URLs).
 */
export function forbidden(gr: GroupResource | undefined, name: string, detail: string): StatusError {
  if (gr === undefined || (gr.group === '' && gr.resource === '')) {
    return new StatusError('Forbidden', `forbidden: ${detail}`, {});
  }
  const what = name === '' ? qualifiedResource(gr) : `${qualifiedResource(gr)} "${name}"`;
  return new StatusError('Forbidden', `${what} is forbidden: ${detail}`, {
    ...(name === '' ? {} : { name }),
    group: gr.group,
    kind: gr.resource,
  });
}

/** 405 MethodNotAllowed: `<verb> is not supported on resources of kind "pods"`. */
export function methodNotAllowed(gr: GroupResource, verb: string): StatusError {
  return new StatusError('MethodNotAllowed', `${verb} is not supported on resources of kind "${qualifiedResource(gr)}"`, {
    group: gr.group,
    kind: gr.resource,
  });
}

/** 410 Gone with the message as given. */
export function gone(message: string): StatusError {
  return new StatusError('Gone', message);
}

/** The message of a compacted list/watch resourceVersion. */
export const expiredMessage = 'The resourceVersion for the provided watch/list is too old.';

/** 410 Expired (a resourceVersion or continue token older than the compaction window). */
export function expired(message: string = expiredMessage): StatusError {
  return new StatusError('Expired', message);
}

/** 504 Timeout: `Timeout: <message>`, with `details.retryAfterSeconds` when given (> 0). */
export function timeout(message: string, retryAfterSeconds = 0): StatusError {
  return new StatusError('Timeout', `Timeout: ${message}`, retryAfterSeconds > 0 ? { retryAfterSeconds } : {});
}

/**
 * 504 Timeout for a resourceVersion the serving cache has not reached after waiting:
 * `Timeout: Too large resource version: 12, current: 10`, cause `ResourceVersionTooLarge`.
 */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds = 1): StatusError {
  return new StatusError('Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds,
  });
}

/** 413 RequestEntityTooLarge: `Request entity too large: <message>`. */
export function requestEntityTooLarge(message: string): StatusError {
  return new StatusError('RequestEntityTooLarge', `Request entity too large: ${message}`);
}

/** 415: `the body of the request was in an unknown format - accepted media types include: a, b`. */
export function unsupportedMediaType(accepted: readonly string[]): StatusError {
  return new StatusError(
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

/** 406: `only the following media types are accepted: a, b`. */
export function notAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError('NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

/** 429 TooManyRequests; the renderer also sets the `Retry-After` header from `retryAfterSeconds`. */
export function tooManyRequests(message = 'Too many requests, please try again later.', retryAfterSeconds = 1): StatusError {
  return new StatusError('TooManyRequests', message, { retryAfterSeconds });
}

/** 503 ServiceUnavailable with the message as given. */
export function serviceUnavailable(message: string): StatusError {
  return new StatusError('ServiceUnavailable', message);
}

/**
 * 500 InternalError: `Internal error occurred: <message>`. The message reaches the client: pass a safe
 * one (the recover filter never passes an unknown error's text).
 */
export function internalError(message: string): StatusError {
  return new StatusError('InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}
