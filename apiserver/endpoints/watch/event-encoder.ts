/**
 * Watch events on the wire: one JSON document per line, `{"type":"ADDED","object":{...}}`; or, for
 * `application/vnd.kubernetes.protobuf;stream=watch`, length-prefixed `WatchEvent` frames whose object is
 * the enveloped protobuf of the object (codec/protobuf/envelope.ts); or, for `application/cbor-seq`, one
 * CBOR data item `{type, object}` per event (codec/cbor/watch-event.ts).
 *
 * Encode once (invariant 6): the JSON of an event's object is kept in the shared `CachedObject.memo` (under
 * the key lists and gets use too, codec/shared-json.ts), so however many watchers receive an event, its
 * object is serialized once per representation (`json`, `pb` for protobuf, `cbor`; `pom:<apiVersion>`,
 * `pb:pom:<apiVersion>` and `cbor:pom:<apiVersion>` for PartialObjectMetadata). A protobuf frame only wraps
 * the memoized bytes. A JSON event of a kind served as stored whose object the cache has not decoded is not
 * serialized at all: its line is the object's served bytes (registry/generic/served-bytes.ts) between the
 * line's ends; a protobuf event of such an object is encoded from a decoding the cache does not keep
 * (registry/generic/served-protobuf.ts). Table watches (`kubectl get -w`) are rendered per watcher (their
 * AGE cells depend on the moment and their options on the request); as in Kubernetes, only the first Table
 * event carries the column definitions.
 *
 * BOOKMARK objects carry only kind, apiVersion and `metadata.resourceVersion` (plus the
 * `k8s.io/initial-events-end` annotation that ends `sendInitialEvents`); ERROR objects are Status bodies.
 */
import type { KubeObject } from '../../api/object.js';
import type { ConversionTarget } from '../../codec/negotiate.js';
import { objectProtobuf, partialObjectMetadataProtobuf, statusProtobuf } from '../../codec/protobuf/protobuf-codec.js';
import { watchFrame } from '../../codec/protobuf/envelope.js';
import { encodeCbor } from '../../codec/cbor/encode.js';
import { objectCbor } from '../../codec/cbor/object-cbor.js';
import { encodeCborWatchEvent, encodeCborWatchEventValue } from '../../codec/cbor/watch-event.js';
import { memoJson } from '../../codec/shared-json.js';
import { servedBytes } from '../../registry/generic/served-bytes.js';
import { servedProtobuf } from '../../registry/generic/served-protobuf.js';
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
  /** JSON lines (default), protobuf frames or a CBOR sequence (Table is JSON only). */
  readonly format?: WatchFormat;
  /**
   * The kind serves what it stores (`StoredShape.converts` false): a JSON event of an object the cache has
   * not decoded is written from its served bytes (registry/generic/served-bytes.ts), a protobuf event from
   * a decoding the cache does not keep (served-protobuf.ts).
   */
  readonly servedAsStored?: boolean;
}

export type WatchFormat = 'json' | 'protobuf' | 'cbor';

export type EventEncoder = (event: CacheWatchEvent<KubeObject>) => string | Buffer;

const line = (type: string, objectJson: string): string => `{"type":"${type}","object":${objectJson}}\n`;

const LINE_END = '}\n';

/** The JSON line of an event whose object is the JSON `bytes`: one Buffer, the bytes copied once. */
function byteLine(type: string, bytes: Uint8Array): Buffer {
  const head = `{"type":"${type}","object":`;
  const out = Buffer.allocUnsafe(head.length + bytes.length + LINE_END.length);
  out.write(head, 0, 'latin1');
  out.set(bytes, head.length);
  out.write(LINE_END, head.length + bytes.length, 'latin1');
  return out;
}

function memoized<T extends string | Buffer>(cached: CachedObject<KubeObject>, key: string, encode: () => T): T {
  let text = cached.memo.get(key) as T | undefined;
  if (text === undefined) {
    text = encode();
    cached.memo.set(key, text);
  }
  return text;
}

