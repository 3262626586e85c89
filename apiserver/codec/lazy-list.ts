/**
 * Lists whose items are decoded only if something reads them. A list from the watch cache is sent as JSON
 * (shared-json.ts `listJson`) or protobuf (protobuf/protobuf-codec.ts `listProtobuf`) from each item's
 * encoding, which the registry gives per index without decoding the object into the cache
 * (registry/generic/served-bytes.ts, served-protobuf.ts); `items` is made on first read only, for the readers
 * that need objects (a Table, an audit of the response, a conversion).
 */
import type { ItemJson } from './shared-json.js';

/** Each item's encodings, by index. */
export interface ItemSources {
  readonly count: number;
  /** Item `i`'s compact JSON. */
  json(i: number): ItemJson;
  /** Item `i`'s bare protobuf message, for kinds served in protobuf. */
  readonly protobuf?: (i: number) => Uint8Array;
}

/** The sources of lists made by `lazyItemsList`, good while their `items` have not been read or set. */
const lists = new WeakMap<object, { readonly sources: ItemSources; unread(): boolean }>();

/**
 * A list object (`head`'s members, then `items`) whose `items` array is made by `items()` on first read only;
 * until `items` is read or set, its encoders take item `i` from `sources`. `items()` must give the objects
 * whose encodings `sources` give, in order.
 */
export function lazyItemsList<L extends { items: readonly unknown[] }>(head: Omit<L, 'items'>, sources: ItemSources, items: () => L['items']): L {
  const list = { ...head } as L;
  let made: L['items'] | undefined;
  Object.defineProperty(list, 'items', {
    enumerable: true,
    configurable: true,
    get: () => (made ??= items()),
    set: (value: L['items']) => {
      made = value;
    },
  });
  lists.set(list, { sources, unread: () => made === undefined });
  return list;
}

/** The item sources of `list` when it was made by `lazyItemsList` and its items were not read or set since. */
export function unreadItemSources(list: object): ItemSources | undefined {
  const lazy = lists.get(list);
  return lazy?.unread() === true ? lazy.sources : undefined;
}
