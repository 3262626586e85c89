/**
 * Namespace (core/v1): cluster-scoped, named by DNS labels. On create the phase is `Active` and the
 * `kubernetes` finalizer is ensured; the main endpoint never changes `spec.finalizers` or `status` (the
 * namespace lifecycle controller sets `Terminating` and empties the finalizers, the latter through the
 * `finalize` sub-resource, which is not served yet). The `<legacy domain>/metadata.name` label always
 * equals the name, so label selectors can pick namespaces by name.
 */
import type { KubeObject, Verb } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { invalidValue, type FieldError } from '../../../validation/field-error.js';
import { isQualifiedName } from '../../../validation/names.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { legacyKey } from '../shared/legacy-domain.js';
import { keyedList, obj, requiredStr, str, stringList, struct, time } from '../shared/schema-builders.js';
import { ageCell, ageColumn, column, nameCell, nameColumn, table } from '../shared/table.js';

export const NAMESPACE_ACTIVE = 'Active';
export const NAMESPACE_TERMINATING = 'Terminating';
/** The finalizer the namespace lifecycle controller owns. */
export const FINALIZER_KUBERNETES = 'kubernetes';

/** Finalizer names that need no domain prefix. */
const STANDARD_FINALIZERS = new Set([FINALIZER_KUBERNETES, 'orphan', 'foregroundDeletion']);

const conditionSchema = obj(
  'The state of one aspect of a namespace at a point in time.',
  {
    lastTransitionTime: time('Last time the condition changed from one status to another.'),
    message: str('Human-readable details about the last transition.'),
    reason: str('Machine-readable, CamelCase reason for the last transition.'),
    status: requiredStr('Status of the condition: True, False or Unknown.'),
    type: requiredStr('Type of the condition, e.g. NamespaceDeletionContentFailure.'),
  },
  ['type', 'status'],
  // Field 3 is unused in Kubernetes.
  { protobuf: { type: 1, status: 2, lastTransitionTime: 4, reason: 5, message: 6 } },
);

const schema = kindSchema('Namespace provides a scope for names. Names of namespaced objects are unique within a namespace.', {
  spec: struct(
    obj('The attributes of a namespace.', {
      finalizers: stringList(
        'Must be empty before the namespace is removed from storage. Changed only through the finalize sub-resource. On create, "kubernetes" is always added.',
      ),
    }, undefined, { protobuf: { finalizers: 1 } }),
    'The behavior of the namespace.',
  ),
  status: struct(
    obj('The observed state of a namespace.', {
      conditions: keyedList(conditionSchema, 'The latest available observations of the namespace state.', ['type']),
      phase: str('The current lifecycle phase of the namespace: Active, or Terminating once deletion was requested.', {
        enum: [NAMESPACE_ACTIVE, NAMESPACE_TERMINATING],
      }),
    }, undefined, { protobuf: { phase: 1, conditions: 2 } }),
    'The current status of the namespace, set by the system. Read-only on the main resource.',
  ),
}, undefined, { spec: 2, status: 3 });

const record = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** The namespace's own `spec`, created when absent. */
function specOf(ns: KubeObject): Record<string, unknown> {
  let spec = record(ns.spec);
  if (spec === undefined) ns.spec = spec = {};
  return spec;
}

function phaseOf(ns: KubeObject): string {
  const phase = record(ns.status)?.phase;
  return typeof phase === 'string' ? phase : '';
}

/** The name label (Canonicalize upstream); skipped while the name is still to be generated. */
function labelName(ns: KubeObject, ctx: StrategyContext): void {
  const name = ns.metadata.name;
  if (name === undefined || name === '') return;
  ns.metadata.labels = { ...ns.metadata.labels, [legacyKey(ctx.naming, 'metadata.name')]: name };
}

function validateFinalizer(name: string, errs: FieldError[]): void {
  for (const msg of isQualifiedName(name)) errs.push(invalidValue('spec.finalizers', name, msg));
  if (!name.includes('/') && !STANDARD_FINALIZERS.has(name)) {
    errs.push(invalidValue('spec.finalizers', name, 'name is neither a standard finalizer name nor is it fully qualified'));
  }
}

const VERBS: readonly Verb[] = Object.freeze(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] as Verb[]);

export const namespaces = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  resource: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  shortNames: Object.freeze(['ns']),
  // Kubernetes serves no deletecollection on namespaces.
  verbs: VERBS,
  subresources: Object.freeze(['status'] as const),
  nameRule: 'dns-label',
  deleteReturnsObject: false,
  schema,
  table: table(
    [nameColumn, column('Status', 'string', 'The status of the namespace.'), ageColumn],
    (ns, now) => [nameCell(ns), phaseOf(ns), ageCell(ns, now)],
  ),
  selectableFields: Object.freeze({
    'status.phase': phaseOf,
    // Kept by Kubernetes for backward compatibility.
    name: (ns: KubeObject) => ns.metadata.name ?? '',
  }),

  /** A namespace is not removed at once: it turns Terminating until its content is gone (controllers/namespace). */
  markForDeletion(ns: KubeObject): boolean {
    ns.status = { ...record(ns.status), phase: NAMESPACE_TERMINATING };
    const finalizers = record(ns.spec)?.finalizers;
    return Array.isArray(finalizers) && finalizers.length > 0;
  },

  prepareForCreate(ns: KubeObject, ctx: StrategyContext): void {
    ns.status = { phase: NAMESPACE_ACTIVE };
    const spec = specOf(ns);
    const finalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
    if (!finalizers.includes(FINALIZER_KUBERNETES)) spec.finalizers = [...finalizers, FINALIZER_KUBERNETES];
    labelName(ns, ctx);
  },

  prepareForUpdate(ns: KubeObject, old: KubeObject, ctx: StrategyContext): void {
    const oldFinalizers = record(old.spec)?.finalizers;
    const spec = specOf(ns);
    // Copies: `old` may be shared with the store's cache, and later hooks may change `ns`.
    if (oldFinalizers === undefined) delete spec.finalizers;
    else spec.finalizers = structuredClone(oldFinalizers);
    if (old.status === undefined) delete ns.status;
    else ns.status = structuredClone(old.status);
    labelName(ns, ctx);
  },

  validate(ns: KubeObject): FieldError[] {
    const errs: FieldError[] = [];
    const finalizers = record(ns.spec)?.finalizers;
    if (Array.isArray(finalizers)) for (const f of finalizers) if (typeof f === 'string') validateFinalizer(f, errs);
    return errs;
  },

  validateStatusUpdate(ns: KubeObject): FieldError[] {
    const phase = phaseOf(ns);
    if (ns.metadata.deletionTimestamp === undefined || ns.metadata.deletionTimestamp === '') {
      return phase === NAMESPACE_ACTIVE ? [] : [invalidValue('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
    }
    return phase === NAMESPACE_TERMINATING ? [] : [invalidValue('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  },
} satisfies KindStrategy);
