/**
 * `application/cbor-seq` watch streams and CBOR lists assembled from already-encoded objects, so the
 * watch cache's memo (one encoding per object and media type) serves lists and every watcher's events.
 *
 * A watch stream is an RFC 8742 CBOR sequence: the events' data items back to back, no framing (each item
 * delimits itself). Each event is what kube-apiserver writes: the self-described tag, then the map
 * `{"type": <text>, "object": <the object's own encoding, its self-described tag included>}` — kube embeds
 * the object's bytes as they are (a RawExtension), and a tag 55799 inside an item is transparent to every
 * decoder.
 */
import { encodeCbor, SELF_DESCRIBED_CBOR, withWriter } from './encode.js';

/** `d9 d9 f7`, a map of 2, the text key "type". */
const EVENT_START = Buffer.from([0xd9, 0xd9, 0xf7, 0xa2, 0x64, 0x74, 0x79, 0x70, 0x65]);
/** The text key "object". */
const OBJECT_KEY = Buffer.from([0x66, 0x6f, 0x62, 0x6a, 0x65, 0x63, 0x74]);

/**
 * One watch event as one CBOR data item. `object` is the event object's encoding from `encodeCbor`
 * (memoized per object: a second watcher's event reuses it); for BOOKMARK and ERROR events encode the
 * small object with `encodeCbor(value)`. `type` is `ADDED`, `MODIFIED`, `DELETED`, `BOOKMARK` or `ERROR`.
 */
export function encodeCborWatchEvent(type: string, object: Uint8Array): Buffer {
  return withWriter((w) => {
    w.bytes(EVENT_START);
    w.text(type);
    w.bytes(OBJECT_KEY);
    w.bytes(object);
  });
}

/**
 * A list response from its items' encodings (each from `encodeCbor`, self-described tag included): the
 * list's own fields from `head` (apiVersion, kind, metadata; any `items` in it is ignored), then `items`
 * as an array of the item maps. The items' tags are dropped inside the list (kube writes list items as
 * plain maps), so the bytes equal `encodeCbor({...head, items: <decoded items>})` field for field, with
 * `items` last.
 */
export function encodeCborList(head: Readonly<Record<string, unknown>>, items: readonly Uint8Array[]): Buffer {
  const fields = Object.keys(head).filter((k) => k !== 'items' && head[k] !== undefined);
  return withWriter((w) => {
    w.bytes(SELF_DESCRIBED_CBOR);
    w.head(0xa0, fields.length + 1);
    for (const k of fields) {
      w.text(k);
      w.value(head[k], undefined);
    }
    w.text('items');
    w.head(0x80, items.length);
    for (const item of items) w.bytes(hasSelfDescribedTag(item) ? item.subarray(3) : item);
  });
}

function hasSelfDescribedTag(b: Uint8Array): boolean {
  return b.length >= 3 && b[0] === 0xd9 && b[1] === 0xd9 && b[2] === 0xf7;
}

/** Convenience for callers without a memo: an event from the object value itself. */
export function encodeCborWatchEventValue(type: string, object: unknown, schema?: Parameters<typeof encodeCbor>[1]): Buffer {
  return encodeCborWatchEvent(type, encodeCbor(object, schema));
}
