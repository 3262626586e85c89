/**
 * The authorization/v1 schemas the access reviews share (Kubernetes v1.32 shapes and protobuf numbers):
 * ResourceAttributes (with the field and label selector attributes of AuthorizeWithSelectors),
 * NonResourceAttributes, SubjectAccessReviewStatus, and the rules of SelfSubjectRulesReview.
 */
import { ptr, type Schema } from '../../../schema/schema.js';
import { atomicList, bool, obj, requiredStr, str, stringList } from '../shared/schema-builders.js';

/** A selector requirement (meta/v1 FieldSelectorRequirement and LabelSelectorRequirement share the shape). */
const requirement = (what: string): Schema =>
  obj(
    `A ${what} selector requirement: a key, an operator and values.`,
    {
      key: requiredStr(`The ${what} key the requirement applies to.`),
      operator: requiredStr('In, NotIn, Exists or DoesNotExist.'),
      values: stringList('Values: non-empty for In and NotIn, empty for Exists and DoesNotExist.'),
    },
    ['key', 'operator'],
    { protobuf: { key: 1, operator: 2, values: 3 } },
  );

const selectorAttributes = (what: string): Schema =>
  obj(
    `The ${what} selector of a list, watch or deletecollection being reviewed. Authorizers may narrow a decision by it; one that cannot use it ignores it.`,
    {
      rawSelector: str(`The ${what} selector as a query parameter would carry it. Setting both rawSelector and requirements is not allowed.`),
      requirements: atomicList({ ...requirement(what), default: {} }, `The parsed ${what} selector requirements.`),
    },
    undefined,
    { protobuf: { rawSelector: 1, requirements: 2 } },
  );

export const resourceAttributesSchema: Schema = obj(
  'The attributes of a request on a resource, as the authorizer sees them.',
  {
    namespace: str('The namespace of the action: "" for cluster-scoped resources, and for namespaced ones across all namespaces (list, watch).'),
    verb: str('A resource verb (get, list, watch, create, update, delete, deletecollection, patch) or a custom one (impersonate, bind, escalate, use ...). "*" means all.'),
    group: str('The API group of the resource. "*" means all.'),
    version: str('The API version of the resource. "*" means all.'),
    resource: str('The resource. "*" means all.'),
    subresource: str('The sub-resource, if any.'),
    name: str('The name of the object: "" for list, watch, create and deletecollection, or for all names.'),
    fieldSelector: selectorAttributes('field'),
    labelSelector: selectorAttributes('label'),
  },
  undefined,
  { protobuf: { namespace: 1, verb: 2, group: 3, version: 4, resource: 5, subresource: 6, name: 7, fieldSelector: ptr(8), labelSelector: ptr(9) } },
);

export const nonResourceAttributesSchema: Schema = obj(
  'The attributes of a request on a path that is not a resource.',
  {
    path: str('The URL path of the request.'),
    verb: str('The standard HTTP verb, lower case.'),
  },
  undefined,
  { protobuf: { path: 1, verb: 2 } },
);

/** The two kinds of attributes of a review spec (exactly one must be set). */
export const attributesProperties: Record<string, Schema> = {
  resourceAttributes: { ...resourceAttributesSchema, description: 'The request on a resource to review. Exactly one of resourceAttributes and nonResourceAttributes.' },
  nonResourceAttributes: { ...nonResourceAttributesSchema, description: 'The request on a non-resource path to review. Exactly one of resourceAttributes and nonResourceAttributes.' },
};

export const accessReviewStatusSchema: Schema = obj(
  'The answer of the authorizer.',
  {
    allowed: bool('Whether the action is allowed.', { default: false }),
    denied: bool('Whether the action was explicitly denied. Both allowed and denied false: no authorizer had an opinion. Never both true.'),
    reason: str('Why the action is allowed or denied.'),
    evaluationError: str('A failure while checking: the authorizer may still have decided (an unreadable role while another grants access).'),
  },
  ['allowed'],
  { protobuf: { allowed: 1, reason: 2, evaluationError: 3, denied: 4 } },
);

const resourceRule = obj(
  'Actions allowed on resources. A list: one listed value matches.',
  {
    verbs: stringList('The verbs allowed. "*" means all.'),
    apiGroups: stringList('The API groups of the resources. "*" means all.'),
    resources: stringList('The resources. "*" means all; "*/foo" one sub-resource of every resource.'),
    resourceNames: stringList('The names allowed. Empty means all.'),
  },
  ['verbs'],
  { protobuf: { verbs: 1, apiGroups: 2, resources: 3, resourceNames: 4 } },
);

const nonResourceRule = obj(
  'Actions allowed on non-resource paths.',
  {
    verbs: stringList('The verbs allowed (get, post, put ...). "*" means all.'),
    nonResourceURLs: stringList('The paths allowed; a trailing "*" matches every path with that prefix.'),
  },
  ['verbs'],
  { protobuf: { verbs: 1, nonResourceURLs: 2 } },
);

export const rulesReviewStatusSchema: Schema = obj(
  'The rules that apply in the namespace asked about. Informational: the authorizer\'s decision on each request is what counts.',
  {
    resourceRules: atomicList({ ...resourceRule, default: {} }, 'What may be done on resources. The list is not ordered and may hold duplicates.'),
    nonResourceRules: atomicList({ ...nonResourceRule, default: {} }, 'What may be done on non-resource paths. The list is not ordered and may hold duplicates.'),
    incomplete: bool('True when the lists may leave something out (an authorizer that cannot list its rules, or a rule that could not be evaluated).', { default: false }),
    evaluationError: str('Why the evaluation was incomplete.'),
  },
  ['resourceRules', 'nonResourceRules', 'incomplete'],
  { protobuf: { resourceRules: 1, nonResourceRules: 2, incomplete: 3, evaluationError: 4 } },
);
