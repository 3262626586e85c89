/**
 * The RBAC kinds: validation with Kubernetes v1.32's messages (unit, on the strategies' hooks), defaults
 * and the whole create/update path through a real generic registry over the embedded store, and the
 * table columns kubectl shows.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/object.js';
import { serveResources, type ServedResources } from '../../served-resources.js';
import { StatusError } from '../../../errors/status-error.js';
import { naming } from '../../../naming/naming.js';
import { errorString } from '../../../validation/field-error.js';
import { openMemoryStore, type MemoryStore } from '../../../../storage/memory/memory-store.js';
import { testContext } from '../shared/test-context.js';
import { builtinKinds } from '../index.js';
import { clusterRoleBindings } from './clusterrolebinding.js';
import { clusterRoles } from './clusterrole.js';
import { aggregateLabel, autoupdateAnnotation, bootstrappingLabel, rbacGroup } from './rbac-names.js';
import { roleBindings } from './rolebinding.js';
import { roles } from './role.js';

const K8S = 'rbac.authorization.k8s.io';
const ctx = testContext('k8s.io');
const meta = (name = 'r', namespace?: string) => ({ name, ...(namespace === undefined ? {} : { namespace }), creationTimestamp: '2024-01-01T00:00:00Z' });
const role = (rules: unknown[]): KubeObject => ({ apiVersion: `${K8S}/v1`, kind: 'Role', metadata: meta('r', 'default'), rules });
const clusterRole = (fields: Record<string, unknown>): KubeObject => ({ apiVersion: `${K8S}/v1`, kind: 'ClusterRole', metadata: meta(), ...fields });
const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', roleRef: unknown, subjects?: unknown[]): KubeObject => ({
  apiVersion: `${K8S}/v1`,
  kind,
  metadata: meta('b', kind === 'RoleBinding' ? 'default' : undefined),
  roleRef,
  ...(subjects === undefined ? {} : { subjects }),
});
const roleValidate = (o: KubeObject) => roles.validate(o).map(errorString);
const clusterRoleValidate = (o: KubeObject) => clusterRoles.validate(o).map(errorString);
const rbValidate = (o: KubeObject) => roleBindings.validate(o, ctx).map(errorString);
const crbValidate = (o: KubeObject) => clusterRoleBindings.validate(o, ctx).map(errorString);

describe('names', () => {
  test('the group and the bootstrap keys follow the domain', () => {
    expect(rbacGroup(naming('k8s.io'))).toBe(K8S);
    expect(rbacGroup(naming('platform.io'))).toBe('rbac.platform.io');
    expect(autoupdateAnnotation(naming('k8s.io'))).toBe('rbac.authorization.kubernetes.io/autoupdate');
    expect(autoupdateAnnotation(naming('platform.io'))).toBe('rbac.platform.io/autoupdate');
    expect(bootstrappingLabel(naming('k8s.io'))).toBe('kubernetes.io/bootstrapping');
    expect(bootstrappingLabel(naming('example.com'))).toBe('example.com/bootstrapping');
    expect(aggregateLabel(naming('k8s.io'), 'view')).toBe('rbac.authorization.k8s.io/aggregate-to-view');
  });
});

describe('rules', () => {
  test('a typical rule and a ClusterRole URL rule are valid', () => {
    expect(roleValidate(role([{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'pods/log'], resourceNames: ['p'] }]))).toEqual([]);
    expect(clusterRoleValidate(clusterRole({ rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] }] }))).toEqual([]);
  });

  test('verbs, apiGroups and resources are required', () => {
    expect(roleValidate(role([{}]))).toEqual([
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[0].apiGroups: Required value: resource rules must supply at least one api group',
      'rules[0].resources: Required value: resource rules must supply at least one resource',
    ]);
  });

  test("a Role's rules may not use nonResourceURLs; URLs are exclusive with resources", () => {
    expect(roleValidate(role([{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]))).toEqual([
      'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
    ]);
    expect(clusterRoleValidate(clusterRole({ rules: [{ verbs: ['get'], nonResourceURLs: ['/x'], resources: ['pods'] }] }))).toEqual([
      'rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs',
    ]);
  });

  test('aggregationRule: at least one selector, each valid', () => {
    expect(clusterRoleValidate(clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'true' } }] } }))).toEqual([]);
    expect(clusterRoleValidate(clusterRole({ aggregationRule: {} }))).toEqual([
      'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
    ]);
    expect(clusterRoleValidate(clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }] } }))).toEqual([
      "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'aggregationRule.clusterRoleSelectors[0]: Invalid value: null: invalid label selector.',
    ]);
    expect(clusterRoleValidate(clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }] } }))[0]).toBe(
      'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
    );
  });
});

describe('bindings', () => {
  const ref = (kind: string, name = 'view', apiGroup = K8S) => ({ apiGroup, kind, name });

  test('RoleBinding refers to a Role or a ClusterRole; ClusterRoleBinding only to a ClusterRole', () => {
    expect(rbValidate(binding('RoleBinding', ref('Role')))).toEqual([]);
    expect(rbValidate(binding('RoleBinding', ref('ClusterRole')))).toEqual([]);
    expect(rbValidate(binding('RoleBinding', ref('Pod')))).toEqual(['roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"']);
    expect(crbValidate(binding('ClusterRoleBinding', ref('Role')))).toEqual(['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']);
    expect(crbValidate(binding('ClusterRoleBinding', ref('ClusterRole', '', 'example.com')))).toEqual([
      `roleRef.apiGroup: Unsupported value: "example.com": supported values: "${K8S}"`,
      'roleRef.name: Required value',
    ]);
    expect(rbValidate(binding('RoleBinding', ref('Role', 'a/b')))).toEqual([`roleRef.name: Invalid value: "a/b": may not contain '/'`]);
  });

  test('subjects: kinds and their apiGroup rules', () => {
    const check = (subject: unknown) => crbValidate(binding('ClusterRoleBinding', ref('ClusterRole'), [subject]));
    expect(check({ kind: 'User', apiGroup: K8S, name: 'alice' })).toEqual([]);
    expect(check({ kind: 'Group', apiGroup: K8S, name: 'system:masters' })).toEqual([]);
    expect(check({ kind: 'ServiceAccount', apiGroup: '', name: 'default', namespace: 'ns' })).toEqual([]);
    expect(check({ kind: 'ServiceAccount', name: 'default' })).toEqual(['subjects[0].namespace: Required value']);
    expect(check({ kind: 'ServiceAccount', apiGroup: K8S, name: 'Bad_Name', namespace: 'ns' })).toEqual([
      expect.stringMatching(/^subjects\[0\]\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/),
      `subjects[0].apiGroup: Unsupported value: "${K8S}": supported values: ""`,
    ]);
    expect(check({ kind: 'User', apiGroup: '', name: 'alice' })).toEqual([`subjects[0].apiGroup: Unsupported value: "": supported values: "${K8S}"`]);
    expect(check({ kind: 'Robot', name: '' })).toEqual([
      'subjects[0].name: Required value',
      'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"',
    ]);
    // In a RoleBinding a ServiceAccount's namespace defaults to the binding's, so it may be empty.
    expect(rbValidate(binding('RoleBinding', ref('Role'), [{ kind: 'ServiceAccount', name: 'default' }]))).toEqual([]);
  });

  test('roleRef is immutable', () => {
    const old = binding('RoleBinding', ref('Role', 'a'));
    expect(roleBindings.validateUpdate(binding('RoleBinding', ref('Role', 'a')), old)).toEqual([]);
    expect(roleBindings.validateUpdate(binding('RoleBinding', ref('Role', 'b')), old).map(errorString)).toEqual([
      `roleRef: Invalid value: rbac.RoleRef{APIGroup:"${K8S}", Kind:"Role", Name:"b"}: cannot change roleRef`,
    ]);
    expect(clusterRoleBindings.validateUpdate(binding('ClusterRoleBinding', ref('ClusterRole', 'a')), binding('ClusterRoleBinding', ref('ClusterRole', 'c')))).toHaveLength(1);
  });

  test('defaults: roleRef.apiGroup and User/Group apiGroup become the RBAC group; ServiceAccounts keep ""', () => {
    const obj = binding('RoleBinding', { kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'u' }, { kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 's' }]);
    roleBindings.prepareForCreate(obj, testContext('platform.io'));
    expect(obj.roleRef).toEqual({ apiGroup: 'rbac.platform.io', kind: 'Role', name: 'r' });
    expect(obj.subjects).toEqual([
      { kind: 'User', name: 'u', apiGroup: 'rbac.platform.io' },
      { kind: 'Group', name: 'g', apiGroup: 'rbac.platform.io' },
      { kind: 'ServiceAccount', name: 's' },
    ]);
  });
});

describe('tables', () => {
  const now = new Date('2024-01-01T00:05:00Z');
  test('roles: NAME and CREATED AT', () => {
    expect(roles.table.columns.map((c) => [c.name, c.type, c.priority])).toEqual([['Name', 'string', 0], ['Created At', 'date', 0]]);
    expect(clusterRoles.table.cells(clusterRole({}), now)).toEqual(['r', '2024-01-01T00:00:00Z']);
  });

  test('bindings: NAME ROLE AGE, and USERS GROUPS SERVICEACCOUNTS with -o wide', () => {
    expect(roleBindings.table.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0], ['Role', 0], ['Age', 0], ['Users', 1], ['Groups', 1], ['ServiceAccounts', 1],
    ]);
    const obj = binding('ClusterRoleBinding', { apiGroup: K8S, kind: 'ClusterRole', name: 'view' }, [
      { kind: 'User', name: 'alice' },
      { kind: 'User', name: 'bob' },
      { kind: 'Group', name: 'devs' },
      { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
    ]);
    expect(clusterRoleBindings.table.cells(obj, now)).toEqual(['b', 'ClusterRole/view', '5m', 'alice, bob', 'devs', 'ci/builder']);
    expect(roleBindings.table.cells(binding('RoleBinding', { kind: 'Role', name: 'r' }), now)).toEqual(['b', 'Role/r', '5m', '', '', '']);
  });
});

describe('through the registry (embedded store)', () => {
  let dir: string;
  let store: MemoryStore;
  let served: ServedResources;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rbac-kinds-'));
    store = await openMemoryStore({ dataDir: dir });
    served = serveResources({ store, naming: naming('k8s.io'), kinds: builtinKinds(), prefix: '/registry' });
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  const registry = (resource: string) => served.lookup(K8S, 'v1', resource)!.registry;
  /** The StatusError a write fails with (a write that succeeds fails the test). */
  const failure = (write: Promise<unknown>): Promise<StatusError> =>
    write.then(
      () => {
        throw new Error('the write succeeded');
      },
      (e: unknown) => {
        if (!(e instanceof StatusError)) throw e;
        return e;
      },
    );

  test('served in rbac.authorization.k8s.io/v1 under k8s.io naming', () => {
    expect(served.lookup(K8S, 'v1', 'clusterroles')).toBeDefined();
    expect(served.lookup(K8S, 'v1', 'roles')?.strategy.namespaced).toBe(true);
  });

  test('a RoleBinding without apiGroups is stored with the defaults', async () => {
    const { object } = await registry('rolebindings').create('default', {
      apiVersion: `${K8S}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'read' },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'alice' }],
    });
    expect(object.roleRef).toEqual({ apiGroup: K8S, kind: 'ClusterRole', name: 'view' });
    expect(object.subjects).toEqual([{ kind: 'User', name: 'alice', apiGroup: K8S }]);
  });

  test('names are path segments: colons are fine, slashes are not', async () => {
    await registry('clusterroles').create('', { apiVersion: `${K8S}/v1`, kind: 'ClusterRole', metadata: { name: 'system:Odd Name' } });
    const err = await failure(registry('clusterroles').create('', { apiVersion: `${K8S}/v1`, kind: 'ClusterRole', metadata: { name: '..' } }));
    expect(err.code).toBe(422);
    expect(err.message).toContain("metadata.name: Invalid value: \"..\": may not be '..'");
  });

  test('a missing roleRef and an update that changes it are 422 with kube messages', async () => {
    const missing = await failure(registry('clusterrolebindings').create('', { apiVersion: `${K8S}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'x' } }));
    expect(missing.code).toBe(422);
    expect(missing.message).toContain('roleRef.kind: Unsupported value: "": supported values: "ClusterRole"');
    expect(missing.message).toContain('roleRef.name: Required value');

    const { object } = await registry('clusterrolebindings').create('', {
      apiVersion: `${K8S}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'y' }, roleRef: { kind: 'ClusterRole', name: 'a' },
    });
    const changed = await failure(registry('clusterrolebindings').update('', 'y', { ...object, roleRef: { kind: 'ClusterRole', name: 'b' } }));
    expect(changed.code).toBe(422);
    expect(changed.message).toContain('cannot change roleRef');
    // Subjects may change; the omitted roleRef.apiGroup defaults to the stored one's value.
    const ok = await registry('clusterrolebindings').update('', 'y', { ...object, roleRef: { kind: 'ClusterRole', name: 'a' }, subjects: [{ kind: 'Group', name: 'g' }] });
    expect(ok.object.subjects).toEqual([{ kind: 'Group', name: 'g', apiGroup: K8S }]);
  });
});
