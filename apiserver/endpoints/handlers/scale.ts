/**
 * `<resource>/<name>/scale` of a kind that declares it (`KindStrategy.scale`, registry/scale-subresource.ts):
 * get, update (PUT) and patch of an autoscaling/v1 Scale, as Kubernetes' ScaleREST serves them. The
 * request and response bodies are Scales (JSON, YAML, protobuf, CBOR behind its gate), negotiated by the
 * router before anything runs; the object read and written is the parent, through its generic registry:
 *
 * - get: the parent (404 when missing) as a Scale; a parent without a value at `specReplicasPath` is 500
 *   `the spec replicas field ".spec.replicas" does not exist`, as upstream;
 * - update: the body is decoded as a Scale (kind and apiVersion checked, unknown fields per
 *   `fieldValidation`, its name must be the URL's), its `spec.replicas` (0 when absent, as Go decodes it)
 *   is written into the parent, its resourceVersion (when set) is the precondition (409), and the parent's
 *   update pipeline runs (validation: a negative count is the custom resource's 422
 *   `.spec.replicas: Invalid value: -1: should be a non-negative integer`);
 * - patch: JSON patch, merge patch, strategic merge patch (when the parent takes it: built-in kinds, not
 *   custom resources, which answer 415 as upstream), apply (YAML, CBOR behind its gate) — applied to the
 *   current Scale inside the registry's retry loop. A parent without spec replicas patches a Scale whose
 *   `spec.replicas` is a marker: a patch that leaves it is 400 `the spec replicas field ".spec.replicas"
 *   cannot be empty`.
 *
 * Every write answers 200 with the new Scale (the would-be one under `dryRun=All`, nothing stored).
 * managedFields: updates and patches record an Update of the writer on the PARENT with sub-resource
 * `scale` (the generic update's bookkeeping: the writer gains the replicas field, other managers lose it);
 * apply moves ownership through the Scale as Kubernetes' ScaleHandler does (registry/scale-managed-fields.ts).
 */
import type { KubeObject } from '../../api/object.js';
import { requesterOf } from '../../authorization/access.js';
import { decodeCborObject } from '../../codec/cbor/decode.js';
import { requestContentType, type BodyFormat } from '../../codec/request-content-type.js';
import { badRequest, internalError, invalid } from '../../errors/constructors.js';
import { checkIfMatch } from '../../registry/generic/apply.js';
import { DEFAULT_FIELD_MANAGER } from '../../registry/generic/managed-fields.js';
import type { UpdateResult } from '../../registry/generic/options.js';
import { checkApplyConfig } from '../../registry/fieldmanager/apply-config.js';
import { applyToObject } from '../../registry/fieldmanager/field-manager.js';
import { groupOf } from '../../registry/kind-strategy.js';
import { scaleKind } from '../../registry/kinds/autoscaling/scale.js';
import { applyJsonPatch } from '../../registry/patch/json-patch.js';
import { jsonClone } from '../../registry/patch/json-value.js';
import { applyMergePatch } from '../../registry/patch/merge-patch.js';
import { applyStrategicMergePatch } from '../../registry/patch/strategic-merge/strategic-merge-patch.js';
import { decodeStrategicMergeResult } from '../../registry/patch/strategic-merge/strict-decode.js';
import { toParentManagedFields, toScaleManagedFields } from '../../registry/scale-managed-fields.js';
import { writeAdmissionOf } from './admission.js';
import { readScale, scaleObject, ScalePathError, setNested, type ScaleSubresource } from '../../registry/scale-subresource.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import { parseWriteOptions, type WriteOptions, type WriteOptionsKind } from '../../request/query.js';
import { decodeParsed } from '../../schema/decode.js';
import { applyDefaults } from '../../schema/defaults.js';
import { parseJsonStrict } from '../../schema/json-strict.js';
import { duplicateFieldMessage } from '../../schema/unknown-fields.js';
import { validateValue } from '../../schema/validate.js';
import { maxRequestBodyBytes } from '../../request/limits.js';
import { toCauses } from '../../validation/field-error.js';
import type { ServedResource } from '../../registry/served-resources.js';
import { ifMatchOf, parseApplyYaml } from './apply-patch.js';
import { decodeRequestObject } from './decode-object.js';
import { fieldManagerOf } from './field-manager.js';
import { readBodyBytes } from './read-body.js';
import type { RequestScope } from './request-scope.js';
import { addWarnings, respond } from './respond.js';

