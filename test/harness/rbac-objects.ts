/**
 * Builders of RBAC objects (`rbac.authorization.k8s.io/v1`, the group in k8s.io mode) for the RBAC matrix
 * tests, over HTTP and through kubectl: subjects, rules, roles and bindings as plain JSON.
 */
export const RBAC = 'rbac.authorization.k8s.io';

export type Rule = Record<string, string[]>;
export type Subject = { kind: string; name: string; apiGroup?: string; namespace?: string };

export const U = (name: string): Subject => ({ apiGroup: RBAC, kind: 'User', name });
export const G = (name: string): Subject => ({ apiGroup: RBAC, kind: 'Group', name });
export const SA = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

export const rule = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): Rule =>
  ({ verbs, apiGroups, resources, ...(resourceNames === undefined ? {} : { resourceNames }) });
export const paths = (verbs: string[], nonResourceURLs: string[]): Rule => ({ verbs, nonResourceURLs });

export const clusterRole = (name: string, rules: Rule[], extra: object = {}) =>
  ({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name }, rules, ...extra });
/** Without a namespace: for a request path that names it (see `inNamespace`). */
export const role = (name: string, rules: Rule[]) => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name }, rules });
export const roleBinding = (name: string, roleKind: 'Role' | 'ClusterRole', roleName: string, subjects: Subject[]) => ({
  apiVersion: `${RBAC}/v1`, kind: 'RoleBinding', metadata: { name }, roleRef: { apiGroup: RBAC, kind: roleKind, name: roleName }, subjects,
});
export const clusterRoleBinding = (name: string, roleName: string, subjects: Subject[]) => ({
  apiVersion: `${RBAC}/v1`, kind: 'ClusterRoleBinding', metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: roleName }, subjects,
});

/** The object with `metadata.namespace` set (for manifests applied as they are). */
export const inNamespace = <T extends { metadata: object }>(namespace: string, obj: T): T => ({ ...obj, metadata: { ...obj.metadata, namespace } });
