/**
 * How a request becomes label values of kube-apiserver's request metrics (kube 1.32's
 * `endpoints/metrics`: CleanScope, CanonicalVerb / CleanVerb, cleanDryRun), as small indexes so the
 * request path picks a pre-resolved series by array position (request-metrics.ts).
 *
 * - verb: `GET`, `LIST`, `WATCH`, `POST`, `PUT`, `PATCH`, `APPLY` (a PATCH whose Content-Type is an apply
 *   patch), `DELETE`, `CONNECT` (sub-resources log, exec, portforward, attach, proxy), and kube's `other`
 *   for any other method (OPTIONS, a resource request no verb maps to). A delete of a collection is
 *   `DELETE`, as kube 1.32 reports it (its reported verb comes from the HTTP method; the installer's
 *   DELETECOLLECTION is only used to spot legacy watches).
 * - scope: `resource` (a named object, or any create), `namespace`, `cluster` (other resource requests),
 *   `` (non-resource requests).
 * - dry_run: `` (none), `All`, or `invalid` (any value other than `All`, as kube's ValidateDryRun).
 */
import type { RequestInfo } from '../request/request-info.js';

export const VERBS = ['GET', 'LIST', 'WATCH', 'POST', 'PUT', 'PATCH', 'APPLY', 'DELETE', 'CONNECT', 'other'] as const;
export type ReportedVerb = (typeof VERBS)[number];
export const VERB_GET = 0;
export const VERB_LIST = 1;
export const VERB_WATCH = 2;
const VERB_POST = 3;
const VERB_PUT = 4;
const VERB_PATCH = 5;
const VERB_APPLY = 6;
const VERB_DELETE = 7;
export const VERB_CONNECT = 8;
const VERB_OTHER = 9;

export const SCOPES = ['', 'resource', 'namespace', 'cluster'] as const;
const SCOPE_NONE = 0;
const SCOPE_RESOURCE = 1;
const SCOPE_NAMESPACE = 2;
const SCOPE_CLUSTER = 3;

export const DRY_RUNS = ['', 'All', 'invalid'] as const;

/** Sub-resources kube reports as CONNECT whatever the method. */
export const CONNECT_SUBRESOURCES: ReadonlySet<string> = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);

const resourceVerbs: Readonly<Record<string, number>> = {
  get: VERB_GET,
  list: VERB_LIST,
  watch: VERB_WATCH,
  create: VERB_POST,
  update: VERB_PUT,
  patch: VERB_PATCH,
  delete: VERB_DELETE,
  deletecollection: VERB_DELETE,
};

const methodVerbs: Readonly<Record<string, number>> = {
  GET: VERB_GET,
  HEAD: VERB_GET,
  POST: VERB_POST,
  PUT: VERB_PUT,
  PATCH: VERB_PATCH,
  DELETE: VERB_DELETE,
};

/**
 * The reported verb's index in `VERBS`. `contentType` is the request's Content-Type (only read for a
 * PATCH): `application/apply-patch+yaml` (and the `+cbor` form) is APPLY.
 */
export function verbIndex(info: RequestInfo, method: string, contentType: string): number {
  let v: number | undefined;
  if (info.isResourceRequest) {
    if (info.subresource !== '' && CONNECT_SUBRESOURCES.has(info.subresource)) return VERB_CONNECT;
    v = resourceVerbs[info.verb];
  } else {
    v = methodVerbs[method];
  }
  if (v === undefined) return VERB_OTHER;
  if (v === VERB_PATCH && contentType.startsWith('application/apply-patch')) return VERB_APPLY;
  return v;
}

/** The scope's index in `SCOPES` (kube's CleanScope). */
export function scopeIndex(info: RequestInfo): number {
  if (info.name !== '' || info.verb === 'create') return SCOPE_RESOURCE;
  if (info.namespace !== '') return SCOPE_NAMESPACE;
  return info.isResourceRequest ? SCOPE_CLUSTER : SCOPE_NONE;
}

/**
 * The dry_run label's index in `DRY_RUNS`, from the request's query as the handlers read it (`queryOf`: a
 * malformed `dryRun=All%` pair is dropped, the request no dry run).
 */
export function dryRunIndex(query: URLSearchParams): number {
  const values = query.getAll('dryRun');
  if (values.length === 0) return 0;
  return values.every((v) => v === 'All') ? 1 : 2;
}
