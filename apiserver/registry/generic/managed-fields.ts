/**
 * `metadata.managedFields` for the Update operations of the generic registry (create, update, patch,
 * status): the registry's entry point into registry/fieldmanager, which holds the field-set algebra and
 * Kubernetes' ownership rules (server-side apply goes through `applyObject` in apply.ts instead).
 *
 * The set of an Update is computed as Kubernetes does, against the kind's schema (list-type map/set/atomic,
 * map-type granular/atomic): the manager gains every field it added or changed, every other manager loses
 * those, fields that no longer exist leave every set, and the manager's `time` moves only when it gained
 * something. Fields the server owns are never tracked (apiVersion, kind, metadata name, namespace, uid,
 * resourceVersion, generation, creationTimestamp, selfLink, managedFields). On the main resource of a kind
 * with a status sub-resource `status` is not tracked; on `/status` only `status` is. More than ten Update
 * managers fold the oldest into `ancient-changes`.
 *
 * Client input: absent or empty managedFields keep the live ones; a list of exactly one empty entry resets
 * them (Kubernetes' documented reset); a malformed list is ignored (the live ones are kept).
 */
import type { KubeObject } from '../../api/object.js';
import type { Schema } from '../../schema/schema.js';
import { trackUpdateOnObject } from '../fieldmanager/field-manager.js';
import type { FieldScope } from '../fieldmanager/scope.js';

export type { FieldScope } from '../fieldmanager/scope.js';

export interface ManagedFieldsUpdate {
  readonly manager: string;
  readonly apiVersion: string;
  readonly subresource: string;
  readonly time: string;
  readonly scope: FieldScope;
  /** The kind's schema: list and map types decide the paths. */
  readonly schema: Schema;
}

/**
 * Sets `next.metadata.managedFields` for an Update operation from `prev` (undefined for a create) to
 * `next`. `next.metadata.managedFields` holds the client's input on entry.
 */
export function updateManagedFields(prev: KubeObject | undefined, next: KubeObject, u: ManagedFieldsUpdate): void {
  trackUpdateOnObject(prev, next, u);
}
