/**
 * Writing a resource response: negotiate the representation from Accept (JSON, YAML, protobuf for kinds
 * with field numbers, CBOR with the CBORServingAndStorage gate; Table and PartialObjectMetadata(List)
 * conversions), convert, encode (pretty when asked), gzip large get/list responses (feature
 * APIResponseCompression), and add `Warning: 299 - "..."` headers. Table is JSON and YAML only (406 in
 * protobuf, as Kubernetes).
 */
import { Readable } from 'node:stream';
import type { KubeList, KubeObject } from '../../api/object.js';
import { recordWarnings } from './warnings.js';
import type { Schema } from '../../schema/schema.js';
import { encodeJson, encodeYaml, wantsPretty } from '../../codec/encode.js';
import { gzipBody, shouldGzip } from '../../codec/gzip.js';
import { LIST_CHUNK_BYTES, type EncodedList } from '../../codec/encoded-list.js';
import { listJson, objectJson } from '../../codec/shared-json.js';
import { listCbor, objectCbor } from '../../codec/cbor/object-cbor.js';
import { encodeCbor } from '../../codec/cbor/encode.js';
import { isCbor, isProtobuf, negotiateResponse, notAcceptableError, objectOffers, resourceConversions } from '../../codec/negotiate.js';
import {
  listProtobuf,
  objectProtobuf,
  partialObjectMetadataListProtobuf,
  partialObjectMetadataProtobuf,
  servesProtobuf,
  statusProtobuf,
} from '../../codec/protobuf/protobuf-codec.js';
import { notAcceptable } from '../../errors/constructors.js';
import { parseIncludeObject, toPartialObjectMetadata, toPartialObjectMetadataList, toTable } from '../table/to-table.js';
import type { RequestScope } from './request-scope.js';
import { markError, serializeSpan } from '../../tracing/spans.js';

export type ResponseBody =
  | { readonly type: 'object'; readonly object: KubeObject }
  | { readonly type: 'list'; readonly list: KubeList }
  /** A Status or another body served as it is (no conversions). */
  | { readonly type: 'raw'; readonly value: unknown };

/** Adds the warnings to the response (deduplicated and bounded as kube's recorder: `warnings.ts`). */
export function addWarnings(scope: RequestScope, warnings: readonly string[]): void {
  recordWarnings(scope.ctx, warnings);
}

