/**
 * JSON of shared objects, encoded once (DESIGN.md invariant 6). The watch cache hands the same immutable
 * object to every list, get and watcher, with a per-object `memo` (`CachedObject.memo`); the registry marks
 * such objects with `shareEncodings`, and responses then reuse the object's JSON text from the memo under the
 * key the watch event encoder uses (`json`), so a list, a get and every watch event of one object share one
 * serialization. Objects never marked (fresh from the store) are simply stringified.
 *
 * `listJson` builds a list's compact JSON from its items' memoized texts, byte for byte what
 * `JSON.stringify(list)` would give, without re-serializing items nor scanning the whole text again for its
 * UTF-8 length (each item's byte length is memoized too): as one Buffer, or as pieces of 64 KiB made as the
 * response is sent (a large list's bytes then never sit in memory whole).
 */
import { LIST_CHUNK_BYTES, type EncodedList } from './encoded-list.js';
import { unreadItemSources } from './lazy-list.js';

/** The memo key of an object's compact JSON text (shared with the watch event encoder). */
export const JSON_MEMO_KEY = 'json';
/** The memo key of that text's UTF-8 byte length. */
const JSON_BYTES_MEMO_KEY = 'json:bytes';

const memos = new WeakMap<object, Map<string, unknown>>();

/**
 * Marks `object` as shared and never mutated, its encodings kept in `memo` (the watch cache's
 * `CachedObject.memo` of that object). Marking an object twice with the same memo is harmless.
 */
export function shareEncodings(object: object, memo: Map<string, unknown>): void {
  if (!memos.has(object)) memos.set(object, memo);
}

/**
 * The memo of a shared object (see `shareEncodings`), where other representations (protobuf, CBOR) keep
 * their encodings too; undefined for objects that are not shared.
 */
export function encodingMemo(object: object): Map<string, unknown> | undefined {
  return memos.get(object);
}

/** `JSON.stringify(object)` kept in `memo` (its `CachedObject.memo`): made on first use, then reused. */
export function memoJson(object: object, memo: Map<string, unknown>): string {
  let text = memo.get(JSON_MEMO_KEY) as string | undefined;
  if (text === undefined) {
    text = JSON.stringify(object);
    memo.set(JSON_MEMO_KEY, text);
  }
  return text;
}

/** `JSON.stringify(object)`, memoized when the object is shared. */
export function objectJson(object: object): string {
  const memo = memos.get(object);
  return memo === undefined ? JSON.stringify(object) : memoJson(object, memo);
}

/**
 * One list item's JSON: a text and its UTF-8 length, or the bytes themselves (a watch cache object served
 * from its stored bytes without being decoded: registry/generic/served-bytes.ts).
 */
export type ItemJson = { readonly text: string; readonly bytes: number } | Uint8Array;

/** An item's JSON text (`null` for what JSON drops in arrays) and its UTF-8 byte length. */
export function itemJson(item: unknown): { text: string; bytes: number } {
  if (typeof item !== 'object' || item === null) {
    const text = JSON.stringify(item) ?? 'null';
    return { text, bytes: Buffer.byteLength(text) };
  }
  const memo = memos.get(item);
  const text = objectJson(item);
  if (memo === undefined) return { text, bytes: Buffer.byteLength(text) };
  let bytes = memo.get(JSON_BYTES_MEMO_KEY) as number | undefined;
  if (bytes === undefined) {
    bytes = Buffer.byteLength(text);
    memo.set(JSON_BYTES_MEMO_KEY, bytes);
  }
  return { text, bytes };
}

/** A list's compact JSON in pieces: the text before the items, each item's text and byte length, the rest. */
interface ListPieces {
  readonly head: string;
  readonly items: readonly ItemJson[];
  readonly tail: string;
  /** The UTF-8 length of the whole document. */
  readonly bytes: number;
}

