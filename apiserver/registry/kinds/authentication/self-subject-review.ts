/**
 * SelfSubjectReview (authentication/v1): `kubectl auth whoami`. Virtual: the answer is the request's user
 * (after impersonation), in a fresh object with only a creationTimestamp, whatever the body held (kube
 * builds a new object too). Never stored; create is the only verb.
 */
import type { KubeObject } from '../../../api/object.js';
import { badRequest } from '../../../errors/constructors.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { KindStrategy, VirtualContext } from '../../kind-strategy.js';
import { rfc3339 } from '../../generic/system-fields.js';
import { obj } from '../shared/schema-builders.js';
import { userInfoSchema, userInfoValue } from './user-info-schema.js';

const schema = kindSchema(
  'SelfSubjectReview reports the user information the server holds for the requester: the result of authentication, after impersonation.',
  {
    status: obj('Filled in by the server with the requester\'s user information.', {
      userInfo: { ...userInfoSchema, description: 'The requester as the server sees it.' },
    }, undefined, { protobuf: { userInfo: 1 } }),
  },
  undefined,
  { status: 2 },
);

export const selfSubjectReviews = Object.freeze({
  group: '',
  groupPrefix: 'authentication',
  version: 'v1',
  kind: 'SelfSubjectReview',
  resource: 'selfsubjectreviews',
  singular: 'selfsubjectreview',
  namespaced: false,
  verbs: Object.freeze(['create'] as const),
  schema,
  // A status sent in is output only.
  prepareForCreate: (o: KubeObject) => void delete o.status,
  virtual: {
    create(_obj: KubeObject, ctx: VirtualContext): KubeObject {
      if (ctx.user === undefined) throw badRequest('no user present on request');
      return {
        metadata: { creationTimestamp: rfc3339(new Date()) },
        status: { userInfo: userInfoValue(ctx.user) },
      } as KubeObject;
    },
  },
} satisfies KindStrategy);
