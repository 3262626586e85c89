/**
 * ValidatingAdmissionPolicyBinding (`admissionregistration.<domain>/v1`, `admissionregistration.k8s.io/v1`
 * in k8s.io mode): cluster-scoped, category `api-extensions`, no status, NAME / POLICYNAME / PARAMREF / AGE
 * columns, as kube-apiserver 1.32 serves it. `metadata.generation` starts at 1 and follows spec changes.
 * Validation: binding-validation.ts, the same on create and update.
 */
import type { KubeObject } from '../../../api/object.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { bindingSchema } from './binding-schema.js';
import { validateBinding } from './binding-validation.js';
import { bindingTable } from './policy-tables.js';

export const validatingAdmissionPolicyBindings = Object.freeze({
  groupPrefix: 'admissionregistration',
  group: '',
  version: 'v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  resource: 'validatingadmissionpolicybindings',
  singular: 'validatingadmissionpolicybinding',
  namespaced: false,
  categories: Object.freeze(['api-extensions']),
  schema: bindingSchema,
  tracksGeneration: true,
  table: bindingTable,
  validate: (obj: KubeObject): FieldError[] => validateBinding(obj),
} satisfies KindStrategy);
