/**
 * Removal of what an applier stopped applying (structured-merge-diff's `prune`, `addBackOwnedItems` and
 * `addBackDanglingItems` folded into one walk). A path of the merged object is removed, with everything
 * below it, when the applier applied it last time (`last`) and:
 *   - no manager — the applier's new configuration included — owns it now (`managed`), or
 *   - an element above it that the removal reached is owned by no one (so a field owned by someone else
 *     inside a list element or map entry that only the applier owned goes with the element).
 * Both sets must have gone through `ensureNamedFieldsAreMembers`: owning `.spec.x` keeps `.spec`.
 * A map or list emptied by removals disappears (structured-merge-diff leaves null, which decodes as absent).
 */
import type { Schema } from '../../schema/schema.js';
import { setMember } from '../patch/json-value.js';
import { fieldPE, type PE } from './fieldpath/path-element.js';
import { listItemPE } from './fieldpath/from-object.js';
import { fieldSchema, nodeType } from './fieldpath/schema-types.js';
import type { FieldSet } from './fieldpath/set.js';

const GONE = Symbol('gone');

export function pruneUnapplied(merged: unknown, schema: Schema | undefined, last: FieldSet, managed: FieldSet): unknown {
  const out = visit(merged, schema, last, managed, false, false);
  return out === GONE ? {} : out;
}

interface Decision {
  readonly drop: boolean;
  readonly under: boolean;
  readonly removed: boolean;
}

function decide(pe: PE, last: FieldSet, managed: FieldSet, underLast: boolean, removedAbove: boolean): Decision {
  const inLast = last.hasMember(pe);
  const under = underLast || inLast;
  const removed = removedAbove || (under && !managed.hasMember(pe));
  return { drop: inLast && removed, under, removed };
}

function visit(value: unknown, schema: Schema | undefined, last: FieldSet, managed: FieldSet, underLast: boolean, removedAbove: boolean): unknown {
  const t = nodeType(schema, value);
  if (t.kind === 'object' && !t.atomic) {
    const obj = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    let kept = 0;
    let dropped = 0;
    for (const k of Object.keys(obj)) {
      const v = obj[k];
      if (v === undefined) continue;
      const pe = fieldPE(k);
      const d = decide(pe, last, managed, underLast, removedAbove);
      if (d.drop) {
        dropped++;
        continue;
      }
      const below = last.withPrefix(pe);
      const child = below.empty() ? v : visit(v, fieldSchema(t.schema, k), below, managed.withPrefix(pe), d.under, d.removed);
      if (child === GONE) {
        dropped++;
        continue;
      }
      setMember(out, k, child);
      kept++;
    }
    return kept === 0 && dropped > 0 ? GONE : out;
  }
  if (t.kind === 'list' && t.listType !== 'atomic') {
    const out: unknown[] = [];
    let dropped = 0;
    for (const item of value as unknown[]) {
      const pe = listItemPE(item, t.listType, t.keys, t.item);
      const d = decide(pe, last, managed, underLast, removedAbove);
      if (d.drop) {
        dropped++;
        continue;
      }
      const below = last.withPrefix(pe);
      const child = below.empty() ? item : visit(item, t.item, below, managed.withPrefix(pe), d.under, d.removed);
      if (child === GONE) {
        dropped++;
        continue;
      }
      out.push(child);
    }
    return out.length === 0 && dropped > 0 ? GONE : out;
  }
  return value;
}
