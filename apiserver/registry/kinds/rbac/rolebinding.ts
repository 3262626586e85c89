/**
 * RoleBinding (`rbac.<domain>/v1`): grants the rules of a Role in its namespace, or of a ClusterRole
 * limited to its namespace, to subjects (users, groups, service accounts). `roleRef` is immutable; empty
 * apiGroups are defaulted as Kubernetes does (rbac-validation.ts `defaultBinding`).
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
  'RoleBinding references a role, but does not contain it. It can reference a Role in the same namespace or a ClusterRole in the global namespace. It adds who information via Subjects and namespace information by which namespace it exists in. RoleBindings in a given namespace only have effect in that namespace.',
  {
    roleRef: roleRefSchema(
      'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.',
    ),
    subjects: subjectsSchema,
  },
  ['roleRef'],
  BINDING_FIELDS,
);

export const roleBindings = Object.freeze({
  groupPrefix: 'rbac',
  group: '',
  version: 'v1',
  kind: 'RoleBinding',
  resource: 'rolebindings',
  singular: 'rolebinding',
  namespaced: true,
  schema,
  nameRule: 'path-segment',
  table: bindingTable,
  prepareForCreate: (obj: KubeObject, ctx: StrategyContext): void => defaultBinding(obj, rbacGroup(ctx.naming)),
  prepareForUpdate: (obj: KubeObject, _old: KubeObject, ctx: StrategyContext): void => defaultBinding(obj, rbacGroup(ctx.naming)),
  validate: (obj: KubeObject, ctx: StrategyContext): FieldError[] => validateBinding(obj, true, rbacGroup(ctx.naming)),
  validateUpdate: (obj: KubeObject, old: KubeObject): FieldError[] => validateRoleRefUnchanged(obj, old),
  // Escalation and bind prevention (authorization/escalation.ts).
  admit: admitBindingWrite('RoleBinding'),
} satisfies KindStrategy);
