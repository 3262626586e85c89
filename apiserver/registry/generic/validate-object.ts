/**
 * The validation step of create and update, in the KindStrategy order: the schema, then ObjectMeta, then
 * the schema's CEL rules (skipped with one cause when the errors so far block them; ratcheted on updates,
 * schema/validate-rules.ts), then the kind's own hooks; any error is 422 `invalid(gk, name, causes)`
 * listing them all. Each step returns the rules' ratcheting warnings.
 */
import type { KubeObject } from '../../api/object.js';
import { invalid } from '../../errors/constructors.js';
import { validateValue } from '../../schema/validate.js';
import { validateRulesAfter } from '../../schema/validate-rules.js';
import { toCauses, type FieldError } from '../../validation/field-error.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../validation/object-meta.js';
import type { StrategyContext } from '../kind-strategy.js';
import type { RegistryContext } from './registry-context.js';

function schemaAndMeta(ctx: RegistryContext, obj: KubeObject, namespace: string): FieldError[] {
  const errs = validateValue(obj, ctx.strategy.schema, undefined, { style: ctx.validationStyle });
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
  const errs = schemaAndMeta(ctx, obj, sctx.namespace);
  errs.push(...validateObjectMetaUpdate(obj.metadata, old.metadata));
  const warnings = validateRulesAfter(errs, obj, ctx.strategy.schema, { old });
  if (ctx.strategy.validate !== undefined) errs.push(...ctx.strategy.validate(obj, sctx));
  if (ctx.strategy.validateUpdate !== undefined) errs.push(...ctx.strategy.validateUpdate(obj, old, sctx));
  raise(ctx, obj, errs);
  return warnings;
}

export function validateForStatusUpdate(ctx: RegistryContext, obj: KubeObject, old: KubeObject, sctx: StrategyContext): readonly string[] {
  const errs = validateValue(obj, ctx.strategy.schema, undefined, { style: ctx.validationStyle });
  const warnings = validateRulesAfter(errs, obj, ctx.strategy.schema, { old });
  if (ctx.strategy.validateStatusUpdate !== undefined) errs.push(...ctx.strategy.validateStatusUpdate(obj, old, sctx));
  raise(ctx, obj, errs);
  return warnings;
}
