/**
 * Kubernetes v1.32's validation of a HorizontalPodAutoscaler written as `autoscaling/v1`
 * (pkg/apis/autoscaling/validation), with its field paths and messages. Kubernetes validates the internal
 * (v2-shaped) object, so v1's `targetCPUUtilizationPercentage` is checked as the CPU resource metric it
 * converts to, and its error names that metric: `spec.metrics[0].resource.target.averageUtilization`.
 *
 * - `spec.minReplicas` >= 1 (0 only with the alpha gate HPAScaleToZero, off here; an object that already
 *   has 0 keeps it on update), and 0 also needs an Object or External metric, which v1 cannot express;
 * - `spec.maxReplicas` > 0 and >= `minReplicas`;
 * - `spec.scaleTargetRef.kind` and `.name` required, each a path segment;
 * - the CPU target, when set, > 0;
 * - status writes: `currentReplicas` and `desiredReplicas` >= 0.
 */
import type { KubeObject } from '../../../api/object.js';
import { FieldPath, forbidden, invalidValue, required, type FieldError } from '../../../validation/field-error.js';
import { isPathSegmentName } from '../../../validation/names.js';
import { isObject, numberAt, stringAt, type JsonObject } from '../core/pod/json-values.js';

const specOf = (o: KubeObject): JsonObject => (isObject(o.spec) ? o.spec : {});
const statusOf = (o: KubeObject): JsonObject => (isObject(o.status) ? o.status : {});
const SPEC = FieldPath.root('spec');

function validateScaleTargetRef(spec: JsonObject): FieldError[] {
  const path = SPEC.child('scaleTargetRef');
  const ref = isObject(spec.scaleTargetRef) ? spec.scaleTargetRef : {};
  const errs: FieldError[] = [];
  for (const member of ['kind', 'name'] as const) {
    const value = stringAt(ref, member);
    if (value === '') errs.push(required(path.child(member), ''));
    else for (const msg of isPathSegmentName(value)) errs.push(invalidValue(path.child(member), value, msg));
  }
  return errs;
}

/**
 * ValidateHorizontalPodAutoscaler (create) and the spec part of ValidateHorizontalPodAutoscalerUpdate:
 * `old` relaxes the minReplicas bound to 0 for an object stored with 0, as Kubernetes' update options do.
 */
export function validateHPASpec(obj: KubeObject, old?: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs: FieldError[] = [];
  const min = numberAt(spec, 'minReplicas');
  const max = numberAt(spec, 'maxReplicas') ?? 0;
  const lowerBound = old !== undefined && numberAt(specOf(old), 'minReplicas') === 0 ? 0 : 1;
  if (min !== undefined && min < lowerBound) errs.push(invalidValue(SPEC.child('minReplicas'), min, `must be greater than or equal to ${lowerBound}`));
  if (max < 1) errs.push(invalidValue(SPEC.child('maxReplicas'), max, 'must be greater than 0'));
  if (min !== undefined && max < min) errs.push(invalidValue(SPEC.child('maxReplicas'), max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateScaleTargetRef(spec));
  // The CPU target is the internal object's first (and only) metric: a Resource metric on cpu.
  const metrics = SPEC.child('metrics');
  const target = numberAt(spec, 'targetCPUUtilizationPercentage');
  if (target !== undefined && target < 1) {
    errs.push(invalidValue(metrics.index(0).child('resource').child('target').child('averageUtilization'), target, 'must be greater than 0'));
  }
  // Scaling to zero needs an Object or External metric; v1 has only the CPU one.
  if (min === 0) errs.push(forbidden(metrics, 'must specify at least one Object or External metric to support scaling to zero replicas'));
  return errs;
}

/** ValidateHorizontalPodAutoscalerStatusUpdate: the counts are not negative. */
export function validateHPAStatus(obj: KubeObject): FieldError[] {
  const status = statusOf(obj);
  const errs: FieldError[] = [];
  for (const member of ['currentReplicas', 'desiredReplicas'] as const) {
    const value = numberAt(status, member) ?? 0;
    if (value < 0) errs.push(invalidValue(FieldPath.root('status').child(member), value, 'must be greater than or equal to 0'));
  }
  return errs;
}
