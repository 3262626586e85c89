/**
 * SubjectAccessReview (authorization/v1): "may this user (or these groups) do this?", answered by the
 * server's authorizer. Virtual: never stored; create is the only verb; cluster-scoped. The metadata must
 * be empty; exactly one of resourceAttributes and nonResourceAttributes, and a user or groups (422 with
 * kube's messages).
 */
import type { KubeObject } from '../../../api/object.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import { ptr } from '../../../schema/schema.js';
import type { KindStrategy, VirtualContext } from '../../kind-strategy.js';
import { obj, str, stringList, struct } from '../shared/schema-builders.js';
import { accessReviewStatusSchema, attributesProperties } from './access-review-schemas.js';
import { attributesFor, dropStatus, reviewStatus, specOf, subjectOf, validateEmptyMetadata, validateSubjectSpec, type SubjectSpec } from './access-review.js';

/** SubjectAccessReviewSpec: the attributes and the subject (shared with LocalSubjectAccessReview). */
export const subjectAccessReviewSpecSchema = obj(
  'The request to review and the subject to review it for. Exactly one of resourceAttributes and nonResourceAttributes; user or groups.',
  {
    ...attributesProperties,
    user: str('The user to check. Checking a user without its groups usually answers "no": give the groups too.'),
    groups: stringList('The groups to check.'),
    extra: {
      type: 'object',
      description: 'The extra information of the user (what an authenticator attached), as the authorizer may use it.',
      additionalProperties: stringList('Values of one key.'),
    },
    uid: str('The uid of the user to check.'),
  },
  undefined,
  { protobuf: { resourceAttributes: ptr(1), nonResourceAttributes: ptr(2), user: 3, groups: 4, extra: 5, uid: 6 } },
);

const schema = kindSchema(
  'SubjectAccessReview checks whether a user or group can perform an action.',
  {
    spec: struct(subjectAccessReviewSpecSchema, 'The request being evaluated.'),
    status: { ...accessReviewStatusSchema, description: 'Filled in by the server: whether the request is allowed.' },
  },
  ['spec'],
  { spec: 2, status: 3 },
);

export const subjectAccessReviews = Object.freeze({
  group: '',
  groupPrefix: 'authorization',
  version: 'v1',
  kind: 'SubjectAccessReview',
  resource: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  namespaced: false,
  verbs: Object.freeze(['create'] as const),
  schema,
  prepareForCreate: dropStatus,
  validate: (o: KubeObject) => [...validateSubjectSpec(specOf<SubjectSpec>(o)), ...validateEmptyMetadata(o, false)],
  virtual: {
    create(o: KubeObject, ctx: VirtualContext): KubeObject {
      const spec = specOf<SubjectSpec>(o);
      o.status = reviewStatus(ctx.services.authorizer, attributesFor(subjectOf(spec), spec));
      return o;
    },
  },
} satisfies KindStrategy);
