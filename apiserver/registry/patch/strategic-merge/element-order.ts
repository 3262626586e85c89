/**
 * The order of merged lists. The result keeps the patch's relative order for the elements it names (or
 * `$setElementOrder`'s, which wins), the live object's order for the others, and interleaves the two by the
 * live order where both are known — upstream's `normalizeElementOrder`/`mergeSortedSlice`, including the
 * insertion sort its `sort.SliceStable` runs on short lists, so ties come out the same way.
 */
import { hasMember, isObject, type JsonObject } from '../json-value.js';
import { errBadArgType, errBadPatchFormatForSetElementOrderList, errNoListOfLists, errNoMergeKey, MAP_TYPE, unknownError } from './errors.js';
import { goKind, goValue } from './go-format.js';
import { DIRECTIVE_MARKER, SET_ELEMENT_ORDER } from './directives.js';

/** The one element type of all the lists (`map[string]interface {}` for objects); errors as upstream. */
export function sliceElementType(...lists: readonly (readonly unknown[])[]): string {
  let prev: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const t = goKind(v);
      if (prev === undefined) {
        prev = t;
        if (Array.isArray(v)) throw errNoListOfLists();
      } else if (prev !== t) {
        throw unknownError(`list element types are not identical: ${goValue(lists)}`);
      }
    }
  }
  if (prev === undefined) throw unknownError('no elements in any of the given slices');
  return prev;
}

/** The position of the first map in `list` whose `key` equals `value`; errors on a non-map element. */
export function findByKey(list: readonly unknown[], key: string, value: unknown): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isObject(v)) throw unknownError(`value for key ${i} is not a map`);
    if (hasMember(v, key) && v[key] === value) return i;
  }
  return -1;
}

function asMapWithKey(v: unknown, mergeKey: string): JsonObject {
  if (!isObject(v)) throw errBadArgType(MAP_TYPE, v);
  if (!hasMember(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
  return v;
}

/** Splits primitives into those present in `by` and the others, keeping their order. */
export function partitionPrimitives(list: readonly unknown[], by: readonly unknown[]): [unknown[], unknown[]] {
  const inBy = new Set(by);
  const present: unknown[] = [];
  const others: unknown[] = [];
  for (const v of list) (inBy.has(v) ? present : others).push(v);
  return [present, others];
}

/**
 * `findByKey` over a list that does not change, in O(1) per lookup after one pass: the same answers and
 * the same error (a lookup that would have scanned past a non-map element throws it).
 */
export function keyIndex(list: readonly unknown[], key: string): (value: unknown) => number {
  const first = new Map<unknown, number>();
  let bad = -1;
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isObject(v)) {
      bad = i;
      break;
    }
    if (hasMember(v, key) && !first.has(v[key])) first.set(v[key], i);
  }
  return (value) => {
    const i = first.get(value);
    if (i !== undefined) return i;
    if (bad >= 0) throw unknownError(`value for key ${bad} is not a map`);
    return -1;
  };
}

/** Splits maps into those whose merge key `by` holds and the others, keeping their order. */
export function partitionMaps(list: readonly unknown[], by: readonly unknown[], mergeKey: string): [unknown[], unknown[]] {
  const present: unknown[] = [];
  const others: unknown[] = [];
  const indexInBy = keyIndex(by, mergeKey);
  for (const v of list) {
    const m = asMapWithKey(v, mergeKey);
    (indexInBy(m[mergeKey]) >= 0 ? present : others).push(v);
  }
  return [present, others];
}

const keyOf = (item: unknown, mergeKey: string, isMap: boolean): unknown => (isMap ? (isObject(item) ? item[mergeKey] : undefined) : item);

/** Position lookups in a list (the first element with an item's key), in O(1) after one pass. */
function positions(list: readonly unknown[], mergeKey: string, isMap: boolean): (item: unknown) => number {
  const first = new Map<unknown, number>();
  list.forEach((v, i) => {
    const k = keyOf(v, mergeKey, isMap);
    if (!first.has(k)) first.set(k, i);
  });
  return (item) => first.get(keyOf(item, mergeKey, isMap)) ?? -1;
}

