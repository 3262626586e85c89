/**
 * delete, as kube's generic store:
 * - preconditions (uid, resourceVersion) are checked against the current object: 409 `Precondition failed:
 *   ...` on a mismatch, never retried;
 * - an object with finalizers is not removed: it gets `deletionTimestamp` (now) and
 *   `deletionGracePeriodSeconds: 0` (generation bumped when tracked) and stays until an update empties
 *   its finalizers; a second delete of it changes nothing. The answer is the object, 200 (202 only when
 *   the deprecated `orphanDependents` is false, as kube);
 * - otherwise the key is deleted with a compare on the modRevision read (a concurrent write makes the loop
 *   start again from the fresh state: compare-and-swap.ts, shared with the guaranteed update), then the
 *   server's `WriteHooks.afterDelete` releases what it reserved for the object (a Service's addresses and
 *   ports); the answer is the deleted object for `deleteReturnsObject` kinds, else a Success Status
 *   `{details: {name, group, kind: <resource>, uid}}`, 200.
 * - a kind with `gracefulDeletion` (Pods) is kept marked while its grace period runs (graceful-delete.ts):
 *   `deletionTimestamp` = end of the period, `deletionGracePeriodSeconds` = the period; the answer is the
 *   object, 200; a DELETE with `gracePeriodSeconds` 0 (or an object whose period is 0) removes it.
 * - delete propagation (delete-propagation.ts): before any of the above, the garbage collector's finalizers
 *   are set as the options, the object's own GC finalizers and its kind's default policy say (`orphan` for
 *   Orphan, `foregroundDeletion` for Foreground, neither for Background), so an Orphan or Foreground delete
 *   keeps the object marked until the collector has done its part. A second DELETE of an object already
 *   marked may switch them (kube: finalizers follow the latest options unless a grace period is pending);
 *   one that leaves no finalizer (Background after Orphan) removes the object.
 * Dry run computes the same answer and writes nothing.
 */
import { throwIfCancelled } from './cancelled.js';
import type { KubeObject } from '../../api/object.js';
import { conflict, invalid, notFound } from '../../errors/constructors.js';
import type { KeyValue } from '../../../storage/interface.js';
import { invalidValue, notSupported, toCauses, type FieldError } from '../../validation/field-error.js';
import type { DeleteOptions, DeleteResult, SuccessStatus } from './options.js';
import { requestNamespace, type RegistryContext } from './registry-context.js';
import { compareAndSwapLoop } from './compare-and-swap.js';
import { rfc3339 } from './system-fields.js';
import { isPromise } from '../versioned-storage.js';
import { gracefulStep } from './graceful-delete.js';
import { defaultGarbageCollectionPolicy, gcFinalizersAfterDelete } from './delete-propagation.js';

const POLICIES = ['Foreground', 'Background', 'Orphan'];

