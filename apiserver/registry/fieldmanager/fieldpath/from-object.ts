/**
 * Field sets of objects, walked against their schema (structured-merge-diff's `ToFieldSet`): every field,
 * list element and map entry present is a path; below an atomic node nothing is. The root is never a
 * path. Also the path element naming an element of a `map` or `set` list, and `ensureNamedFieldsAreMembers`.
 */
import type { Schema } from '../../../schema/schema.js';
import { canonicalJson, fieldPE, pathString, valuePE, type PE } from './path-element.js';
import { fieldSchema, isNamedField, childSchema, nodeType } from './schema-types.js';
import { FieldSet } from './set.js';
import { isObject } from '../../../api/json.js';

/** A value that cannot be turned into paths (a keyed element without its key, a duplicate element). */
export class FieldPathError extends Error {
  override readonly name = 'FieldPathError';
}

const sortedKeyLists = new WeakMap<readonly string[], readonly string[]>();
/** The key fields in canonical (sorted) order, computed once per schema. */
function sortedKeys(keys: readonly string[]): readonly string[] {
  let s = sortedKeyLists.get(keys);
  if (s === undefined) {
    s = [...keys].sort();
    sortedKeyLists.set(keys, s);
  }
  return s;
}

/**
 * The element naming `item` in a list of type `map` (`k:{...}`, missing keys taken from the key field's
 * schema default) or `set` (`v:...`). Throws FieldPathError with structured-merge-diff's wording.
 */
export function listItemPE(item: unknown, listType: 'set' | 'map', keys: readonly string[], itemSchema: Schema | undefined): PE {
  if (listType === 'set') {
    if (item !== null && typeof item === 'object') throw new FieldPathError('associative list without keys has an element that is a map or a list');
    return valuePE(item);
  }
  if (keys.length === 0) {
    if (item !== null && typeof item === 'object') throw new FieldPathError('associative list without keys has an element that is a map or a list');
    return valuePE(item);
  }
  if (!isObject(item)) throw new FieldPathError('associative list with keys has an element that is not a map type');
  const parts: string[] = [];
  for (const k of sortedKeys(keys)) {
    let v = item[k];
    if (v === undefined || v === null) v = fieldSchema(itemSchema, k)?.default;
    if (v === undefined || v === null) throw new FieldPathError(`associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`);
    parts.push(`${JSON.stringify(k)}:${canonicalJson(v)}`);
  }
  return `k:{${parts.join(',')}}`;
}

export interface ToFieldSetOptions {
  /** Live objects may hold duplicate list elements; an applied configuration may not (default false). */
  readonly allowDuplicates?: boolean;
}

/** The set of every path present in `value` under `schema`. Throws FieldPathError (message with path). */
export function toFieldSet(value: unknown, schema: Schema | undefined, opts: ToFieldSetOptions = {}): FieldSet {
  const out = new FieldSet();
  walk(value, schema, () => out, [], opts.allowDuplicates === true);
  return out;
}

/** Inserts into `out` every path below `prefix` present in `value` (not `prefix` itself). */
export function insertPathsBelow(out: FieldSet, value: unknown, schema: Schema | undefined, prefix: readonly PE[], allowDuplicates = true): void {
  let level: FieldSet | undefined;
  const at = (): FieldSet => {
    if (level === undefined) {
      level = out;
      for (const pe of prefix) level = level.level(pe);
    }
    return level;
  };
  walk(value, schema, at, [...prefix], allowDuplicates);
}

/**
 * Adds the paths below `path` present in `value` to the level `at()` returns (created on first use, so a
 * scalar or an empty container adds no level). `path` is a stack for error messages only.
 */
function walk(value: unknown, schema: Schema | undefined, at: () => FieldSet, path: PE[], allowDup: boolean): void {
  const t = nodeType(schema, value);
  if (t.kind === 'scalar') return;
  if (t.kind === 'object') {
    if (t.atomic) return;
    const obj = value as Record<string, unknown>;
    let level: FieldSet | undefined;
    for (const k of Object.keys(obj)) {
      const v = obj[k];
      if (v === undefined) continue;
      const pe = fieldPE(k);
      level ??= at();
      level.addMember(pe);
      if (v === null || typeof v !== 'object') continue;
      const parent = level;
      path.push(pe);
      walk(v, fieldSchema(t.schema, k), () => parent.level(pe), path, allowDup);
      path.pop();
    }
    return;
  }
  if (t.listType === 'atomic') return;
  const items = value as unknown[];
  if (items.length === 0) return;
  const seen = new Set<PE>();
  let level: FieldSet | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    let pe: PE;
    try {
      pe = listItemPE(item, t.listType as 'set' | 'map', t.keys, t.item);
    } catch (err) {
      if (err instanceof FieldPathError) throw new FieldPathError(`${pathString(path)}: element ${i}: ${err.message}`);
      throw err;
    }
    if (seen.has(pe)) {
      if (allowDup) continue;
      throw new FieldPathError(`${pathString(path)}: duplicate entries for key ${pathString([pe])}`);
    }
    seen.add(pe);
    level ??= at();
    level.addMember(pe);
    if (t.listType !== 'map') continue;
    const parent = level;
    path.push(pe);
    walk(item, t.item, () => parent.level(pe), path, allowDup);
    path.pop();
  }
}

/**
 * `set` plus every declared object field that has paths below it (structured-merge-diff's
 * `EnsureNamedFieldsAreMembers`): owning `.spec.replicas` implies `.spec` when deciding what to remove,
 * but owning `.data.k` of a map does not imply the map entry's parent key, nor a list element.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, schema: Schema | undefined): FieldSet {
  const members = set.memberList();
  const children: [PE, FieldSet][] = [];
  for (const [pe, below] of set.childEntries()) {
    if (pe.startsWith('f:') && isNamedField(schema, pe.slice(2))) members.push(pe);
    children.push([pe, ensureNamedFieldsAreMembers(below, childSchema(schema, pe))]);
  }
  return FieldSet.from(members, children);
}
