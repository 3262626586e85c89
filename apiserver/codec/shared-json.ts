/**
 * JSON of shared objects, encoded once (DESIGN.md invariant 6). The watch cache hands the same immutable
 * object to every list, get and watcher, with a per-object `memo` (`CachedObject.memo`); the registry marks
 * such objects with `shareEncodings`, and responses then reuse the object's JSON text from the memo under the
 * key the watch event encoder uses (`json`), so a list, a get and every watch event of one object share one
 * serialization. Objects never marked (fresh from the store) are simply stringified.
 *
 * `listJsonBuffer` builds a list's compact JSON from its items' memoized texts straight into one Buffer,
 * byte for byte what `JSON.stringify(list)` would give, without re-serializing items nor scanning the whole
 * text again for its UTF-8 length (each item's byte length is memoized too).
 */

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

/** An item's JSON text (`null` for what JSON drops in arrays) and its UTF-8 byte length. */
function itemJson(item: unknown): { text: string; bytes: number } {
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

/**
 * The compact JSON of a list object (`{..., "items": [...]}`) as UTF-8 bytes, identical to
 * `Buffer.from(JSON.stringify(list))` for plain data (no `toJSON`), with shared items' JSON taken from their
 * memos.
 */
export function listJsonBuffer(list: { readonly items: readonly unknown[] }): Buffer {
  // Members in JSON.stringify's order (own enumerable string keys), undefined members dropped as it does.
  const parts: string[] = [];
  let itemsAt = -1;
  for (const key of Object.keys(list)) {
    const value = (list as unknown as Record<string, unknown>)[key];
    if (key === 'items' && Array.isArray(value)) {
      itemsAt = parts.length;
      parts.push(`${JSON.stringify(key)}:`);
      continue;
    }
    const text = JSON.stringify(value) as string | undefined;
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  if (itemsAt < 0) return Buffer.from(JSON.stringify(list));
  const head = `{${parts.slice(0, itemsAt + 1).join(',')}[`;
  const tailMembers = parts.slice(itemsAt + 1);
  const tail = `]${tailMembers.length > 0 ? `,${tailMembers.join(',')}` : ''}}`;

  const items = list.items;
  const encoded = new Array<{ text: string; bytes: number }>(items.length);
  let total = Buffer.byteLength(head) + Buffer.byteLength(tail) + Math.max(0, items.length - 1);
  for (let i = 0; i < items.length; i++) {
    const e = itemJson(items[i]);
    encoded[i] = e;
    total += e.bytes;
  }
  const out = Buffer.allocUnsafe(total);
  let offset = out.write(head, 0, 'utf8');
  for (let i = 0; i < encoded.length; i++) {
    if (i > 0) out[offset++] = 0x2c; // ','
    const e = encoded[i]!;
    offset += out.write(e.text, offset, e.bytes, 'utf8');
  }
  offset += out.write(tail, offset, 'utf8');
  if (offset !== total) throw new Error(`listJsonBuffer: wrote ${offset} of ${total} bytes`);
  return out;
}
