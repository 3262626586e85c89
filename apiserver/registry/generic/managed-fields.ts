/**
 * `metadata.managedFields` of the generic registry's writes: the registry's entry point into
 * registry/fieldmanager, which holds the field-set algebra and Kubernetes' ownership rules.
 *
 * Create, update, patch and status writes record an Update operation (`trackUpdate`); server-side apply
 * records its own Apply operation (apply.ts) with the same `writer`. The set of an Update is computed as
 * Kubernetes does, against the kind's schema (list-type map/set/atomic, map-type granular/atomic): the
 * manager gains every field it added or changed, every other manager loses those, fields that no longer
 * exist leave every set, and the manager's `time` moves only when it gained something. Fields the server
 * owns are never tracked (apiVersion, kind, metadata name, namespace, uid, resourceVersion, generation,
 * creationTimestamp, selfLink, managedFields). On the main resource of a kind with a status sub-resource
 * `status` is not tracked; on `/status` only `status` is. More than ten Update managers fold the oldest
 * into `ancient-changes`.
 *
 * Client input: absent or empty managedFields keep the live ones; a list of exactly one empty entry resets
 * them (Kubernetes' documented reset); a malformed list is ignored (the live ones are kept).
 */
import type { KubeObject } from '../../api/object.js';
import { trackUpdateOnObject, type WriteContext } from '../fieldmanager/field-manager.js';
import { genericSubresourceOf, type GenericSubresource } from '../kind-strategy.js';
import type { WriteOptions } from './options.js';
import type { RegistryContext } from './registry-context.js';
import { rfc3339 } from './system-fields.js';

/** The manager of a write that names none (no `fieldManager`, no user agent), as Kubernetes. */
export const DEFAULT_FIELD_MANAGER = 'unknown';

/** Who writes and which fields the write may own: the main resource, or `/status`. */
export function writer(ctx: RegistryContext, opts: WriteOptions, subresource: '' | GenericSubresource | 'scale', time = rfc3339(ctx.now())): WriteContext {
  return {
    manager: opts.fieldManager ?? DEFAULT_FIELD_MANAGER,
    apiVersion: ctx.apiVersion,
    subresource,
    time,
    // `/approval` writes conditions inside `status`: its fields are tracked as `/status`'s are.
    scope: genericSubresourceOf(subresource) !== '' ? 'status-only' : ctx.hasStatus ? 'no-status' : 'all',
    schema: ctx.strategy.schema,
  };
}

/**
 * Sets `next.metadata.managedFields` for the Update operation of a write from `prev` (undefined for a
 * create) to `next`, whose managedFields hold the client's input on entry. Skipped for the steps of a
 * server-side apply (`opts.applied`), which recorded its own entry.
 */
export function trackUpdate(ctx: RegistryContext, prev: KubeObject | undefined, next: KubeObject, opts: WriteOptions, subresource: '' | GenericSubresource | 'scale', time?: string): void {
  if (opts.applied === true) return;
  trackUpdateOnObject(prev, next, writer(ctx, opts, subresource, time));
}
