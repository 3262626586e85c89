/**
 * What changed between two versions of an object, as structured-merge-diff's `Compare` reports it:
 * `added` holds every path present only in the new value (a new object and everything in it), `removed`
 * every path present only in the old one, `modified` the leaves (scalars, atomic lists and maps) whose value
 * differs. An object or granular list present on both sides is never itself modified; two empty ones (or
 * empty and absent) compare as leaves, so `{}` replacing nothing is an addition.
 */
import type { Schema } from '../../schema/schema.js';
import { jsonEqual } from '../patch/json-value.js';
import { fieldPE, type PE } from './fieldpath/path-element.js';
import { FieldSet } from './fieldpath/set.js';
import { insertPathsBelow, listItemPE } from './fieldpath/from-object.js';
import { fieldSchema, nodeType } from './fieldpath/schema-types.js';

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

export function compareObjects(lhs: unknown, rhs: unknown, schema: Schema | undefined): Comparison {
  const c = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  visit(lhs, rhs, schema, [], c);
  return c;
}

const isEmptyContainer = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v as object).length === 0);

function visit(lhs: unknown, rhs: unknown, schema: Schema | undefined, path: PE[], c: Comparison): void {
  if (lhs === undefined && rhs === undefined) return;
  if (lhs === undefined) {
    c.added.insert(path);
    insertPathsBelow(c.added, rhs, schema, path);
    return;
  }
  if (rhs === undefined) {
    c.removed.insert(path);
    insertPathsBelow(c.removed, lhs, schema, path);
    return;
  }
  const tl = nodeType(schema, lhs);
  const tr = nodeType(schema, rhs);
  const leaf =
    tl.kind !== tr.kind ||
    tr.kind === 'scalar' ||
    (tr.kind === 'object' && tr.atomic) ||
    (tr.kind === 'list' && tr.listType === 'atomic') ||
    (isEmptyContainer(lhs) && isEmptyContainer(rhs));
  if (leaf) {
    if (!jsonEqual(lhs, rhs)) {
      c.modified.insert(path);
      if (tl.kind !== tr.kind) {
        insertPathsBelow(c.removed, lhs, schema, path);
        insertPathsBelow(c.added, rhs, schema, path);
      }
    }
    return;
  }
  if (tr.kind === 'object') {
    const l = lhs as Record<string, unknown>;
    const r = rhs as Record<string, unknown>;
    for (const k of Object.keys(l)) visit(l[k], r[k], fieldSchema(tr.schema, k), [...path, fieldPE(k)], c);
    for (const k of Object.keys(r)) if (!Object.prototype.hasOwnProperty.call(l, k)) visit(undefined, r[k], fieldSchema(tr.schema, k), [...path, fieldPE(k)], c);
    return;
  }
  if (tr.kind !== 'list') return;
  const index = (list: unknown[]): Map<PE, unknown> => {
    const m = new Map<PE, unknown>();
    for (const item of list) {
      const pe = listItemPE(item, tr.listType as 'set' | 'map', tr.keys, tr.item);
      if (!m.has(pe)) m.set(pe, item);
    }
    return m;
  };
  const l = index(lhs as unknown[]);
  const r = index(rhs as unknown[]);
  for (const pe of new Set([...l.keys(), ...r.keys()])) visit(l.get(pe), r.get(pe), tr.item, [...path, pe], c);
}

/** `c` without the paths of `ignored` (and what is below them). */
export function filterComparison(c: Comparison, keep: (s: FieldSet) => FieldSet): Comparison {
  return { added: keep(c.added), modified: keep(c.modified), removed: keep(c.removed) };
}
