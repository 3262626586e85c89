/**
 * The directives of strategic merge patch and the small steps that apply them:
 *
 * - `$patch: replace` in a map: the map is the patch without the marker; `$patch: delete`: an empty map;
 *   any other value is `unknown patch type: <v> in map: <map>`. (In list elements see merge-list.ts.)
 * - `$retainKeys: [k...]`: keys of the original map not listed are cleared; a patch key that is not null,
 *   not another directive and not listed is `invalid patch format of retainKeys`.
 * - `$deleteFromPrimitiveList/<field>: [v...]`: the values are removed from the primitive list `field`.
 * - `$setElementOrder/<field>: [...]`: the order of the merged list (see element-order.ts).
 *
 * Values taken from the patch as they are (new members, replaced lists) lose their `$patch` maps first, as
 * upstream's `removeDirectives` does.
 */
import { hasMember, isObject, setMember, type JsonObject } from '../json-value.js';
import { errBadPatchFormatForPrimitiveList, errBadPatchFormatForRetainKeys, errBadPatchFormatForSetElementOrderList, errBadPatchType } from './errors.js';

export const DIRECTIVE_MARKER = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER = '$setElementOrder';

/** `$patch` inside a map: what the map becomes. */
export function handleDirectiveInMap(directive: unknown, patch: JsonObject): JsonObject {
  if (directive === 'replace') {
    delete patch[DIRECTIVE_MARKER];
    return patch;
  }
  if (directive === 'delete') return {};
  throw errBadPatchType(directive, patch);
}

/**
 * A patch value without its directive maps: a map carrying `$patch` is dropped (returns `keep: false`),
 * list elements carrying it are left out. Changes `v` in place.
 */
export function removeDirectives(v: unknown): { value: unknown; keep: boolean } {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const e of v) {
      const r = removeDirectives(e);
      if (r.keep) out.push(r.value);
    }
    return { value: out, keep: true };
  }
  if (isObject(v)) {
    if (hasMember(v, DIRECTIVE_MARKER)) return { value: undefined, keep: false };
    for (const k of Object.keys(v)) {
      const r = removeDirectives(v[k]);
      if (r.keep) setMember(v, k, r.value);
      else delete v[k];
    }
  }
  return { value: v, keep: true };
}

/** Drops null members at any depth (a null for a field the original lacks deletes nothing). */
export function discardNulls(v: unknown): void {
  if (Array.isArray(v)) for (const e of v) discardNulls(e);
  else if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNulls(v[k]);
    }
  }
}

/** The field a `$prefix/field` key names; malformed keys are the prefix's 400. */
export function extractKey(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    if (prefix === DELETE_FROM_PRIMITIVE_LIST) throw errBadPatchFormatForPrimitiveList();
    throw errBadPatchFormatForSetElementOrderList();
  }
  return key.slice(slash + 1);
}

/** Applies `$retainKeys` of `patch` to `original` (and removes the directive from `patch`). */
export function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasMember(patch, RETAIN_KEYS)) return;
  const list = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(list)) throw errBadPatchFormatForRetainKeys();
  const retained = new Set<unknown>(list);
  for (const k of Object.keys(patch)) {
    if (patch[k] === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!retained.has(k)) throw errBadPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) if (!retained.has(k)) delete original[k];
}
