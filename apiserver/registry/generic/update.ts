/**
 * update (PUT) and patch, both on the guaranteed-update loop.
 *
 * update: a `metadata.resourceVersion` in the body is a precondition (stale: 409 with kube's
 * optimistic-lock message, never retried); without one the update is unconditional and retried on store
 * conflicts. A missing object is created when the kind allows create-on-update (`created: true`, 201),
 * else 404. `subresource: 'status'` (or `approval`) updates only what that sub-resource owns.
 *
 * patch: `apply` receives a fresh copy of the current object (with its resourceVersion) and returns the
 * patched object; it runs again on every retry. A patch that changes `metadata.resourceVersion` made it a
 * precondition (409 when it is not the current one). A missing object is 404 (apply-create comes later).
 */
import type { KubeObject } from '../../api/object.js';
import { badRequest, notFound } from '../../errors/constructors.js';
import { isObject, jsonClone } from '../patch/json-value.js';
import { prepareCreate } from './create.js';
import { guaranteedUpdate, type UpdateOutcome } from './guaranteed-update.js';
import type { UpdateOptions, UpdateResult } from './options.js';
import { ensureName } from './object-checks.js';
import { checkResourceVersion, prepareStatusUpdate, prepareUpdate } from './prepare-update.js';
import { requestNamespace, strategyContext, type RegistryContext } from './registry-context.js';
import { genericSubresourceOf } from '../kind-strategy.js';

/** One attempt of an update of `current` to `obj` (owned): admission around the kind's update pipeline. */
export async function admittedUpdate(ctx: RegistryContext, obj: KubeObject, current: KubeObject, ns: string, name: string, opts: UpdateOptions): Promise<UpdateOutcome> {
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  checkResourceVersion(ctx, name, obj, current);
  await opts.admission?.mutate(obj, current);
  const sub = genericSubresourceOf(opts.subresource ?? '') !== '';
  const outcome = sub ? prepareStatusUpdate(ctx, obj, current, ns, name, opts) : prepareUpdate(ctx, obj, current, ns, name, opts);
  // The server's reservations (WriteHooks) for a main-resource write; the update loop finishes them.
  const finish = outcome.type === 'write' && !sub && ctx.writeHooks !== undefined
    ? await ctx.writeHooks.beginWrite(outcome.obj, current, strategyContext(ctx, ns, opts.dryRun === true, opts.subresource === 'scale' ? 'scale' : '', 'update', opts.requester))
    : undefined;
  try {
    if (opts.admission !== undefined && outcome.type !== 'unchanged') await opts.admission.validate(outcome.obj, current);
  } catch (err) {
    await finish?.(false);
    throw err;
  }
  return finish === undefined || outcome.type === 'unchanged' ? outcome : { ...outcome, finish };
}

/** A create through update (PUT that creates, apply that creates): admission around the create pipeline. */
export async function admittedCreate(ctx: RegistryContext, obj: KubeObject, ns: string, opts: UpdateOptions): Promise<UpdateOutcome> {
  await opts.admission?.mutate(obj, undefined);
  const warnings = prepareCreate(ctx, obj, ns, opts);
  const finish = await ctx.writeHooks?.beginWrite(obj, undefined, strategyContext(ctx, ns, opts.dryRun === true, '', 'create', opts.requester));
  try {
    await opts.admission?.validate(obj, undefined);
  } catch (err) {
    await finish?.(false);
    throw err;
  }
  return finish === undefined ? { type: 'create', obj, warnings } : { type: 'create', obj, warnings, finish };
}

export async function updateObject(ctx: RegistryContext, namespace: string, name: string, input: KubeObject, opts: UpdateOptions = {}): Promise<UpdateResult> {
  const ns = requestNamespace(ctx, namespace);
  const key = ctx.keys.objectKey(ns, name);
  const res = await guaranteedUpdate(ctx, key, name, opts.dryRun === true, (current) => {
    const obj = jsonClone(input);
    if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
    if (current === undefined) {
      if (ctx.strategy.allowCreateOnUpdate !== true || genericSubresourceOf(opts.subresource ?? '') !== '') throw notFound(ctx.gr, name);
      ensureName(obj, name);
      return admittedCreate(ctx, obj, ns, opts);
    }
    return admittedUpdate(ctx, obj, current, ns, name, opts);
  }, opts.signal);
  return { object: res.object, created: res.outcome === 'create', warnings: res.warnings };
}

export async function patchObject(
  ctx: RegistryContext,
  namespace: string,
  name: string,
  apply: (current: KubeObject) => KubeObject,
  opts: UpdateOptions = {},
): Promise<UpdateResult> {
  const ns = requestNamespace(ctx, namespace);
  const key = ctx.keys.objectKey(ns, name);
  const res = await guaranteedUpdate(ctx, key, name, opts.dryRun === true, (current) => {
    if (current === undefined) throw notFound(ctx.gr, name);
    const obj = apply(jsonClone(current));
    if (!isObject(obj)) throw badRequest('the patched object must be a JSON object');
    return admittedUpdate(ctx, obj, current, ns, name, opts);
  }, opts.signal);
  return { object: res.object, created: false, warnings: res.warnings };
}
