/**
 * GET with `watch=true` (or under the deprecated `/watch/` prefix): a chunked stream of watch events, one
 * JSON document per line, served from the resource's watch cache.
 *
 * Before the stream starts, errors are ordinary Status responses (422 for bad options, 410 for a start
 * that is compacted, 504 when the cache cannot reach the start revision). Headers are flushed at once so
 * clients waiting for the first event (`kubectl wait`) see the watch established. Inside the stream a
 * failure is an ERROR event (410 Expired when compaction overtook the start), after which the stream ends.
 * A watcher that stops reading is ended by the cache (bounded queue, small time budget) without slowing
 * anyone else; it then resumes from its last resourceVersion.
 *
 * The stream ends at `timeoutSeconds`, else after the server's randomized watch timeout
 * (`--min-request-timeout`, default 1800 s, × (1 + random), as kube-apiserver), on client disconnect, and on
 * shutdown.
 */
import type { ServerResponse } from 'node:http';
import {
  CBOR_OFFER,
  JSON_OFFER,
  KUBERNETES_PROTOBUF,
  isProtobuf,
  mediaOffer,
  negotiateResponse,
  notAcceptableError,
  resourceConversions,
  type MediaOffer,
} from '../../codec/negotiate.js';
import { servesProtobuf } from '../../codec/protobuf/protobuf-codec.js';
import type { Naming } from '../../naming/naming.js';
import { internalError } from '../../errors/constructors.js';
import { watchError } from '../../registry/generic/watch.js';
import { isStatusError } from '../../errors/status-error.js';
import { parseListOptions } from '../../request/query.js';
import { COMMON_FIELD_LABELS, checkFieldLabels, escapeFieldValue, parseFieldSelector } from '../../selectors/field-selector.js';
import { isStorageError } from '../../../storage/errors.js';
import { parseIncludeObject } from '../table/to-table.js';
import { errorEvent, eventEncoder, type EventEncoder, type WatchFormat } from '../watch/event-encoder.js';
import type { CacheWatcher } from '../../../storage/cache/types.js';
import type { KubeObject } from '../../api/object.js';
import type { RequestScope } from './request-scope.js';
import type { WatchEventCells } from '../../metrics/request-metrics.js';
import { VERB_WATCH, scopeIndex } from '../../metrics/request-labels.js';

/** kube-apiserver's `--min-request-timeout` default (the request state carries the flag's value). */
const MIN_REQUEST_TIMEOUT_SECONDS = 1800;
const CBOR_SEQ_OFFER = mediaOffer('application/cbor-seq');
const watchOfferSets = new Map<string, readonly MediaOffer[]>();

/**
 * JSON lines; protobuf frames (both names) for kinds with field numbers; a CBOR sequence (asked for as
 * `application/cbor` or `application/cbor-seq`) with the CBORServingAndStorage gate.
 */
function watchOffers(naming: Naming, protobuf: boolean, cbor: boolean): readonly MediaOffer[] {
  const key = `${protobuf ? naming.protobufMediaType : ''}|${cbor}`;
  let offers = watchOfferSets.get(key);
  if (offers === undefined) {
    const list = [JSON_OFFER];
    if (protobuf) list.push(...[...new Set([KUBERNETES_PROTOBUF, naming.protobufMediaType])].map(mediaOffer));
    if (cbor) list.push(CBOR_OFFER, CBOR_SEQ_OFFER);
    watchOfferSets.set(key, (offers = list));
  }
  return offers;
}

