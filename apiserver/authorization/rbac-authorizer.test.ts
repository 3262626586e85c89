import { buildAuthorizer, checkAuthorizationModes } from './authorization-modes.js';
import type { AuthorizationAttributes } from './authorizer.js';
import { rbacAuthorizer } from './rbac-authorizer.js';
import { RbacIndex } from './rbac-index.js';

const G = 'rbac.authorization.k8s.io';
const user = (name: string, ...groups: string[]) => ({ name, uid: '', groups });
const get = (u: ReturnType<typeof user>, resource: string, namespace: string, name = ''): AuthorizationAttributes =>
  ({ user: u, verb: 'get', isResourceRequest: true, path: '', namespace, apiGroup: '', apiVersion: 'v1', resource, subresource: '', name });

function index(): RbacIndex {
  const i = new RbacIndex(G);
  i.setClusterRole('cm-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]);
  i.setRole('ns1', 'secret-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
  return i;
}

describe('RBAC authorizer over the index', () => {
  it('User, Group and ServiceAccount subjects; RoleBindings only in their namespace; ClusterRoles through RoleBindings', () => {
    const i = index();
    i.setBinding('RoleBinding', 'ns1', {
      metadata: { name: 'rb', namespace: 'ns1' },
      roleRef: { apiGroup: G, kind: 'Role', name: 'secret-reader' },
      subjects: [{ kind: 'User', name: 'bob' }, { kind: 'ServiceAccount', name: 'sa' }, { kind: 'Group', name: 'devs' }],
    });
    i.setBinding('RoleBinding', 'ns2', {
      metadata: { name: 'rb2', namespace: 'ns2' },
      roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'cm-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace: 'ns1' }],
    });
    const z = rbacAuthorizer(i);
    expect(z.authorize(get(user('bob'), 'secrets', 'ns1'))).toEqual({
      decision: 'allow', reason: 'RBAC: allowed by RoleBinding "rb/ns1" of Role "secret-reader" to User "bob"',
    });
    expect(z.authorize(get(user('bob'), 'secrets', 'ns2')).decision).toBe('no-opinion');
    expect(z.authorize(get(user('bob'), 'secrets', '')).decision).toBe('no-opinion');
    expect(z.authorize(get(user('alice', 'devs'), 'secrets', 'ns1')).reason).toBe('RBAC: allowed by RoleBinding "rb/ns1" of Role "secret-reader" to Group "devs"');
    const sa = user('system:serviceaccount:ns1:sa', 'system:serviceaccounts');
    expect(z.authorize(get(sa, 'secrets', 'ns1')).reason).toBe('RBAC: allowed by RoleBinding "rb/ns1" of Role "secret-reader" to ServiceAccount "sa/ns1"');
    expect(z.authorize(get(sa, 'configmaps', 'ns2')).reason).toBe('RBAC: allowed by RoleBinding "rb2/ns2" of ClusterRole "cm-reader" to ServiceAccount "sa/ns1"');
    expect(z.authorize(get(sa, 'configmaps', 'ns1')).decision).toBe('no-opinion');
    expect(z.authorize(get(user('system:serviceaccount:ns2:sa'), 'configmaps', 'ns2')).decision).toBe('no-opinion');
  });

  it('follows binding and role changes at once; missing roles are the reason', () => {
    const i = index();
    const z = rbacAuthorizer(i);
    const bob = user('bob', 'system:authenticated');
    i.setBinding('ClusterRoleBinding', '', {
      metadata: { name: 'crb' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'cm-reader' }, subjects: [{ kind: 'Group', name: 'system:authenticated' }],
    });
    expect(z.authorize(get(bob, 'configmaps', 'any')).decision).toBe('allow');
    expect(z.authorize(get(bob, 'configmaps', '')).decision).toBe('allow');
    i.setClusterRole('cm-reader', [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] }]);
    expect(z.authorize(get(bob, 'configmaps', 'any')).decision).toBe('no-opinion');
    i.deleteClusterRole('cm-reader');
    expect(z.authorize(get(bob, 'configmaps', 'any'))).toEqual({
      decision: 'no-opinion', reason: `RBAC: clusterrole.${G} "cm-reader" not found`,
    });
    i.setBinding('ClusterRoleBinding', '', {
      metadata: { name: 'crb2' }, roleRef: { apiGroup: G, kind: 'Role', name: 'x' }, subjects: [{ kind: 'User', name: 'bob' }],
    });
    // The user's bindings are visited before the groups'.
    expect(z.authorize(get(bob, 'configmaps', 'any')).reason).toBe(`RBAC: [role.${G} "x" not found, clusterrole.${G} "cm-reader" not found]`);
    i.deleteBinding('ClusterRoleBinding', '', 'crb');
    i.deleteBinding('ClusterRoleBinding', '', 'crb2');
    expect(z.authorize(get(bob, 'configmaps', 'any'))).toEqual({ decision: 'no-opinion', reason: '' });
    expect(i.size).toEqual({ roles: 1, clusterRoles: 0, bindings: 0 });
  });

  it('a binding replaced with other subjects stops applying to the old ones', () => {
    const i = index();
    const z = rbacAuthorizer(i);
    const b = (subject: string) => ({ metadata: { name: 'crb' }, roleRef: { apiGroup: G, kind: 'ClusterRole', name: 'cm-reader' }, subjects: [{ kind: 'User', name: subject }] });
    i.setBinding('ClusterRoleBinding', '', b('bob'));
    i.setBinding('ClusterRoleBinding', '', b('carol'));
    expect(z.authorize(get(user('bob'), 'configmaps', '')).decision).toBe('no-opinion');
    expect(z.authorize(get(user('carol'), 'configmaps', '')).decision).toBe('allow');
  });
});

describe('--authorization-mode', () => {
  it('checks modes as kube-apiserver', () => {
    expect(checkAuthorizationModes(['RBAC'])).toBeUndefined();
    expect(checkAuthorizationModes([])).toBe('at least one authorization-mode must be passed');
    expect(checkAuthorizationModes(['Foo'])).toMatch(/^authorization-mode "Foo" is not a valid mode/);
    expect(checkAuthorizationModes(['Node', 'RBAC'])).toMatch(/^authorization-mode "Node" is not supported by this server/);
    expect(checkAuthorizationModes(['RBAC', 'RBAC'])).toBe('authorization-mode ["RBAC" "RBAC"] has mode specified more than once');
  });

  it('system:masters first, then the modes in order; AlwaysDeny gives its reason', () => {
    const i = index();
    const a = get(user('bob'), 'pods', 'ns');
    expect(buildAuthorizer(['AlwaysDeny'], undefined).authorize(a)).toEqual({ decision: 'no-opinion', reason: 'Everything is forbidden.' });
    expect(buildAuthorizer(['AlwaysDeny'], undefined).authorize({ ...a, user: user('admin', 'system:masters') }).decision).toBe('allow');
    expect(buildAuthorizer(['AlwaysDeny', 'AlwaysAllow'], undefined).authorize(a).decision).toBe('allow');
    expect(buildAuthorizer(['RBAC', 'AlwaysDeny'], i).authorize(a)).toEqual({ decision: 'no-opinion', reason: 'Everything is forbidden.' });
    expect(buildAuthorizer(['RBAC'], i).authorize(a)).toEqual({ decision: 'no-opinion', reason: '' });
  });
});