/** The verbs of a scale sub-resource. */
export const scaleVerbs: ReadonlySet<string> = new Set(['get', 'update', 'patch']);

/** Go's smallest int32: upstream's marker for "the parent has no spec replicas" in a patched Scale. */
const NO_SPEC_REPLICAS = -2147483648;

const PATCH_FORMATS: readonly BodyFormat[] = ['json-patch', 'merge-patch', 'strategic-merge-patch', 'apply-patch-yaml'];

/**
 * The scope of a request as a Scale: decoding, negotiation and encoding use the Scale kind (its protobuf
 * field numbers); the registry stays the parent's.
 */
export function scaleScope(scope: RequestScope): RequestScope {
  const served: ServedResource = { ...scope.served, strategy: scaleKind, group: groupOf(scaleKind, scope.naming) };
  return { ...scope, served };
}

export async function handleScale(parentScope: RequestScope, sub: ScaleSubresource): Promise<void> {
  const verb = parentScope.info.verb;
  if (verb === 'get') return getScale(parentScope, sub);
  if (verb === 'update') return updateScale(parentScope, sub);
  return patchScale(parentScope, sub);
}

/** The Scale of a parent object; 500 as upstream for a parent whose replicas cannot be read. */
function scaleOf(parent: KubeObject, sub: ScaleSubresource, requireSpec: boolean): KubeObject {
  let values;
  try {
    values = readScale(parent, sub);
  } catch (err) {
    if (err instanceof ScalePathError) throw internalError(err.message);
    throw err;
  }
  if (requireSpec && values.specReplicas === undefined) throw internalError(`the spec replicas field ${JSON.stringify(sub.specReplicasPath)} does not exist`);
  return scaleObject(parent, values, values.specReplicas ?? NO_SPEC_REPLICAS);
}

async function getScale(parentScope: RequestScope, sub: ScaleSubresource): Promise<void> {
  const { info, served, query } = parentScope;
  const parent = await served.registry.get(info.namespace, info.name, { resourceVersion: query.get('resourceVersion') ?? '' });
  await respond(scaleScope(parentScope), 200, { type: 'object', object: scaleOf(parent, sub, true) });
}

/**
 * The parent `current` (a fresh copy, owned) with the replicas of `scale` written in, and the Scale's
 * resourceVersion as the update's precondition. Throws upstream's 400 for the missing-replicas marker,
 * the kind's Scale checks as a 422 on kind Scale, and a Scale that breaks its schema as 422.
 */
function writeReplicas(current: KubeObject, scale: KubeObject, sub: ScaleSubresource, name: string, style: 'crd' | 'builtin'): KubeObject {
  // Go decodes absent fields as zeros: defaults first, so only wrong values fail.
  const checked = jsonClone(scale);
  applyDefaults(checked, scaleKind.schema);
  const errs = validateValue(checked, scaleKind.schema, undefined, { style });
  const own = sub.validateScale?.(scale) ?? [];
  if (errs.length + own.length > 0) throw invalid({ group: scaleKind.group, kind: scaleKind.kind }, name, toCauses([...errs, ...own]));
  const spec = (scale.spec ?? {}) as { replicas?: unknown };
  const replicas = typeof spec.replicas === 'number' ? spec.replicas : 0;
  if (replicas === NO_SPEC_REPLICAS) throw badRequest(`the spec replicas field ${JSON.stringify(sub.specReplicasPath)} cannot be empty`);
  try {
    setNested(current as Record<string, unknown>, sub.specReplicasPath, replicas);
  } catch (err) {
    if (err instanceof ScalePathError) throw internalError(err.message);
    throw err;
  }
  const rv = scale.metadata?.resourceVersion;
  if (typeof rv === 'string' && rv !== '') current.metadata.resourceVersion = rv;
  return current;
}

