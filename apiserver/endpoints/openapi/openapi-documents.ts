/**
 * The OpenAPI documents of one set of served resources, serialized once with their hashes: the v3 root,
 * one v3 document per group version, and the v2 document in JSON and in protobuf (each built on first use:
 * only old clients ask; the protobuf form is derived from the JSON bytes and shares their ETag).
 */
import type { Naming } from '../../naming/naming.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import { cachedBody, type CachedBody } from '../discovery/cached-body.js';
import { servedGroups, type EnabledPredicate } from '../discovery/served-groups.js';
import type { GroupVersionEntry } from './definitions.js';
import { openapiV2Document } from './openapi-v2.js';
import { protobufBody } from './openapi-v2-protobuf.js';
import { openapiV3Document, v3PathKey } from './openapi-v3.js';
import type { PathOptions } from './paths.js';
import type { AggregatedGroupVersion } from '../../aggregator/aggregated-group-version.js';
import { aggregatedV3Documents, mergeOpenAPIV2 } from '../../aggregator/openapi-merge.js';

export interface OpenAPIDocuments {
  /** `/openapi/v3`: `{"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=<H>"}, ...}}`. */
  readonly v3Root: CachedBody;
  /** By root key (`api/v1`, `apis/apps/v1`); each body's `hash` is the one in its root URL. */
  readonly v3: ReadonlyMap<string, CachedBody>;
  v2(): CachedBody;
  /** The v2 document as gnostic's `openapi.v2.Document`, encoded once from `v2()`'s bytes, same ETag. */
  v2Protobuf(): CachedBody;
}

export function serverRelativeURL(key: string, hash: string): string {
  return `/openapi/v3/${key}?hash=${hash}`;
}

/** `aggregated`: the group versions backends serve, whose OpenAPI is merged in (aggregator/openapi-merge.ts). */
export function openapiDocuments(
  kinds: readonly KindStrategy[],
  naming: Naming,
  enabled: EnabledPredicate | undefined,
  o: PathOptions,
  aggregated: readonly AggregatedGroupVersion[] = [],
): OpenAPIDocuments {
  const entries: GroupVersionEntry[] = [];
  for (const g of servedGroups(kinds, naming, enabled)) for (const served of g.versions) entries.push({ group: g.name, served });
  const v3 = new Map<string, CachedBody>();
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const e of entries) {
    const key = v3PathKey(e.group, e.served.version);
    const body = cachedBody(openapiV3Document(naming, e, o));
    v3.set(key, body);
    paths[key] = { serverRelativeURL: serverRelativeURL(key, body.hash) };
  }
  for (const [key, doc] of aggregatedV3Documents(aggregated)) {
    const body = cachedBody(doc);
    v3.set(key, body);
    paths[key] = { serverRelativeURL: serverRelativeURL(key, body.hash) };
  }
  let v2: CachedBody | undefined;
  let v2Protobuf: CachedBody | undefined;
  const v2Json = (): CachedBody => (v2 ??= cachedBody(mergeOpenAPIV2(openapiV2Document(naming, entries, o), aggregated)));
  return {
    v3Root: cachedBody({ paths }),
    v3,
    v2: v2Json,
    v2Protobuf: () => (v2Protobuf ??= protobufBody(v2Json())),
  };
}
