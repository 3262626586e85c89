/**
 * Resolves a request's method and path into what the rest of the chain needs (authorization, routing,
 * audit): resource or non-resource, verb, group, version, namespace, resource, sub-resource, name. The
 * rules are kube-apiserver's `RequestInfoFactory`, so paths resolve exactly as they do upstream.
 */
import type { Verb } from '../api/object.js';
import { badRequest } from '../errors/constructors.js';
import { isPathSegmentName } from '../validation/names.js';
import { queryBoolValue } from './parse-bool.js';

export interface RequestInfo {
  /** True for `/api/{v}/...` and `/apis/{g}/{v}/...` with at least one segment after the version. */
  readonly isResourceRequest: boolean;
  /** The path as given (still percent-encoded). */
  readonly path: string;
  /**
   * A resource verb for resource requests ('' for a method that maps to none, e.g. OPTIONS); for
   * non-resource requests the lower-case HTTP method (`get`, `post` ...).
   */
  readonly verb: Verb | '' | string;
  /** `api` or `apis`; '' for non-resource requests. */
  readonly apiPrefix: '' | 'api' | 'apis';
  /** '' for the core group. */
  readonly apiGroup: string;
  readonly apiVersion: string;
  /** '' for cluster-scoped requests and lists across all namespaces; for a Namespace object, its name. */
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /**
   * The decoded segments from the resource on: `[resource, name, subresource, ...more]`. Segments past
   * the sub-resource are kept here and interpreted by nobody.
   */
  readonly parts: readonly string[];
}

/** Sub-resources of a namespace: `/api/v1/namespaces/{name}/status|finalize` address the Namespace itself. */
const namespaceSubresources = new Set(['status', 'finalize']);

const methodVerbs: Readonly<Record<string, Verb>> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

function nonResource(method: string, path: string): RequestInfo {
  return {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
}

function decodeSegment(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    throw badRequest(`invalid URL escape in path segment ${JSON.stringify(s)}`);
  }
}

/**
 * Resolves a request.
 *
 * - `path` is the URL path as received (percent-encoded, without the query); leading and trailing
 *   slashes are ignored, as upstream (an empty segment in the middle stays a segment). Each segment is percent-decoded on its own, so `%2F` inside a name is part of the
 *   name (and then rejected), never a separator.
 * - Fewer than three segments (`/api/v1`, `/apis/g`, `/version`), a prefix other than `api`/`apis`, or
 *   `/apis/{g}/{v}` itself are non-resource requests with the lower-cased method as verb.
 * - The deprecated `/watch/` segment right after the version makes the verb `watch`; `/api/v1/watch` with
 *   nothing after it is a 400 (`unable to determine kind and namespace from url, ...`; upstream answers 500).
 * - GET/HEAD of a collection is `list`, or `watch` when the `watch` query parameter is true by Kubernetes'
 *   query rule (anything but `0`/`false`). GET of a named resource with `watch` true is also `watch` (the
 *   spec's "GET of a collection or resource with watch set"; upstream keeps it `get` and serves the
 *   object). DELETE of a collection is `deletecollection`.
 * - `namespaces/{ns}/{resource}...` sets the namespace; `namespaces/{name}` and
 *   `namespaces/{name}/status|finalize` address the Namespace object (namespace = name).
 * - A name or namespace of `.` or `..`, or containing `/` or `%` after decoding, is a 400 BadRequest
 *   (`Name parameter invalid: "..": may not be '..'`), as the upstream registry's key functions answer.
 */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const upper = method.toUpperCase();
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 47) start++;
  while (end > start && path.charCodeAt(end - 1) === 47) end--;
  if (start === end) return nonResource(upper, path);
  const raw = path.slice(start, end).split('/');
  if (raw.length < 3) return nonResource(upper, path);
  const prefix = raw[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource(upper, path);
  let i = 1;
  let apiGroup = '';
  if (prefix === 'apis') {
    if (raw.length < 4) return nonResource(upper, path);
    apiGroup = decodeSegment(raw[1]!);
    i = 2;
  }
  const apiVersion = decodeSegment(raw[i]!);
  i++;
  let parts = raw.slice(i).map(decodeSegment);

  let verb: Verb | '';
  if (parts[0] === 'watch') {
    if (parts.length < 2) throw badRequest(`unable to determine kind and namespace from url, ${path}`);
    verb = 'watch';
    parts = parts.slice(1);
  } else {
    verb = methodVerbs[upper] ?? '';
  }

  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1]!;
    if (parts.length > 2 && !namespaceSubresources.has(parts[2]!)) parts = parts.slice(2);
  }

  const resource = parts[0] ?? '';
  const name = parts[1] ?? '';
  const subresource = parts[2] ?? '';

  if (name === '') {
    if (verb === 'get') {
      const w = query.get('watch');
      verb = w !== null && queryBoolValue(w) ? 'watch' : 'list';
    } else if (verb === 'delete') {
      verb = 'deletecollection';
    }
  } else {
    if (verb === 'get') {
      const w = query.get('watch');
      if (w !== null && queryBoolValue(w)) verb = 'watch';
    }
    checkSegment('Name', name);
  }
  if (namespace !== '') checkSegment('Namespace', namespace);

  return {
    isResourceRequest: true,
    path,
    verb,
    apiPrefix: prefix,
    apiGroup,
    apiVersion,
    namespace,
    resource,
    subresource,
    name,
    parts,
  };
}

function checkSegment(what: 'Name' | 'Namespace', value: string): void {
  const errs = isPathSegmentName(value);
  if (errs.length > 0) throw badRequest(`${what} parameter invalid: ${JSON.stringify(value)}: ${errs.join(';')}`);
}

