/**
 * Keeps, for every remote APIService, what its backend serves (kube-aggregator's discovery manager and
 * OpenAPI controllers): its resources for aggregated discovery and its OpenAPI v2 and v3 documents,
 * downloaded through the proxy transport when the APIService appears or changes and then every
 * `refreshMs` (1 minute, as kube). A failed discovery download keeps the last good resources marked
 * `Stale` (none before the first success); a failed OpenAPI download keeps the last documents. An
 * APIService is published after its first download attempt. The published array changes only when its
 * content does, so discovery's ETags stay put across refreshes that find nothing new.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../api/object.js';
import { passLoop, type PassLoop } from '../controllers/pass-loop.js';
import { groupVersionOf, serviceOf, specOf } from '../registry/kinds/apiregistration/apiservice-conditions.js';
import { noAggregatedGroupVersions, type AggregatedGroupVersion, type AggregatedSource, type OpenAPIV2Fragment } from './aggregated-group-version.js';
import { backendGet } from './backend-client.js';
import { fetchDiscovery, fetchOpenAPIV2, fetchOpenAPIV3, type BackendFetch } from './backend-documents.js';
import type { BackendTransport } from './backend-transport.js';
import type { ServiceResolver } from './service-resolver.js';

const DOWNLOAD_TIMEOUT_MS = 5000;

export interface DiscoveryManagerOptions {
  readonly resolve: ServiceResolver;
  /** The proxy transport of an APIService (verifying the backend, the proxy client certificate). */
  transportOf(name: string): BackendTransport | undefined;
  objectOf(name: string): KubeObject | undefined;
  /** Default 60 s. */
  readonly refreshMs?: number;
  readonly onError?: (err: unknown) => void;
}

export interface DiscoveryManager {
  readonly source: AggregatedSource;
  /** Downloads `name`'s documents now (or right after the download in flight). */
  refresh(name: string): void;
  forget(name: string): void;
  stop(): Promise<void>;
}

interface Downloaded {
  readonly resources: readonly unknown[];
  readonly freshness: AggregatedGroupVersion['freshness'];
  readonly openapiV2?: OpenAPIV2Fragment;
  readonly openapiV3?: unknown;
}

const int = (v: unknown): number => (typeof v === 'number' ? v : 0);

export function startDiscoveryManager(o: DiscoveryManagerOptions): DiscoveryManager {
  const refreshMs = o.refreshMs ?? 60_000;
  const loops = new Map<string, PassLoop>();
  const downloaded = new Map<string, Downloaded>();
  let published: readonly AggregatedGroupVersion[] = noAggregatedGroupVersions;
  let stopped = false;

  const publish = (): void => {
    const next: AggregatedGroupVersion[] = [];
    for (const [name, d] of [...downloaded].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const obj = o.objectOf(name);
      if (obj === undefined || serviceOf(obj) === undefined) continue;
      const spec = specOf(obj);
      next.push(Object.freeze({
        name,
        ...groupVersionOf(obj),
        groupPriorityMinimum: int(spec.groupPriorityMinimum),
        versionPriority: int(spec.versionPriority),
        ...d,
      }));
    }
    if (!isDeepStrictEqual(next, published)) published = Object.freeze(next);
  };

  const download = (name: string) => async (): Promise<void> => {
    const obj = o.objectOf(name);
    const transport = o.transportOf(name);
    const service = obj === undefined ? undefined : serviceOf(obj);
    if (obj === undefined || transport === undefined || service === undefined) return;
    const { group, version } = groupVersionOf(obj);
    const previous = downloaded.get(name);
    let fetch: BackendFetch;
    try {
      const endpoint = await o.resolve(service);
      fetch = (path, headers) => backendGet(transport, endpoint, path, { headers, timeoutMs: DOWNLOAD_TIMEOUT_MS });
    } catch (err) {
      o.onError?.(err);
      fetch = () => Promise.reject(err);
    }
    let next: Downloaded;
    try {
      next = { resources: await fetchDiscovery(fetch, group, version), freshness: 'Current' };
    } catch (err) {
      o.onError?.(err);
      next = { resources: previous?.resources ?? [], freshness: 'Stale' };
    }
    const openapiV2 = await fetchOpenAPIV2(fetch, group, version).catch((err: unknown) => (o.onError?.(err), previous?.openapiV2));
    const openapiV3 = await fetchOpenAPIV3(fetch, group, version).catch((err: unknown) => (o.onError?.(err), previous?.openapiV3));
    if (stopped || !loops.has(name)) return;
    downloaded.set(name, { ...next, ...(openapiV2 === undefined ? {} : { openapiV2 }), ...(openapiV3 === undefined ? {} : { openapiV3 }) });
    publish();
  };

  return {
    source: () => published,
    refresh(name) {
      if (stopped) return;
      let loop = loops.get(name);
      if (loop === undefined) loops.set(name, (loop = passLoop(download(name), refreshMs, o.onError)));
      loop.kick();
      // Priorities live on the object: republish at once when only they changed.
      if (downloaded.has(name)) publish();
    },
    forget(name) {
      const loop = loops.get(name);
      loops.delete(name);
      void loop?.stop();
      if (downloaded.delete(name)) publish();
    },
    async stop() {
      stopped = true;
      await Promise.all([...loops.values()].map((l) => l.stop()));
      loops.clear();
    },
  };
}
