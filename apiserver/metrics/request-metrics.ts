/**
 * kube-apiserver 1.32's request metrics (names, help texts, labels and buckets of
 * `k8s.io/apiserver/pkg/endpoints/metrics`), recorded by the metrics filter (server/filters/metrics.ts),
 * the watch handler (long-running gauge, watch events) and the TLS listener (handshake errors).
 *
 * Cost: a request picks its series without building or hashing labels. Each served resource gets a slot
 * (a WeakMap entry keyed by the ServedResource object the router hands over in `ctx.state.served`), each
 * of its sub-resources a child slot; a slot holds an array of cells indexed by verb × scope × dry_run
 * (request-labels.ts), and a cell holds the duration, SLI and size histograms plus one counter per status
 * code (an array indexed by the code). Only the first request of a tuple resolves label values.
 *
 * Cardinality is bounded by what the server serves:
 * - group, version, resource: of a served resource; a resource request for anything not served (or not
 *   served by this server: aggregated APIs proxied to their backends) folds into `group=""`,
 *   `version=""`, `resource="unknown"`, `subresource=""`.
 * - subresource: one the resource declares (status, approval, scale, its connect sub-resources), else
 *   `unknown`. Non-resource requests (kube puts their path in `subresource`): the server's fixed paths
 *   (`/api`, `/apis`, `/healthz`, `/livez`, `/readyz`, `/version`, `/metrics`, `/openapi/v2`,
 *   `/openapi/v3`, `/.well-known/openid-configuration`, `/openid/v1/jwks`), discovery of a group or
 *   version as `/api/*` or `/apis/*`, `/openapi/v3/*`, health sub-checks as `/healthz/*`, `/livez/*`,
 *   `/readyz/*`, anything else `other`.
 * - verb, scope, dry_run: fixed sets (request-labels.ts); code: HTTP status codes.
 * No user names or object names appear in any label.
 */
import type { Registry } from 'prom-client';
import type { ServedResource } from '../registry/served-resources.js';
import { deprecationOf } from '../endpoints/resources/deprecation.js';
import { nonResourcePaths } from '../endpoints/non-resource-paths.js';
import type { Naming } from '../naming/naming.js';
import type { RequestInfo } from '../request/request-info.js';
import {
  CounterFamily,
  GaugeFamily,
  HistogramFamily,
  exponentialBuckets,
  type CounterCell,
  type GaugeCell,
  type HistogramCell,
} from './metric-families.js';
import { DRY_RUNS, SCOPES, VERBS, VERB_CONNECT, VERB_GET, VERB_LIST, VERB_WATCH } from './request-labels.js';

/** The `component` label: every request here is served by the apiserver itself. */
export const APISERVER_COMPONENT = 'apiserver';

/** `apiserver_request_duration_seconds`' buckets (kube's, tuned for the API call latency SLOs). */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** `apiserver_request_sli_duration_seconds`' buckets. */
export const SLI_DURATION_BUCKETS = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** 1 kB to 1 GB. */
export const RESPONSE_SIZE_BUCKETS = exponentialBuckets(1000, 10, 7);
/** 1 KiB to 128 KiB. */
export const WATCH_EVENT_SIZE_BUCKETS = exponentialBuckets(1024, 2, 8);

/** The label values a slot stands for. */
interface SlotLabels {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
}

/** The series of one (slot, verb, scope, dry_run) tuple. */
interface RequestCell {
  readonly verb: string;
  readonly scope: string;
  /** Counters by status code. */
  readonly codes: (CounterCell | undefined)[];
  readonly duration: HistogramCell;
  /** Not for WATCH and CONNECT (kube leaves them out of the SLI). */
  readonly sli: HistogramCell | undefined;
  /** GET and LIST only. */
  readonly sizes: HistogramCell | undefined;
  longRunning: GaugeCell | undefined;
}

const CELLS_PER_SLOT = VERBS.length * SCOPES.length * DRY_RUNS.length;

