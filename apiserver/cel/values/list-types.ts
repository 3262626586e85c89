/**
 * Equality and concatenation of Kubernetes list types (`x-kubernetes-list-type`), decided by the LEFT
 * operand as Kubernetes' UnstructuredToVal lists do (k8s.io/apiserver/pkg/cel/common/values.go; cel-go's
 * own lists behave like the atomic case):
 *
 * | left      | `a == b`                                                    | `a + b`                                  |
 * |-----------|-------------------------------------------------------------|------------------------------------------|
 * | atomic    | same size, element-wise in order                            | concatenation (an atomic list)           |
 * | set       | same size, every item of `b` is an item of `a`              | union: `a` in order, then each item of   |
 * |           |                                                             | `b` not seen yet (a set list)            |
 * | map       | same size, every item of `b` has an item of `a` with the    | merge: `a`'s positions kept, an item of  |
 * |           | same key (by `a`'s key fields) and the two items are equal  | `b` with a key of `a` replaces it in     |
 * |           |                                                             | place, the others are appended (a map    |
 * |           |                                                             | list with `a`'s keys)                    |
 *
 * So `self.atomicTags == oldSelf.tags` compares in order while `oldSelf.tags == self.atomicTags` does not,
 * and `['d', 'a'] + self.tags` is a plain concatenation. An empty left operand of `+` gives the right
 * operand itself for an atomic left (cel-go's list Add), an empty right one the left operand.
 *
 * Linear time: set items and map-list keys are hashed by a canonical key (`canonicalKey`) so union,
 * merge and unordered equality are O(n + m), not O(n·m). Values without a canonical key (lists, maps,
 * objects inside a set, NaN) fall back to a scan over the few such items, with CEL equality.
 */
import { celEquals } from './equality.js';
import { CelOpaque, CelType, CelUint, Duration, listTypeOf, tagList, Timestamp, type CelList, type CelMap, type CelObject, type CelValue, type ListType } from './value.js';

/**
 * A string equal for two values exactly when CEL equality holds between them, for scalar values: int,
 * uint and integral doubles of one numeric value share a key (heterogeneous equality), strings, bools,
 * null, bytes, timestamps, durations and types. undefined for the rest (aggregates, NaN, opaque values).
 */
export function canonicalKey(v: CelValue): string | undefined {
  switch (typeof v) {
    case 'string':
      return `s${v}`;
    case 'bigint':
      return `n${v}`;
    case 'boolean':
      return v ? 'T' : 'F';
    case 'number':
      if (Number.isNaN(v)) return undefined; // NaN equals nothing
      // Integral doubles equal the int of the same value; -0 equals 0.
      if (Number.isInteger(v)) return `n${BigInt(v)}`;
      return `d${v}`;
    default:
  }
  if (v === null) return 'N';
  if (v instanceof CelUint) return `n${v.value}`;
  if (v instanceof Uint8Array) {
    let s = 'x';
    for (const b of v) s += b.toString(16).padStart(2, '0');
    return s;
  }
  if (v instanceof Timestamp) return `t${v.seconds}.${v.nanos}`;
  if (v instanceof Duration) return `u${v.seconds}.${v.nanos}`;
  if (v instanceof CelType) return `y:${v.name}`;
  if (v instanceof CelOpaque) return undefined;
  return undefined;
}

/** A key field of a map-list item (a schema object or a map); undefined when absent. */
function keyField(v: CelValue, key: string): CelValue | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const k = (v as { kind?: unknown }).kind;
  if (k === 'map') return (v as CelMap).get(key);
  if (k === 'object') return (v as CelObject).field(key);
  return undefined;
}

/** The canonical key of a map-list item under `keys`; undefined when a key field has no canonical key. */
function mapListKey(item: CelValue, keys: readonly string[]): string | undefined {
  let out = '';
  for (const k of keys) {
    const f = keyField(item, k);
    if (f === undefined) {
      out += '\u0000-';
      continue;
    }
    const c = canonicalKey(f);
    if (c === undefined) return undefined;
    // Length-prefixed so that no two key tuples print alike.
    out += `\u0000${c.length}:${c}`;
  }
  return out;
}