export function validateDeleteOptions(ctx: RegistryContext, opts: DeleteOptions): void {
  const errs: FieldError[] = [];
  const p = opts.propagationPolicy;
  if (p !== undefined && p !== '' && !POLICIES.includes(p)) errs.push(notSupported('propagationPolicy', p, POLICIES));
  if (p !== undefined && p !== '' && opts.orphanDependents !== undefined) {
    errs.push(invalidValue('propagationPolicy', p, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (errs.length > 0) throw invalid({ group: ctx.metaGroup, kind: 'DeleteOptions' }, '', toCauses(errs));
}

function checkPreconditions(ctx: RegistryContext, name: string, opts: DeleteOptions, current: KubeObject): void {
  const pre = opts.preconditions;
  if (pre === undefined) return;
  if (pre.uid !== undefined && pre.uid !== current.metadata.uid) {
    throw conflict(ctx.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ''}`);
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== current.metadata.resourceVersion) {
    throw conflict(
      ctx.gr,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`,
    );
  }
}

export function successStatus(ctx: RegistryContext, obj: KubeObject): SuccessStatus {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    // Go omits an empty group (core resources): `{"name":"x","kind":"secrets","uid":"..."}`.
    details: { name: obj.metadata.name ?? '', ...(ctx.gr.group === '' ? {} : { group: ctx.gr.group }), kind: ctx.gr.resource, uid: obj.metadata.uid ?? '' },
  };
}

/**
 * Stores `obj` as marked for deletion (its deletionTimestamp and grace period already set; generation bumped
 * here when tracked and `bump`: the first marking) with a compare on `kv`'s modRevision, and answers it as
 * stored. A dry run writes nothing.
 */
async function writeMarked(ctx: RegistryContext, key: string, kv: KeyValue, obj: KubeObject, dryRun: boolean, signal?: AbortSignal, bump = true): Promise<KubeObject> {
  if (bump && (obj.metadata.generation ?? 0) > 0) obj.metadata.generation = obj.metadata.generation! + 1;
  if (dryRun && !ctx.shape.converts) return obj;
  const encoded = ctx.shape.encode(obj);
  const bytes = isPromise(encoded) ? await encoded : encoded;
  let rv = obj.metadata.resourceVersion;
  throwIfCancelled(signal);
  if (!dryRun) {
    const res = await ctx.store.update(key, bytes, kv.modRevision, ctx.writeOptions);
    rv = String(res.revision);
    // The finalizer-removing update that usually follows starts from what was written, not the cache's older copy.
    ctx.cache?.noteWrite(key, res.revision, bytes);
  }
  const written = ctx.shape.written(obj, bytes);
  const answer = isPromise(written) ? await written : written;
  answer.metadata.resourceVersion = rv;
  return answer;
}

export async function deleteObject(ctx: RegistryContext, namespace: string, name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
  validateDeleteOptions(ctx, opts);
  const key = ctx.keys.objectKey(requestNamespace(ctx, namespace), name);
  const dryRun = opts.dryRun === true;
  const pending = (object: KubeObject): DeleteResult => ({ object, deleted: false, code: opts.orphanDependents === false ? 202 : 200 });
  return compareAndSwapLoop(ctx, key, name, async (kv, attempt) => {
    if (kv === undefined) throw notFound(ctx.gr, name);
    const decoded = ctx.shape.decode(kv);
    const current = isPromise(decoded) ? await decoded : decoded;
    checkPreconditions(ctx, name, opts, current);
    if (opts.admission !== undefined) {
      await opts.admission.mutate(undefined, current);
      await opts.admission.validate(undefined, current);
    }
    return attempt(async () => {
      const marked = current.metadata.deletionTimestamp !== undefined;
      // Graceful kinds (Pods): a pending grace period keeps the object, marked (graceful-delete.ts); its
      // finalizers cannot be changed by a DELETE meanwhile (kube).
      const graceful = gracefulStep(ctx.strategy, current, opts.gracePeriodSeconds, ctx.now());
      if (graceful?.type === 'pending') return pending(current);
      // The garbage collector's finalizers, as this DELETE's options ask (delete-propagation.ts).
      const gcFinalizers = gcFinalizersAfterDelete(defaultGarbageCollectionPolicy(ctx), current, opts);
      if (gcFinalizers !== undefined) {
        if (gcFinalizers.length > 0) current.metadata.finalizers = gcFinalizers;
        else delete current.metadata.finalizers;
      }
      const hasFinalizers = (current.metadata.finalizers ?? []).length > 0;
      if (graceful?.type === 'mark') {
        current.metadata.deletionTimestamp = graceful.deletionTimestamp;
        current.metadata.deletionGracePeriodSeconds = graceful.gracePeriodSeconds;
        return pending(await writeMarked(ctx, key, kv, current, dryRun, opts.signal));
      }
      // Already marked and waiting (for its finalizers, or its kind's own): a second delete changes nothing
      // but the GC finalizers it switched, or a grace period it cut to 0 (kube's markAsDeleting then pulls
      // a later deletionTimestamp back to now, and the object goes when its last finalizer does).
      if (marked && (hasFinalizers || ctx.strategy.markForDeletion !== undefined)) {
        const graceCut = graceful?.type === 'now' && (current.metadata.deletionGracePeriodSeconds ?? 0) > 0;
        if (gcFinalizers === undefined && !graceCut) return pending(current);
        const now = rfc3339(ctx.now());
        if (Date.parse(current.metadata.deletionTimestamp!) > Date.parse(now)) current.metadata.deletionTimestamp = now;
        current.metadata.deletionGracePeriodSeconds = 0;
        return pending(await writeMarked(ctx, key, kv, current, dryRun, opts.signal, false));
      }
      const kindKeeps = !marked && ctx.strategy.markForDeletion?.(current, ctx.naming) === true;
      if (kindKeeps || hasFinalizers) {
        current.metadata.deletionTimestamp = rfc3339(ctx.now());
        current.metadata.deletionGracePeriodSeconds = 0;
        return pending(await writeMarked(ctx, key, kv, current, dryRun, opts.signal));
      }
      if (!dryRun) {
        throwIfCancelled(opts.signal);
        const gone = await ctx.store.delete(key, kv.modRevision);
        // The cache's copy is gone too, but until the cache hears of it an update must not start from it.
        ctx.cache?.noteWrite(key, gone.revision);
        // What the server reserved for the object (WriteHooks) goes with it.
        await ctx.writeHooks?.afterDelete(current);
      }
      return { object: ctx.strategy.deleteReturnsObject === true ? current : successStatus(ctx, current), deleted: true, code: 200 };
    });
  });
}
