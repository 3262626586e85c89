/**
 * The ownership arithmetic of one write (structured-merge-diff's `Updater`), on plain JSON objects:
 *
 * - `trackUpdate` (create, update, patch, status): the writer gains every field it added or changed; every
 *   other manager loses those (an Update always wins: it takes ownership silently) and every manager loses
 *   the fields that no longer exist. The writer's entry moves its `time` only when it gained something.
 * - `trackApply`: the live object and the configuration are merged; the applier's set becomes exactly the
 *   configuration's fields; fields it applied last time, no longer applies and nobody else owns are removed;
 *   other managers owning a field whose value the merge changes are conflicts (409), unless `force` moves
 *   those fields to the applier. A field applied with the value it already has becomes shared.
 *
 * `keep` restricts every set and comparison to what this endpoint may own (see scope.ts); `strip` drops the
 * server-owned fields from the writer's set. Both return new sets.
 */
import type { Schema } from '../../schema/schema.js';
import { dropNulls } from '../../schema/drop-nulls.js';
import { jsonClone, jsonEqual } from '../patch/json-value.js';
import { compareObjects, filterComparison, type Comparison } from './compare.js';
import { conflictError, type Conflict } from './conflicts.js';
import { ensureNamedFieldsAreMembers, toFieldSet } from './fieldpath/from-object.js';
import { FieldSet } from './fieldpath/set.js';
import { managerId, type ManagerEntry, type Managers } from './managers.js';
import { mergeObjects } from './merge.js';
import { pruneUnapplied } from './prune.js';

/** The conflicts of an apply without force (turned into the 409 by the caller, see conflicts.ts). */
export class ApplyConflicts extends Error {
  override readonly name = 'ApplyConflicts';
  constructor(readonly conflicts: readonly Conflict[]) {
    super(conflictError(conflicts).message);
  }
}

export interface Writer {
  readonly manager: string;
  readonly apiVersion: string;
  readonly subresource: string;
  readonly time: string;
}

export interface TrackContext {
  readonly schema: Schema;
  readonly keep: (s: FieldSet) => FieldSet;
  readonly strip: (s: FieldSet) => FieldSet;
}

/** Removes changed/removed fields from every manager but `except`; returns the conflicts found. */
function takeFrom(managers: Managers, c: Comparison, except: string | undefined, force: boolean): Conflict[] {
  const changed = c.modified.union(c.added);
  const conflicts: Conflict[] = [];
  const lose = new Map<string, FieldSet>();
  for (const [id, e] of managers) {
    if (id === except) continue;
    const conflict = e.set.intersection(changed);
    if (!conflict.empty()) {
      for (const path of conflict.paths()) conflicts.push({ manager: e, path });
      lose.set(id, conflict);
    }
  }
  if (!force && conflicts.length > 0) return conflicts;
  for (const [id, e] of managers) {
    if (id === except) continue;
    let set = e.set;
    const conflict = lose.get(id);
    if (conflict !== undefined) set = set.difference(conflict);
    set = set.difference(c.removed);
    if (set.empty()) managers.delete(id);
    else if (set !== e.set) managers.set(id, { ...e, set });
  }
  return conflicts;
}

/** Ownership after an Update-style write from `live` (undefined: create) to `next`. Changes `managers`. */
export function trackUpdate(managers: Managers, live: unknown, next: unknown, w: Writer, t: TrackContext): void {
  let gained: FieldSet;
  if (live === undefined && managers.size === 0) {
    // A create nobody owns anything of: every field is added, nothing taken from anyone (the comparison with
    // an empty object, without building it).
    gained = t.strip(t.keep(toFieldSet(next, t.schema, { allowDuplicates: true })));
  } else {
    const c = filterComparison(compareObjects(live ?? {}, next, t.schema), t.keep);
    takeFrom(managers, c, undefined, true);
    gained = t.strip(c.modified.union(c.added));
  }
  if (gained.empty()) return;
  const id = managerId({ ...w, operation: 'Update' });
  const prev = managers.get(id);
  managers.set(id, {
    manager: w.manager,
    operation: 'Update',
    apiVersion: w.apiVersion,
    subresource: w.subresource,
    time: w.time,
    set: prev === undefined ? gained : prev.set.union(gained),
  });
}

export interface ApplyResult {
  /** The merged object (a fresh copy, nulls dropped), with what the applier stopped applying removed. */
  readonly object: unknown;
  /** False when the object equals the live one (ownership may still have changed). */
  readonly changed: boolean;
}

/**
 * Applies `config` over `live` (an empty object for a create). Changes `managers`; throws ApplyConflicts
 * (managers unchanged) unless `force`. `config` must have passed `toFieldSet` validation (FieldPathError otherwise).
 */
export function trackApply(managers: Managers, live: unknown, config: unknown, w: Writer, force: boolean, t: TrackContext): ApplyResult {
  const configSet = t.keep(toFieldSet(config, t.schema));
  const merged = mergeObjects(live, config, t.schema);
  const id = managerId({ ...w, operation: 'Apply' });
  const previous = managers.get(id);
  const applier: ManagerEntry = {
    manager: w.manager,
    operation: 'Apply',
    apiVersion: w.apiVersion,
    subresource: w.subresource,
    ...(previous?.time === undefined ? {} : { time: previous.time }),
    set: configSet,
  };
  managers.set(id, applier);
  let object = merged;
  if (previous !== undefined && !previous.set.empty()) {
    let all = new FieldSet();
    for (const e of managers.values()) all = all.union(e.set);
    object = pruneUnapplied(merged, t.schema, ensureNamedFieldsAreMembers(previous.set, t.schema), ensureNamedFieldsAreMembers(all, t.schema));
  }
  const c = filterComparison(compareObjects(live, object, t.schema), t.keep);
  const conflicts = takeFrom(managers, c, id, force);
  if (!force && conflicts.length > 0) {
    if (previous === undefined) managers.delete(id);
    else managers.set(id, previous);
    throw new ApplyConflicts(conflicts);
  }
  // Nulls decode as absent (Go's zero values): the result drops them, and so does "changed".
  const result = jsonClone(object);
  dropNulls(result, t.schema);
  const changed = !jsonEqual(live, result);
  const set = t.strip(applier.set);
  if (set.empty()) managers.delete(id);
  else managers.set(id, { ...applier, set, ...(changed ? { time: w.time } : {}) });
  return { object: result, changed };
}
