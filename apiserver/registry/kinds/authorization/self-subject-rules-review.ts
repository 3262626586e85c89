/**
 * SelfSubjectRulesReview (authorization/v1): "what may I do in this namespace?" (`kubectl auth can-i
 * --list`), listed by the server's rules resolver for the request's user after impersonation. Virtual:
 * never stored; create is the only verb; cluster-scoped. `spec.namespace` is required (400 `no namespace
 * on request`, as kube). The answer is a fresh object with only the status, as kube's.
 */
import type { KubeObject } from '../../../api/object.js';
import type { NonResourceRuleInfo, ResourceRuleInfo } from '../../../authorization/rules.js';
import { badRequest } from '../../../errors/constructors.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { KindStrategy, VirtualContext } from '../../kind-strategy.js';
import { obj, str, struct } from '../shared/schema-builders.js';
import { rulesReviewStatusSchema } from './access-review-schemas.js';
import { dropStatus } from './access-review.js';

const schema = kindSchema(
  'SelfSubjectRulesReview enumerates what the current user can do in a namespace. The list may be incomplete depending on the authorizers the server runs, and is informational: use SelfSubjectAccessReview (or the request itself) to decide.',
  {
    spec: struct(obj('The namespace to list the rules of.', {
      namespace: str('The namespace to evaluate the rules in. Required.'),
    }, undefined, { protobuf: { namespace: 1 } }), 'The namespace to evaluate.'),
    status: { ...rulesReviewStatusSchema, description: 'Filled in by the server: the rules the user has in the namespace.' },
  },
  ['spec'],
  { spec: 2, status: 3 },
);

/** Go's JSON of a rule: verbs always, the other lists when not empty. */
function resourceRule(r: ResourceRuleInfo): Record<string, unknown> {
  return {
    verbs: [...r.verbs],
    ...(r.apiGroups.length > 0 ? { apiGroups: [...r.apiGroups] } : {}),
    ...(r.resources.length > 0 ? { resources: [...r.resources] } : {}),
    ...(r.resourceNames.length > 0 ? { resourceNames: [...r.resourceNames] } : {}),
  };
}

function nonResourceRule(r: NonResourceRuleInfo): Record<string, unknown> {
  return { verbs: [...r.verbs], ...(r.nonResourceURLs.length > 0 ? { nonResourceURLs: [...r.nonResourceURLs] } : {}) };
}

export const selfSubjectRulesReviews = Object.freeze({
  group: '',
  groupPrefix: 'authorization',
  version: 'v1',
  kind: 'SelfSubjectRulesReview',
  resource: 'selfsubjectrulesreviews',
  singular: 'selfsubjectrulesreview',
  namespaced: false,
  verbs: Object.freeze(['create'] as const),
  schema,
  prepareForCreate: dropStatus,
  virtual: {
    create(o: KubeObject, ctx: VirtualContext): KubeObject {
      if (ctx.user === undefined) throw badRequest('no user present on request');
      const namespace = (o.spec as { namespace?: string } | undefined)?.namespace ?? '';
      if (namespace === '') throw badRequest('no namespace on request');
      const rules = ctx.services.rules.rulesFor(ctx.user, namespace);
      return {
        metadata: {},
        spec: {},
        status: {
          resourceRules: rules.resourceRules.map(resourceRule),
          nonResourceRules: rules.nonResourceRules.map(nonResourceRule),
          incomplete: rules.incomplete,
          ...(rules.evaluationError === '' ? {} : { evaluationError: rules.evaluationError }),
        },
      } as KubeObject;
    },
  },
} satisfies KindStrategy);