/** A per-watch encoder of events to newline-terminated JSON lines or protobuf frames. */
export function eventEncoder(o: EventEncoderOptions): EventEncoder {
  if (o.format === 'protobuf') return protobufEventEncoder(o);
  if (o.format === 'cbor') return cborEventEncoder(o);
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

  const fromBytes = target === undefined && o.servedAsStored === true;
  return (event) => {
    if (event.type === 'BOOKMARK') return line('BOOKMARK', bookmark(event.revision, event.initialEventsEnd === true));
    if (fromBytes) {
      const bytes = servedBytes(event.object);
      if (bytes !== undefined) return byteLine(event.type, bytes);
    }
    return line(event.type, object(event.object));
  };
}

function protobufEventEncoder(o: EventEncoderOptions): EventEncoder {
  const schema = o.strategy.schema;
  const target = o.target;
  const pomApiVersion = target?.kind === 'PartialObjectMetadata' ? `${target.group}/${target.version}` : undefined;
  // Chosen once per watch: served as stored, an object the cache has not decoded stays undecoded
  // (served-protobuf.ts).
  const object: (cached: CachedObject<KubeObject>) => Buffer = pomApiVersion !== undefined
    ? (cached) => memoized(cached, `pb:pom:${pomApiVersion}`, () => partialObjectMetadataProtobuf(toPartialObjectMetadata(cached.object, pomApiVersion)))
    : o.servedAsStored === true
      ? (cached) => servedProtobuf(schema, cached).bytes
      : (cached) => objectProtobuf(schema, cached.object, cached.memo).bytes;
  const bookmark = (revision: number, initialEventsEnd: boolean): Buffer => {
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
    if (initialEventsEnd) metadata['annotations'] = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    if (pomApiVersion !== undefined) return partialObjectMetadataProtobuf({ apiVersion: pomApiVersion, metadata });
    return objectProtobuf(schema, { apiVersion: o.apiVersion, kind: o.strategy.kind, metadata }, undefined).bytes;
  };
  return (event) =>
    event.type === 'BOOKMARK'
      ? watchFrame('BOOKMARK', bookmark(event.revision, event.initialEventsEnd === true))
      : watchFrame(event.type, object(event.object));
}

function cborEventEncoder(o: EventEncoderOptions): EventEncoder {
  const schema = o.strategy.schema;
  const target = o.target;
  const pomApiVersion = target?.kind === 'PartialObjectMetadata' ? `${target.group}/${target.version}` : undefined;
  const object = (cached: CachedObject<KubeObject>): Buffer => {
    if (pomApiVersion === undefined) return objectCbor(schema, cached.object, cached.memo);
    return memoized(cached, `cbor:pom:${pomApiVersion}`, () => encodeCbor(toPartialObjectMetadata(cached.object, pomApiVersion)));
  };
  const bookmark = (revision: number, initialEventsEnd: boolean): object => {
    const metadata: Record<string, unknown> = { resourceVersion: String(revision), creationTimestamp: null };
    if (initialEventsEnd) metadata['annotations'] = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    return pomApiVersion !== undefined
      ? { kind: 'PartialObjectMetadata', apiVersion: pomApiVersion, metadata }
      : { kind: o.strategy.kind, apiVersion: o.apiVersion, metadata };
  };
  return (event) =>
    event.type === 'BOOKMARK'
      ? encodeCborWatchEventValue('BOOKMARK', bookmark(event.revision, event.initialEventsEnd === true))
      : encodeCborWatchEvent(event.type, object(event.object));
}

function wireStatus(err: StatusError): object {
  const body = statusBody(err);
  return body.details === undefined ? body : { ...body, details: wireDetails(body.details) };
}

/** The ERROR event of a failure inside a running watch. */
export function errorEvent(err: StatusError, format: WatchFormat = 'json'): string | Buffer {
  if (format === 'protobuf') return watchFrame('ERROR', statusProtobuf(wireStatus(err)));
  if (format === 'cbor') return encodeCborWatchEventValue('ERROR', wireStatus(err));
  return line('ERROR', JSON.stringify(wireStatus(err)));
}
