/**
 * `/openapi/v2` in protobuf: the served JSON bytes, parsed and converted to gnostic's `openapi.v2.Document`
 * (`gnostic-v2.ts`), encoded with protobufjs from our descriptor. kube-openapi derives its protobuf form
 * from its JSON bytes the same way, so both forms always carry the same content.
 *
 * The protobuf body reuses the JSON body's ETag, as kube-openapi does: responses differ by `Accept` and
 * say so with `Vary: Accept`, so a cache never hands one form to a client that asked for the other.
 */
import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import type { CachedBody } from '../discovery/cached-body.js';
import { gnosticV2Descriptor } from './gnostic-v2-descriptor.js';
import { gnosticDocument } from './gnostic-v2.js';

/** What `/openapi/v2` answers with for either protobuf Accept type (kube-openapi's non-deprecated name). */
export const openapiV2ProtobufType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
/** The name client-go asks for (`@` before the version); still accepted by kube-openapi in 1.32. */
export const openapiV2ProtobufTypeDeprecated = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

let documentType: protobuf.Type | undefined;
const documentMessage = (): protobuf.Type => (documentType ??= protobuf.Root.fromJSON(gnosticV2Descriptor).lookupType('openapi.v2.Document'));

/** The gnostic Document of a Swagger JSON document, encoded. */
export function encodeOpenAPIV2Protobuf(json: Buffer): Buffer {
  const message = gnosticDocument(JSON.parse(json.toString('utf8')));
  return Buffer.from(documentMessage().encode(message).finish());
}

/** The protobuf form of a cached JSON v2 document: same hash and ETag, its own bytes and gzip form. */
export function protobufBody(json: CachedBody): CachedBody {
  const bytes = encodeOpenAPIV2Protobuf(json.bytes);
  let gz: Buffer | undefined;
  return { bytes, hash: json.hash, etag: json.etag, gzipped: () => (gz ??= gzipSync(bytes)) };
}
