/**
 * create of a virtual kind (`KindStrategy.virtual`: the review APIs): the object is checked as any create
 * checks it, then the kind computes the answer; nothing is written. Order: apiVersion/kind -> namespace
 * match (filled from the URL, 400 when another) -> schema defaults -> prepareForCreate (the reviews drop a
 * `status` sent in: it is output only) -> schema validation and the kind's `validate` (422) -> `virtual.create`. No system fields, managedFields or store: kube's reviews are REST
 * storages of their own that answer the decoded object.
 */
import type { KubeObject } from '../../api/object.js';
import { invalid } from '../../errors/constructors.js';
import { applyDefaults } from '../../schema/defaults.js';
import { validateValue } from '../../schema/validate.js';
import { toCauses } from '../../validation/field-error.js';
import type { UserInfo } from '../../auth/user-info.js';
import type { ServerServices, VirtualContext } from '../kind-strategy.js';
import { ensureNamespace } from './object-checks.js';
import { requestNamespace, stampTypeMeta, strategyContext, type RegistryContext } from './registry-context.js';

export interface VirtualCreateOptions {
  readonly dryRun?: boolean;
  readonly user: UserInfo | undefined;
  readonly services: ServerServices;
  /** Lookup of other served resources' registries (VirtualContext.registry). */
  readonly registry?: VirtualContext['registry'];
}

/** Runs the virtual create of `obj` (owned, changed in place) and returns the kind's answer. */
export async function createVirtual(ctx: RegistryContext, namespace: string, obj: KubeObject, opts: VirtualCreateOptions): Promise<KubeObject> {
  const s = ctx.strategy;
  if (s.virtual === undefined) throw new Error(`${s.kind} is not a virtual kind`);
  const ns = requestNamespace(ctx, namespace);
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  stampTypeMeta(ctx, obj);
  ensureNamespace(ctx, obj, ns);
  const sctx = strategyContext(ctx, ns, opts.dryRun === true, '', 'create');
  applyDefaults(obj, s.schema);
  s.prepareForCreate?.(obj, sctx);
  const errs = validateValue(obj, s.schema, undefined, { style: ctx.validationStyle });
  if (s.validate !== undefined) errs.push(...s.validate(obj, sctx));
  if (errs.length > 0) throw invalid(ctx.gk, obj.metadata.name ?? '', toCauses(errs));
  const vctx: VirtualContext = { ...sctx, user: opts.user, services: opts.services, ...(opts.registry === undefined ? {} : { registry: opts.registry }) };
  const answer = await s.virtual.create(obj, vctx);
  // A kind may answer with a Status (the legacy `bindings`, as kube's BindingREST); it keeps its own type.
  if (answer.kind !== 'Status') stampTypeMeta(ctx, answer);
  return answer;
}
