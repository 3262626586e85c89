/**
 * ClusterRoleBinding (`rbac.<domain>/v1`): grants the rules of a ClusterRole cluster-wide to subjects.
 * Only ClusterRoles may be referenced; ServiceAccount subjects must name their namespace; `roleRef` is
 * immutable; empty apiGroups are defaulted as Kubernetes does.
 */
import type { KubeObject } from '../../../api/object.js';
import { admitBindingWrite } from '../../../authorization/escalation.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy, StrategyContext } from '../../kind-strategy.js';
import { rbacGroup } from './rbac-names.js';
import { BINDING_FIELDS, roleRefSchema, subjectsSchema } from './rbac-schemas.js';
import { bindingTable } from './rbac-tables.js';
import { defaultBinding, validateBinding, validateRoleRefUnchanged } from './rbac-validation.js';

const schema = kindSchema(
  'ClusterRoleBinding references a ClusterRole, but does not contain it. It can reference a ClusterRole in the global namespace, and adds who information via Subject.',
  {
    roleRef: roleRefSchema(
      'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
    ),
    subjects: subjectsSchema,
  },
  ['roleRef'],
  BINDING_FIELDS,
);

export const clusterRoleBindings = Object.freeze({
  groupPrefix: 'rbac',
  group: '',
  version: 'v1',
  kind: 'ClusterRoleBinding',
  resource: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  namespaced: false,
  schema,
  nameRule: 'path-segment',
  table: bindingTable,
  prepareForCreate: (obj: KubeObject, ctx: StrategyContext): void => defaultBinding(obj, rbacGroup(ctx.naming)),
  prepareForUpdate: (obj: KubeObject, _old: KubeObject, ctx: StrategyContext): void => defaultBinding(obj, rbacGroup(ctx.naming)),
  validate: (obj: KubeObject, ctx: StrategyContext): FieldError[] => validateBinding(obj, false, rbacGroup(ctx.naming)),
  validateUpdate: (obj: KubeObject, old: KubeObject): FieldError[] => validateRoleRefUnchanged(obj, old),
  // Escalation and bind prevention (authorization/escalation.ts).
  admit: admitBindingWrite('ClusterRoleBinding'),
} satisfies KindStrategy);
