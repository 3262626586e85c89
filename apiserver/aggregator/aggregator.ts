/**
 * The aggregation layer of one replica, assembled: it follows the APIServices (apiservice-follower.ts) and
 * keeps, per remote APIService, the transports to its backend; from them it serves the proxy filter
 * (proxy-handler.ts), keeps the Available condition (availability-controller.ts) and downloads what the
 * backend serves for discovery and OpenAPI (discovery-manager.ts, published through `source`).
 *
 * Created before the API is served (discovery and OpenAPI take `source`, the API chain takes `filter`)
 * and started once the APIService registry exists; until then the filter passes everything on.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../api/object.js';
import type { GenericRegistry } from '../registry/generic/generic-registry.js';
import { groupVersionOf, isAvailable, serviceOf, specOf } from '../registry/kinds/apiregistration/apiservice-conditions.js';
import type { Logger } from '../log/logger.js';
import type { Filter } from '../request/request-state.js';
import type { AggregatedSource } from './aggregated-group-version.js';
import { followAPIServices, type APIServiceMap, type Follower } from './apiservice-follower.js';
import { startAvailabilityController, type AvailabilityController } from './availability-controller.js';
import { backendTransport, type BackendTransport, type ProxyClientCert } from './backend-transport.js';
import { startDiscoveryManager, type DiscoveryManager } from './discovery-manager.js';
import { aggregatorProxy } from './proxy-handler.js';
import { dnsServiceResolver, type ServiceResolver } from './service-resolver.js';

export interface AggregatorOptions {
  /** Where backends are dialled; default the Service's DNS name (service-resolver.ts). */
  readonly resolve?: ServiceResolver;
  /** `--proxy-client-cert-file` / `--proxy-client-key-file`; without them no client certificate is presented. */
  readonly clientCert?: ProxyClientCert;
  /** Send `X-Remote-Uid` (feature RemoteRequestHeaderUID). */
  readonly uidHeader?: boolean;
  readonly logger: Logger;
  /** How often each backend is probed; default 10 s. */
  readonly availabilityIntervalMs?: number;
  /** How often each backend's discovery and OpenAPI are downloaded again; default 60 s. */
  readonly discoveryRefreshMs?: number;
}

export interface Aggregator {
  readonly filter: Filter;
  readonly source: AggregatedSource;
  /** Follows the APIServices of `registry`; resolves once the first list is known. */
  start(registry: GenericRegistry): Promise<void>;
  stop(): Promise<void>;
}

interface Entry {
  readonly obj: KubeObject;
  readonly proxy: BackendTransport;
  readonly probe: BackendTransport;
}

export function createAggregator(o: AggregatorOptions): Aggregator {
  const resolve = o.resolve ?? dnsServiceResolver;
  const log = o.logger.child({ component: 'aggregator' });
  const entries = new Map<string, Entry>();
  /** `<group>/<version>` -> APIService name, for the remote ones. */
  let byGroupVersion = new Map<string, string>();
  let follower: Follower | undefined;
  let availability: AvailabilityController | undefined;
  let discovery: DiscoveryManager | undefined;

  const objectOf = (name: string): KubeObject | undefined => entries.get(name)?.obj;

  const drop = (name: string): void => {
    const entry = entries.get(name);
    if (entry === undefined) return;
    entry.proxy.close();
    entry.probe.close();
    entries.delete(name);
    availability?.forget(name);
    discovery?.forget(name);
  };

  const onChange = (all: APIServiceMap, changed: ReadonlySet<string>): void => {
    for (const name of changed) {
      const obj = all.get(name);
      if (obj === undefined || serviceOf(obj) === undefined) {
        drop(name);
        continue;
      }
      const before = entries.get(name);
      const specChanged = before === undefined || !isDeepStrictEqual(specOf(before.obj), specOf(obj));
      const proxy = backendTransport(obj, o.clientCert)!;
      if (before !== undefined && before.proxy.fingerprint === proxy.fingerprint) {
        proxy.close();
        entries.set(name, { ...before, obj });
      } else {
        before?.proxy.close();
        before?.probe.close();
        entries.set(name, { obj, proxy, probe: backendTransport(obj, o.clientCert, false)! });
      }
      if (specChanged) availability?.check(name);
      // A new spec, or a status change (a backend back up): download what it serves now.
      discovery?.refresh(name);
    }
    const index = new Map<string, string>();
    for (const [name, e] of entries) {
      const { group, version } = groupVersionOf(e.obj);
      index.set(`${group}/${version}`, name);
    }
    byGroupVersion = index;
  };

  const filter = aggregatorProxy({
    lookup: (group, version) => {
      const name = byGroupVersion.get(`${group}/${version}`);
      const entry = name === undefined ? undefined : entries.get(name);
      if (entry === undefined) return undefined;
      return { name: name!, service: serviceOf(entry.obj)!, available: isAvailable(entry.obj), transport: entry.proxy };
    },
    resolve,
    uidHeader: o.uidHeader === true,
    logger: log,
    onUnreachable: (name) => availability?.check(name),
  });

  return {
    filter,
    source: () => discovery?.source() ?? [],
    async start(registry) {
      availability = startAvailabilityController({
        registry,
        resolve,
        transportOf: (name) => entries.get(name)?.probe,
        objectOf,
        ...(o.availabilityIntervalMs === undefined ? {} : { intervalMs: o.availabilityIntervalMs }),
        onError: (err) => log.warn({ err }, 'availability check'),
        onProbed: (name, c) => log.debug({ apiService: name, status: c.status, reason: c.reason, message: c.message }, 'probed'),
      });
      discovery = startDiscoveryManager({
        resolve,
        transportOf: (name) => entries.get(name)?.proxy,
        objectOf,
        ...(o.discoveryRefreshMs === undefined ? {} : { refreshMs: o.discoveryRefreshMs }),
        onError: (err) => log.debug({ err: err instanceof Error ? err.message : String(err) }, 'backend download failed'),
      });
      follower = followAPIServices({ registry, onChange, onError: (err) => log.warn({ err }, 'following APIServices') });
      await follower.synced;
    },
    async stop() {
      await follower?.stop();
      await availability?.stop();
      await discovery?.stop();
      for (const name of [...entries.keys()]) drop(name);
    },
  };
}
