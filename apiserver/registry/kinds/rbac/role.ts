/**
 * Role (`rbac.<domain>/v1`, `rbac.authorization.k8s.io/v1` under k8s.io): a namespaced set of PolicyRules
 * a RoleBinding grants. Names are path segments; rules are validated as Kubernetes v1.32 does, and a
 * Role's rules may not use nonResourceURLs (rbac-validation.ts).
 */
import type { KubeObject } from '../../../api/object.js';
import { admitRoleWrite } from '../../../authorization/escalation.js';
import { kindSchema } from '../../../schema/object-meta-schema.js';
import type { FieldError } from '../../../validation/field-error.js';
import type { KindStrategy } from '../../kind-strategy.js';
import { ROLE_FIELDS, rulesSchema } from './rbac-schemas.js';
import { roleTable } from './rbac-tables.js';
import { validateRules } from './rbac-validation.js';

const schema = kindSchema(
  'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
  { rules: rulesSchema('Rules holds all the PolicyRules for this Role.') },
  undefined,
  ROLE_FIELDS,
);

export const roles = Object.freeze({
  groupPrefix: 'rbac',
  group: '',
  version: 'v1',
  kind: 'Role',
  resource: 'roles',
  singular: 'role',
  namespaced: true,
  schema,
  nameRule: 'path-segment',
  table: roleTable,
  validate: (obj: KubeObject): FieldError[] => validateRules(obj, true),
  // Escalation and bind prevention (authorization/escalation.ts).
  admit: admitRoleWrite('Role'),
} satisfies KindStrategy);
