/**
 * Which decoder a request body needs, from its Content-Type; 415 UnsupportedMediaType with Kubernetes'
 * message when the endpoint does not take that type.
 */
import { unsupportedMediaType } from '../errors/constructors.js';
import type { StatusError } from '../errors/status-error.js';
import type { Naming } from '../naming/naming.js';
import { essence } from './media-type.js';

export type BodyFormat =
  | 'json'
  | 'yaml'
  | 'protobuf'
  | 'cbor'
  | 'json-patch'
  | 'merge-patch'
  | 'strategic-merge-patch'
  | 'apply-patch-yaml'
  | 'apply-patch-cbor';

/** Bodies of create and update (and of DELETE options), in upstream's order: JSON is the default. */
export const OBJECT_BODY_FORMATS: readonly BodyFormat[] = Object.freeze(['json', 'yaml', 'protobuf']);
/** Bodies of PATCH for built-in kinds, in upstream's order. Custom resources drop `strategic-merge-patch`. */
export const PATCH_BODY_FORMATS: readonly BodyFormat[] = Object.freeze(['json-patch', 'merge-patch', 'strategic-merge-patch', 'apply-patch-yaml']);

const fixed: Readonly<Record<string, BodyFormat>> = {
  'application/json': 'json',
  'application/yaml': 'yaml',
  'application/vnd.kubernetes.protobuf': 'protobuf',
  'application/cbor': 'cbor',
  'application/json-patch+json': 'json-patch',
  'application/merge-patch+json': 'merge-patch',
  'application/strategic-merge-patch+json': 'strategic-merge-patch',
  'application/apply-patch+yaml': 'apply-patch-yaml',
  'application/apply-patch+cbor': 'apply-patch-cbor',
};

/** The media type of a format as the server names it (protobuf under the group domain). */
export function formatMediaType(format: BodyFormat, naming: Naming): string {
  if (format === 'protobuf') return naming.protobufMediaType;
  for (const [type, f] of Object.entries(fixed)) if (f === format) return type;
  return format;
}

/** The 415 an endpoint taking `accepted` answers. */
export function unsupportedMediaTypeError(accepted: readonly BodyFormat[], naming: Naming): StatusError {
  return unsupportedMediaType(accepted.map((f) => formatMediaType(f, naming)));
}

/**
 * The format of a request body.
 *
 * - Parameters (`; charset=utf-8`) and case are ignored.
 * - Protobuf is recognised under both `application/vnd.kubernetes.protobuf` (what kubectl sends whatever
 *   the domain) and the domain's own type.
 * - A missing or blank Content-Type means the first accepted format when that is an object format (JSON
 *   for create/update, as upstream); for PATCH (first accepted a patch format) it is a 415.
 * - A type outside `accepted` is 415 `the body of the request was in an unknown format - accepted media
 *   types include: application/json, application/yaml, application/vnd.platform.protobuf`.
 */
export function requestContentType(header: string | undefined, accepted: readonly BodyFormat[], naming: Naming): BodyFormat {
  if (header === undefined || header.trim() === '') {
    const first = accepted[0];
    if (first === 'json' || first === 'yaml') return first;
    throw unsupportedMediaTypeError(accepted, naming);
  }
  const type = essence(header);
  const format = type === naming.protobufMediaType ? 'protobuf' : fixed[type];
  if (format !== undefined && accepted.includes(format)) return format;
  throw unsupportedMediaTypeError(accepted, naming);
}
