/**
 * The written Scale's own check for the built-in workloads (Kubernetes' ValidateScale): `spec.replicas`
 * is not negative. A 422 on kind Scale before the parent is touched (registry/scale-subresource.ts).
 */
import type { KubeObject } from '../../../api/object.js';
import type { FieldError } from '../../../validation/field-error.js';
import { nonNegative } from './workload-validation.js';

export function validateScaleReplicas(scale: KubeObject): FieldError[] {
  const spec = scale.spec !== null && typeof scale.spec === 'object' ? (scale.spec as Record<string, unknown>) : {};
  return typeof spec.replicas === 'number' ? nonNegative(spec.replicas, 'spec.replicas') : [];
}
