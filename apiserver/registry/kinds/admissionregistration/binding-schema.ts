/**
 * The schema of ValidatingAdmissionPolicyBinding (`admissionregistration.<domain>/v1`), shaped as
 * Kubernetes v1.32 serves it, with the field numbers of `k8s.io/api/admissionregistration/v1/generated.proto`
 * (spec = 2; `metadata` = 1 comes from `kindSchema`). A binding has no status.
 *
 * `paramRef.parameterNotFoundAction` has no default in v1 (only v1alpha1 defaulted it): it is required.
 * `matchResources` stays absent when not given (the policy's constraints alone then apply); when given, it
 * is defaulted as the policy's (match-resources-schema.ts).
 */
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr, type Schema } from '../../../schema/schema.js';
import { labelSelectorSchema } from '../core/pod/label-selector-schema.js';
import { obj, str, struct } from '../shared/schema-builders.js';
import { matchResourcesSchema } from './match-resources-schema.js';

export const paramRefSchema: Schema = obj(
  'Where a binding finds the parameter objects of its policy: by name, or by a label selector (then every matching object is a param and all must pass).',
  {
    name: str('The name of the one parameter object. Exclusive with selector.'),
    namespace: str(
      'The namespace of the parameter objects. Must be empty for a cluster-scoped paramKind; for a namespaced one, empty means the namespace of the request.',
    ),
    parameterNotFoundAction: str('Allow or Deny: what happens when no parameter object is found. Deny applies the policy\'s failurePolicy.'),
    selector: { ...labelSelectorSchema, description: 'Selects the parameter objects by label; {} selects every object of the paramKind. Exclusive with name.' },
  },
  undefined,
  { 'x-kubernetes-map-type': 'atomic', protobuf: { name: 1, namespace: 2, selector: ptr(3), parameterNotFoundAction: ptr(4) } },
);

export const bindingSpecSchema: Schema = obj(
  'The desired behavior of a ValidatingAdmissionPolicyBinding.',
  {
    matchResources: {
      ...matchResourcesSchema,
      description: 'Narrows the requests the policy validates through this binding (intersected with the policy\'s matchConstraints); resourceRules are optional here.',
    },
    paramRef: { ...paramRefSchema, description: 'The parameter objects the policy\'s expressions see as params; ignored when the policy has no paramKind.' },
    policyName: str('The name of the ValidatingAdmissionPolicy this binding applies. A binding of a missing policy does nothing.'),
    validationActions: {
      type: 'array',
      description: 'What a failed validation does: Deny (the request fails), Warn (a Warning header) and/or Audit (an audit annotation). A set; Deny and Warn exclude each other.',
      items: { type: 'string', default: '' },
      'x-kubernetes-list-type': 'set',
    },
  },
  undefined,
  { protobuf: { policyName: 1, paramRef: ptr(2), matchResources: ptr(3), validationActions: 4 } },
);

export const bindingSchema: Schema = kindSchema(
  'Applies a ValidatingAdmissionPolicy to the requests it selects, with parameter objects and validation actions.',
  { spec: struct(bindingSpecSchema, 'The desired behavior of the binding.') },
  undefined,
  { spec: 2 },
);
