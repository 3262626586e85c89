/**
 * The aggregation controller over the real registries of the RBAC kinds on the embedded store: the
 * bootstrap `view`/`edit`/`admin` chain fills from the `system:aggregate-to-*` roles, a newly labelled
 * ClusterRole's rules reach `view` and (through `edit`) `admin`, removing the label takes them away again,
 * and direct edits of an aggregated role's rules are overwritten.
 */
import type { KubeObject } from '../../api/object.js';
import { naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { reconcileBootstrapPolicy } from '../../registry/kinds/rbac/bootstrap-reconcile.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { aggregatedRules, AGGREGATION_FIELD_MANAGER, startClusterRoleAggregation, type AggregationController } from './aggregation-controller.js';

const GROUP = 'rbac.authorization.k8s.io';
const names = naming('k8s.io');
let store: ServedStore;
let roles: GenericRegistry;
let controller: AggregationController;
/** Resolvers waiting for the controller's next write. */
let writes: (() => void)[];

beforeEach(async () => {
  store = await openServedStore(names);
  roles = store.served.lookup(GROUP, 'v1', 'clusterroles')!.registry;
  await reconcileBootstrapPolicy(store.served, names);
  writes = [];
  controller = startClusterRoleAggregation({
    clusterRoles: roles,
    resyncMs: 60_000,
    onError: (err) => {
      throw err;
    },
    onAggregated: () => {
      for (const w of writes.splice(0)) w();
    },
  });
});

afterEach(async () => {
  await controller.stop();
  await store.close();
});

/** Resolves once `check` holds for the stored role, re-checking after each of the controller's writes. */
async function until(name: string, check: (role: KubeObject) => boolean): Promise<KubeObject> {
  for (;;) {
    const next = new Promise<void>((resolve) => writes.push(resolve));
    const role = await roles.get('', name);
    if (check(role)) return role;
    await next;
  }
}

const hasRule = (role: KubeObject, resource: string, verb: string): boolean =>
  ((role.rules ?? []) as { resources?: string[]; verbs?: string[] }[]).some((r) => r.resources?.includes(resource) && r.verbs?.includes(verb));

const clusterRole = (name: string, labels: Record<string, string>, rules: unknown[]): KubeObject => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'ClusterRole',
  metadata: { name, labels },
  rules,
});

test('the bootstrap chain aggregates: view <- aggregate-to-view, edit <- view + aggregate-to-edit, admin <- all', async () => {
  const view = await until('view', (r) => hasRule(r, 'configmaps', 'get'));
  expect(hasRule(view, 'secrets', 'get')).toBe(false);
  const edit = await until('edit', (r) => hasRule(r, 'configmaps', 'get') && hasRule(r, 'secrets', 'create'));
  expect(hasRule(edit, 'roles', 'create')).toBe(false);
  const admin = await until('admin', (r) => hasRule(r, 'roles', 'create') && hasRule(r, 'secrets', 'create') && hasRule(r, 'pods/log', 'get'));
  expect(admin.metadata.managedFields?.some((m) => m.manager === AGGREGATION_FIELD_MANAGER)).toBe(true);
});

test('a new ClusterRole labelled aggregate-to-view adds its rules to view, then edit and admin; unlabelling removes them', async () => {
  await until('admin', (r) => hasRule(r, 'pods/log', 'get'));
  const { object } = await roles.create('', clusterRole('widgets-viewer', { [`${GROUP}/aggregate-to-view`]: 'true' }, [
    { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list'] },
  ]));
  await until('view', (r) => hasRule(r, 'widgets', 'list'));
  await until('edit', (r) => hasRule(r, 'widgets', 'list'));
  await until('admin', (r) => hasRule(r, 'widgets', 'list'));

  // A rule added to the source role follows too.
  const more = structuredClone(object);
  more.metadata.labels = {};
  await roles.update('', 'widgets-viewer', more);
  await until('view', (r) => !hasRule(r, 'widgets', 'list'));
  await until('admin', (r) => !hasRule(r, 'widgets', 'list'));
});

test('direct edits of an aggregated role are overwritten', async () => {
  const view = await until('view', (r) => hasRule(r, 'configmaps', 'get'));
  await roles.update('', 'view', { ...view, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] });
  const repaired = await until('view', (r) => !hasRule(r, '*', '*') && hasRule(r, 'configmaps', 'get'));
  expect(repaired.rules).toEqual(aggregatedRules(repaired, (await roles.list('', {})).items));
});

test('aggregatedRules: selectors in order, roles by name, each rule once, itself excluded', () => {
  const a = clusterRole('b-role', { x: '1' }, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);
  const b = clusterRole('a-role', { x: '1', y: '1' }, [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] }]);
  const self = { ...clusterRole('agg', { x: '1' }, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { y: '1' } }, { matchLabels: { x: '1' } }] } };
  expect(aggregatedRules(self, [a, b, self])).toEqual([
    { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
    { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: [] },
  ]);
  expect(aggregatedRules(a, [a, b])).toBeUndefined();
  expect(aggregatedRules({ ...self, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { none: '1' } }] } }, [a, b])).toEqual([]);
});
