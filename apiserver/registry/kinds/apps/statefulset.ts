/**
 * StatefulSet (`apps/v1`: Kubernetes' group in every domain mode, as document 2's kinds table names it):
 * a set of pods with stable identities. Namespaced, short name `sts`, category `all`, with `status` and
 * `scale` sub-resources. As Kubernetes v1.32's statefulSetStrategy: a create starts from an empty status
 * (`replicas: 0`, `availableReplicas: 0`, as Go writes them) and generation 1; the main resource keeps
 * the stored status and bumps the generation on any spec change (the registry's `tracksGeneration`);
 * `/status` keeps everything but the status. The name is a DNS label (pods are named `<name>-<ordinal>`).
 * Defaults: statefulset-defaults.ts; validation: statefulset-validation.ts; the Scale's selector is the
 * spec's selector in its string form. Delete answers a Status.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { labelSelectorText } from '../../../selectors/label-format.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import type { ScaleSubresource } from '../../scale-subresource.js';
import { isObject } from '../core/pod/json-values.js';
import { defaultStatefulSet } from './statefulset-defaults.js';
import { STATEFUL_SET_FIELDS, STATEFUL_SET_PROPERTIES } from './statefulset-schema.js';
import { statefulSetTable } from './statefulset-table.js';
import { validateStatefulSet, validateStatefulSetStatusUpdate, validateStatefulSetUpdate } from './statefulset-validation.js';
import { validateScaleReplicas } from './workload-scale.js';

const schema = kindSchema(
  'StatefulSet represents a set of pods with consistent identities: a single stable DNS name and host name each, and as many volume claims as requested. A given network identity always maps to the same storage identity.',
  STATEFUL_SET_PROPERTIES,
  undefined,
  STATEFUL_SET_FIELDS,
);

/** The Scale's `status.selector`: the spec's label selector as text ('' when it cannot be read). */
function selectorText(sts: KubeObject): string {
  try {
    return labelSelectorText(isObject(sts.spec) ? sts.spec.selector : undefined);
  } catch {
    return '';
  }
}

const scale = Object.freeze({
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  selector: selectorText,
  validateScale: validateScaleReplicas,
} satisfies ScaleSubresource);

/** The status a create starts from: Go's zero StatefulSetStatus as JSON (fields without omitempty). */
const emptyStatus = (): Record<string, unknown> => ({ replicas: 0, availableReplicas: 0 });

export const statefulSets = Object.freeze({
  group: 'apps',
  version: 'v1',
  kind: 'StatefulSet',
  resource: 'statefulsets',
  singular: 'statefulset',
  namespaced: true,
  shortNames: Object.freeze(['sts']),
  categories: Object.freeze(['all']),
  subresources: Object.freeze(['status'] as const),
  scale,
  schema,
  nameRule: 'dns-label',
  tracksGeneration: true,
  table: statefulSetTable,

  prepareForCreate(sts: KubeObject): void {
    sts.status = emptyStatus();
    defaultStatefulSet(sts);
  },

  // The registry keeps the stored status on main-resource updates (a kind with a status sub-resource).
  prepareForUpdate(sts: KubeObject, old: KubeObject): void {
    defaultStatefulSet(sts, old);
  },

  validate: (sts: KubeObject): FieldError[] => validateStatefulSet(sts),
  validateUpdate: (sts: KubeObject, old: KubeObject): FieldError[] => validateStatefulSetUpdate(sts, old),
  validateStatusUpdate: (sts: KubeObject, old: KubeObject): FieldError[] => validateStatefulSetStatusUpdate(sts, old),
} satisfies KindStrategy);
