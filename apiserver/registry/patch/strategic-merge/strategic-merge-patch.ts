/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) for built-in kinds: a JSON merge patch
 * whose lists merge as the kind's schema says (merge keys, sets, atomic lists) and which carries
 * directives (`$patch`, `$retainKeys`, `$deleteFromPrimitiveList/<f>`, `$setElementOrder/<f>`). Behaviour
 * and messages follow apimachinery's `strategicpatch` applied by kube-apiserver; see merge.ts for the
 * rules and errors.ts for the HTTP status of each failure.
 */
import type { Schema } from '../../../schema/schema.js';
import { badRequest } from '../../../errors/constructors.js';
import { isObject } from '../json-value.js';
import { StrategicMergeError, strategicMergeStatus } from './errors.js';
import { mergeMap } from './merge.js';

const goJsonKind = (v: unknown): string => (Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v);

/**
 * Returns `original` with `patch` merged in. Both are OWNED by the call (changed in place, parts shared
 * with the result): pass fresh copies. A patch that is not a JSON object is 400 as upstream words it; JSON
 * `null` changes nothing. Failures are `StatusError`s.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: Schema): unknown {
  if (patch === null) return original;
  if (!isObject(patch)) throw badRequest(`json: cannot unmarshal ${goJsonKind(patch)} into Go value of type map[string]interface {}`);
  try {
    return mergeMap(isObject(original) ? original : undefined, patch, schema);
  } catch (err) {
    if (err instanceof StrategicMergeError) throw strategicMergeStatus(err);
    throw err;
  }
}