class Slot {
  readonly cells: (RequestCell | undefined)[] = new Array<RequestCell | undefined>(CELLS_PER_SLOT);
  /** Sub-resource slots (a resource's slot only). */
  readonly subs = new Map<string, Slot>();
  constructor(
    readonly labels: SlotLabels,
    /** The `apiserver_requested_deprecated_apis` series, set to 1 by the first request; undefined when not deprecated. */
    readonly deprecated: GaugeCell | undefined,
    /** Sub-resources the resource declares (others fold into `unknown`). */
    readonly knownSubresources: ReadonlySet<string>,
  ) {}
}

/** The watch event series of one watched kind. */
export interface WatchEventCells {
  readonly events: CounterCell;
  readonly sizes: HistogramCell;
}

// The label set follows the served non-resource paths: exact paths keep their name, a template keeps the part
// before its first placeholder (`/apis/{group}/{version}` folds into `/apis/*`); `/version/` is `/version`.
const fixedNonResourcePaths = new Set(
  nonResourcePaths.filter((p) => !p.path.includes('{')).map((p) => p.path.replace(/(.)\/$/, '$1')),
);
const nonResourcePrefixes = [
  ...new Set(nonResourcePaths.filter((p) => p.path.includes('{')).map((p) => p.path.slice(0, p.path.indexOf('{')))),
];

/** A non-resource path as a bounded `subresource` value (see the file comment). */
export function nonResourcePathLabel(path: string): string {
  if (fixedNonResourcePaths.has(path)) return path;
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  if (fixedNonResourcePaths.has(trimmed)) return trimmed;
  for (const prefix of nonResourcePrefixes) {
    if (path.startsWith(prefix)) return `${prefix}*`;
  }
  return 'other';
}

const UNKNOWN: SlotLabels = { group: '', version: '', resource: 'unknown', subresource: '' };

export class RequestMetrics {
  readonly #requests: CounterFamily;
  readonly #durations: HistogramFamily;
  readonly #sli: HistogramFamily;
  readonly #sizes: HistogramFamily;
  readonly #longRunning: GaugeFamily;
  readonly #deprecated: GaugeFamily;
  readonly #watchEvents: CounterFamily;
  readonly #watchEventSizes: HistogramFamily;
  readonly #tlsHandshakeErrors: CounterCell;
  readonly #inflightReadOnly: GaugeCell;
  readonly #inflightMutating: GaugeCell;

  readonly #resourceSlots = new WeakMap<ServedResource, Slot>();
  readonly #pathSlots = new Map<string, Slot>();
  readonly #unknownSlot: Slot;
  readonly #watchCells = new WeakMap<ServedResource, WatchEventCells>();
  #lookup: ((group: string, version: string, resource: string) => ServedResource | undefined) | undefined;

  // The in-flight watermark of the current period (kube reports the maximum of the last second).
  #maxReadOnly = 0;
  #maxMutating = 0;
  #timer: NodeJS.Timeout | undefined;

  readonly #naming: Naming;

