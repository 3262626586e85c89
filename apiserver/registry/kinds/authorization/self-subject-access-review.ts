/**
 * SelfSubjectAccessReview (authorization/v1): "may I do this?" (`kubectl auth can-i`), for the request's
 * user after impersonation. Virtual: never stored; create is the only verb; cluster-scoped. The metadata
 * must be empty and exactly one of resourceAttributes and nonResourceAttributes given (422, kube's messages).
 */
import type { KubeObject } from '../../../api/object.js';
import { badRequest } from '../../../errors/constructors.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr } from '../../../schema/schema.js';
import type { KindStrategy, VirtualContext } from '../../kind-strategy.js';
import { obj, struct } from '../shared/schema-builders.js';
import { accessReviewStatusSchema, attributesProperties } from './access-review-schemas.js';
import { attributesFor, dropStatus, reviewStatus, specOf, validateAttributesChoice, validateEmptyMetadata, type AttributesSpec } from './access-review.js';

const specSchema = obj(
  'The request to review for the requester. Exactly one of resourceAttributes and nonResourceAttributes.',
  { ...attributesProperties },
  undefined,
  { protobuf: { resourceAttributes: ptr(1), nonResourceAttributes: ptr(2) } },
);

const schema = kindSchema(
  'SelfSubjectAccessReview checks whether the current user can perform an action. Not filling in spec.namespace means "in all namespaces". Self is a special case: users should always be able to check whether they can perform an action.',
  {
    spec: struct(specSchema, 'The request being evaluated.'),
    status: { ...accessReviewStatusSchema, description: 'Filled in by the server: whether the request is allowed.' },
  },
  ['spec'],
  { spec: 2, status: 3 },
);

export const selfSubjectAccessReviews = Object.freeze({
  group: '',
  groupPrefix: 'authorization',
  version: 'v1',
  kind: 'SelfSubjectAccessReview',
  resource: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  namespaced: false,
  verbs: Object.freeze(['create'] as const),
  schema,
  prepareForCreate: dropStatus,
  validate: (o: KubeObject) => [...validateAttributesChoice(specOf<AttributesSpec>(o)), ...validateEmptyMetadata(o, false)],
  virtual: {
    create(o: KubeObject, ctx: VirtualContext): KubeObject {
      if (ctx.user === undefined) throw badRequest('no user present on request');
      o.status = reviewStatus(ctx.services.authorizer, attributesFor(ctx.user, specOf<AttributesSpec>(o)));
      return o;
    },
  },
} satisfies KindStrategy);
