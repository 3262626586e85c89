/**
 * Watch events on the wire: one JSON document per line, `{"type":"ADDED","object":{...}}`.
 *
 * Encode once (invariant 6): the JSON of an event's object is kept in the shared `CachedObject.memo` (under
 * the key lists and gets use too, codec/shared-json.ts), so however many watchers receive an event, its
 * object is serialized once per representation (`json`, or
 * `pom:<apiVersion>` for PartialObjectMetadata). Table watches (`kubectl get -w`) are rendered per watcher
 * (their AGE cells depend on the moment and their options on the request); as in Kubernetes, only the
 * first Table event carries the column definitions.
 *
 * BOOKMARK objects carry only kind, apiVersion and `metadata.resourceVersion` (plus the
 * `k8s.io/initial-events-end` annotation that ends `sendInitialEvents`); ERROR objects are Status bodies.
 */
import type { KubeObject } from '../../api/object.js';
import type { ConversionTarget } from '../../codec/negotiate.js';
import { memoJson } from '../../codec/shared-json.js';
import { statusBody, wireDetails } from '../../errors/status-body.js';
import type { StatusError } from '../../errors/status-error.js';
import type { KindStrategy } from '../../registry/kind-strategy.js';
import type { CacheWatchEvent, CachedObject } from '../../../storage/cache/types.js';
import { toPartialObjectMetadata, toTable, type IncludeObject } from '../table/to-table.js';

/** The annotation of the BOOKMARK that ends the initial events of `sendInitialEvents=true`. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

export interface EventEncoderOptions {
  readonly strategy: KindStrategy;
  /** The kind's `apiVersion` (bookmarks carry it). */
  readonly apiVersion: string;
  /** The conversion the client asked for (Table, PartialObjectMetadata), or none. */
  readonly target?: ConversionTarget | undefined;
  readonly includeObject?: IncludeObject;
}

export type EventEncoder = (event: CacheWatchEvent<KubeObject>) => string;

const line = (type: string, objectJson: string): string => `{"type":"${type}","object":${objectJson}}\n`;

function memoized(cached: CachedObject<KubeObject>, key: string, encode: () => string): string {
  let text = cached.memo.get(key) as string | undefined;
  if (text === undefined) {
    text = encode();
    cached.memo.set(key, text);
  }
  return text;
}

/** A per-watch encoder of events to newline-terminated JSON lines. */
export function eventEncoder(o: EventEncoderOptions): EventEncoder {
  const target = o.target;
  const targetApiVersion = target === undefined ? '' : `${target.group}/${target.version}`;
  let firstTable = true;

  const bookmark = (revision: number, initialEventsEnd: boolean): string => {
    const metadata: Record<string, unknown> = { resourceVersion: String(revision), creationTimestamp: null };
    if (initialEventsEnd) metadata['annotations'] = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    if (target?.kind === 'Table') {
      return JSON.stringify({ kind: 'Table', apiVersion: targetApiVersion, metadata: { resourceVersion: String(revision) }, columnDefinitions: [], rows: [] });
    }
    const kind = target?.kind === 'PartialObjectMetadata' ? 'PartialObjectMetadata' : o.strategy.kind;
    const apiVersion = target?.kind === 'PartialObjectMetadata' ? targetApiVersion : o.apiVersion;
    return JSON.stringify({ kind, apiVersion, metadata });
  };

  const object = (cached: CachedObject<KubeObject>): string => {
    if (target === undefined) return memoJson(cached.object, cached.memo);
    if (target.kind === 'PartialObjectMetadata') {
      return memoized(cached, `pom:${targetApiVersion}`, () => JSON.stringify(toPartialObjectMetadata(cached.object, targetApiVersion)));
    }
    const table = toTable(o.strategy, [cached.object], { resourceVersion: String(cached.revision) }, {
      apiVersion: targetApiVersion,
      ...(o.includeObject === undefined ? {} : { includeObject: o.includeObject }),
      noHeaders: !firstTable,
    });
    firstTable = false;
    return JSON.stringify(table);
  };

  return (event) =>
    event.type === 'BOOKMARK'
      ? line('BOOKMARK', bookmark(event.revision, event.initialEventsEnd === true))
      : line(event.type, object(event.object));
}

/** The ERROR event of a failure inside a running watch. */
export function errorEvent(err: StatusError): string {
  const body = statusBody(err);
  return line('ERROR', JSON.stringify(body.details === undefined ? body : { ...body, details: wireDetails(body.details) }));
}
