/**
 * The discovery filter: `GET /api`, `/apis` (legacy or aggregated, by Accept), `/api/v1`, `/apis/<g>`,
 * `/apis/<g>/<v>`. Other paths and methods pass to the next filter (unknown groups and versions end in
 * the chain's 404). `?timeout=32s`, sent by client-go on discovery calls, is ignored.
 *
 * Headers as kube-apiserver: aggregated replies carry the exact `application/json;g=apidiscovery.k8s.io;
 * v=v2;as=APIGroupDiscoveryList` (or v2beta1) Content-Type, an ETag, `Cache-Control: public` and
 * `Vary: Accept`, and answer a matching `If-None-Match` with 304; legacy replies are `application/json`,
 * `Cache-Control: no-cache, private` (ETag too, harmless and saves bytes).
 */
import { isIPv6 } from 'node:net';
import { notAcceptable } from '../../errors/constructors.js';
import type { Naming } from '../../naming/naming.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import type { AppContext, Filter } from '../../request/request-state.js';
import { aggregatedContentType } from './aggregated-documents.js';
import { chooseDiscovery } from './accept.js';
import { cachedBody, serveCached } from './cached-body.js';
import { discoveryDocuments, type DiscoveryDocuments } from './discovery-documents.js';
import { apiVersions } from './legacy-documents.js';
import type { EnabledPredicate } from './served-groups.js';
import { noAggregatedGroupVersions, type AggregatedGroupVersion, type AggregatedSource } from '../../aggregator/aggregated-group-version.js';

export interface DiscoveryOptions {
  readonly naming: Naming;
  /**
   * The served kinds. A function is called per request; the documents are rebuilt only when it returns
   * a different array (so registering custom resources means publishing a new array).
   */
  readonly kinds: readonly KindStrategy[] | (() => readonly KindStrategy[]);
  /** `--runtime-config` (pass `(g, v, r) => runtimeConfig.enabled(g, v, r)`); default: everything served. */
  readonly enabled?: EnabledPredicate;
  /** `host:port` published in `/api`'s serverAddressByClientCIDRs; default: the address the request reached. */
  readonly serverAddress?: string;
  /** The group versions backends serve (remote APIServices); rebuilt, as `kinds`, when the array changes. */
  readonly aggregated?: AggregatedSource;
}

const legacyType = 'application/json';
const legacyCache = 'no-cache, private';
const acceptedLegacy = [legacyType];
const acceptedRoot = [legacyType, aggregatedContentType('v2'), aggregatedContentType('v2beta1')];

/** A one-slot cache: the documents of the last kinds array seen. */
export function documentsSource(o: Pick<DiscoveryOptions, 'naming' | 'kinds' | 'enabled' | 'aggregated'>): () => DiscoveryDocuments {
  let lastKinds: readonly KindStrategy[] | undefined;
  let lastAggregated: readonly AggregatedGroupVersion[] | undefined;
  let last: DiscoveryDocuments | undefined;
  return () => {
    const kinds = typeof o.kinds === 'function' ? o.kinds() : o.kinds;
    const aggregated = o.aggregated?.() ?? noAggregatedGroupVersions;
    if (last === undefined || kinds !== lastKinds || aggregated !== lastAggregated) {
      last = discoveryDocuments(kinds, o.naming, o.enabled, aggregated);
      lastKinds = kinds;
      lastAggregated = aggregated;
    }
    return last;
  };
}

function localAddress(ctx: AppContext): string {
  const socket = ctx.req.socket;
  let host = socket.localAddress ?? '127.0.0.1';
  if (host.startsWith('::ffff:')) host = host.slice(7);
  return `${isIPv6(host) ? `[${host}]` : host}:${socket.localPort ?? 443}`;
}

export function discoveryEndpoints(o: DiscoveryOptions): Filter {
  const documents = documentsSource(o);
  return async function discovery(ctx, next) {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = ctx.path.length > 1 && ctx.path.endsWith('/') ? ctx.path.slice(0, -1) : ctx.path;
    if (path !== '/api' && path !== '/apis' && !path.startsWith('/api/') && !path.startsWith('/apis/')) return next();
    const segments = path.split('/'); // ['', 'api' | 'apis', ...]
    const docs = documents();
    const accept = ctx.get('Accept');

    if (segments.length === 2) {
      const choice = chooseDiscovery(accept, true);
      if (choice.kind === 'none') throw notAcceptable(acceptedRoot);
      const core = segments[1] === 'api';
      if (choice.kind === 'aggregated') {
        const body = (core ? docs.aggregatedCore : docs.aggregatedGroups)[choice.version];
        serveCached(ctx, body, { contentType: aggregatedContentType(choice.version), cacheControl: 'public' });
        return;
      }
      const body = core ? cachedBody(apiVersions(docs.core, o.serverAddress ?? localAddress(ctx))) : docs.groupList;
      serveCached(ctx, body, { contentType: legacyType, cacheControl: legacyCache });
      return;
    }

    let body;
    if (segments[1] === 'api' && segments.length === 3) {
      body = docs.resourceLists.get(segments[2]!);
    } else if (segments[1] === 'apis' && segments.length === 3) {
      body = docs.groupDocs.get(segments[2]!);
    } else if (segments[1] === 'apis' && segments.length === 4) {
      body = docs.resourceLists.get(`${segments[2]}/${segments[3]}`);
    }
    if (body === undefined) return next();
    if (chooseDiscovery(accept, false).kind === 'none') throw notAcceptable(acceptedLegacy);
    serveCached(ctx, body, { contentType: legacyType, cacheControl: legacyCache });
  };
}
