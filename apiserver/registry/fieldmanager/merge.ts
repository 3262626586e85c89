/**
 * The merge of an applied configuration into the live object (structured-merge-diff's `Merge` with the
 * configuration winning): granular objects merge field by field, `map` and `set` lists element by element
 * (matched by key or value), everything else — scalars, atomic lists and maps, values whose type changed —
 * is replaced by the configuration's value. Two empty (or empty and absent) containers keep the
 * configuration's, so `[]` and `{}` survive as sent.
 *
 * Order of list elements: the live order is kept, elements only in the configuration come where the
 * configuration puts them relative to the shared ones, and shared elements follow the configuration's order
 * (structured-merge-diff's interleaving).
 *
 * The inputs are not changed; the result may share subtrees with them (clone before changing it).
 */
import type { Schema } from '../../schema/schema.js';
import { listItemPE } from './fieldpath/from-object.js';
import type { PE } from './fieldpath/path-element.js';
import { fieldSchema, nodeType } from './fieldpath/schema-types.js';
import { setMember } from '../patch/json-value.js';

const isEmptyContainer = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v as object).length === 0);

export function mergeObjects(lhs: unknown, rhs: unknown, schema: Schema | undefined): unknown {
  if (rhs === undefined) return lhs;
  if (lhs === undefined) return rhs;
  const tl = nodeType(schema, lhs);
  const tr = nodeType(schema, rhs);
  if (tl.kind !== tr.kind || tr.kind === 'scalar' || (isEmptyContainer(lhs) && isEmptyContainer(rhs))) return rhs;
  if (tr.kind === 'object') {
    if (tr.atomic) return rhs;
    const l = lhs as Record<string, unknown>;
    const r = rhs as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(l)) if (l[k] !== undefined) setMember(out, k, k in r ? mergeObjects(l[k], r[k], fieldSchema(tr.schema, k)) : l[k]);
    for (const k of Object.keys(r)) if (!(k in l) && r[k] !== undefined) setMember(out, k, r[k]);
    return out;
  }
  if (tr.kind !== 'list' || tr.listType === 'atomic') return rhs;
  const pe = (item: unknown): PE => listItemPE(item, tr.listType as 'set' | 'map', tr.keys, tr.item);
  return mergeLists(lhs as unknown[], rhs as unknown[], pe, (l, r) => mergeObjects(l, r, tr.item));
}

function mergeLists(lhs: unknown[], rhs: unknown[], peOf: (item: unknown) => PE, merge: (l: unknown, r: unknown) => unknown): unknown[] {
  const lhsPEs = lhs.map(peOf);
  const rhsPEs = rhs.map(peOf);
  const observedL = new Map<PE, unknown>();
  lhs.forEach((item, i) => {
    if (!observedL.has(lhsPEs[i]!)) observedL.set(lhsPEs[i]!, item);
  });
  const observedR = new Map<PE, unknown>();
  rhs.forEach((item, i) => observedR.set(rhsPEs[i]!, item));
  const shared = rhsPEs.filter((p) => observedL.has(p));
  let nextShared = shared.shift();
  const merged = new Set<PE>();
  const out: unknown[] = [];
  let lI = 0;
  let rI = 0;
  while (lI < lhs.length || rI < rhs.length) {
    if (lI < lhs.length && rI < rhs.length) {
      const p = lhsPEs[lI]!;
      if (p === rhsPEs[rI]) {
        merged.add(p);
        out.push(merge(observedL.get(p), observedR.get(p)));
        lI++;
        rI++;
        nextShared = shared.shift();
        continue;
      }
      if (observedR.has(p) && nextShared !== undefined && nextShared !== p) {
        lI++;
        continue;
      }
    }
    if (lI < lhs.length) {
      const p = lhsPEs[lI]!;
      if (!observedR.has(p)) {
        out.push(lhs[lI]);
        lI++;
        continue;
      }
      if (merged.has(p)) {
        lI++;
        continue;
      }
    }
    if (rI < rhs.length) {
      const p = rhsPEs[rI]!;
      merged.add(p);
      out.push(merge(observedL.get(p), observedR.get(p)));
      rI++;
      if (nextShared === p) nextShared = shared.shift();
    }
  }
  return out;
}
