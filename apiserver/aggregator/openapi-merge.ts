/**
 * The backends' OpenAPI merged into this server's documents (kube-aggregator's OpenAPI aggregation):
 *
 * - v2: each remote APIService's paths (those under its `/apis/<group>/<version>`) are added, replacing
 *   any of ours at the same path; its definitions are added under their names when we have none of that
 *   name (ours win a clash; kube renames the backend's definition instead, which only matters when two
 *   servers define the same name differently);
 * - v3: each remote APIService's group version document is served as the backend wrote it, under
 *   `apis/<group>/<version>` in the root listing, replacing ours if any.
 */
import type { AggregatedGroupVersion } from './aggregated-group-version.js';

interface SwaggerDocument {
  readonly paths: Record<string, unknown>;
  readonly definitions: Record<string, unknown>;
}

/** `doc` with the aggregated fragments added (a new object; `doc` is not changed). */
export function mergeOpenAPIV2<T extends SwaggerDocument>(doc: T, aggregated: readonly AggregatedGroupVersion[]): T {
  const withV2 = aggregated.filter((a) => a.openapiV2 !== undefined);
  if (withV2.length === 0) return doc;
  const paths = { ...doc.paths };
  const definitions = { ...doc.definitions };
  for (const a of withV2) {
    Object.assign(paths, a.openapiV2!.paths);
    for (const [name, def] of Object.entries(a.openapiV2!.definitions)) if (!(name in definitions)) definitions[name] = def;
  }
  const sortedPaths = Object.fromEntries(Object.entries(paths).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  const sortedDefinitions = Object.fromEntries(Object.entries(definitions).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  return { ...doc, paths: sortedPaths, definitions: sortedDefinitions };
}

/** The v3 documents backends serve, by root key (`apis/<group>/<version>`). */
export function aggregatedV3Documents(aggregated: readonly AggregatedGroupVersion[]): [string, unknown][] {
  return aggregated.filter((a) => a.openapiV3 !== undefined && a.group !== '').map((a) => [`apis/${a.group}/${a.version}`, a.openapiV3]);
}
