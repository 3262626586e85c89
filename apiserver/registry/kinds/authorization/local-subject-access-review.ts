/**
 * LocalSubjectAccessReview (authorization/v1): a SubjectAccessReview inside one namespace, so namespace
 * admins can be granted it. Virtual: never stored; create is the only verb. The object's namespace is the
 * URL's (filled in when empty, 400 when another); `spec.resourceAttributes.namespace` must equal it and
 * non-resource attributes are refused (422, kube's messages); otherwise as SubjectAccessReview.
 */
import type { KubeObject } from '../../../api/object.js';
import { badRequest } from '../../../errors/constructors.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { KindStrategy, VirtualContext } from '../../kind-strategy.js';
import { invalidValue, type FieldError } from '../../../validation/field-error.js';
import { struct } from '../shared/schema-builders.js';
import { accessReviewStatusSchema } from './access-review-schemas.js';
import { attributesFor, dropStatus, reviewStatus, specOf, subjectOf, validateEmptyMetadata, validateSubjectSpec, type SubjectSpec } from './access-review.js';
import { subjectAccessReviewSpecSchema } from './subject-access-review.js';

const schema = kindSchema(
  'LocalSubjectAccessReview checks whether a user or group can perform an action in a given namespace. Having a namespace scope allows namespace admins to be granted it.',
  {
    spec: struct(subjectAccessReviewSpecSchema, 'The request being evaluated. spec.resourceAttributes.namespace must equal the namespace of the object; non-resource attributes are not allowed.'),
    status: { ...accessReviewStatusSchema, description: 'Filled in by the server: whether the request is allowed.' },
  },
  ['spec'],
  { spec: 2, status: 3 },
);

function validateLocal(o: KubeObject): FieldError[] {
  const spec = specOf<SubjectSpec>(o);
  const errs = [...validateSubjectSpec(spec), ...validateEmptyMetadata(o, true)];
  const namespace = o.metadata.namespace ?? '';
  if (spec.resourceAttributes !== undefined && (spec.resourceAttributes.namespace ?? '') !== namespace) {
    errs.push(invalidValue('spec.resourceAttributes.namespace', spec.resourceAttributes.namespace ?? '', 'must match metadata.namespace'));
  }
  if (spec.nonResourceAttributes !== undefined) {
    errs.push(invalidValue('spec.nonResourceAttributes', spec.nonResourceAttributes, 'disallowed on this kind of request'));
  }
  return errs;
}

export const localSubjectAccessReviews = Object.freeze({
  group: '',
  groupPrefix: 'authorization',
  version: 'v1',
  kind: 'LocalSubjectAccessReview',
  resource: 'localsubjectaccessreviews',
  singular: 'localsubjectaccessreview',
  namespaced: true,
  verbs: Object.freeze(['create'] as const),
  schema,
  prepareForCreate: dropStatus,
  validate: validateLocal,
  virtual: {
    create(o: KubeObject, ctx: VirtualContext): KubeObject {
      // The object's namespace was set from the URL before validation; kube checks once more here.
      if (ctx.namespace === '') throw badRequest(`namespace is required on this type: ${ctx.namespace}`);
      if ((o.metadata.namespace ?? '') !== ctx.namespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${ctx.namespace}`);
      const spec = specOf<SubjectSpec>(o);
      o.status = reviewStatus(ctx.services.authorizer, attributesFor(subjectOf(spec), spec));
      return o;
    },
  },
} satisfies KindStrategy);
