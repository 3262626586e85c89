/**
 * create, in the KindStrategy order: reset system fields -> namespace match -> name generation ->
 * defaults -> prepareForCreate -> validate (schema, ObjectMeta, kind) -> warnings -> managedFields ->
 * canonicalize -> the server's WriteHooks.beginWrite (Service allocation) -> validating admission ->
 * Store.create -> finish(stored or not). `generateName` collisions are retried with a new suffix (8 attempts in all,
 * as kube). Dry run runs everything but the write (an existing name is still 409) and returns the object
 * without a resourceVersion, as kube does. A converting kind answers what it stored, read back in the request's
 * version (custom resources: converted twice when the request's version is not the storage version).
 */
import { throwIfCancelled } from './cancelled.js';
import type { KubeObject } from '../../api/object.js';
import { alreadyExists } from '../../errors/constructors.js';
import { isStorageError } from '../../../storage/errors.js';
import { applyDefaults } from '../../schema/defaults.js';
import { jsonClone } from '../patch/json-value.js';
import { trackUpdate } from './managed-fields.js';
import { ensureNamespace, omitEmptyMetadata } from './object-checks.js';
import type { WriteOptions, WriteResult } from './options.js';
import { requestNamespace, stampTypeMeta, strategyContext, type RegistryContext } from './registry-context.js';
import { storageToStatus } from './storage-errors.js';
import { generateName, newUid, rfc3339 } from './system-fields.js';
import { validateForCreate } from './validate-object.js';
import { isPromise } from '../versioned-storage.js';

const MAX_GENERATE_NAME_ATTEMPTS = 8;

/** Runs the create pipeline on `obj` (owned, changed in place) up to the store write. */
export function prepareCreate(ctx: RegistryContext, obj: KubeObject, namespace: string, opts: WriteOptions): string[] {
  const s = ctx.strategy;
  const meta = obj.metadata;
  stampTypeMeta(ctx, obj);
  const now = rfc3339(ctx.now());
  meta.uid = newUid();
  meta.creationTimestamp = now;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.resourceVersion;
  delete meta.selfLink;
  if (s.tracksGeneration === true) meta.generation = 1;
  else delete meta.generation;
  ensureNamespace(ctx, obj, namespace);
  omitEmptyMetadata(obj);
  if ((meta.name ?? '') === '' && (meta.generateName ?? '') !== '') meta.name = generateName(meta.generateName!);

  const sctx = strategyContext(ctx, namespace, opts.dryRun === true, '', 'create', opts.requester);
  applyDefaults(obj, s.schema);
  s.admit?.(obj, undefined, sctx);
  s.prepareForCreate?.(obj, sctx);
  const ruleWarnings = validateForCreate(ctx, obj, sctx);
  const warnings = [...ruleWarnings, ...(s.warnings?.(obj, undefined, sctx) ?? [])];
  trackUpdate(ctx, undefined, obj, opts, '', now);
  s.canonicalize?.(obj);
  return warnings;
}

export async function createObject(ctx: RegistryContext, namespace: string, input: KubeObject, opts: WriteOptions = {}): Promise<WriteResult> {
  const ns = requestNamespace(ctx, namespace);
  const generated = (input.metadata?.name ?? '') === '' && (input.metadata?.generateName ?? '') !== '';
  for (let attempt = 1; ; attempt++) {
    const obj = generated && attempt < MAX_GENERATE_NAME_ATTEMPTS ? jsonClone(input) : input;
    if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
    await opts.admission?.mutate(obj, undefined);
    const warnings = prepareCreate(ctx, obj, ns, opts);
    // The server's reservations for the object (WriteHooks): released again unless the object is stored.
    const finish = await ctx.writeHooks?.beginWrite(obj, undefined, strategyContext(ctx, ns, opts.dryRun === true, '', 'create', opts.requester));
    let committed = false;
    const name = obj.metadata.name ?? '';
    const key = ctx.keys.objectKey(ns, name);
    try {
      await opts.admission?.validate(obj, undefined);
      if (opts.dryRun === true) {
        const existing = await ctx.store.get(key);
        if (existing.kv !== undefined) throw alreadyExists(ctx.gr, name);
        // A converting kind still converts both ways (a failing conversion fails the dry run too).
        if (!ctx.shape.converts) return { object: obj, warnings };
        return { object: await ctx.shape.written(obj, await ctx.shape.encode(obj)), warnings };
      }
      const encoded = ctx.shape.encode(obj);
      const bytes = isPromise(encoded) ? await encoded : encoded;
      throwIfCancelled(opts.signal);
      const res = await ctx.store.create(key, bytes, ctx.writeOptions);
      committed = true;
      ctx.cache?.noteWrite(key, res.revision, bytes);
      const written = ctx.shape.written(obj, bytes);
      const object = isPromise(written) ? await written : written;
      object.metadata.resourceVersion = String(res.revision);
      return { object, warnings };
    } catch (err) {
      const taken = isStorageError(err, 'AlreadyExists') || (err instanceof Error && (err as { reason?: string }).reason === 'AlreadyExists');
      if (taken && generated && attempt < MAX_GENERATE_NAME_ATTEMPTS) continue;
      throw storageToStatus(err, ctx.gr, name);
    } finally {
      await finish?.(committed);
    }
  }
}