/** Answers a write with the Scale of the written (or, for dryRun, would-be) parent. */
async function answer(parentScope: RequestScope, sub: ScaleSubresource, result: UpdateResult, warnings: readonly string[]): Promise<void> {
  let values;
  try {
    values = readScale(result.object, sub);
  } catch (err) {
    if (err instanceof ScalePathError) throw badRequest(err.message);
    throw err;
  }
  const scope = scaleScope(parentScope);
  addWarnings(scope, [...warnings, ...result.warnings]);
  await respond(scope, 200, { type: 'object', object: scaleObject(result.object, values) });
}

function writeOptions(scope: RequestScope, options: WriteOptions, sub: ScaleSubresource, kind: WriteOptionsKind) {
  // Admitted as Kubernetes admits scale writes: the Scale (autoscaling/v1) under the parent's resource.
  const view = { kind: { group: scaleKind.group, version: scaleKind.version, kind: scaleKind.kind }, object: (parent: KubeObject) => scaleOf(parent, sub, false) };
  return {
    dryRun: options.dryRun,
    fieldManager: fieldManagerOf(scope, options.fieldManager),
    subresource: 'scale' as const,
    requester: requesterOf(scope.ctx.state),
    admission: writeAdmissionOf(scope, kind, options, view),
    signal: scope.ctx.state.signal,
  };
}

