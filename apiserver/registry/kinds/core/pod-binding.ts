/**
 * `pods/<name>/binding`: a scheduler binds a pod to a node by POSTing a core/v1 Binding, as kube 1.32's
 * BindingREST answers it (create only, a connect-like sub-resource: registry/connect-subresource.ts):
 *
 * - the Binding's `metadata.name` must be the pod's (400 `name in URL does not match name in Binding
 *   object`); `target.kind` is empty or `Node`, `target.name` is required (kube answers these with a 500
 *   from an aggregate error; here they are 422 with the causes, since bad input is never a 5xx);
 * - the Binding's `metadata.uid` / `resourceVersion`, when given, are preconditions on the pod (409);
 * - the pod must exist (404), not be being deleted, not be bound already and have no scheduling gates
 *   (409 `Operation cannot be fulfilled on pods/binding "<name>": ...` with kube's reasons);
 * - the write sets `spec.nodeName`, merges the Binding's annotations into the pod's and sets the
 *   `PodScheduled` condition True (its lastTransitionTime kept when it was True already). It bypasses the
 *   pod's update validation (spec.nodeName is otherwise immutable), as kube writes storage directly.
 * The answer is a Success Status, 201. Dry runs check everything and write nothing. The legacy
 * `bindings` resource (`legacyBindings`, a virtual kind) does the same for the pod its body names.
 */
import type { KubeObject } from '../../../api/object.js';
import { badRequest, conflict, invalid, notFound } from '../../../errors/constructors.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { notSupported, required, toCauses, type FieldError } from '../../../validation/field-error.js';
import type { ConnectContext, ConnectSubresource } from '../../connect-subresource.js';
import { guaranteedUpdate } from '../../generic/guaranteed-update.js';
import { checkUid } from '../../generic/object-checks.js';
import { rfc3339 } from '../../generic/system-fields.js';
import type { GenericRegistry } from '../../generic/generic-registry.js';
import type { KindStrategy, VirtualContext } from '../../kind-strategy.js';
import { struct } from '../shared/schema-builders.js';
import { eventReferenceSchema } from './event-schemas.js';

const schema = kindSchema(
  'Binding ties one object to another; for example, a pod is bound to a node by a scheduler.',
  { target: struct(eventReferenceSchema, 'The target object that you want to bind to the standard object.') },
  ['target'],
  { target: 2 },
);

/** The request kind of `pods/<name>/binding` (served on its own as the legacy `bindings`, below). */
export const bindings = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'Binding',
  resource: 'bindings',
  singular: 'binding',
  namespaced: true,
  verbs: Object.freeze(['create'] as const),
  schema,
} satisfies KindStrategy);

const BINDING_GR = { group: '', resource: 'pods/binding' };

export function validateBinding(binding: KubeObject): FieldError[] {
  const target = (binding.target ?? {}) as { kind?: string; name?: string };
  const errs: FieldError[] = [];
  if ((target.kind ?? '') !== '' && target.kind !== 'Node') errs.push(notSupported('target.kind', target.kind, ['Node', '<empty>']));
  if ((target.name ?? '') === '') errs.push(required('target.name', ''));
  return errs;
}

type Condition = { type?: string; status?: string; lastTransitionTime?: string; [k: string]: unknown };

/** kube's podutil.UpdatePodCondition for PodScheduled=True. */
function markScheduled(pod: KubeObject, now: Date): void {
  const status = (pod.status ??= {}) as { conditions?: Condition[] };
  const conditions = (status.conditions ??= []);
  const i = conditions.findIndex((c) => c.type === 'PodScheduled');
  const condition: Condition = { type: 'PodScheduled', status: 'True', lastTransitionTime: rfc3339(now) };
  if (i < 0) conditions.push(condition);
  else {
    if (conditions[i]!.status === 'True' && conditions[i]!.lastTransitionTime !== undefined) condition.lastTransitionTime = conditions[i]!.lastTransitionTime;
    conditions[i] = condition;
  }
}

/**
 * Binds pod `name` of `namespace` as the Binding says (the checks and the write described above) through
 * the pods' registry; answers kube's Success Status.
 */
async function bind(pods: GenericRegistry, namespace: string, name: string, binding: KubeObject, dryRun: boolean): Promise<KubeObject> {
  if ((binding.metadata.name ?? '') !== name) throw badRequest('name in URL does not match name in Binding object');
  const errs = validateBinding(binding);
  if (errs.length > 0) throw invalid({ group: '', kind: 'Binding' }, name, toCauses(errs));
  const node = (binding.target as { name: string }).name;
  const rctx = pods.context;
  const key = rctx.keys.objectKey(namespace, name);
  const { uid, resourceVersion } = binding.metadata;
  await guaranteedUpdate(rctx, key, name, dryRun, (pod) => {
    if (pod === undefined) throw notFound(rctx.gr, name);
    checkUid(rctx, name, uid, pod);
    if ((resourceVersion ?? '') !== '' && resourceVersion !== pod.metadata.resourceVersion) {
      throw conflict(rctx.gr, name, `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${pod.metadata.resourceVersion ?? ''}`);
    }
    const spec = (pod.spec ??= {}) as { nodeName?: string; schedulingGates?: unknown[] };
    if (pod.metadata.deletionTimestamp !== undefined) throw conflict(BINDING_GR, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    if ((spec.nodeName ?? '') !== '') throw conflict(BINDING_GR, name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
    if ((spec.schedulingGates ?? []).length > 0) throw conflict(BINDING_GR, name, `pod ${name} has non-empty .spec.schedulingGates`);
    spec.nodeName = node;
    const annotations = binding.metadata.annotations ?? {};
    if (Object.keys(annotations).length > 0) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...annotations };
    markScheduled(pod, rctx.now());
    return { type: 'write', obj: pod, warnings: [] };
  });
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } as unknown as KubeObject;
}

export const podBinding: ConnectSubresource = Object.freeze({
  name: 'binding',
  kind: bindings,
  verbs: Object.freeze(['create'] as const),

  create(name: string, binding: KubeObject, ctx: ConnectContext): Promise<KubeObject> {
    return bind(ctx.parent, ctx.namespace, name, binding, ctx.dryRun);
  },
});

/**
 * The legacy `bindings` resource (POST /api/v1/namespaces/{ns}/bindings, deprecated since 1.7 in favour of
 * pods/binding, still served by kube 1.32): create only, never stored; the pod is the Binding's
 * `metadata.name` (required here: 422), then exactly as pods/binding.
 */
export const legacyBindings = Object.freeze({
  ...bindings,
  virtual: Object.freeze({
    async create(binding: KubeObject, ctx: VirtualContext): Promise<KubeObject> {
      const name = binding.metadata.name ?? '';
      if (name === '') throw invalid({ group: '', kind: 'Binding' }, '', toCauses([required('metadata.name', 'name or generateName is required')]));
      const pods = ctx.registry?.('', 'v1', 'pods');
      if (pods === undefined) throw notFound({ group: '', resource: 'pods' }, name);
      return bind(pods, ctx.namespace, name, binding, ctx.dryRun);
    },
  }),
} satisfies KindStrategy);
