/**
 * The update pipeline run inside the guaranteed-update loop, for the main resource and for `/status`.
 *
 * Main resource, in the KindStrategy order: name/namespace agreement -> uid precondition -> pin uid,
 * creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds and generation -> keep the old `status`
 * when the kind has a status sub-resource -> defaults -> prepareForUpdate -> generation bump (tracksGeneration
 * and anything outside metadata and status changed) -> validate (schema, ObjectMeta, ObjectMeta update,
 * validate, validateUpdate) -> warnings -> managedFields -> canonicalize. An object being deleted whose
 * finalizers are now empty is deleted instead of written.
 *
 * Status: everything of the old object but `status` is kept (or the kind's prepareForStatusUpdate decides
 * instead) -> schema + validateStatusUpdate -> managedFields (subresource `status`) -> canonicalize.
 */
import type { KubeObject } from '../../api/object.js';
import { badRequest, conflict } from '../../errors/constructors.js';
import { applyDefaults } from '../../schema/defaults.js';
import { jsonClone, jsonEqual } from '../patch/json-value.js';
import type { UpdateOutcome } from './guaranteed-update.js';
import { trackUpdate } from './managed-fields.js';
import { checkUid, ensureName, ensureNamespace, omitEmptyMetadata } from './object-checks.js';
import type { UpdateOptions } from './options.js';
import { stampTypeMeta, strategyContext, type RegistryContext } from './registry-context.js';
import { parseResourceVersion } from './resource-version.js';
import { validateForStatusUpdate, validateForUpdate } from './validate-object.js';

/** 409 when the object names a resourceVersion other than the current one (optimistic lock). */
export function checkResourceVersion(ctx: RegistryContext, name: string, obj: KubeObject, current: KubeObject): void {
  const rv = obj.metadata.resourceVersion ?? '';
  if (rv === '') return;
  parseResourceVersion(rv);
  if (rv !== current.metadata.resourceVersion) throw conflict(ctx.gr, name);
}

/** True when anything outside metadata and status differs. */
function specChanged(a: KubeObject, b: KubeObject): boolean {
  const skip = (k: string): boolean => k === 'metadata' || k === 'status' || k === 'apiVersion' || k === 'kind';
  for (const k in a) if (!skip(k) && !jsonEqual(a[k], b[k])) return true;
  for (const k in b) if (!skip(k) && a[k] === undefined && b[k] !== undefined) return true;
  return false;
}

function setOrDelete(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined) delete obj[key];
  else obj[key] = value;
}

/** Pins what an update can never change. */
function pinSystemFields(obj: KubeObject, old: KubeObject): void {
  const m = obj.metadata as Record<string, unknown>;
  const o = old.metadata;
  setOrDelete(m, 'uid', o.uid);
  setOrDelete(m, 'creationTimestamp', o.creationTimestamp);
  setOrDelete(m, 'deletionTimestamp', o.deletionTimestamp);
  setOrDelete(m, 'deletionGracePeriodSeconds', o.deletionGracePeriodSeconds);
  setOrDelete(m, 'generation', o.generation);
  delete m.selfLink;
}

function common(ctx: RegistryContext, obj: KubeObject, old: KubeObject, namespace: string, name: string): void {
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  ensureName(obj, name);
  ensureNamespace(ctx, obj, namespace);
  omitEmptyMetadata(obj);
  checkUid(ctx, name, obj.metadata.uid, old);
  stampTypeMeta(ctx, obj);
}

/** Main-resource update of `old` (the current object) to `obj` (owned, changed in place). */
export function prepareUpdate(ctx: RegistryContext, obj: KubeObject, old: KubeObject, namespace: string, name: string, opts: UpdateOptions): UpdateOutcome {
  const s = ctx.strategy;
  common(ctx, obj, old, namespace, name);
  pinSystemFields(obj, old);
  if (ctx.hasStatus) setOrDelete(obj, 'status', old.status);
  // A write through `/scale` is a main-resource update; only its bookkeeping names the sub-resource.
  const via = opts.subresource === 'scale' ? 'scale' : '';
  const sctx = strategyContext(ctx, namespace, opts.dryRun === true, via, 'update', opts.requester);
  applyDefaults(obj, s.schema);
  s.admit?.(obj, old, sctx);
  s.prepareForUpdate?.(obj, old, sctx);
  if (s.tracksGeneration === true && specChanged(obj, old)) obj.metadata.generation = (old.metadata.generation ?? 0) + 1;
  // Ratcheted rule failures (unchanged invalid values) are warnings, as Kubernetes sends them.
  const ruleWarnings = validateForUpdate(ctx, obj, old, sctx);
  const warnings = [...ruleWarnings, ...(s.warnings?.(obj, old, sctx) ?? [])];
  trackUpdate(ctx, old, obj, opts, via);
  s.canonicalize?.(obj);
  obj.metadata.resourceVersion = old.metadata.resourceVersion;
  // kube's shouldDeleteDuringUpdate: only an object marked with no grace period left goes; a Pod whose
  // graceful deletion is pending (deletionGracePeriodSeconds > 0) stays until it is deleted again.
  if (obj.metadata.deletionTimestamp !== undefined && (obj.metadata.finalizers ?? []).length === 0 && (old.metadata.deletionGracePeriodSeconds ?? 0) === 0) {
    return { type: 'delete', obj, warnings };
  }
  return { type: 'write', obj, warnings };
}

/**
 * `/status` update of `old` with the status of `input` (owned); also `/approval` (KindStrategy.subresources),
 * which needs the kind's prepareForStatusUpdate to say what it writes (`ctx.subresource` tells them apart).
 */
export function prepareStatusUpdate(ctx: RegistryContext, input: KubeObject, old: KubeObject, namespace: string, name: string, opts: UpdateOptions): UpdateOutcome {
  const s = ctx.strategy;
  const sub = opts.subresource === 'approval' ? 'approval' : 'status';
  if (!(s.subresources ?? []).includes(sub) || (sub === 'approval' && s.prepareForStatusUpdate === undefined)) {
    throw badRequest(`the server does not serve the ${sub} sub-resource of ${ctx.gr.resource}`);
  }
  common(ctx, input, old, namespace, name);
  const sctx = strategyContext(ctx, namespace, opts.dryRun === true, sub, 'update', opts.requester);
  let obj: KubeObject;
  if (s.prepareForStatusUpdate !== undefined) {
    obj = input;
    pinSystemFields(obj, old);
    s.prepareForStatusUpdate(obj, old, sctx);
  } else {
    obj = jsonClone(old);
    setOrDelete(obj, 'status', input.status);
    setOrDelete(obj.metadata as Record<string, unknown>, 'managedFields', input.metadata.managedFields);
  }
  const warnings = validateForStatusUpdate(ctx, obj, old, sctx);
  trackUpdate(ctx, old, obj, opts, sub);
  s.canonicalize?.(obj);
  obj.metadata.resourceVersion = old.metadata.resourceVersion;
  return { type: 'write', obj, warnings };
}