async function updateScale(parentScope: RequestScope, sub: ScaleSubresource): Promise<void> {
  const { info, served } = parentScope;
  const options = parseWriteOptions(parentScope.query, 'UpdateOptions');
  const { object: scale, warnings } = await decodeRequestObject(scaleScope(parentScope), options.fieldValidation);
  const bodyName = scale.metadata.name;
  if (bodyName !== undefined && bodyName !== '' && bodyName !== info.name) {
    throw badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${info.name})`);
  }
  const style = served.registry.context.validationStyle;
  const result = await served.registry.patch(info.namespace, info.name, (current) => writeReplicas(current, scale, sub, info.name, style), writeOptions(parentScope, options, sub, 'UpdateOptions'));
  await answer(parentScope, sub, result, warnings);
}

async function patchScale(parentScope: RequestScope, sub: ScaleSubresource): Promise<void> {
  const { info, served } = parentScope;
  const cbor = parentScope.features.enabled('CBORServingAndStorage');
  const all = cbor ? [...PATCH_FORMATS, 'apply-patch-cbor' as const] : PATCH_FORMATS;
  // Custom resources take no strategic merge patch on any endpoint (415), built-in kinds on every one.
  const accepted = served.strategy.strategicMergePatch === false ? all.filter((f) => f !== 'strategic-merge-patch') : all;
  const format = requestContentType(parentScope.ctx.get('Content-Type') || undefined, accepted, parentScope.naming);
  const isApply = format === 'apply-patch-yaml' || format === 'apply-patch-cbor';
  const options = parseWriteOptions(parentScope.query, 'PatchOptions', isApply);
  const bytes = await readBodyBytes(parentScope.ctx, maxRequestBodyBytes);
  if (bytes.length === 0 || (format !== 'apply-patch-cbor' && bytes.toString('utf8').trim() === '')) throw badRequest('the body of the request was empty');
  if (isApply) {
    const parsed = format === 'apply-patch-cbor' ? decodeCborObject(bytes, scaleKind.schema) : parseApplyYaml(bytes.toString('utf8'), options);
    return applyScale(parentScope, sub, parsed, options);
  }
  const strategic = format === 'strategic-merge-patch';
  const { value: patch, duplicateFields } = parseJsonStrict(bytes.toString('utf8'), strategic && options.fieldValidation !== 'Ignore');
  if (format === 'merge-patch' && (patch === null || typeof patch !== 'object' || Array.isArray(patch))) {
    throw badRequest('the patch must be a JSON object for application/merge-patch+json');
  }
  const ifMatch = ifMatchOf(parentScope);
  const style = served.registry.context.validationStyle;
  let warnings: string[] = [];
  const apply = (current: KubeObject): KubeObject => {
    checkIfMatch(served.registry.context, info.name, ifMatch, current);
    const before = scaleOf(current, sub, false);
    const smpPatch = strategic ? jsonClone(patch) : undefined;
    const patched =
      format === 'json-patch' ? applyJsonPatch(before, patch)
        : smpPatch !== undefined ? applyStrategicMergePatch(before, smpPatch, scaleKind.schema)
          : applyMergePatch(before, patch);
    if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) throw badRequest('the patched object must be a JSON object');
    const decoded = smpPatch !== undefined
      ? decodeStrategicMergeResult(patched, smpPatch, duplicateFields, scaleKind.schema, options.fieldValidation)
      : decodeParsed(patched, [], scaleKind.schema, options.fieldValidation);
    warnings = decoded.warnings;
    return writeReplicas(current, decoded.object as KubeObject, sub, info.name, style);
  };
  const result = await served.registry.patch(info.namespace, info.name, apply, writeOptions(parentScope, options, sub, 'PatchOptions'));
  await answer(parentScope, sub, result, warnings);
}

/**
 * Server-side apply of a Scale: the configuration is applied to the current Scale with the parent's
 * replicas owners as its managers (conflicts 409 unless `force`), then the replicas and the managers go
 * back onto the parent, whose update pipeline runs without recording another entry.
 */
async function applyScale(parentScope: RequestScope, sub: ScaleSubresource, parsed: { value: unknown; duplicateFields: readonly string[] }, options: WriteOptions): Promise<void> {
  const { info, served } = parentScope;
  const messages = parsed.duplicateFields.map(duplicateFieldMessage);
  if (messages.length > 0 && options.fieldValidation === 'Strict') throw badRequest(`error strict decoding YAML: ${messages.join(', ')}`);
  const ctx = served.registry.context;
  const config = checkApplyConfig(parsed.value, {
    apiVersion: `${scaleKind.group}/${scaleKind.version}`, kind: scaleKind.kind, schema: scaleKind.schema, namespace: info.namespace, name: info.name,
  });
  const ifMatch = ifMatchOf(parentScope);
  const opts = writeOptions(parentScope, options, sub, 'PatchOptions');
  const apply = (current: KubeObject): KubeObject => {
    checkIfMatch(ctx, info.name, ifMatch, current);
    const live = scaleOf(current, sub, false);
    const owners = toScaleManagedFields(current, sub.specReplicasPath);
    if (owners !== undefined) live.metadata.managedFields = owners;
    const { object } = applyToObject(live, config, {
      manager: opts.fieldManager ?? DEFAULT_FIELD_MANAGER,
      apiVersion: `${scaleKind.group}/${scaleKind.version}`,
      subresource: 'scale',
      time: rfc3339(ctx.now()),
      scope: 'all',
      schema: scaleKind.schema,
    }, options.force === true);
    const parentOwners = toParentManagedFields(current.metadata.managedFields, object.metadata?.managedFields, sub.specReplicasPath, ctx.apiVersion);
    const next = writeReplicas(current, object, sub, info.name, ctx.validationStyle);
    if (parentOwners === undefined) delete next.metadata.managedFields;
    else next.metadata.managedFields = parentOwners;
    return next;
  };
  const result = await served.registry.patch(info.namespace, info.name, apply, { ...opts, applied: true });
  await answer(parentScope, sub, result, messages);
}
