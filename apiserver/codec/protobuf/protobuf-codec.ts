/**
 * Protobuf bodies of the REST API, built on the kinds' own schemas (message-codec.ts) and the envelope:
 * objects, lists (`<Kind>List` {metadata = 1 ListMeta, items = 2}), Status, DeleteOptions and
 * PartialObjectMetadata(List). A kind is served in protobuf when its schema carries field numbers
 * (`servesProtobuf`); custom resources never do.
 *
 * Encode once (invariant 6): an object shared by the watch cache keeps its enveloped bytes in its
 * encoding memo under `PROTOBUF_MEMO_KEY`, so a get, every list that holds it (which reuses the bare
 * message inside the envelope) and every protobuf watcher share one serialization.
 */
import type { KubeObject, ListMeta } from '../../api/object.js';
import { deleteOptionsSchema, statusSchema } from '../../schema/meta-schemas.js';
import { listMetaSchema, objectMetaSchema } from '../../schema/object-meta-schema.js';
import type { Schema } from '../../schema/schema.js';
import { LIST_CHUNK_BYTES, type EncodedList } from '../encoded-list.js';
import { unreadItemSources } from '../lazy-list.js';
import { encodingMemo } from '../shared-json.js';
import { decodeEnvelope, encodeEnveloped, encodeEnvelopedRaw, envelopeHead, ENVELOPE_TRAILER, type DecodedEnvelope, type Enveloped } from './envelope.js';
import { messageCodec } from './message-codec.js';
import { WireReader } from './wire-reader.js';
import { putVarint, varintSize, WIRE_LEN, WireWriter } from './wire-writer.js';

/** The memo key of an object's enveloped protobuf (`Enveloped`). */
export const PROTOBUF_MEMO_KEY = 'pb';

export const servesProtobuf = (schema: Schema): boolean => schema.protobuf !== undefined;

const statusMessage: Schema = statusSchema(listMetaSchema);
const partialObjectMetadataSchema: Schema = {
  type: 'object',
  properties: { metadata: objectMetaSchema },
  protobuf: { metadata: 1 },
};

/** The bare message of `obj` (no envelope). */
export function encodeMessage(schema: Schema, obj: object): Buffer {
  const w = new WireWriter();
  messageCodec(schema).encode(w, obj as Record<string, unknown>);
  return w.finish();
}

/** The enveloped protobuf of an object, with apiVersion and kind from the object itself. */
export function objectProtobuf(schema: Schema, obj: KubeObject, memo: Map<string, unknown> | undefined = encodingMemo(obj)): Enveloped {
  let e = memo?.get(PROTOBUF_MEMO_KEY) as Enveloped | undefined;
  if (e === undefined) {
    const codec = messageCodec(schema);
    e = encodeEnvelopedRaw(obj.apiVersion ?? '', obj.kind ?? '', (w) => codec.encode(w, obj));
    // Shared with every reader of a frozen cache object: frozen as well (its Buffers cannot be).
    if (Object.isFrozen(obj)) Object.freeze(e);
    memo?.set(PROTOBUF_MEMO_KEY, e);
  }
  return e;
}

/** A list's ListMeta as its field (1) of the list message. */
function listMetaField(metadata: ListMeta | undefined): Buffer {
  const w = new WireWriter();
  w.tag(1, WIRE_LEN);
  const m = w.begin();
  if (metadata !== undefined) messageCodec(listMetaSchema).encode(w, metadata as Record<string, unknown>);
  w.end(m);
  return w.finish();
}

/** An item's bare message: a shared object's memoized one (see `objectProtobuf`), else encoded now. */
function itemMessage(schema: Schema, item: KubeObject): Uint8Array {
  const memo = encodingMemo(item);
  return memo === undefined ? encodeMessage(schema, item) : objectProtobuf(schema, item, memo).raw;
}

/**
 * A list of objects of `schema` (`<Kind>List` {metadata = 1, items = 2}), enveloped: the items' messages are
 * made (or taken from their memos) first, so the length is known before a byte is sent; a list
 * from the watch cache whose items were not read takes each item's message from its sources
 * (codec/lazy-list.ts), never decoding the cache's objects for it.
 */
