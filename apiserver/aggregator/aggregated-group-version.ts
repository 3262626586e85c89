/**
 * What the aggregator tells discovery and OpenAPI about one group version served by a backend (a remote
 * APIService): its priorities, the resources the backend lists (aggregated-discovery form), and the
 * backend's OpenAPI for that group version. The aggregator publishes a new frozen array whenever any of
 * it changes; discovery and OpenAPI rebuild their documents when the array they see is a new one.
 */
export type Freshness = 'Current' | 'Stale';

/** A Swagger 2.0 fragment: the paths of the group version and the definitions they use. */
export interface OpenAPIV2Fragment {
  readonly paths: Readonly<Record<string, unknown>>;
  readonly definitions: Readonly<Record<string, unknown>>;
}

export interface AggregatedGroupVersion {
  /** The APIService's name (`<version>.<group>`). */
  readonly name: string;
  readonly group: string;
  readonly version: string;
  readonly groupPriorityMinimum: number;
  readonly versionPriority: number;
  /**
   * The backend's resources as APIResourceDiscovery objects (apidiscovery.k8s.io v2 and v2beta1 share the
   * shape). Empty until the first download; the last good list, marked `Stale`, after a failed one.
   */
  readonly resources: readonly unknown[];
  readonly freshness: Freshness;
  /** From the backend's `/openapi/v2`, when it serves one. */
  readonly openapiV2?: OpenAPIV2Fragment;
  /** The backend's `/openapi/v3/apis/<group>/<version>` document, when it serves one. */
  readonly openapiV3?: unknown;
}

/** The source discovery and OpenAPI read; the same array until something changes. */
export type AggregatedSource = () => readonly AggregatedGroupVersion[];

export const noAggregatedGroupVersions: readonly AggregatedGroupVersion[] = Object.freeze([]);