/** Whether two map-list items have equal keys (CEL equality per key field; absent equals absent). */
function sameKeys(a: CelValue, b: CelValue, keys: readonly string[]): boolean {
  for (const k of keys) {
    const x = keyField(a, k);
    const y = keyField(b, k);
    if (x === undefined || y === undefined) {
      if (x !== y) return false;
    } else if (!celEquals(x, y)) return false;
  }
  return true;
}

/**
 * An index of items by key: hashed where a canonical key exists, a short list of the others (scanned
 * with the exact relation).
 */
class ItemIndex {
  private readonly hashed = new Map<string, number>();
  private readonly others: Array<{ item: CelValue; at: number }> = [];

  constructor(
    private readonly keyOf: (v: CelValue) => string | undefined,
    private readonly same: (a: CelValue, b: CelValue) => boolean,
  ) {}

  /** Position of the item matching `v`, or -1. */
  find(v: CelValue): number {
    const k = this.keyOf(v);
    // A value with a canonical key equals only values with the same key; one without (a list, a map,
    // NaN...) is compared with the other such items.
    if (k !== undefined) return this.hashed.get(k) ?? -1;
    for (const o of this.others) if (this.same(o.item, v)) return o.at;
    return -1;
  }

  add(v: CelValue, at: number): void {
    const k = this.keyOf(v);
    if (k === undefined) this.others.push({ item: v, at });
    else if (!this.hashed.has(k)) this.hashed.set(k, at);
  }
}

const setIndex = (): ItemIndex => new ItemIndex(canonicalKey, celEquals);
const mapIndex = (keys: readonly string[]): ItemIndex =>
  new ItemIndex(
    (v) => mapListKey(v, keys),
    (a, b) => sameKeys(a, b, keys),
  );

/** `a == b` for two lists, by `a`'s list type. */
export function listEquals(a: CelList, b: CelList): boolean {
  if (a.length !== b.length) return false;
  const lt = listTypeOf(a);
  let i = 0;
  // In order first: the whole comparison for atomic lists, the fast path for unordered ones.
  for (; i < a.length; i++) if (!celEquals(a[i]!, b[i]!)) break;
  if (i === a.length) return true;
  if (lt.type === 'atomic') return false;
  if (lt.type === 'set') {
    const index = setIndex();
    a.forEach((x, at) => index.add(x, at));
    for (const y of b) if (index.find(y) < 0) return false;
    return true;
  }
  const index = mapIndex(lt.keys);
  a.forEach((x, at) => index.add(x, at));
  for (const y of b) {
    const at = index.find(y);
    if (at < 0 || !celEquals(a[at]!, y)) return false;
  }
  return true;
}

/** `a + b` for two lists, by `a`'s list type. */
export function concatLists(a: CelList, b: CelList): CelList {
  const lt: ListType = listTypeOf(a);
  if (lt.type === 'atomic') return a.length === 0 ? b : b.length === 0 ? a : [...a, ...b];
  if (b.length === 0) return a;
  const out: CelValue[] = [...a];
  if (lt.type === 'set') {
    const index = setIndex();
    a.forEach((x, at) => index.add(x, at));
    for (const y of b) {
      if (index.find(y) >= 0) continue;
      index.add(y, out.length);
      out.push(y);
    }
    return tagList(out, lt);
  }
  // Only `a`'s keys are replaced in place; appended items are not looked up again (Kubernetes appends
  // every right item whose key `a` lacks).
  const index = mapIndex(lt.keys);
  a.forEach((x, at) => index.add(x, at));
  for (const y of b) {
    const at = index.find(y);
    if (at >= 0) out[at] = y;
    else out.push(y);
  }
  return tagList(out, lt);
}
