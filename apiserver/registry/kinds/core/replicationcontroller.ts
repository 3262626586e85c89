/**
 * ReplicationController (core/v1): keeps a number of pod replicas running. Namespaced, short name `rc`,
 * category `all`, with `status` and `scale` sub-resources. As Kubernetes v1.32:
 *
 * - defaults on every write (core/v1 SetDefaults_ReplicationController): with template labels, an empty
 *   `spec.selector` becomes them and empty `metadata.labels` become them; `spec.replicas` 1 when unset
 *   (an explicit 0 stays); the pod template's defaults (pod/pod-defaults.ts);
 * - rcStrategy: a create starts from an empty status (`replicas: 0`) and generation 1; the main resource
 *   keeps the stored status and bumps the generation on any spec change; `/status` keeps the rest;
 * - the Scale's selector is `spec.selector` as text; field selectors may use `status.replicas`.
 *
 * Validation: replicationcontroller-validation.ts. Table: replicationcontroller-table.ts. Delete answers a
 * Status.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { labelMapText } from '../../../selectors/label-format.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import type { ScaleSubresource } from '../../scale-subresource.js';
import { validateScaleReplicas } from '../apps/workload-scale.js';
import { isObject, objectAt } from './pod/json-values.js';
import { defaultPodSpec } from './pod/pod-defaults.js';
import { REPLICATION_CONTROLLER_FIELDS, REPLICATION_CONTROLLER_PROPERTIES } from './replicationcontroller-schema.js';
import { replicationControllerTable } from './replicationcontroller-table.js';
import { validateReplicationController, validateReplicationControllerStatus } from './replicationcontroller-validation.js';

const schema = kindSchema(
  'ReplicationController represents the configuration of a replication controller.',
  REPLICATION_CONTROLLER_PROPERTIES,
  undefined,
  REPLICATION_CONTROLLER_FIELDS,
);

const isEmptyMap = (v: unknown): boolean => !isObject(v) || Object.keys(v).length === 0;

/** SetDefaults_ReplicationController and the template's defaults, in place. */
function defaultReplicationController(rc: KubeObject): void {
  if (!isObject(rc.spec)) return;
  const spec = rc.spec;
  const template = objectAt(spec, 'template');
  const labels = template === undefined ? undefined : objectAt(objectAt(template, 'metadata') ?? {}, 'labels');
  if (labels !== undefined) {
    if (isEmptyMap(spec.selector) && (spec.selector === undefined || isObject(spec.selector))) spec.selector = { ...labels };
    if (isEmptyMap(rc.metadata.labels)) rc.metadata.labels = { ...(labels as Record<string, string>) };
  }
  if (spec.replicas === undefined) spec.replicas = 1;
  if (template !== undefined) defaultPodSpec(template.spec);
}

/** The Scale's `status.selector`: `spec.selector` as text (labels.SelectorFromSet), keys sorted. */
const selectorText = (rc: KubeObject): string => labelMapText(isObject(rc.spec) ? rc.spec.selector : undefined);

const scale = Object.freeze({
  specReplicasPath: '.spec.replicas',
  statusReplicasPath: '.status.replicas',
  selector: selectorText,
  validateScale: validateScaleReplicas,
} satisfies ScaleSubresource);

export const replicationControllers = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'ReplicationController',
  resource: 'replicationcontrollers',
  singular: 'replicationcontroller',
  namespaced: true,
  shortNames: Object.freeze(['rc']),
  categories: Object.freeze(['all']),
  subresources: Object.freeze(['status'] as const),
  scale,
  schema,
  tracksGeneration: true,
  table: replicationControllerTable,
  // Kubernetes' ControllerToSelectableFields: `status.replicas` as a decimal (0 when absent).
  selectableFields: Object.freeze({
    'status.replicas': (rc: KubeObject): string => String(isObject(rc.status) && typeof rc.status.replicas === 'number' ? rc.status.replicas : 0),
  }),

  prepareForCreate(rc: KubeObject): void {
    // Go's zero status as JSON: `replicas` has no omitempty.
    rc.status = { replicas: 0 };
    defaultReplicationController(rc);
  },

  // The registry keeps the stored status on main-resource updates (a kind with a status sub-resource).
  prepareForUpdate(rc: KubeObject): void {
    defaultReplicationController(rc);
  },

  validate: (rc: KubeObject): FieldError[] => validateReplicationController(rc),
  validateStatusUpdate: (rc: KubeObject): FieldError[] => validateReplicationControllerStatus(rc),
} satisfies KindStrategy);