export async function handleWatch(scope: RequestScope): Promise<void> {
  const { ctx, served, query, info } = scope;
  const offers = watchOffers(scope.naming, servesProtobuf(served.strategy.schema), scope.features.enabled('CBORServingAndStorage'));
  const negotiated = negotiateResponse(ctx.get('Accept') || undefined, offers, resourceConversions(scope.naming));
  if (negotiated === undefined) throw notAcceptableError(offers);
  const target = negotiated.target;
  if (target !== undefined && target.kind !== 'Table' && target.kind !== 'PartialObjectMetadata') throw notAcceptableError(offers);
  const offer = negotiated.offer;
  const format: WatchFormat = isProtobuf(offer) ? 'protobuf' : offer === CBOR_OFFER || offer === CBOR_SEQ_OFFER ? 'cbor' : 'json';

  const o = parseListOptions(query, { forceWatch: true, watchListEnabled: scope.features.enabled('WatchList') });
  // A watch of one named object (`GET .../secrets/x?watch=true`, `/watch/.../secrets/x`) is a watch of the
  // collection narrowed to that name, as upstream serves it.
  const fieldSelector = info.name === ''
    ? o.fieldSelector
    : parseFieldSelector([o.fieldSelector.toString(), `metadata.name=${escapeFieldValue(info.name)}`].filter((s) => s !== '').join(','));
  checkFieldLabels(fieldSelector, [...COMMON_FIELD_LABELS, ...Object.keys(served.strategy.selectableFields ?? {})]);
  const includeObject = target?.kind === 'Table' ? parseIncludeObject(query.get('includeObject')) : undefined;

  // As kube's watch handler: timeoutSeconds when given, else a random time in [min, 2 × min] so watches
  // opened together do not all re-connect together; with a minimum of 0 they never time out.
  const minSeconds = ctx.state.minRequestTimeoutSeconds ?? MIN_REQUEST_TIMEOUT_SECONDS;
  const timeoutSeconds = o.timeoutSeconds !== undefined && o.timeoutSeconds > 0
    ? o.timeoutSeconds
    : minSeconds > 0 ? minSeconds * (1 + Math.random()) : undefined;
  // setTimeout holds at most 2^31-1 ms (24.8 days); past that (or with no timeout) no timer is set.
  const timeoutMs = timeoutSeconds === undefined ? undefined : Math.round(timeoutSeconds * 1000);
  // One signal for the watch: the request's (client gone, shutdown) or the deadline. A plain timer, not
  // AbortSignal.timeout + AbortSignal.any: Node 20 may collect such a timeout signal before it fires, and
  // the watch would outlive its timeoutSeconds.
  const watchEnd = new AbortController();
  const endWatch = (): void => watchEnd.abort();
  const timer = timeoutMs !== undefined && timeoutMs <= 0x7fffffff ? setTimeout(endWatch, timeoutMs) : undefined;
  ctx.state.signal.addEventListener('abort', endWatch, { once: true });
  // Aborted before this handler listened (shutdown stopped accepting while the request was authenticated):
  // the listener never fires, so end now rather than stream until --shutdown-timeout.
  if (ctx.state.signal.aborted) endWatch();
  const signal = watchEnd.signal;
  // apiserver_longrunning_requests while the watch runs; its events in apiserver_watch_events_* (metrics on).
  const metrics = ctx.state.requestMetrics;
  const requestInfo = ctx.state.requestInfo ?? info;
  const longRunning = metrics?.longRunning(requestInfo, served, ctx.path, VERB_WATCH, scopeIndex(requestInfo));
  longRunning?.inc();
  try {
    const watcher = await served.registry.watch(info.namespace, {
      labelSelector: o.labelSelector,
      fieldSelector,
      resourceVersion: o.resourceVersion,
      sendInitialEvents: o.sendInitialEvents,
      allowWatchBookmarks: o.allowWatchBookmarks,
      deadline: timeoutMs === undefined ? Number.MAX_SAFE_INTEGER : Date.now() + timeoutMs,
      signal,
    });
    const encode = eventEncoder({
      strategy: served.strategy,
      apiVersion: served.registry.context.apiVersion,
      target,
      ...(includeObject === undefined ? {} : { includeObject }),
      format,
      servedAsStored: !served.registry.context.shape.converts,
    });
    // Streams say what they are: protobuf `;stream=watch` (length-prefixed frames), CBOR a sequence.
    const contentType = format === 'protobuf' ? `${offer.mediaType};stream=watch` : format === 'cbor' ? CBOR_SEQ_OFFER.mediaType : offer.mediaType;
    await stream(scope, watcher, encode, contentType, signal, format, metrics?.watchEvents(served));
  } finally {
    longRunning?.dec();
    clearTimeout(timer);
    ctx.state.signal.removeEventListener('abort', endWatch);
  }
}

/** Writes the events of `watcher` until it ends; a failure inside the stream is an ERROR event. */
async function stream(
  scope: RequestScope,
  watcher: CacheWatcher<KubeObject>,
  encode: EventEncoder,
  mediaType: string,
  signal: AbortSignal,
  format: WatchFormat,
  eventMetrics: WatchEventCells | undefined,
): Promise<void> {
  const res = scope.ctx.res;
  scope.ctx.respond = false;
  res.writeHead(200, { 'Content-Type': mediaType, 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  try {
    // The watcher ends when `signal` aborts: deadline, client gone (request-lifecycle aborts the request's
    // signal on 'close'), shutdown.
    for await (const event of watcher) {
      const chunk = encode(event);
      if (eventMetrics !== undefined) {
        eventMetrics.events.value++;
        eventMetrics.sizes.observe(typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length);
      }
      if (!res.write(chunk) && !(await drained(res, signal))) break;
    }
  } catch (err) {
    // Lagging: the cache ended a watcher that did not keep up; the client re-watches from its last RV.
    if (!isStorageError(err, 'Lagging') && res.writable) {
      const translated = watchError(scope.served.registry.context, err);
      const status = isStatusError(translated) ? translated : internalError('an error on the server prevented the watch from continuing');
      res.write(errorEvent(status, format));
    }
  } finally {
    watcher.close();
    res.end();
  }
}

/** Resolves true when `res` drained, false when it closed or `signal` aborted first. */
function drained(res: ServerResponse, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted || res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => (): void => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      signal.removeEventListener('abort', onClose);
      resolve(ok);
    };
    const onDrain = done(true);
    const onClose = done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
    signal.addEventListener('abort', onClose);
  });
}