const isDeleteItem = (v: unknown): boolean => isObject(v) && v[DIRECTIVE_MARKER] === 'delete';

/** Sorts `toSort` by the positions in `order` (items marked `$patch: delete` go last). */
function normalizeSliceOrder(toSort: readonly unknown[], order: readonly unknown[], mergeKey: string, isMap: boolean): unknown[] {
  let items = [...toSort];
  let toDelete: unknown[] = [];
  if (isMap) {
    for (const v of [...toSort, ...order]) asMapWithKey(v, mergeKey);
    toDelete = items.filter(isDeleteItem);
    items = items.filter((v) => !isDeleteItem(v));
  }
  const indexOf = positions(order, mergeKey, isMap);
  const at = items.map(indexOf);
  if (at.every((i) => i >= 0)) {
    // Every item has a position: any stable sort gives what upstream's sort.SliceStable gives.
    const sorted = items.map((item, k) => ({ item, i: at[k]! })).sort((a, b) => a.i - b.i);
    return [...sorted.map((e) => e.item), ...toDelete];
  }
  // Upstream's comparator calls an item without a position "less" than anything: replay its insertion
  // sort (what sort.SliceStable runs on up to 20 elements) so such ties fall the same way.
  const less = (a: unknown, b: unknown): boolean => {
    const ia = indexOf(a);
    if (ia >= 0) {
      const ib = indexOf(b);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  for (let i = 1; i < items.length; i++) {
    for (let j = i; j > 0 && less(items[j], items[j - 1]); j--) [items[j], items[j - 1]] = [items[j - 1], items[j]];
  }
  return [...items, ...toDelete];
}

/**
 * `patchItems` sorted by `patchOrder` and `serverOnly` by `serverOrder`, then merged: a server-only item
 * goes before a patch item when the live list has it before that item.
 */
export function normalizeElementOrder(
  patchItems: readonly unknown[],
  serverOnly: readonly unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  isMap: boolean,
): unknown[] {
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey, isMap);
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, isMap);
  const serverIndex = positions(serverOrder, mergeKey, isMap);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = serverIndex(left[i]);
      const ri = serverIndex(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

function mergeKeyEqual(a: unknown, b: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return a === b;
  if (!isObject(a)) throw errBadArgType(MAP_TYPE, a);
  if (!isObject(b)) throw errBadArgType(MAP_TYPE, b);
  if (!hasMember(a, mergeKey)) throw errNoMergeKey(a, mergeKey);
  if (!hasMember(b, mergeKey)) throw errNoMergeKey(b, mergeKey);
  return a[mergeKey] === b[mergeKey];
}

/**
 * Checks that the patch list names its elements in the `$setElementOrder` order and names none that the
 * directive lacks (deletions aside): `the order in patch list: ... doesn't match $setElementOrder list: ...`.
 */
export function validatePatchWithSetOrderList(patchList: unknown, setOrderList: unknown, mergeKey: string): void {
  if (!Array.isArray(setOrderList) || !Array.isArray(patchList)) throw errBadPatchFormatForSetElementOrderList();
  if (setOrderList.length === 0 || patchList.length === 0) return;
  let nonDelete: unknown[] = patchList;
  if (mergeKey !== '') {
    for (const v of patchList) if (!isObject(v)) throw errBadArgType(MAP_TYPE, v);
    nonDelete = patchList.filter((v) => !isDeleteItem(v));
  }
  let p = 0;
  let s = 0;
  while (p < nonDelete.length && s < setOrderList.length) {
    const item = nonDelete[p];
    if (isObject(item) && hasMember(item, DIRECTIVE_MARKER)) {
      p++;
      continue;
    }
    if (mergeKeyEqual(item, setOrderList[s], mergeKey)) p++;
    s++;
  }
  if (p < nonDelete.length && s >= setOrderList.length) {
    throw unknownError(`the order in patch list:\n${goValue(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goValue(setOrderList)}`);
  }
}
