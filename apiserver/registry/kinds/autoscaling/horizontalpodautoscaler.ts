/**
 * HorizontalPodAutoscaler (`autoscaling/v1`; the group is Kubernetes' fixed `autoscaling` in every
 * group-domain mode, as the Scale it targets): scales a workload's Scale sub-resource between minReplicas
 * and maxReplicas on CPU utilization. Namespaced, `status` sub-resource, short name `hpa`, category `all`.
 *
 * As Kubernetes v1.32's strategy: a create starts from an empty status (`currentReplicas` and
 * `desiredReplicas` 0), the main endpoint keeps the stored status, `/status` keeps everything else; the
 * generation is not tracked. Kubernetes stores HPAs as autoscaling/v2 and serves v1 through conversion
 * (v2-only members travel in `autoscaling.alpha.kubernetes.io/*` annotations); only v1 is served here, and
 * the objects are stored as written. The controller that acts on HPAs is not part of the server. Delete
 * answers with a Status. The published operations list document 2's reduced query parameter sets.
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { REDUCED_QUERY_PARAMETERS } from '../shared/reduced-query-parameters.js';
import { HPA_FIELDS, HPA_PROPERTIES } from './hpa-schema.js';
import { hpaTable } from './hpa-table.js';
import { validateHPASpec, validateHPAStatus } from './hpa-validation.js';

const schema = kindSchema('configuration of a horizontal pod autoscaler.', HPA_PROPERTIES, [], HPA_FIELDS);

export const horizontalPodAutoscalers = Object.freeze({
  group: 'autoscaling',
  version: 'v1',
  kind: 'HorizontalPodAutoscaler',
  resource: 'horizontalpodautoscalers',
  singular: 'horizontalpodautoscaler',
  namespaced: true,
  shortNames: Object.freeze(['hpa']),
  categories: Object.freeze(['all']),
  subresources: Object.freeze(['status'] as const),
  schema,
  table: hpaTable,
  // Document 2's reduced query parameter sets, as its OpenAPI publishes them (requests honor every standard one).
  publishedQueryParameters: REDUCED_QUERY_PARAMETERS,

  prepareForCreate(hpa: KubeObject): void {
    hpa.status = { currentReplicas: 0, desiredReplicas: 0 };
  },

  prepareForUpdate(hpa: KubeObject, old: KubeObject): void {
    // A copy: `old` may be shared with the watch cache.
    if (old.status === undefined) delete hpa.status;
    else hpa.status = structuredClone(old.status);
  },

  // On update the spec is checked against the stored object (one stored with minReplicas 0 may keep it).
  validate: (hpa: KubeObject, ctx: StrategyContext): FieldError[] => (ctx.operation === 'create' ? validateHPASpec(hpa) : []),
  validateUpdate: (hpa: KubeObject, old: KubeObject): FieldError[] => validateHPASpec(hpa, old),
  validateStatusUpdate: (hpa: KubeObject): FieldError[] => validateHPAStatus(hpa),
} satisfies KindStrategy);
