/**
 * Merging one list whose strategy is `merge` (upstream `mergeSlice`):
 *
 * - primitives: a set union, or with a deletion list (`$deleteFromPrimitiveList`) a difference;
 * - objects, by the merge key: patch elements marked `$patch: delete` remove every element with their key,
 *   one marked `$patch: replace` makes the patch's other elements the whole list (`$patch: merge` and
 *   other values are errors); then each patch element merges into the element with its key or is added.
 *
 * The result is ordered by element-order.ts. Upstream mutates the original Go slice while it merges
 * (deletions shift its elements left, additions fill the freed tail, merged elements are written back),
 * and `$setElementOrder` later orders by that mutated slice; `view` replays those writes on a copy so the
 * final order is the same as Kubernetes' (a slice built by the unstructured converter has cap == len).
 */
import type { Schema } from '../../../schema/schema.js';
import { hasMember, type JsonObject } from '../json-value.js';
import { DIRECTIVE_MARKER } from './directives.js';
import { findByKey, normalizeElementOrder, partitionMaps, partitionPrimitives, sliceElementType } from './element-order.js';
import { errBadPatchType, errNoMergeKey, MAP_TYPE, unknownError } from './errors.js';

export type MergeElement = (original: JsonObject, patch: JsonObject, schema: Schema | undefined) => JsonObject;

/** How upstream names the element kind in `cannot merge lists without merge key for <kind>`. */
const elementKind = (s: Schema | undefined): string =>
  s === undefined ? 'interface' : s.properties !== undefined ? 'struct' : s.type === 'object' ? 'map' : (s.type ?? 'interface');

/** The writes Go makes through the original slice's backing array, replayed on `items` (its length). */
class BackingArray {
  private shared = true;
  constructor(private readonly items: unknown[] | undefined) {}
  /** `append(s[:i], s[i+1:]...)` on a slice of length `len`. */
  remove(i: number, len: number): void {
    if (this.items !== undefined && this.shared) this.items.copyWithin(i, i + 1, len);
  }
  set(i: number, v: unknown): void {
    if (this.items !== undefined && this.shared && i < this.items.length) this.items[i] = v;
  }
  /** `append(s, v)` on a slice of length `len`: in place while within the capacity, else a new array. */
  append(len: number, v: unknown): void {
    if (this.items === undefined || !this.shared) return;
    if (len < this.items.length) this.items[len] = v;
    else this.shared = false;
  }
  detach(): void {
    this.shared = false;
  }
}

export function mergeList(
  original: unknown[],
  patch: unknown[],
  elemSchema: Schema | undefined,
  mergeKey: string,
  isDeleteList: boolean,
  mergeElement: MergeElement,
  view?: unknown[],
): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const isMap = sliceElementType(original, patch) === MAP_TYPE;
  if (!isMap) {
    if (isDeleteList) {
      const drop = new Set(patch);
      return original.filter((v) => !drop.has(v));
    }
    const merged = [...new Set([...original, ...patch])];
    const [patchItems, serverOnly] = partitionPrimitives(merged, patch);
    return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, false);
  }
  if (mergeKey === '') throw unknownError(`cannot merge lists without merge key for ${elementKind(elemSchema)}`);
  const backing = new BackingArray(view);
  const [base, items] = applySpecialElements(original, patch, mergeKey, backing);
  const merged = mergeByKey(base, items, mergeKey, elemSchema, mergeElement, backing);
  const [patchItems, serverOnly] = partitionMaps(merged, items, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, items, base, mergeKey, true);
}

/** Applies the `$patch` elements of a patch list; returns the new original and the patch without them. */
function applySpecialElements(original: unknown[], patch: unknown[], mergeKey: string, backing: BackingArray): [unknown[], unknown[]] {
  const base = [...original];
  const rest: unknown[] = [];
  let replace = false;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!hasMember(m, DIRECTIVE_MARKER)) {
      rest.push(v);
      continue;
    }
    const directive = m[DIRECTIVE_MARKER];
    if (directive === 'delete') {
      if (!hasMember(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      for (let i = findByKey(base, mergeKey, m[mergeKey]); i >= 0; i = findByKey(base, mergeKey, m[mergeKey])) {
        backing.remove(i, base.length);
        base.splice(i, 1);
      }
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw unknownError('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, m);
    }
  }
  if (!replace) return [base, rest];
  backing.detach();
  return [rest, []];
}

function mergeByKey(original: unknown[], patch: unknown[], mergeKey: string, elemSchema: Schema | undefined, mergeElement: MergeElement, backing: BackingArray): unknown[] {
  const out = [...original];
  // Every element is a map (sliceElementType). First index of each key; rebuilt in the rare case a merge
  // changes an element's key (`$patch: delete` inside an element empties it).
  const index = new Map<unknown, number>();
  const reindex = (): void => {
    index.clear();
    out.forEach((e, i) => {
      const o = e as JsonObject;
      if (hasMember(o, mergeKey) && !index.has(o[mergeKey])) index.set(o[mergeKey], i);
    });
  };
  reindex();
  for (const v of patch) {
    const m = v as JsonObject;
    if (!hasMember(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
    const i = index.get(m[mergeKey]) ?? -1;
    if (i >= 0) {
      out[i] = mergeElement(out[i] as JsonObject, m, elemSchema);
      backing.set(i, out[i]);
      const merged = out[i] as JsonObject;
      if (!hasMember(merged, mergeKey) || merged[mergeKey] !== m[mergeKey]) reindex();
    } else {
      backing.append(out.length, v);
      out.push(v);
      if (!index.has(m[mergeKey])) index.set(m[mergeKey], out.length - 1);
    }
  }
  return out;
}
