/**
 * ValidatePodTemplateSpec: the template's labels and annotations (reported at `<path>.labels` /
 * `<path>.annotations`, as Kubernetes does), its pod spec, and no ephemeral containers.
 */
import { type FieldError, type FieldPath, forbidden } from '../../../../validation/field-error.js';
import { type JsonObject, arrayAt, isObject, objectAt } from './json-values.js';
import { validateAnnotations, validateLabels } from './validate-metadata.js';
import { validatePodSpec } from './validate-pod-spec.js';

export function validatePodTemplateSpec(template: unknown, path: FieldPath): FieldError[] {
  const t: JsonObject = isObject(template) ? template : {};
  const meta = objectAt(t, 'metadata') ?? {};
  const spec = objectAt(t, 'spec') ?? {};
  const errs: FieldError[] = [];
  const labels = objectAt(meta, 'labels');
  if (labels !== undefined) errs.push(...validateLabels(labels, path.child('labels')));
  const annotations = objectAt(meta, 'annotations');
  if (annotations !== undefined) errs.push(...validateAnnotations(annotations, path.child('annotations')));
  const specPath = path.child('spec');
  errs.push(...validatePodSpec(spec, specPath));
  if (arrayAt(spec, 'ephemeralContainers').length > 0) {
    errs.push(forbidden(specPath.child('ephemeralContainers'), 'ephemeral containers not allowed in pod template'));
  }
  return errs;
}