export function listProtobuf(schema: Schema, list: { apiVersion?: string; kind?: string; metadata?: ListMeta; items: readonly KubeObject[] }): EncodedList {
  const source = unreadItemSources(list);
  const fromSource = source?.protobuf;
  const count = fromSource !== undefined ? source!.count : list.items.length;
  const items = new Array<Uint8Array>(count);
  const meta = listMetaField(list.metadata);
  let length = meta.length;
  for (let i = 0; i < count; i++) {
    const raw = fromSource !== undefined ? fromSource(i) : itemMessage(schema, list.items[i]!);
    items[i] = raw;
    length += itemBytes(raw);
  }
  const head = Buffer.concat([envelopeHead(list.apiVersion ?? '', list.kind ?? '', length), meta]);
  const bytes = head.length + (length - meta.length) + ENVELOPE_TRAILER.length;
  return { bytes, buffer: () => wholeList(head, items, bytes), chunks: () => listChunks(head, items) };
}

/** Writes item message `raw` as field 2 of the list message into `out` at `offset`; returns the new offset. */
function putItem(out: Buffer, offset: number, raw: Uint8Array): number {
  out[offset] = 0x12; // field 2, length-delimited
  offset = putVarint(out, offset + 1, raw.length);
  out.set(raw, offset);
  return offset + raw.length;
}

const itemBytes = (raw: Uint8Array): number => 1 + varintSize(raw.length) + raw.length;

function wholeList(head: Buffer, items: readonly Uint8Array[], bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  out.set(head, 0);
  let offset = head.length;
  for (const raw of items) offset = putItem(out, offset, raw);
  out.set(ENVELOPE_TRAILER, offset);
  offset += ENVELOPE_TRAILER.length;
  if (offset !== bytes) throw new Error(`listProtobuf: wrote ${offset} of ${bytes} bytes`);
  return out;
}

function* listChunks(head: Buffer, items: readonly Uint8Array[]): Generator<Buffer> {
  let out = Buffer.allocUnsafe(Math.max(LIST_CHUNK_BYTES, head.length));
  out.set(head, 0);
  let offset = head.length;
  for (const raw of items) {
    const need = itemBytes(raw);
    if (offset + need > out.length) {
      yield out.subarray(0, offset);
      out = Buffer.allocUnsafe(Math.max(LIST_CHUNK_BYTES, need));
      offset = 0;
    }
    offset = putItem(out, offset, raw);
  }
  if (offset + ENVELOPE_TRAILER.length > out.length) {
    yield out.subarray(0, offset);
    out = Buffer.allocUnsafe(ENVELOPE_TRAILER.length);
    offset = 0;
  }
  out.set(ENVELOPE_TRAILER, offset);
  yield out.subarray(0, offset + ENVELOPE_TRAILER.length);
}

/** A `Status` (success or failure), enveloped as `v1` Status. */
export function statusProtobuf(status: object): Buffer {
  return encodeEnveloped('v1', 'Status', (w) => messageCodec(statusMessage).encode(w, status as Record<string, unknown>));
}

/** A PartialObjectMetadata (`apiVersion` is `meta.<domain>/v1` or v1beta1, as negotiated). */
export function partialObjectMetadataProtobuf(pom: { apiVersion: string; metadata: unknown }): Buffer {
  return encodeEnveloped(pom.apiVersion, 'PartialObjectMetadata', (w) => messageCodec(partialObjectMetadataSchema).encode(w, pom));
}

/** A PartialObjectMetadataList, as `listProtobuf` sends a list. */
export function partialObjectMetadataListProtobuf(list: { apiVersion: string; metadata: ListMeta; items: readonly { metadata: unknown }[] }): EncodedList {
  const items = list.items as readonly KubeObject[];
  return listProtobuf(partialObjectMetadataSchema, { apiVersion: list.apiVersion, kind: 'PartialObjectMetadataList', metadata: list.metadata, items });
}

export interface DecodedMessage extends DecodedEnvelope {
  /** The object in its JSON shape, without apiVersion and kind. */
  readonly value: Record<string, unknown>;
  /** Paths of unknown field numbers (`metadata.#15`), for `fieldValidation`. */
  readonly unknown: readonly string[];
}

/** Decodes an enveloped body as a message of `schema`. Throws `ProtobufError` on malformed input. */
export function decodeProtobuf(body: Uint8Array, schema: Schema): DecodedMessage {
  const env = decodeEnvelope(body);
  const unknown: string[] = [];
  const value = messageCodec(schema).decode(new WireReader(env.raw), env.raw.length, '', { unknown, depth: 0 });
  return { ...env, value, unknown };
}

/** A DeleteOptions body in protobuf. */
export function decodeDeleteOptionsProtobuf(body: Uint8Array): DecodedMessage {
  return decodeProtobuf(body, deleteOptionsSchema);
}
