/**
 * RFC 7386 JSON Merge Patch (`application/merge-patch+json`): a patch object is merged member by member
 * into the target; `null` deletes a member; any non-object patch (array, string, number, null) replaces the
 * target as a whole. Arrays are never merged, only replaced.
 */
import { hasMember, isObject, setMember, type JsonObject } from './json-value.js';

/**
 * Returns the merge of `patch` into `target` without changing either. Unchanged subtrees of `target` and
 * the inserted values of `patch` are SHARED with the result (no deep copy): callers that mutate the result
 * must own both inputs (the registry passes a freshly decoded object and a freshly parsed patch).
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: JsonObject = {};
  if (isObject(target)) for (const k in target) if (hasMember(target, k)) setMember(out, k, target[k]);
  for (const k in patch) {
    if (!hasMember(patch, k)) continue;
    const v = patch[k];
    if (v === null) {
      delete out[k];
    } else if (isObject(v)) {
      setMember(out, k, applyMergePatch(hasMember(out, k) ? out[k] : undefined, v));
    } else {
      setMember(out, k, v);
    }
  }
  return out;
}
