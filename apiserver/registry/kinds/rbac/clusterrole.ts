/**
 * ClusterRole (`rbac.<domain>/v1`): a cluster-wide set of PolicyRules, bound by RoleBindings (in their
 * namespace) or ClusterRoleBindings (everywhere). Its rules may use nonResourceURLs. With an
 * `aggregationRule` the rules are the union of the rules of the ClusterRoles its selectors match, kept
 * current by the aggregation controller (controllers/clusterrole-aggregation/): direct changes to such a
 * role's rules are overwritten.
 */
import type { KubeObject } from '../../../api/object.js';
import { admitRoleWrite } from '../../../authorization/escalation.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { aggregationRuleSchema, CLUSTER_ROLE_FIELDS, rulesSchema } from './rbac-schemas.js';
import { roleTable } from './rbac-tables.js';
import { validateAggregationRule, validateRules } from './rbac-validation.js';

const schema = kindSchema(
  'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
  {
    aggregationRule: aggregationRuleSchema,
    rules: rulesSchema('Rules holds all the PolicyRules for this ClusterRole.'),
  },
  undefined,
  CLUSTER_ROLE_FIELDS,
);

export const clusterRoles = Object.freeze({
  groupPrefix: 'rbac',
  group: '',
  version: 'v1',
  kind: 'ClusterRole',
  resource: 'clusterroles',
  singular: 'clusterrole',
  namespaced: false,
  schema,
  nameRule: 'path-segment',
  table: roleTable,
  validate: (obj: KubeObject): FieldError[] => [...validateRules(obj, false), ...validateAggregationRule(obj)],
  // Escalation and bind prevention (authorization/escalation.ts).
  admit: admitRoleWrite('ClusterRole'),
} satisfies KindStrategy);
