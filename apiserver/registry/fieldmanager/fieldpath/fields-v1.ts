/**
 * FieldsV1, the JSON form of a field set in `metadata.managedFields[].fieldsV1`: a trie whose keys are
 * serialized path elements (`f:`, `k:`, `v:`, `i:`) and whose leaves are `{}`; `".": {}` marks an element
 * that is itself in the set and also has paths below it. Keys are written in structured-merge-diff's
 * order (fields, keys, values, indexes), `"."` first.
 */
import { canonicalPE, PathElementError } from './path-element.js';
import { FieldSet } from './set.js';

export type FieldsV1 = { [key: string]: FieldsV1 };

export class FieldsV1Error extends Error {
  override readonly name = 'FieldsV1Error';
}

export function encodeFieldsV1(set: FieldSet): FieldsV1 {
  const out: FieldsV1 = {};
  encodeInto(set, out);
  return out;
}

/** Adds the elements of `set` to `out` (`"."` first where an element is also a member). */
function encodeInto(set: FieldSet, out: FieldsV1): void {
  for (const pe of set.elements()) {
    const below = set.withPrefix(pe);
    if (below.empty()) {
      out[pe] = {};
      continue;
    }
    const node: FieldsV1 = set.hasMember(pe) ? { '.': {} } : {};
    encodeInto(below, node);
    out[pe] = node;
  }
}

/**
 * Decodes a FieldsV1 trie; throws FieldsV1Error when it is not an object of objects or a key is not a
 * path element. Elements are canonicalized, so `k:{"b":1,"a":2}` and `k:{"a":2,"b":1}` are one element.
 */
export function decodeFieldsV1(tree: unknown): FieldSet {
  return decodeLevel(tree, '');
}

function decodeLevel(tree: unknown, where: string): FieldSet {
  if (tree === null || typeof tree !== 'object' || Array.isArray(tree)) throw new FieldsV1Error(`${where || 'fieldsV1'}: expected an object`);
  const members: string[] = [];
  const children: [string, FieldSet][] = [];
  for (const [key, value] of Object.entries(tree as Record<string, unknown>)) {
    if (key === '.') continue;
    let pe: string;
    try {
      pe = canonicalPE(key);
    } catch (err) {
      if (err instanceof PathElementError) throw new FieldsV1Error(err.message);
      throw err;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FieldsV1Error(`${key}: expected an object`);
    const entries = Object.keys(value);
    if (entries.length === 0) {
      members.push(pe);
      continue;
    }
    if (entries.includes('.')) members.push(pe);
    children.push([pe, decodeLevel(value, key)]);
  }
  return FieldSet.from(members, children);
}