  constructor(registry: Registry, naming: Naming) {
    this.#naming = naming;
    const reg = { registry };
    const scoped = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'];
    this.#requests = new CounterFamily({
      ...reg,
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'],
    });
    this.#durations = new HistogramFamily({
      ...reg,
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      buckets: REQUEST_DURATION_BUCKETS,
    });
    this.#sli = new HistogramFamily({
      ...reg,
      name: 'apiserver_request_sli_duration_seconds',
      help: 'Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.',
      labelNames: scoped,
      buckets: SLI_DURATION_BUCKETS,
    });
    this.#sizes = new HistogramFamily({
      ...reg,
      name: 'apiserver_response_sizes',
      help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
      labelNames: scoped,
      buckets: RESPONSE_SIZE_BUCKETS,
    });
    this.#longRunning = new GaugeFamily({
      ...reg,
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: scoped,
    });
    this.#deprecated = new GaugeFamily({
      ...reg,
      name: 'apiserver_requested_deprecated_apis',
      help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
    });
    this.#watchEvents = new CounterFamily({
      ...reg,
      name: 'apiserver_watch_events_total',
      help: 'Number of events sent in watch clients',
      labelNames: ['group', 'version', 'kind'],
    });
    this.#watchEventSizes = new HistogramFamily({
      ...reg,
      name: 'apiserver_watch_events_sizes',
      help: 'Watch event size distribution in bytes',
      labelNames: ['group', 'version', 'kind'],
      buckets: WATCH_EVENT_SIZE_BUCKETS,
    });
    this.#tlsHandshakeErrors = new CounterFamily({
      ...reg,
      name: 'apiserver_tls_handshake_errors_total',
      help: "Number of requests dropped with 'TLS handshake error from' error",
      labelNames: [],
    }).child();
    const inflight = new GaugeFamily({
      ...reg,
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
    });
    this.#inflightReadOnly = inflight.child('readOnly');
    this.#inflightMutating = inflight.child('mutating');
    this.#unknownSlot = new Slot(UNKNOWN, undefined, new Set());
  }

  /** How resource requests that never reached the router (401, 403, 429 ...) find their served resource. */
  resolveResourcesWith(lookup: (group: string, version: string, resource: string) => ServedResource | undefined): void {
    this.#lookup = lookup;
  }

  /**
   * Records one finished request. `info` is its request info (undefined when none could be parsed: it
   * counts under the unknown resource), `served` the resource the router chose (if it got that far).
   */
  record(
    info: RequestInfo | undefined,
    served: ServedResource | undefined,
    path: string,
    verb: number,
    scope: number,
    dryRun: number,
    code: number,
    seconds: number,
    responseBytes: number,
  ): void {
    const slot = this.#slotOf(info, served, path);
    if (slot.deprecated !== undefined && slot.deprecated.value !== 1) slot.deprecated.set(1);
    const index = (verb * SCOPES.length + scope) * DRY_RUNS.length + dryRun;
    const cell = slot.cells[index] ?? (slot.cells[index] = this.#cell(slot.labels, verb, scope, dryRun));
    const counter = cell.codes[code] ?? (cell.codes[code] = this.#requests.child(cell.verb, DRY_RUNS[dryRun]!, slot.labels.group, slot.labels.version, slot.labels.resource, slot.labels.subresource, cell.scope, APISERVER_COMPONENT, String(code)));
    counter.value++;
    cell.duration.observe(seconds);
    cell.sli?.observe(seconds);
    cell.sizes?.observe(responseBytes);
  }

  /** The `apiserver_longrunning_requests` series of a long-running request (the watch handler incs and decs it). */
  longRunning(info: RequestInfo, served: ServedResource | undefined, path: string, verb: number, scope: number): GaugeCell {
    const slot = this.#slotOf(info, served, path);
    const index = (verb * SCOPES.length + scope) * DRY_RUNS.length;
    const cell = slot.cells[index] ?? (slot.cells[index] = this.#cell(slot.labels, verb, scope, 0));
    return (cell.longRunning ??= this.#longRunning.child(cell.verb, slot.labels.group, slot.labels.version, slot.labels.resource, slot.labels.subresource, cell.scope, APISERVER_COMPONENT));
  }

  /** The watch event series of the kind `served` serves (resolved once per watch). */
  watchEvents(served: ServedResource): WatchEventCells {
    let cells = this.#watchCells.get(served);
    if (cells === undefined) {
      const { group, strategy } = served;
      cells = {
        events: this.#watchEvents.child(group, strategy.version, strategy.kind),
        sizes: this.#watchEventSizes.child(group, strategy.version, strategy.kind),
      };
      this.#watchCells.set(served, cells);
    }
    return cells;
  }

  /** A TLS handshake failed (the listener's `tlsClientError`). */
  tlsHandshakeError(): void {
    this.#tlsHandshakeErrors.value++;
  }

  /** The limits filter's in-flight counts after a request took its slot (see `startInflightPeriods`). */
  recordInflight(readOnly: number, mutating: number): void {
    if (readOnly > this.#maxReadOnly) this.#maxReadOnly = readOnly;
    if (mutating > this.#maxMutating) this.#maxMutating = mutating;
  }

  /**
   * Every `periodMs` (kube: 1 s) the in-flight gauges take the period's maximum and the maximum starts
   * again from 0, as kube's watermark maintenance does. Returns the stop function.
   */
  startInflightPeriods(periodMs = 1000): () => void {
    this.#timer = setInterval(() => this.flushInflightPeriod(), periodMs);
    this.#timer.unref();
    return () => clearInterval(this.#timer);
  }

  /** Ends the current in-flight period now (also what the timer does). */
  flushInflightPeriod(): void {
    this.#inflightReadOnly.set(this.#maxReadOnly);
    this.#inflightMutating.set(this.#maxMutating);
    this.#maxReadOnly = 0;
    this.#maxMutating = 0;
  }

  #slotOf(info: RequestInfo | undefined, served: ServedResource | undefined, path: string): Slot {
    if (info === undefined) return this.#unknownSlot;
    if (!info.isResourceRequest) {
      const label = nonResourcePathLabel(path);
      let slot = this.#pathSlots.get(label);
      if (slot === undefined) {
        slot = new Slot({ group: '', version: '', resource: '', subresource: label }, undefined, new Set());
        this.#pathSlots.set(label, slot);
      }
      return slot;
    }
    const resource = served ?? this.#lookup?.(info.apiGroup, info.apiVersion, info.resource);
    if (resource === undefined) return this.#unknownSlot;
    let slot = this.#resourceSlots.get(resource);
    if (slot === undefined) {
      slot = this.#newSlot(resource, '');
      this.#resourceSlots.set(resource, slot);
    }
    if (info.subresource === '') return slot;
    let sub = slot.subs.get(info.subresource);
    if (sub === undefined) {
      // Unknown names share one child so a client cannot grow the map.
      const name = slot.knownSubresources.has(info.subresource) ? info.subresource : 'unknown';
      sub = slot.subs.get(name) ?? this.#newSlot(resource, name);
      slot.subs.set(name, sub);
    }
    return sub;
  }

  #newSlot(served: ServedResource, subresource: string): Slot {
    const { strategy } = served;
    const labels = { group: served.group, version: strategy.version, resource: strategy.resource, subresource };
    const deprecation = deprecationOf(served, this.#naming);
    const deprecated = deprecation === undefined
      ? undefined
      : this.#deprecated.child(labels.group, labels.version, labels.resource, subresource, deprecation.removedRelease);
    const known = new Set<string>([
      ...(strategy.subresources ?? []),
      ...(strategy.scale === undefined ? [] : ['scale']),
      ...(strategy.connectSubresources ?? []).map((c) => c.name),
    ]);
    return new Slot(labels, deprecated, known);
  }

  #cell(labels: SlotLabels, verb: number, scope: number, dryRun: number): RequestCell {
    const v = VERBS[verb]!;
    const s = SCOPES[scope]!;
    const { group, version, resource, subresource } = labels;
    const noSli = verb === VERB_WATCH || verb === VERB_CONNECT;
    const read = verb === VERB_GET || verb === VERB_LIST;
    return {
      verb: v,
      scope: s,
      codes: [],
      duration: this.#durations.child(v, DRY_RUNS[dryRun]!, group, version, resource, subresource, s, APISERVER_COMPONENT),
      sli: noSli ? undefined : this.#sli.child(v, group, version, resource, subresource, s, APISERVER_COMPONENT),
      sizes: read ? this.#sizes.child(v, group, version, resource, subresource, s, APISERVER_COMPONENT) : undefined,
      longRunning: undefined,
    };
  }
}
