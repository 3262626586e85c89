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
 * - `$deleteFromPrimitiveList/<f>` merges `f` as a deletion list; `$setElementOrder/<f>` orders `f`.
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
import { normalizeElementOrder, partitionMaps, partitionPrimitives, findByKey, sliceElementType, validatePatchWithSetOrderList } from './element-order.js';
import { errBadArgType, errBadPatchType, errNoMergeKey, MAP_TYPE, SLICE_TYPE, unknownError } from './errors.js';
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

function mergeListHandler(original: unknown[], patch: unknown[], meta: PatchMeta, isDeleteList: boolean): unknown[] {
  if (meta.strategy !== 'merge') return patch;
  return mergeList(original, patch, elementSchema(meta.schema), meta.mergeKey, isDeleteList);
}

/** How upstream names the element kind in `cannot merge lists without merge key for type <kind>`. */
const elementKind = (s: Schema | undefined): string =>
  s === undefined ? 'interface' : s.properties !== undefined ? 'struct' : s.type === 'object' ? 'map' : (s.type ?? 'interface');

function mergeList(original: unknown[], patch: unknown[], elemSchema: Schema | undefined, mergeKey: string, isDeleteList: boolean): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const type = sliceElementType(original, patch);
  const isMap = type === MAP_TYPE;
  let merged: unknown[];
  let base = original;
  let items = patch;
  if (!isMap) {
    if (isDeleteList) {
      const drop = new Set(patch);
      return original.filter((v) => !drop.has(v));
    }
    merged = [...new Set([...original, ...patch])];
  } else {
    if (mergeKey === '') throw unknownError(`cannot merge lists without merge key for type ${elementKind(elemSchema)}`);
    [base, items] = applySpecialElements(original, patch, mergeKey);
    merged = mergeByKey(base, items, mergeKey, elemSchema);
  }
  const [patchItems, serverOnly] = mergeKey === '' ? partitionPrimitives(merged, items) : partitionMaps(merged, items, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, items, base, mergeKey, isMap);
}

/** Applies the `$patch` elements of a patch list; returns the new original and the patch without them. */
function applySpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  let base = original;
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
      const value = m[mergeKey];
      let i: number;
      base = [...base];
      while ((i = findByKey(base, mergeKey, value)) >= 0) base.splice(i, 1);
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw unknownError('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(directive, m);
    }
  }
  return replace ? [rest, []] : [base, rest];
}

function mergeByKey(original: unknown[], patch: unknown[], mergeKey: string, elemSchema: Schema | undefined): unknown[] {
  const out = [...original];
  for (const v of patch) {
    const m = v as JsonObject;
    if (!hasMember(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
    const i = findByKey(out, mergeKey, m[mergeKey]);
    if (i >= 0) out[i] = mergeMap(out[i] as JsonObject, m, elemSchema);
    else out.push(v);
  }
  return out;
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
    let merged: unknown[];
    if (foundOriginal && foundPatch) merged = mergeListHandler(originalList as unknown[], patchList as unknown[], meta, false);
    else if (foundPatch) merged = removeDirectives(patchList).value as unknown[];
    else if (foundOriginal) merged = originalList as unknown[];
    else continue;
    const [patchItems, serverOnly] = meta.mergeKey === '' ? partitionPrimitives(merged, order) : partitionMaps(merged, order, meta.mergeKey);
    const type = sliceElementType(foundOriginal ? (originalList as unknown[]) : [], foundPatch ? (patchList as unknown[]) : []);
    const ordered = normalizeElementOrder(patchItems, serverOnly, order, foundOriginal ? (originalList as unknown[]) : [], meta.mergeKey, type === MAP_TYPE);
    setMember(original, field, ordered);
    delete patch[field];
  }
}
