import type { KubeObject } from '../../../api/object.js';
import { testContext } from '../shared/test-context.js';
import { serviceAccounts } from './serviceaccount.js';

const sa = (fields: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'build-bot', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z', ...(annotations ? { annotations } : {}) },
  ...fields,
});

test('discovery data: sa, namespaced, delete returns the object', () => {
  expect(serviceAccounts.shortNames).toEqual(['sa']);
  expect(serviceAccounts.namespaced).toBe(true);
  expect(serviceAccounts.deleteReturnsObject).toBe(true);
});

test('schema: secrets merged by name, imagePullSecrets atomic', () => {
  const p = serviceAccounts.schema.properties!;
  expect(p.secrets).toMatchObject({
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    'x-kubernetes-patch-merge-key': 'name',
    'x-kubernetes-patch-strategy': 'merge',
  });
  expect(p.secrets!.items!.properties).toHaveProperty('fieldPath');
  expect(p.imagePullSecrets).toMatchObject({ type: 'array', 'x-kubernetes-list-type': 'atomic' });
  expect(p.imagePullSecrets!.items!.properties).toEqual({ name: expect.objectContaining({ type: 'string' }) });
  expect(p.automountServiceAccountToken!.type).toBe('boolean');
});

test('a typical account round-trips; secret references keep only the name', () => {
  const obj = sa({
    automountServiceAccountToken: false,
    imagePullSecrets: [{ name: 'registry' }],
    secrets: [{ name: 'tok', namespace: 'other', kind: 'Secret', uid: 'u' }, { name: 'b' }],
  });
  serviceAccounts.prepareForCreate(obj);
  expect(obj).toEqual(sa({ automountServiceAccountToken: false, imagePullSecrets: [{ name: 'registry' }], secrets: [{ name: 'tok' }, { name: 'b' }] }));
  const upd = sa({ secrets: [{ name: 'x', apiVersion: 'v1' }] });
  serviceAccounts.prepareForUpdate(upd);
  expect(upd.secrets).toEqual([{ name: 'x' }]);
});

test('the deprecated enforce-mountable-secrets annotation warns, under the domain', () => {
  expect(serviceAccounts.warnings(sa(), undefined, testContext())).toEqual([]);
  expect(serviceAccounts.warnings(sa({}, { 'platform.io/enforce-mountable-secrets': 'true' }), undefined, testContext())).toEqual([
    'metadata.annotations[platform.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets',
  ]);
  expect(serviceAccounts.warnings(sa({}, { 'kubernetes.io/enforce-mountable-secrets': 'true' }), undefined, testContext('k8s.io'))).toHaveLength(1);
});

test('NAME SECRETS AGE', () => {
  expect(serviceAccounts.table.columns.map((c) => c.name)).toEqual(['Name', 'Secrets', 'Age']);
  expect(serviceAccounts.table.cells(sa({ secrets: [{ name: 'a' }] }), new Date('2024-01-01T00:12:30Z'))).toEqual(['build-bot', 1, '12m']);
  expect(serviceAccounts.table.cells(sa(), new Date('2024-01-01T00:00:00Z'))).toEqual(['build-bot', 0, '0s']);
});
