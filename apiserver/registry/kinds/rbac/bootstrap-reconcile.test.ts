/**
 * The bootstrap policy reconciled against real registries on the embedded store: a first run creates
 * everything, a second is a no-op, an autoupdate role that lost rules or labels is repaired (additively),
 * a binding with a changed roleRef is recreated, `autoupdate: "false"` is left alone, and replicas racing
 * each other converge without errors. Also the policy's data and the rule-coverage algorithm.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/object.js';
import { serveResources, type ServedResources } from '../../served-resources.js';
import { naming } from '../../../naming/naming.js';
import { errorString } from '../../../validation/field-error.js';
import { openMemoryStore, type MemoryStore } from '../../../../storage/memory/memory-store.js';
import { testContext } from '../shared/test-context.js';
import { builtinKinds } from '../index.js';
import { bootstrapPolicy } from './bootstrap-policy.js';
import { reconcileBootstrapPolicy } from './bootstrap-reconcile.js';
import { clusterRoleBindings } from './clusterrolebinding.js';
import { clusterRoles } from './clusterrole.js';
import { breakdownRule, ruleCovers, uncoveredRules } from '../../../authorization/rule-coverage.js';

const names = naming('k8s.io');
const GROUP = 'rbac.authorization.k8s.io';
const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
let dir: string;
let store: MemoryStore;
let served: ServedResources;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rbac-bootstrap-'));
  store = await openMemoryStore({ dataDir: dir });
  served = serveResources({ store, naming: names, kinds: builtinKinds(), prefix: '/registry' });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const roles = () => served.lookup(GROUP, 'v1', 'clusterroles')!.registry;
const bindings = () => served.lookup(GROUP, 'v1', 'clusterrolebindings')!.registry;
const policy = bootstrapPolicy(names);
const allNames = [
  ...policy.clusterRoles.map((r) => `clusterroles/${r.metadata.name}`),
  ...policy.clusterRoleBindings.map((b) => `clusterrolebindings/${b.metadata.name}`),
];

describe('the policy', () => {
  test('the roles and bindings kube 1.32 creates for this server, each labelled and annotated', () => {
    expect(policy.clusterRoles.map((r) => r.metadata.name).sort()).toEqual([
      'admin', 'cluster-admin', 'edit', 'system:aggregate-to-admin', 'system:aggregate-to-edit', 'system:aggregate-to-view',
      'system:auth-delegator', 'system:basic-user',
      'system:certificates.k8s.io:certificatesigningrequests:nodeclient',
      'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient',
      'system:certificates.k8s.io:kube-apiserver-client-approver',
      'system:certificates.k8s.io:kube-apiserver-client-kubelet-approver',
      'system:certificates.k8s.io:kubelet-serving-approver',
      'system:certificates.k8s.io:legacy-unknown-approver',
      'system:discovery', 'system:monitoring', 'system:node-bootstrapper',
      'system:public-info-viewer', 'system:service-account-issuer-discovery', 'view',
    ]);
    for (const o of [...policy.clusterRoles, ...policy.clusterRoleBindings]) {
      expect(o.metadata.labels?.['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
      expect(o.metadata.annotations?.[AUTOUPDATE]).toBe('true');
    }
    const subjects = Object.fromEntries(policy.clusterRoleBindings.map((b) => [b.metadata.name, (b.subjects as { name: string }[]).map((s) => s.name)]));
    expect(subjects).toEqual({
      'cluster-admin': ['system:masters'],
      'system:monitoring': ['system:monitoring'],
      'system:discovery': ['system:authenticated'],
      'system:basic-user': ['system:authenticated'],
      'system:public-info-viewer': ['system:authenticated', 'system:unauthenticated'],
      'system:service-account-issuer-discovery': ['system:serviceaccounts'],
    });
    const view = policy.clusterRoles.find((r) => r.metadata.name === 'view')!;
    expect(view.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { [`${GROUP}/aggregate-to-view`]: 'true' } }] });
    expect(view.metadata.labels?.[`${GROUP}/aggregate-to-edit`]).toBe('true');
  });

  test('valid under both namings; platform.io spells its groups and keys with the domain', () => {
    for (const domain of ['k8s.io', 'platform.io']) {
      const p = bootstrapPolicy(naming(domain));
      for (const r of p.clusterRoles) expect(clusterRoles.validate(r).map(errorString)).toEqual([]);
      for (const b of p.clusterRoleBindings) expect(clusterRoleBindings.validate(b, testContext(domain)).map(errorString)).toEqual([]);
    }
    const p = bootstrapPolicy(naming('platform.io'));
    const basic = p.clusterRoles.find((r) => r.metadata.name === 'system:basic-user')!;
    expect(basic.rules).toEqual([
      { verbs: ['create'], apiGroups: ['authorization.platform.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
      { verbs: ['create'], apiGroups: ['authentication.platform.io'], resources: ['selfsubjectreviews'] },
    ]);
    expect(basic.metadata.annotations).toEqual({ 'rbac.platform.io/autoupdate': 'true' });
    expect(p.clusterRoleBindings[0]!.roleRef).toEqual({ apiGroup: 'rbac.platform.io', kind: 'ClusterRole', name: 'cluster-admin' });
    // The certificate roles in the domain's names; approvers named after the signers.
    const names = p.clusterRoles.map((r) => r.metadata.name).filter((n) => n?.startsWith('system:certificates'));
    expect(names.sort()).toEqual([
      'system:certificates.platform.io:apiserver-client-approver',
      'system:certificates.platform.io:apiserver-client-nodeagent-approver',
      'system:certificates.platform.io:certificatesigningrequests:nodeclient',
      'system:certificates.platform.io:certificatesigningrequests:selfnodeclient',
      'system:certificates.platform.io:legacy-unknown-approver',
      'system:certificates.platform.io:nodeagent-serving-approver',
    ]);
    expect(p.clusterRoles.find((r) => r.metadata.name === 'system:certificates.platform.io:apiserver-client-nodeagent-approver')!.rules).toEqual([
      { verbs: ['approve'], apiGroups: ['certificates.platform.io'], resources: ['signers'], resourceNames: ['platform.io/apiserver-client-nodeagent'] },
    ]);
    expect(p.clusterRoles.find((r) => r.metadata.name === 'system:certificates.platform.io:certificatesigningrequests:selfnodeclient')!.rules).toEqual([
      { verbs: ['create'], apiGroups: ['certificates.platform.io'], resources: ['certificatesigningrequests/selfnodeclient'] },
    ]);
  });
});

describe('coverage', () => {
  test('breakdown: verb x group x resource x name, then URL x verb', () => {
    expect(breakdownRule({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] })).toEqual([
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'], nonResourceURLs: [] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'], nonResourceURLs: [] },
    ]);
    expect(breakdownRule({ verbs: ['get'], nonResourceURLs: ['/a', '/b'] })).toHaveLength(2);
  });

  test('wildcards, subresources, names and URL prefixes', () => {
    const sub = (resource: string, extra = {}) => ({ verbs: ['get'], apiGroups: ['apps'], resources: [resource], ...extra });
    expect(ruleCovers({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, sub('deployments'))).toBe(true);
    expect(ruleCovers({ verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] }, sub('deployments/scale'))).toBe(true);
    expect(ruleCovers({ verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] }, sub('deployments'))).toBe(false);
    expect(ruleCovers({ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['a'] }, sub('deployments'))).toBe(false);
    expect(ruleCovers({ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] }, sub('deployments', { resourceNames: ['a'] }))).toBe(true);
    expect(ruleCovers({ verbs: ['get'], nonResourceURLs: ['/apis/*'] }, { verbs: ['get'], nonResourceURLs: ['/apis/apps'] })).toBe(true);
    expect(ruleCovers({ verbs: ['get'], nonResourceURLs: ['/apis'] }, { verbs: ['get'], nonResourceURLs: ['/apis/apps'] })).toBe(false);
    expect(uncoveredRules([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }])).toEqual([
      { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: [], nonResourceURLs: [] },
    ]);
  });
});

describe('reconcile', () => {
  test('creates everything, then a second run changes nothing', async () => {
    const first = await reconcileBootstrapPolicy(served, names);
    expect([...first.created].sort()).toEqual([...allNames].sort());
    const rv = (await roles().get('', 'system:discovery')).metadata.resourceVersion;
    const second = await reconcileBootstrapPolicy(served, names);
    expect(second).toEqual({ created: [], updated: [], recreated: [], skipped: [] });
    expect((await roles().get('', 'system:discovery')).metadata.resourceVersion).toBe(rv);
    const admin = await bindings().get('', 'cluster-admin');
    expect(admin.subjects).toEqual([{ apiGroup: GROUP, kind: 'Group', name: 'system:masters' }]);
  });

  test('an autoupdate role that lost a rule and its label is repaired, keeping what was added', async () => {
    await reconcileBootstrapPolicy(served, names);
    const discovery = await roles().get('', 'system:discovery');
    await roles().update('', 'system:discovery', {
      ...discovery,
      metadata: { ...discovery.metadata, labels: { team: 'x' } },
      rules: [{ verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/version'] }, { verbs: ['get'], nonResourceURLs: ['/custom'] }],
    });
    const report = await reconcileBootstrapPolicy(served, names);
    expect(report.updated).toEqual(['clusterroles/system:discovery']);
    const repaired = await roles().get('', 'system:discovery');
    expect(repaired.metadata.labels).toEqual({ team: 'x', 'kubernetes.io/bootstrapping': 'rbac-defaults' });
    expect(uncoveredRules(repaired.rules as never, policy.clusterRoles.find((r) => r.metadata.name === 'system:discovery')!.rules as never)).toEqual([]);
    // The administrator's extra rule stays; the missing URLs come back as atomic rules after it.
    expect((repaired.rules as unknown[]).slice(0, 3)).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/api', '/api/*', '/version'] },
      { verbs: ['get'], nonResourceURLs: ['/custom'] },
      { verbs: ['get'], nonResourceURLs: ['/apis'] },
    ]);
    expect((await reconcileBootstrapPolicy(served, names)).updated).toEqual([]);
  });

  test('missing subjects are added; a changed roleRef is recreated; a deleted object comes back', async () => {
    await reconcileBootstrapPolicy(served, names);
    const basic = await bindings().get('', 'system:basic-user');
    await bindings().update('', 'system:basic-user', { ...basic, subjects: [{ kind: 'User', name: 'alice' }] });
    await bindings().delete('', 'system:discovery');
    // roleRef is immutable: an administrator pointing the binding elsewhere deletes and creates it.
    const monitoring = await bindings().get('', 'system:monitoring');
    await bindings().delete('', 'system:monitoring');
    await bindings().create('', {
      apiVersion: `${GROUP}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:monitoring', annotations: monitoring.metadata.annotations },
      roleRef: { kind: 'ClusterRole', name: 'view' },
      subjects: monitoring.subjects,
    });
    const report = await reconcileBootstrapPolicy(served, names);
    expect(report.updated).toEqual(['clusterrolebindings/system:basic-user']);
    expect(report.created).toEqual(['clusterrolebindings/system:discovery']);
    expect(report.recreated).toEqual(['clusterrolebindings/system:monitoring']);
    expect((await bindings().get('', 'system:basic-user')).subjects).toEqual([
      { kind: 'User', name: 'alice', apiGroup: GROUP },
      { apiGroup: GROUP, kind: 'Group', name: 'system:authenticated' },
    ]);
    expect((await bindings().get('', 'system:monitoring')).roleRef).toEqual({ apiGroup: GROUP, kind: 'ClusterRole', name: 'system:monitoring' });
  });

  test('autoupdate "false" is left alone', async () => {
    await reconcileBootstrapPolicy(served, names);
    const edited: KubeObject = structuredClone(await roles().get('', 'system:basic-user'));
    edited.metadata.annotations = { [AUTOUPDATE]: 'false' };
    edited.rules = [{ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'] }];
    const { object } = await roles().update('', 'system:basic-user', edited);
    const crb = structuredClone(await bindings().get('', 'cluster-admin'));
    crb.metadata.annotations = { [AUTOUPDATE]: 'false' };
    crb.subjects = [];
    await bindings().update('', 'cluster-admin', crb);

    const report = await reconcileBootstrapPolicy(served, names);
    expect(report).toEqual({ created: [], updated: [], recreated: [], skipped: ['clusterroles/system:basic-user', 'clusterrolebindings/cluster-admin'] });
    const after = await roles().get('', 'system:basic-user');
    expect(after.metadata.resourceVersion).toBe(object.metadata.resourceVersion);
    expect(after.rules).toEqual(edited.rules);
    expect((await bindings().get('', 'cluster-admin')).subjects ?? []).toEqual([]);
  });

  test('replicas racing each other converge: every object once, no errors', async () => {
    const reports = await Promise.all([1, 2, 3, 4].map(() => reconcileBootstrapPolicy(served, names)));
    const created = reports.flatMap((r) => r.created);
    expect([...created].sort()).toEqual([...allNames].sort());
    expect(reports.flatMap((r) => [...r.updated, ...r.recreated, ...r.skipped])).toEqual([]);
    expect((await roles().list('', {})).items).toHaveLength(policy.clusterRoles.length);
  });
});
