/**
 * The OpenAPI filter, with kube-openapi's caching behaviour:
 * - `GET /openapi/v2`: the Swagger document in JSON, or in protobuf (gnostic's `openapi.v2.Document`) for
 *   `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (or `.v1.0+protobuf`), chosen
 *   as kube-openapi does (`openapi-v2-accept.ts`); both forms share one ETag (`Vary: Accept`), 304 on
 *   If-None-Match; any other Accept is 406.
 * - `GET /openapi/v3`: the root listing each group version's hashed URL; ETag, 304.
 * - `GET /openapi/v3/api/v1`, `/openapi/v3/apis/<g>/<v>`: the group version's document, ETag, 304. With
 *   `?hash=` equal to the document's hash: `Cache-Control: public, immutable` and `Expires` a year ahead
 *   (the URL names the content, so clients cache it for good); with another hash: 301 to the current URL;
 *   without: `Cache-Control: no-cache, private`. An unknown group version passes on (404).
 * Large documents are sent gzip-compressed to clients that accept it. `?timeout=32s` is ignored.
 */
import { notAcceptable, serviceUnavailable } from '../../errors/constructors.js';
import type { Naming } from '../../naming/naming.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import type { Filter } from '../../request/request-state.js';
import { acceptsJson } from '../discovery/accept.js';
import { serveCached, type CachedBody } from '../discovery/cached-body.js';
import type { EnabledPredicate } from '../discovery/served-groups.js';
import { GnosticError } from './gnostic-v2.js';
import { openapiDocuments, serverRelativeURL, type OpenAPIDocuments } from './openapi-documents.js';
import { chooseOpenAPIV2Form, openapiV2MediaTypes } from './openapi-v2-accept.js';
import { openapiV2ProtobufType } from './openapi-v2-protobuf.js';
import { noAggregatedGroupVersions, type AggregatedGroupVersion, type AggregatedSource } from '../../aggregator/aggregated-group-version.js';

export interface OpenAPIOptions {
  readonly naming: Naming;
  /** The served kinds; a function is called per request, documents are rebuilt when its array changes. */
  readonly kinds: readonly KindStrategy[] | (() => readonly KindStrategy[]);
  /** `--runtime-config`; default: everything served. */
  readonly enabled?: EnabledPredicate;
  /** Kinds accepting strategic merge patch; default: the kind strategy's `strategicMergePatch` (true unless false). */
  readonly strategicMergePatch?: (k: KindStrategy) => boolean;
  /**
   * Whether CBOR is served (`--feature-gates=CBORServingAndStorage=true`): the operations then list
   * `application/cbor`, `application/cbor-seq` and `application/apply-patch+cbor`. Default false.
   */
  readonly cbor?: boolean;
  /** The group versions backends serve (remote APIServices); documents are rebuilt when the array changes. */
  readonly aggregated?: AggregatedSource;
}

const jsonType = 'application/json';
const noCache = 'no-cache, private';
const oneYearMs = 365 * 24 * 3600 * 1000;

export function openapiEndpoints(o: OpenAPIOptions): Filter {
  const pathOptions = {
    strategicMergePatch: o.strategicMergePatch ?? ((k: KindStrategy) => k.strategicMergePatch !== false),
    cbor: o.cbor === true,
  };
  let lastKinds: readonly KindStrategy[] | undefined;
  let lastAggregated: readonly AggregatedGroupVersion[] | undefined;
  let last: OpenAPIDocuments | undefined;
  const documents = (): OpenAPIDocuments => {
    const kinds = typeof o.kinds === 'function' ? o.kinds() : o.kinds;
    const aggregated = o.aggregated?.() ?? noAggregatedGroupVersions;
    if (last === undefined || kinds !== lastKinds || aggregated !== lastAggregated) {
      last = openapiDocuments(kinds, o.naming, o.enabled, pathOptions, aggregated);
      lastKinds = kinds;
      lastAggregated = aggregated;
    }
    return last;
  };

  return async function openapi(ctx, next) {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || !ctx.path.startsWith('/openapi/')) return next();
    const path = ctx.path.endsWith('/') ? ctx.path.slice(0, -1) : ctx.path;
    if (path === '/openapi/v2') {
      const form = chooseOpenAPIV2Form(ctx.get('Accept'));
      if (form === undefined) throw notAcceptable(openapiV2MediaTypes);
      if (form === 'json') serveCached(ctx, documents().v2(), { contentType: jsonType, cacheControl: noCache });
      else serveCached(ctx, v2Protobuf(documents()), { contentType: openapiV2ProtobufType, cacheControl: noCache });
      return;
    }
    let body;
    let cacheControl = noCache;
    let headers: Record<string, string> | undefined;
    if (path === '/openapi/v3') {
      body = documents().v3Root;
    } else if (path.startsWith('/openapi/v3/')) {
      const key = path.slice('/openapi/v3/'.length);
      body = documents().v3.get(key);
      if (body === undefined) return next();
      const hash = ctx.query['hash'];
      if (typeof hash === 'string' && hash !== '') {
        if (hash !== body.hash) {
          ctx.status = 301;
          ctx.set('Location', serverRelativeURL(key, body.hash));
          return;
        }
        cacheControl = 'public, immutable';
        headers = { Expires: new Date(Date.now() + oneYearMs).toUTCString() };
      }
    } else {
      return next();
    }
    if (!acceptsJson(ctx.get('Accept'))) throw notAcceptable([jsonType]);
    serveCached(ctx, body, { contentType: jsonType, cacheControl, ...(headers === undefined ? {} : { headers }) });
  };
}

/** A v2 document gnostic would reject has no protobuf form: 503, as kube-openapi answers then. */
function v2Protobuf(documents: OpenAPIDocuments): CachedBody {
  try {
    return documents.v2Protobuf();
  } catch (err) {
    if (err instanceof GnosticError) throw serviceUnavailable(`the OpenAPI v2 document has no protobuf form: ${err.message}`);
    throw err;
  }
}
