/**
 * managedFields of whole objects, for the generic registry: `trackUpdateOnObject` for create, update,
 * patch and status writes, `applyToObject` for server-side apply. Both read the managers from the objects,
 * run the ownership arithmetic (updater.ts) against the kind's schema, and write `metadata.managedFields`
 * back (absent when nobody owns anything).
 *
 * Which managedFields an Update starts from (Kubernetes' `decodeLiveOrNew`): a list of exactly one empty
 * entry resets them (the write's own changes are then its only entry); otherwise the client's list when it
 * decodes and is not empty (a client may rewrite ownership), else the live object's. An empty list or a
 * malformed one keeps the live ones. An object the algebra cannot walk (a keyed list element without its
 * key) is written without managedFields, as Kubernetes' UpdateNoErrors does. Writes through a sub-resource
 * (`/status`) always start from the live ones: a client cannot change ownership there.
 */
import type { KubeObject } from '../../api/object.js';
import type { Schema } from '../../schema/schema.js';
import { capUpdateManagers } from './cap-managers.js';
import { FieldPathError } from './fieldpath/from-object.js';
import { decodeManagedFields, encodeManagedFields, isResetRequest, ManagedFieldsError, type Managers } from './managers.js';
import { keepInScope, stripServerFields, type FieldScope } from './scope.js';
import { conflictError } from './conflicts.js';
import { conflictsAllowedByLastApplied, syncLastApplied } from './last-applied.js';
import { ApplyConflicts, trackApply, trackUpdate, type TrackContext, type Writer } from './updater.js';

export interface WriteContext extends Writer {
  readonly scope: FieldScope;
  readonly schema: Schema;
}

function context(w: WriteContext): TrackContext {
  return { schema: w.schema, keep: keepInScope(w.scope), strip: stripServerFields };
}

function decodeOr(entries: unknown, fallback: () => Managers): Managers {
  try {
    const m = decodeManagedFields(entries);
    return m.size === 0 ? fallback() : m;
  } catch (err) {
    if (err instanceof ManagedFieldsError) return fallback();
    throw err;
  }
}

function liveManagers(live: KubeObject | undefined): Managers {
  try {
    return decodeManagedFields(live?.metadata.managedFields);
  } catch (err) {
    if (err instanceof ManagedFieldsError) return new Map();
    throw err;
  }
}

/** The object without `metadata.managedFields` (a shallow copy; the input is not changed). */
export function withoutManagedFields(obj: KubeObject): KubeObject {
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** Sets `next.metadata.managedFields` after an Update-style write from `prev` (undefined: create). */
export function trackUpdateOnObject(prev: KubeObject | undefined, next: KubeObject, w: WriteContext): void {
  const incoming = next.metadata.managedFields;
  const reset = w.subresource === '' && isResetRequest(incoming);
  // Through a sub-resource the request's managedFields are ignored (neither taken nor a reset).
  const managers = w.subresource !== '' ? liveManagers(prev) : reset ? new Map() : decodeOr(incoming, () => liveManagers(prev));
  if (prev !== undefined && managers.size === 0 && !reset) {
    // Kubernetes' skipNonAppliedManager: an existing object tracked by nobody stays untracked by updates.
    delete next.metadata.managedFields;
    return;
  }
  try {
    trackUpdate(managers, prev === undefined ? undefined : withoutManagedFields(prev), withoutManagedFields(next), w, context(w));
  } catch (err) {
    if (!(err instanceof FieldPathError)) throw err;
    delete next.metadata.managedFields;
    return;
  }
  capUpdateManagers(managers);
  const out = encodeManagedFields(managers);
  if (out === undefined) delete next.metadata.managedFields;
  else next.metadata.managedFields = out;
}

export interface ApplyOutcome {
  /** The merged object, managedFields set; owned by the caller. */
  readonly object: KubeObject;
  /** False when apply changed nothing but (maybe) ownership. */
  readonly changed: boolean;
}

/**
 * Applies `config` (validated: no managedFields, walkable, see apply-config.ts) to `live` (undefined:
 * create). Throws the 409 conflict StatusError unless `force` (or, for `kubectl`, unless every conflict
 * is a field its last client-side apply still holds: see last-applied.ts).
 */
export function applyToObject(live: KubeObject | undefined, config: KubeObject, w: WriteContext, force: boolean): ApplyOutcome {
  const managers = liveManagers(live);
  const base = live === undefined ? {} : withoutManagedFields(live);
  let res;
  try {
    res = trackApply(managers, base, config, w, force, context(w));
  } catch (err) {
    if (!(err instanceof ApplyConflicts)) throw err;
    if (!conflictsAllowedByLastApplied(w.manager, live, err.conflicts, w.schema)) throw conflictError(err.conflicts);
    res = trackApply(managers, base, config, w, true, context(w));
  }
  const object = res.object as KubeObject;
  if (typeof object.metadata !== 'object' || object.metadata === null || Array.isArray(object.metadata)) object.metadata = {};
  syncLastApplied(w.manager, live, config, object);
  const out = encodeManagedFields(managers);
  if (out !== undefined) object.metadata.managedFields = out;
  return { object, changed: res.changed };
}
