/**
 * The merge itself (upstream `mergeMap`/`mergeSlice` with `MergeParallelList` and `IgnoreUnmatchedNulls`,
 * i.e. applying a patch to an object):
 *
 * - maps merge member by member; `null` deletes; a member the original lacks, or whose type differs (map,
 *   list, scalar), is taken from the patch (nulls and `$patch` maps dropped);
 * - a list whose strategy is `merge` is merged: lists of objects by the merge key (a patch element with
 *   `$patch: delete` removes every element with its key, one with `$patch: replace` makes the patch's
 *   other elements the whole list, `$patch: merge` is an error), primitive lists as sets; every other
 *   list is replaced by the patch's;
 * - `$deleteFromPrimitiveList/<f>` removes values from the primitive list `f` (whatever its strategy);
 *   `$setElementOrder/<f>` orders `f`.
 *
 * Both arguments are owned by the merge: it changes them in place and the result shares their parts.
 */
import type { Schema } from '../../../schema/schema.js';
import { hasMember, isObject, setMember, type JsonObject } from '../json-value.js';
import {
  applyRetainKeys,
  DELETE_FROM_PRIMITIVE_LIST,
  DIRECTIVE_MARKER,
  discardNulls,
  extractKey,
  handleDirectiveInMap,
  removeDirectives,
  SET_ELEMENT_ORDER,
} from './directives.js';
import { normalizeElementOrder, partitionMaps, partitionPrimitives, sliceElementType, validatePatchWithSetOrderList } from './element-order.js';
import { errBadArgType, MAP_TYPE, SLICE_TYPE } from './errors.js';
import { mergeList } from './merge-list.js';
import { elementSchema, lookupPatchMeta, type PatchMeta } from './patch-meta.js';

type Shape = 'map' | 'list' | 'scalar';
const shapeOf = (v: unknown): Shape => (Array.isArray(v) ? 'list' : isObject(v) ? 'map' : 'scalar');

/** Merges `patch` into `original` (undefined: an empty map) for an object described by `schema`. */
export function mergeMap(original: JsonObject | undefined, patch: JsonObject, schema: Schema | undefined): JsonObject {
  if (hasMember(patch, DIRECTIVE_MARKER)) return handleDirectiveInMap(patch[DIRECTIVE_MARKER], patch);
  const out = original ?? {};
  applyRetainKeys(out, patch);
  mergeOrderedLists(out, patch, schema);

  for (const k of Object.keys(patch)) {
    const patchV = patch[k];
    let key = k;
    let isDeleteList = false;
    if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      key = extractKey(k, DELETE_FROM_PRIMITIVE_LIST);
      isDeleteList = true;
    }
    if (patchV === null) {
      delete out[key];
      continue;
    }
    const shape = shapeOf(patchV);
    if (!hasMember(out, key) || shapeOf(out[key]) !== shape || shape === 'scalar') {
      if (!isDeleteList) takeFromPatch(out, key, patchV);
      continue;
    }
    const meta = lookupPatchMeta(schema, key);
    if (shape === 'map') {
      setMember(out, key, meta.strategy === 'replace' ? patchV : mergeMap(out[key] as JsonObject, patchV as JsonObject, meta.schema));
    } else {
      setMember(out, key, mergeListHandler(out[key] as unknown[], patchV as unknown[], meta, isDeleteList));
    }
  }
  return out;
}

function takeFromPatch(out: JsonObject, key: string, patchV: unknown): void {
  discardNulls(patchV);
  const { value, keep } = removeDirectives(patchV);
  if (keep) setMember(out, key, value);
  else delete out[key];
}

/**
 * A list field's merge: by its strategy (deletion lists whatever the strategy). `view`, when given, is the
 * caller's copy of `original`, updated as Go's shared backing array would be (see merge-list.ts).
 */
function mergeListHandler(original: unknown[], patch: unknown[], meta: PatchMeta, isDeleteList: boolean, view?: unknown[]): unknown[] {
  if (meta.strategy !== 'merge' && !isDeleteList) return patch;
  return mergeList(original, patch, elementSchema(meta.schema), meta.mergeKey, isDeleteList, mergeMap, view);
}

/**
 * `$setElementOrder/<f>` directives: merges `f` (when the patch has it) and orders the result; `f` is then
 * removed from the patch so the main loop does not merge it again.
 */
function mergeOrderedLists(original: JsonObject, patch: JsonObject, schema: Schema | undefined): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw errBadArgType(SLICE_TYPE, order);
    const field = extractKey(key, SET_ELEMENT_ORDER);
    const foundOriginal = hasMember(original, field);
    const foundPatch = hasMember(patch, field);
    const originalList = original[field];
    const patchList = patch[field];
    if (foundOriginal && !Array.isArray(originalList)) throw errBadArgType(SLICE_TYPE, originalList);
    if (foundPatch && !Array.isArray(patchList)) throw errBadArgType(SLICE_TYPE, patchList);
    const meta = lookupPatchMeta(schema, field);
    validatePatchWithSetOrderList(foundPatch ? patchList : [], order, meta.mergeKey);
    // Upstream orders by its original slice AFTER the merge wrote through it (shared backing array).
    const serverOrder: unknown[] = foundOriginal ? [...(originalList as unknown[])] : [];
    let merged: unknown[];
    if (foundOriginal && foundPatch) merged = mergeListHandler(originalList as unknown[], patchList as unknown[], meta, false, serverOrder);
    else if (foundPatch) merged = removeDirectives(patchList).value as unknown[];
    else if (foundOriginal) merged = originalList as unknown[];
    else continue;
    const [patchItems, serverOnly] = meta.mergeKey === '' ? partitionPrimitives(merged, order) : partitionMaps(merged, order, meta.mergeKey);
    const type = sliceElementType(serverOrder, foundPatch ? (patchList as unknown[]) : []);
    const ordered = normalizeElementOrder(patchItems, serverOnly, order, serverOrder, meta.mergeKey, type === MAP_TYPE);
    setMember(original, field, ordered);
    delete patch[field];
  }
}
