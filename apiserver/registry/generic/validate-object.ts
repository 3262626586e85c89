/**
 * The validation step of create and update, in the KindStrategy order: the schema, then ObjectMeta, then
 * the schema's CEL rules (skipped with one cause when the errors so far block them; ratcheted on updates,
 * schema/validate-rules.ts), then the kind's own hooks; any error is 422 `invalid(gk, name, causes)`
 * listing them all. Each step returns the rules' ratcheting warnings.
 *
 * Updates of custom resources (`validationStyle` `crd`) ratchet schema errors too (schema/ratcheting.ts,
 * CRDValidationRatcheting): an invalid value unchanged from the old object does not fail the update, as
 * Kubernetes does for custom resources only; built-in kinds validate in full.
 */
import type { KubeObject } from '../../api/object.js';
import { invalid } from '../../errors/constructors.js';
import { validateValueUpdate } from '../../schema/ratcheting.js';
import { validateValue } from '../../schema/validate.js';
import { validateRulesAfter } from '../../schema/validate-rules.js';
import { toCauses, type FieldError } from '../../validation/field-error.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../validation/object-meta.js';
import type { StrategyContext } from '../kind-strategy.js';
import { decodeError } from './decode-errors.js';
import type { RegistryContext } from './registry-context.js';

/**
 * Schema errors; on an update of a custom resource, ratcheted against `old`. A wrongly typed value of a
 * built-in kind is a decoding error in Kubernetes: thrown here as its 400 (decode-errors.ts).
 */
function schemaErrors(ctx: RegistryContext, obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  const errs = ctx.validationStyle === 'crd' && old !== undefined
    ? validateValueUpdate(obj, old, ctx.strategy.schema, { style: ctx.validationStyle }).errors
    : validateValue(obj, ctx.strategy.schema, undefined, { style: ctx.validationStyle });
  if (errs.length > 0) {
    // ObjectMeta is a typed struct for custom resources too (Kubernetes decodes their metadata into it), and
    // the ObjectMeta rules below read its members as typed: a mistyped member is the decoding error.
    const decoding = decodeError(ctx.gk, ctx.strategy.version, ctx.strategy.schema,
      ctx.validationStyle === 'builtin' ? errs : errs.filter(isMetadataError));
    if (decoding !== undefined) throw decoding;
  }
  return errs;
}

const isMetadataError = (e: FieldError): boolean => e.field === 'metadata' || e.field.startsWith('metadata.');

/**
 * Whether a schema error is one ObjectMeta validation makes itself, in Kubernetes' words: the members an
 * owner reference requires and its `uid` key. Kubernetes never checks ObjectMeta against a schema, so an
 * owner reference without a uid gets only `metadata.ownerReferences.uid: Invalid value: "": uid must not be
 * empty`, not the schema's `Required value` besides it.
 */
const ownedByObjectMeta = (e: FieldError): boolean =>
  e.field.startsWith('metadata.ownerReferences[') && (e.type === 'FieldValueRequired' || e.type === 'FieldValueDuplicate');

function schemaAndMeta(ctx: RegistryContext, obj: KubeObject, namespace: string, old?: KubeObject): FieldError[] {
  const errs = schemaErrors(ctx, obj, old).filter((e) => !ownedByObjectMeta(e));
  errs.push(
    ...validateObjectMeta(obj.metadata, {
      namespaced: ctx.strategy.namespaced,
      nameRule: ctx.strategy.nameRule ?? 'dns-subdomain',
      ...(ctx.strategy.namespaced ? { requestNamespace: namespace } : {}),
    }),
  );
  return errs;
}

function raise(ctx: RegistryContext, obj: KubeObject, errs: readonly FieldError[]): void {
  if (errs.length > 0) throw invalid(ctx.gk, obj.metadata.name ?? '', toCauses(errs));
}

export function validateForCreate(ctx: RegistryContext, obj: KubeObject, sctx: StrategyContext): readonly string[] {
  const errs = schemaAndMeta(ctx, obj, sctx.namespace);
  const warnings = validateRulesAfter(errs, obj, ctx.strategy.schema);
  if (ctx.strategy.validate !== undefined) errs.push(...ctx.strategy.validate(obj, sctx));
  raise(ctx, obj, errs);
  return warnings;
}

export function validateForUpdate(ctx: RegistryContext, obj: KubeObject, old: KubeObject, sctx: StrategyContext): readonly string[] {
  const errs = schemaAndMeta(ctx, obj, sctx.namespace, old);
  errs.push(...validateObjectMetaUpdate(obj.metadata, old.metadata));
  const warnings = validateRulesAfter(errs, obj, ctx.strategy.schema, { old });
  if (ctx.strategy.validate !== undefined) errs.push(...ctx.strategy.validate(obj, sctx));
  if (ctx.strategy.validateUpdate !== undefined) errs.push(...ctx.strategy.validateUpdate(obj, old, sctx));
  raise(ctx, obj, errs);
  return warnings;
}

export function validateForStatusUpdate(ctx: RegistryContext, obj: KubeObject, old: KubeObject, sctx: StrategyContext): readonly string[] {
  const errs = schemaErrors(ctx, obj, old);
  const warnings = validateRulesAfter(errs, obj, ctx.strategy.schema, { old });
  if (ctx.strategy.validateStatusUpdate !== undefined) errs.push(...ctx.strategy.validateStatusUpdate(obj, old, sctx));
  raise(ctx, obj, errs);
  return warnings;
}
