/**
 * CBOR bodies of the REST API built on the shared encodings memo (invariant 6): an object from the watch
 * cache is encoded once (`CBOR_MEMO_KEY`), and a list or a watch event reuses its items' bytes.
 */
import type { KubeObject, ListMeta } from '../../api/object.js';
import type { Schema } from '../../schema/schema.js';
import { encodingMemo } from '../shared-json.js';
import { encodeCbor } from './encode.js';
import { encodeCborList } from './watch-event.js';

export const CBOR_MEMO_KEY = 'cbor';

/** The CBOR of an object (self-described tag first), memoized for shared objects. */
export function objectCbor(schema: Schema, obj: KubeObject, memo: Map<string, unknown> | undefined = encodingMemo(obj)): Buffer {
  let bytes = memo?.get(CBOR_MEMO_KEY) as Buffer | undefined;
  if (bytes === undefined) {
    bytes = encodeCbor(obj, schema);
    memo?.set(CBOR_MEMO_KEY, bytes);
  }
  return bytes;
}

/** A list of objects of `schema`, its items' bytes taken from their memos. */
export function listCbor(schema: Schema, list: { apiVersion?: string; kind?: string; metadata?: ListMeta; items: readonly KubeObject[] }): Buffer {
  const { items, ...head } = list;
  return encodeCborList(head, items.map((item) => objectCbor(schema, item)));
}
