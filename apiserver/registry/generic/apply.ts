/**
 * Server-side apply through the generic registry, on the guaranteed-update loop: the configuration is
 * merged into the current object with the ownership rules of registry/fieldmanager (conflicts 409 unless
 * `force`, removal of what the applier stopped applying, shared ownership), then the result runs the
 * update pipeline — or the create pipeline when the object does not exist (`created: true`, 201; never
 * through `/status`, which is 404 then). The merge runs again on every retry.
 *
 * Preconditions: a `metadata.resourceVersion` in the configuration, or `ifMatch`, must be the current one
 * (409 with the optimistic-lock message, never retried); a `metadata.uid` must be the object's, and on a
 * create it is 409 `uid mismatch` (as Kubernetes). The merged object's name must be the URL's (400).
 */
import type { KubeObject } from '../../api/object.js';
import { badRequest, conflict, notFound } from '../../errors/constructors.js';
import { checkApplyConfig } from '../fieldmanager/apply-config.js';
import { applyToObject } from '../fieldmanager/field-manager.js';
import { writer } from './managed-fields.js';
import { guaranteedUpdate } from './guaranteed-update.js';
import type { UpdateOptions, UpdateResult } from './options.js';
import { admittedCreate, admittedUpdate } from './update.js';
import { requestNamespace, type RegistryContext } from './registry-context.js';
import { genericSubresourceOf } from '../kind-strategy.js';

export interface ApplyOptions extends UpdateOptions {
  /** `force=true`: take the conflicting fields from their managers. */
  readonly force?: boolean;
  /** `If-Match`: the resourceVersion the object must have (`*`: it must exist). */
  readonly ifMatch?: string;
}

/** 409 unless `ifMatch` names the current object. */
export function checkIfMatch(ctx: RegistryContext, name: string, ifMatch: string | undefined, current: KubeObject | undefined): void {
  if (ifMatch === undefined) return;
  if (current !== undefined && (ifMatch === '*' || ifMatch === current.metadata.resourceVersion)) return;
  throw conflict(ctx.gr, name);
}

export async function applyObject(ctx: RegistryContext, namespace: string, name: string, input: unknown, opts: ApplyOptions): Promise<UpdateResult> {
  const ns = requestNamespace(ctx, namespace);
  const key = ctx.keys.objectKey(ns, name);
  const unknownOf = ctx.strategy.unknownFields;
  const config = checkApplyConfig(input, {
    apiVersion: ctx.apiVersion,
    kind: ctx.strategy.kind,
    schema: ctx.strategy.schema,
    ...(unknownOf === undefined ? {} : { kindUnknown: (c: Record<string, unknown>) => unknownOf(c, ctx.naming) }),
    namespace: ns,
    name,
  });
  const sub = genericSubresourceOf(opts.subresource ?? '');
  const status = sub !== '';
  const stepOpts = { ...opts, applied: true };
  const res = await guaranteedUpdate(ctx, key, name, opts.dryRun === true, async (current) => {
    checkIfMatch(ctx, name, opts.ifMatch, current);
    if (current === undefined) {
      if (status) throw notFound(ctx.gr, name);
      const uid = config.metadata?.uid;
      if (typeof uid === 'string' && uid !== '') {
        throw conflict(ctx.gr, name, `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`);
      }
      const { object } = applyToObject(undefined, config, writer(ctx, opts, sub), opts.force === true);
      const have = object.metadata?.name ?? '';
      if (have !== name) throw badRequest(`the name of the object (${have}) does not match the name on the URL (${name})`);
      return admittedCreate(ctx, object, ns, stepOpts);
    }
    const { object } = applyToObject(current, config, writer(ctx, opts, sub), opts.force === true);
    return admittedUpdate(ctx, object, current, ns, name, stepOpts);
  }, opts.signal);
  return { object: res.object, created: res.outcome === 'create', warnings: res.warnings };
}