export async function respond(scope: RequestScope, status: number, body: ResponseBody, compress = false): Promise<void> {
  const { ctx, naming } = scope;
  const { schema } = scope.served.strategy;
  const offers = objectOffers(naming, servesProtobuf(schema), scope.features.enabled('CBORServingAndStorage'));
  const negotiated = negotiateResponse(ctx.get('Accept') || undefined, offers, resourceConversions(naming));
  if (negotiated === undefined) throw notAcceptableError(offers);

  let value: unknown;
  const target = negotiated.target;
  if (body.type === 'raw') {
    value = body.value;
  } else if (target === undefined) {
    value = body.type === 'object' ? body.object : body.list;
  } else {
    const apiVersion = `${target.group}/${target.version}`;
    if (target.kind === 'Table') {
      const includeObject = parseIncludeObject(scope.query.get('includeObject'));
      value = body.type === 'object'
        ? toTable(scope.served.strategy, [body.object], { resourceVersion: body.object.metadata.resourceVersion ?? '' }, { apiVersion, includeObject })
        : toTable(scope.served.strategy, body.list.items, body.list.metadata, { apiVersion, includeObject });
    } else if (target.kind === 'PartialObjectMetadata' && body.type === 'object') {
      value = toPartialObjectMetadata(body.object, apiVersion);
    } else if (target.kind === 'PartialObjectMetadataList' && body.type === 'list') {
      value = toPartialObjectMetadataList(body.list.items, body.list.metadata, apiVersion);
    } else {
      throw notAcceptable([`application/json;as=${body.type === 'object' ? 'PartialObjectMetadata' : 'PartialObjectMetadataList'};g=${target.group};v=${target.version}`]);
    }
  }

  // The audit log's responseObject (RequestResponse level; a Status also gives responseStatus).
  ctx.state.audit?.responseObject(value);
  const pretty = wantsPretty(scope.query, ctx.get('User-Agent') || undefined, negotiated.pretty);
  // Sampled requests only: kube's SerializeObject span around the encoding (and gzip).
  const span = ctx.state.trace === undefined ? undefined : serializeSpan(ctx, negotiated.offer.mediaType);
  try {
    let text: string | Buffer | undefined;
    let list: EncodedList | undefined;
    if (isProtobuf(negotiated.offer)) {
      // Lists (of the kind's objects, or their PartialObjectMetadata) go out as a JSON list does (below);
      // other protobuf bodies as one Buffer.
      if (body.type === 'list' && target === undefined) list = listProtobuf(schema, body.list);
      else if (target?.kind === 'PartialObjectMetadataList') list = partialObjectMetadataListProtobuf(value as never);
      else text = protobufBody(schema, body, value, target?.kind);
    }
    else if (isCbor(negotiated.offer)) text = cborBody(schema, body, value, target !== undefined);
    else if (negotiated.offer.subtype === 'yaml') text = encodeYaml(value);
    else if (pretty || target !== undefined || body.type === 'raw') text = encodeJson(value, pretty);
    // Compact JSON of objects as they are: the watch cache's shared objects reuse their memoized JSON, and a
    // list is assembled from its items' texts (codec/shared-json.ts), same bytes as encodeJson.
    else if (body.type === 'list') list = listJson(body.list);
    else text = objectJson(body.object);
    ctx.status = status;
    // The plain media type, also for Table and PartialObjectMetadata(List) conversions: kube-apiserver's
    // transformResponseObject does not list the target in the Content-Type (only aggregated discovery does).
    ctx.set('Content-Type', negotiated.offer.mediaType);
    const bytes = list !== undefined ? list.bytes : typeof text === 'string' ? Buffer.byteLength(text) : text!.length;
    if (compress && scope.features.enabled('APIResponseCompression') && shouldGzip(ctx.get('Accept-Encoding') || undefined, bytes)) {
      ctx.set('Content-Encoding', 'gzip');
      span?.setAttribute('encoding', 'gzip');
      ctx.body = await gzipBody(list !== undefined ? list.buffer() : text!);
    } else if (list !== undefined && bytes > LIST_CHUNK_BYTES) {
      // A large list goes out a piece at a time (EncodedList.chunks), with its length known up front.
      ctx.body = Readable.from(list.chunks(), { objectMode: false });
      ctx.length = bytes;
    } else {
      ctx.body = list !== undefined ? list.buffer() : text!;
    }
    span?.setAttribute('len', bytes);
    ctx.vary('Accept-Encoding');
  } catch (err) {
    if (span !== undefined) markError(span, err);
    throw err;
  } finally {
    span?.end();
  }
}

/** The protobuf of a response (the kind serves protobuf: the offer was made). */
function protobufBody(schema: Schema, body: ResponseBody, value: unknown, conversion: string | undefined): Buffer {
  if (conversion === 'PartialObjectMetadata') return partialObjectMetadataProtobuf(value as never);
  if (body.type === 'object') return objectProtobuf(schema, body.object).bytes;
  // (Lists are sent by `respond` itself, in pieces; Table is never offered in protobuf.)
  const raw = body.type === 'raw' ? (body.value as { kind?: unknown }) : undefined;
  if (raw?.kind === 'Status') return statusProtobuf(raw);
  // Other bodies served as they are have no protobuf form.
  throw notAcceptable(['application/json', 'application/yaml']);
}

/** The CBOR of a response (gate CBORServingAndStorage on: the offer was made). */
function cborBody(schema: Schema, body: ResponseBody, value: unknown, converted: boolean): Buffer {
  if (!converted && body.type === 'object') return objectCbor(schema, body.object);
  if (!converted && body.type === 'list') return listCbor(schema, body.list);
  return encodeCbor(value);
}
