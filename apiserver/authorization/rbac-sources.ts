/**
 * Where the RBAC authorizer's index comes from: the watch caches of the four served RBAC resources, or —
 * when this server does not serve them (an embedder's own API handler, `--runtime-config` turning the
 * group off) — the bootstrap policy as fixed grants, so health, version and discovery keep their public
 * grants and the bootstrap bindings hold.
 */
import type { KubeObject } from '../api/object.js';
import type { ServedResources } from '../registry/served-resources.js';
import type { Naming } from '../naming/naming.js';
import type { RbacSource, RbacSources } from './rbac-feed.js';
import type { RbacIndex } from './rbac-index.js';
import type { BindingObject, RoleObject } from './rbac-types.js';

/** The caches of roles, clusterroles, rolebindings and clusterrolebindings; undefined unless all are served with one. */
export function rbacSourcesOf(resources: ServedResources, naming: Naming): RbacSources | undefined {
  const group = naming.group('rbac');
  const source = (resource: string): RbacSource | undefined => {
    const served = resources.lookup(group, 'v1', resource);
    const cache = served?.registry.context.cache;
    if (served === undefined || cache === undefined) return undefined;
    return { cache, keyPrefix: served.registry.context.keys.collectionPrefix('') };
  };
  const roles = source('roles');
  const clusterRoles = source('clusterroles');
  const roleBindings = source('rolebindings');
  const clusterRoleBindings = source('clusterrolebindings');
  if (roles === undefined || clusterRoles === undefined || roleBindings === undefined || clusterRoleBindings === undefined) return undefined;
  return { roles, clusterRoles, roleBindings, clusterRoleBindings };
}

/** Files fixed cluster roles and bindings (the bootstrap policy) into the index. */
export function seedIndex(index: RbacIndex, policy: { readonly clusterRoles: readonly KubeObject[]; readonly clusterRoleBindings: readonly KubeObject[] }): void {
  for (const r of policy.clusterRoles) index.setClusterRole(r.metadata.name ?? '', (r as RoleObject).rules);
  for (const b of policy.clusterRoleBindings) index.setBinding('ClusterRoleBinding', '', b as BindingObject);
}
