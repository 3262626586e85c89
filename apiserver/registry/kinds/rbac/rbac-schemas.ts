/**
 * The rbac/v1 value types shared by the four kinds, as Kubernetes v1.32 publishes them, with the field
 * numbers of `k8s.io/api/rbac/v1/generated.proto`: PolicyRule, Subject, RoleRef, AggregationRule.
 *
 * One deliberate difference from the published OpenAPI: PolicyRule does not list `verbs` as required, so
 * a rule without verbs reaches the kind's validation and fails with Kubernetes' own message
 * (`verbs must contain at least one value`) rather than a bare "Required value" from the schema.
 */
import type { Schema } from '../../../schema/schema.js';
import { ptr } from '../../../schema/schema.js';
import { labelSelectorSchema } from '../core/pod/label-selector-schema.js';
import { atomicList, obj, requiredStr, str, stringList } from '../shared/schema-builders.js';

export const policyRuleSchema: Schema = obj(
  'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.',
  {
    apiGroups: stringList(
      'The API groups that contain the resources. If several groups are listed, an action on any listed resource in any of them is allowed. "" is the core API group and "*" every API group.',
    ),
    nonResourceURLs: stringList(
      'Partial URLs a user should have access to. "*" is allowed only as the full, final step of the path. Non-resource URLs are not namespaced, so only ClusterRoles bound by a ClusterRoleBinding use them. A rule applies to API resources or to non-resource URLs, never both.',
    ),
    resourceNames: stringList('An optional list of names the rule applies to. An empty list means every name.'),
    resources: stringList('The resources this rule applies to. "*" is every resource.'),
    verbs: stringList('The verbs that apply to ALL the resources of this rule. "*" is every verb.'),
  },
  undefined,
  { protobuf: { verbs: 1, apiGroups: 2, resources: 3, resourceNames: 4, nonResourceURLs: 5 } },
);

export const rulesSchema = (description: string): Schema => atomicList({ ...policyRuleSchema, default: {} }, description);

export const subjectSchema: Schema = obj(
  'Subject refers to an object or a user identity a role binding applies to: an API object reference, or a value for non-objects such as user and group names.',
  {
    apiGroup: str(
      'The API group of the referenced subject. Defaults to "" for ServiceAccount subjects and to the RBAC group for User and Group subjects.',
    ),
    kind: requiredStr('Kind of object being referenced: "User", "Group" or "ServiceAccount". An authorizer that does not recognize the kind reports an error.'),
    name: requiredStr('Name of the object being referenced.'),
    namespace: str('Namespace of the referenced object. Must be empty for non-namespaced kinds such as "User" or "Group".'),
  },
  ['kind', 'name'],
  { 'x-kubernetes-map-type': 'atomic', protobuf: { kind: 1, apiGroup: 2, name: 3, namespace: 4 } },
);

export const subjectsSchema: Schema = atomicList({ ...subjectSchema, default: {} }, 'Subjects holds references to the objects the role applies to.');

export const roleRefSchema = (description: string): Schema => ({
  ...obj(
    'RoleRef contains information that points to the role being used.',
    {
      apiGroup: requiredStr('APIGroup is the group for the resource being referenced.'),
      kind: requiredStr('Kind is the type of resource being referenced.'),
      name: requiredStr('Name is the name of resource being referenced.'),
    },
    ['apiGroup', 'kind', 'name'],
    { 'x-kubernetes-map-type': 'atomic', protobuf: { apiGroup: 1, kind: 2, name: 3 } },
  ),
  description,
  default: {},
});

export const aggregationRuleSchema: Schema = obj(
  'AggregationRule describes how to locate ClusterRoles to aggregate into the ClusterRole. If set, the rules are controller managed and direct changes to rules will be stomped by the controller.',
  {
    clusterRoleSelectors: atomicList(
      { ...labelSelectorSchema, default: {} },
      "Selectors used to find ClusterRoles whose rules are aggregated. If any of the selectors match, that ClusterRole's permissions are added.",
    ),
  },
  undefined,
  { protobuf: { clusterRoleSelectors: 1 } },
);

/** The top-level field numbers of the bindings and roles. */
export const BINDING_FIELDS = Object.freeze({ subjects: 2, roleRef: 3 });
export const ROLE_FIELDS = Object.freeze({ rules: 2 });
export const CLUSTER_ROLE_FIELDS = Object.freeze({ rules: 2, aggregationRule: ptr(3) });