/** Undefined when the list has no `items` array (then it is simply stringified). */
function listPieces(list: { readonly items: readonly unknown[] }): ListPieces | undefined {
  // A lazy list's items come from its sources until they are read (and could have been changed).
  const source = unreadItemSources(list);
  // Members in JSON.stringify's order (own enumerable string keys), undefined members dropped as it does.
  const parts: string[] = [];
  let itemsAt = -1;
  for (const key of Object.keys(list)) {
    if (key === 'items' && source !== undefined) {
      itemsAt = parts.length;
      parts.push('"items":');
      continue;
    }
    const value = (list as unknown as Record<string, unknown>)[key];
    if (key === 'items' && Array.isArray(value)) {
      itemsAt = parts.length;
      parts.push(`${JSON.stringify(key)}:`);
      continue;
    }
    const text = JSON.stringify(value) as string | undefined;
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  if (itemsAt < 0) return undefined;
  const head = `{${parts.slice(0, itemsAt + 1).join(',')}[`;
  const tailMembers = parts.slice(itemsAt + 1);
  const tail = `]${tailMembers.length > 0 ? `,${tailMembers.join(',')}` : ''}}`;
  const items = new Array<ItemJson>(source !== undefined ? source.count : list.items.length);
  let bytes = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (let i = 0; i < items.length; i++) {
    const e = source !== undefined ? source.json(i) : itemJson(list.items[i]);
    items[i] = e;
    bytes += itemBytes(e);
  }
  return { head, items, tail, bytes };
}

/**
 * Writes `text` (of UTF-8 length `bytes`) into `out` at `offset`. A text as long as its UTF-8 bytes is ASCII,
 * and then the latin1 copy, a plain byte copy, writes the same bytes faster than the UTF-8 encoder.
 */
function put(out: Buffer, offset: number, text: string, bytes: number): number {
  return out.write(text, offset, bytes, bytes === text.length ? 'latin1' : 'utf8');
}

/** Writes an item's JSON into `out` at `offset`; returns its byte length. */
function putItem(out: Buffer, offset: number, e: ItemJson): number {
  if (!(e instanceof Uint8Array)) return put(out, offset, e.text, e.bytes);
  out.set(e, offset);
  return e.length;
}

/** An item's UTF-8 length. */
const itemBytes = (e: ItemJson): number => (e instanceof Uint8Array ? e.length : e.bytes);

/**
 * A list's compact JSON, identical to `Buffer.from(JSON.stringify(list))` for plain data (no `toJSON`), with
 * shared items' JSON taken from their memos; every item's text is computed (and memoized) when this is made,
 * so neither form can fail.
 */
export function listJson(list: { readonly items: readonly unknown[] }): EncodedList {
  const p = listPieces(list);
  if (p === undefined) {
    const whole = Buffer.from(JSON.stringify(list));
    return { bytes: whole.length, buffer: () => whole, chunks: () => [whole] };
  }
  return { bytes: p.bytes, buffer: () => wholeList(p), chunks: () => listChunks(p) };
}

/** `listJson(list).buffer()`. */
export function listJsonBuffer(list: { readonly items: readonly unknown[] }): Buffer {
  return listJson(list).buffer();
}

function wholeList(p: ListPieces): Buffer {
  const out = Buffer.allocUnsafe(p.bytes);
  let offset = out.write(p.head, 0, 'utf8');
  for (let i = 0; i < p.items.length; i++) {
    if (i > 0) out[offset++] = 0x2c; // ','
    offset += putItem(out, offset, p.items[i]!);
  }
  offset += out.write(p.tail, offset, 'utf8');
  if (offset !== p.bytes) throw new Error(`listJson: wrote ${offset} of ${p.bytes} bytes`);
  return out;
}

function* listChunks(p: ListPieces): Generator<Buffer> {
  let out = Buffer.allocUnsafe(Math.max(LIST_CHUNK_BYTES, Buffer.byteLength(p.head)));
  let offset = out.write(p.head, 0, 'utf8');
  for (let i = 0; i < p.items.length; i++) {
    const e = p.items[i]!;
    const need = itemBytes(e) + 1;
    if (offset + need > out.length) {
      yield out.subarray(0, offset);
      out = Buffer.allocUnsafe(Math.max(LIST_CHUNK_BYTES, need));
      offset = 0;
    }
    if (i > 0) out[offset++] = 0x2c; // ','
    offset += putItem(out, offset, e);
  }
  const tail = Buffer.byteLength(p.tail);
  if (offset + tail > out.length) {
    yield out.subarray(0, offset);
    out = Buffer.allocUnsafe(tail);
    offset = 0;
  }
  offset += out.write(p.tail, offset, 'utf8');
  yield out.subarray(0, offset);
}
