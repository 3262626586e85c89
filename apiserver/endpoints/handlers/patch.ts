/**
 * PATCH of an object or its status: JSON Patch (RFC 6902), JSON Merge Patch (RFC 7386) and strategic merge
 * patch (kinds whose strategy allows it: 415 otherwise, as upstream answers custom resources). The patch is
 * applied to the current object inside the registry's retry loop, so a concurrent writer is never lost;
 * the result is then decoded like a request body (unknown fields per `fieldValidation`, pruning).
 * Server-side apply (`application/apply-patch+yaml`) branches off to apply-patch.ts. Preconditions: a
 * `metadata.resourceVersion` the patch puts in the object, or an `If-Match` header, must be the current
 * resourceVersion (409 otherwise, never retried).
 */
import type { KubeObject } from '../../api/object.js';
import { requestContentType, type BodyFormat } from '../../codec/request-content-type.js';
import { badRequest } from '../../errors/constructors.js';
import { applyJsonPatch } from '../../registry/patch/json-patch.js';
import { applyMergePatch } from '../../registry/patch/merge-patch.js';
import { jsonClone } from '../../registry/patch/json-value.js';
import { applyStrategicMergePatch } from '../../registry/patch/strategic-merge/strategic-merge-patch.js';
import { decodeStrategicMergeResult } from '../../registry/patch/strategic-merge/strict-decode.js';
import { decodeParsed } from '../../schema/decode.js';
import { parseJsonStrict } from '../../schema/json-strict.js';
import { maxNestingDepth, maxRequestBodyBytes } from '../../request/limits.js';
import { valueDepthExceeds } from '../../codec/nesting-depth.js';
import { readBodyBytes } from './read-body.js';
import { decodeCborObject } from '../../codec/cbor/decode.js';
import type { RequestScope } from './request-scope.js';
import { addWarnings, respond } from './respond.js';
import { parseWriteOptions } from '../../request/query.js';
import { fieldManagerOf } from './field-manager.js';
import { requesterOf } from '../../authorization/access.js';
import { writeAdmissionOf } from './admission.js';
import { handleApplyPatch, ifMatchOf, parseApplyYaml } from './apply-patch.js';
import { checkIfMatch } from '../../registry/generic/apply.js';
import { genericSubresourceOf } from '../../registry/kind-strategy.js';

/** Upstream's order; `application/apply-patch+cbor` only with CBORServingAndStorage (no CBOR form of the others). */
const PATCH_FORMATS: readonly BodyFormat[] = ['json-patch', 'merge-patch', 'strategic-merge-patch', 'apply-patch-yaml'];
const PATCH_FORMATS_CBOR: readonly BodyFormat[] = [...PATCH_FORMATS, 'apply-patch-cbor'];

export async function handlePatch(scope: RequestScope): Promise<void> {
  const { info, served } = scope;
  const all = scope.features.enabled('CBORServingAndStorage') ? PATCH_FORMATS_CBOR : PATCH_FORMATS;
  const accepted = served.strategy.strategicMergePatch === false ? all.filter((f) => f !== 'strategic-merge-patch') : all;
  const format = requestContentType(scope.ctx.get('Content-Type') || undefined, accepted, scope.naming);
  const isApply = format === 'apply-patch-yaml' || format === 'apply-patch-cbor';
  const options = parseWriteOptions(scope.query, 'PatchOptions', isApply);
  const bytes = await readBodyBytes(scope.ctx, maxRequestBodyBytes);
  // The audit log's requestObject of a patch is the patch document itself (kube's LogRequestPatch).
  const audit = scope.ctx.state.audit;
  if (format === 'apply-patch-cbor') {
    if (bytes.length === 0) throw badRequest('the body of the request was empty');
    const applied = decodeCborObject(bytes, served.strategy.schema);
    audit?.requestPatch(applied.value);
    return handleApplyPatch(scope, applied, options);
  }
  const text = bytes.toString('utf8');
  if (text.trim() === '') throw badRequest('the body of the request was empty');
  if (format === 'apply-patch-yaml') {
    const applied = parseApplyYaml(text, options);
    audit?.requestPatch(applied.value);
    return handleApplyPatch(scope, applied, options);
  }
  const ifMatch = ifMatchOf(scope);
  const strategic = format === 'strategic-merge-patch';
  // Duplicate keys of a strategic patch are strict errors (upstream decodes it with UnmarshalStrict).
  const { value: patch, duplicateFields } = parseJsonStrict(text, strategic && options.fieldValidation !== 'Ignore');
  if (format === 'merge-patch' && (patch === null || typeof patch !== 'object' || Array.isArray(patch))) {
    throw badRequest('the patch must be a JSON object for application/merge-patch+json');
  }
  audit?.requestPatch(patch);
  const stacksSubtrees = format === 'json-patch' && Array.isArray(patch) && patch.some((op) => op?.op === 'copy' || op?.op === 'move');

  let warnings: string[] = [];
  const apply = (current: KubeObject): KubeObject => {
    checkIfMatch(served.registry.context, info.name, ifMatch, current);
    // the merge consumes its patch: a fresh copy on every attempt of the retry loop
    const smpPatch = strategic ? jsonClone(patch) : undefined;
    const patched =
      format === 'json-patch'
        ? applyJsonPatch(current, patch)
        : smpPatch !== undefined
          ? applyStrategicMergePatch(current, smpPatch, served.strategy.schema)
          : applyMergePatch(current, patch);
    if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) {
      throw badRequest('the patched object must be a JSON object');
    }
    // `copy` and `move` can stack subtrees deeper than any body may nest (codec/nesting-depth.ts).
    if (stacksSubtrees && valueDepthExceeds(patched, maxNestingDepth)) {
      throw badRequest(`the patched object exceeds the max depth of ${maxNestingDepth}`);
    }
    const kindUnknown = served.strategy.unknownFields?.(patched as Record<string, unknown>, scope.naming) ?? [];
    const decoded =
      smpPatch !== undefined
        ? decodeStrategicMergeResult(patched, smpPatch, duplicateFields, served.strategy.schema, options.fieldValidation, kindUnknown)
        : decodeParsed(patched, [], served.strategy.schema, options.fieldValidation, kindUnknown);
    warnings = decoded.warnings;
    return decoded.object as KubeObject;
  };
  const result = await served.registry.patch(info.namespace, info.name, apply, {
    dryRun: options.dryRun,
    fieldManager: fieldManagerOf(scope, options.fieldManager),
    subresource: genericSubresourceOf(info.subresource),
    requester: requesterOf(scope.ctx.state),
    admission: writeAdmissionOf(scope, 'PatchOptions', options),
    signal: scope.ctx.state.signal,
  });
  addWarnings(scope, [...warnings, ...result.warnings]);
  await respond(scope, result.created ? 201 : 200, { type: 'object', object: result.object });
}
