/**
 * `kubectl get` columns of the RBAC kinds, as kube-apiserver 1.32 prints them: roles show NAME and
 * CREATED AT (RFC 3339, UTC); bindings show NAME, ROLE (`<kind>/<name>` of the roleRef) and AGE, and with
 * `-o wide` USERS, GROUPS and SERVICEACCOUNTS (`<namespace>/<name>`), each joined with ", ". Subjects of
 * any other kind appear in none of them.
 */
import type { KubeObject } from '../../../api/object.js';
import type { TableConvention } from '../../kind-strategy.js';
import { ageCell, ageColumn, column, defaultTable, nameCell, nameColumn, table } from '../shared/table.js';

export const roleTable: TableConvention = defaultTable;

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Users, groups and service accounts of a binding's subjects, in order. */
export function subjectStrings(obj: KubeObject): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const s of Array.isArray(obj.subjects) ? obj.subjects : []) {
    if (s === null || typeof s !== 'object') continue;
    const subject = s as Record<string, unknown>;
    switch (subject.kind) {
      case 'ServiceAccount':
        serviceAccounts.push(`${text(subject.namespace)}/${text(subject.name)}`);
        break;
      case 'User':
        users.push(text(subject.name));
        break;
      case 'Group':
        groups.push(text(subject.name));
        break;
      default:
    }
  }
  return { users, groups, serviceAccounts };
}

function roleCell(obj: KubeObject): string {
  const ref = obj.roleRef !== null && typeof obj.roleRef === 'object' ? (obj.roleRef as Record<string, unknown>) : {};
  return `${text(ref.kind)}/${text(ref.name)}`;
}

export const bindingTable: TableConvention = table(
  [
    nameColumn,
    column('Role', 'string', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.'),
    ageColumn,
    column('Users', 'string', 'Users in the roleBinding', 1),
    column('Groups', 'string', 'Groups in the roleBinding', 1),
    column('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', 1),
  ],
  (obj, now) => {
    const { users, groups, serviceAccounts } = subjectStrings(obj);
    return [nameCell(obj), roleCell(obj), ageCell(obj, now), users.join(', '), groups.join(', '), serviceAccounts.join(', ')];
  },
);
