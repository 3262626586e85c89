/**
 * PodTemplate (core/v1): a stored pod template (`template`: PodTemplateSpec). Validation is Kubernetes'
 * ValidatePodTemplate: the template's labels, annotations and pod spec (any restart policy is allowed), no
 * ephemeral containers; updates are validated the same way (nothing in a template is immutable).
 * The hooks apply the pod spec defaults a schema cannot state (pod/pod-defaults.ts). DELETE answers with
 * the deleted object. Table columns as kube-apiserver prints them: NAME, CONTAINERS, IMAGES, POD LABELS
 * (no AGE).
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { FieldPath } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { REDUCED_QUERY_PARAMETERS } from '../shared/reduced-query-parameters.js';
import { column, nameCell, nameColumn, table } from '../shared/table.js';
import { isObject, objectAt } from './pod/json-values.js';
import { containerCells } from './pod/template-cells.js';
import { formatLabels } from '../../../selectors/label-format.js';
import { defaultPodSpec } from './pod/pod-defaults.js';
import { podTemplateSpecSchema } from './pod/pod-template-spec-schema.js';
import { validatePodTemplateSpec } from './pod/validate-pod-template-spec.js';

const schema = kindSchema('PodTemplate describes a template for creating copies of a predefined pod.', {
  template: { ...podTemplateSpecSchema, description: 'Template of the pods to create.', default: {} },
}, undefined, { template: 2 });

const TEMPLATE = FieldPath.root('template');

function prepare(obj: KubeObject): void {
  const template = obj.template;
  if (isObject(template)) defaultPodSpec(template.spec);
}

function templateCells(obj: KubeObject): [string, string, string] {
  const template = isObject(obj.template) ? obj.template : {};
  return [...containerCells(template), formatLabels(objectAt(template, 'metadata')?.labels)];
}

export const podTemplates = Object.freeze({
  group: '',
  version: 'v1',
  kind: 'PodTemplate',
  resource: 'podtemplates',
  singular: 'podtemplate',
  namespaced: true,
  schema,
  deleteReturnsObject: true,
  publishedQueryParameters: REDUCED_QUERY_PARAMETERS,
  // Kubernetes' podTemplateStrategy: generation 1 on create, bumped by any change of the template.
  tracksGeneration: true,
  table: table(
    [
      nameColumn,
      column('Containers', 'string', 'Names of each container in the template.'),
      column('Images', 'string', 'Images referenced by each container in the template.'),
      column('Pod Labels', 'string', 'The labels for the pod template.'),
    ],
    (obj) => [nameCell(obj), ...templateCells(obj)],
  ),

  prepareForCreate(obj: KubeObject): void {
    prepare(obj);
  },

  prepareForUpdate(obj: KubeObject): void {
    prepare(obj);
  },

  validate(obj: KubeObject) {
    return validatePodTemplateSpec(obj.template, TEMPLATE);
  },

  validateUpdate(obj: KubeObject) {
    return validatePodTemplateSpec(obj.template, TEMPLATE);
  },
} satisfies KindStrategy);
