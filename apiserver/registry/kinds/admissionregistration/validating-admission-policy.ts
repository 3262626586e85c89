/**
 * ValidatingAdmissionPolicy (`admissionregistration.<domain>/v1`, `admissionregistration.k8s.io/v1` in
 * k8s.io mode): cluster-scoped, category `api-extensions`, a status sub-resource, NAME / VALIDATIONS /
 * PARAMKIND / AGE columns, as kube-apiserver 1.32 serves it. The admission plugin (apiserver/admission/
 * policy/) evaluates policies from their JSON, which is exactly Kubernetes' shape.
 *
 * Hooks, as Kubernetes' strategy:
 * - create resets `status` to `{}`; `metadata.generation` starts at 1 and follows spec changes;
 * - an update keeps the stored status (the registry does); the `status` sub-resource keeps everything
 *   else and validates only the status (policy-status controller, apiserver/controllers/admission-policy-status/,
 *   writes `observedGeneration` and the type checking warnings there);
 * - validation (policy-validation.ts) on create; on update the same, lenient toward stored expressions.
 */
import type { KubeObject } from '../../../api/object.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { isObject } from '../core/pod/json-values.js';
import { policySchema } from './policy-schema.js';
import { policyTable } from './policy-tables.js';
import { validatePolicy, validatePolicyUpdate } from './policy-validation.js';
import { validatePolicyStatus } from './status-validation.js';

export const validatingAdmissionPolicies = Object.freeze({
  groupPrefix: 'admissionregistration',
  group: '',
  version: 'v1',
  kind: 'ValidatingAdmissionPolicy',
  resource: 'validatingadmissionpolicies',
  singular: 'validatingadmissionpolicy',
  namespaced: false,
  categories: Object.freeze(['api-extensions']),
  subresources: Object.freeze(['status'] as const),
  schema: policySchema,
  tracksGeneration: true,
  table: policyTable,
  prepareForCreate(obj: KubeObject): void {
    obj.status = {};
  },
  // On update the full validation runs in validateUpdate, which needs the stored policy.
  validate: (obj: KubeObject, ctx: StrategyContext): FieldError[] => (ctx.operation === 'create' ? validatePolicy(obj) : []),
  validateUpdate: (obj: KubeObject, old: KubeObject): FieldError[] => validatePolicyUpdate(obj, old),
  validateStatusUpdate: (obj: KubeObject): FieldError[] => validatePolicyStatus(isObject(obj.status) ? obj.status : {}),
} satisfies KindStrategy);
