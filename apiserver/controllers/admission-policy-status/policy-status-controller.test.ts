/**
 * The policy status controller over the real policy registry on the embedded store: a new policy gets
 * `observedGeneration` and its type checking warnings; a spec change re-checks (a fixed expression
 * clears the warnings); conditions written by others stay; policies already current are left alone;
 * writes carry the controller's field manager.
 */
import type { KubeObject } from '../../api/object.js';
import { naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { POLICY_STATUS_FIELD_MANAGER, startPolicyStatusController, type PolicyStatusController } from './policy-status-controller.js';

const names = naming('k8s.io');
let store: ServedStore;
let policies: GenericRegistry;
let controller: PolicyStatusController;
let checks: { name: string; generation: number }[];
/** Resolvers waiting for the controller's next write. */
let writes: (() => void)[];

beforeEach(async () => {
  store = await openServedStore(names);
  policies = store.served.lookup('admissionregistration.k8s.io', 'v1', 'validatingadmissionpolicies')!.registry;
  checks = [];
  writes = [];
  controller = startPolicyStatusController({
    policies,
    resources: store.served,
    resyncMs: 60_000,
    onError: (err) => {
      throw err;
    },
    onChecked: (name, generation) => {
      checks.push({ name, generation });
      for (const w of writes.splice(0)) w();
    },
  });
});

afterEach(async () => {
  await controller.stop();
  await store.close();
});

/** Resolves once `check` holds for the stored policy, re-checking after each of the controller's writes. */
async function until(name: string, check: (p: KubeObject) => boolean): Promise<KubeObject> {
  for (;;) {
    const next = new Promise<void>((resolve) => writes.push(resolve));
    const p = await policies.get('', name);
    if (check(p)) return p;
    await next;
  }
}

const status = (p: KubeObject): Record<string, any> => p.status as Record<string, any>;

function policy(name: string, expression: string): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }] },
      validations: [{ expression }],
    },
  };
}

const WARNING = "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'dta'\n | object.dta.size() < 10\n | ......^\n";

test('a new policy gets observedGeneration and its warnings; fixing the expression clears them', async () => {
  const created = (await policies.create('', policy('p', 'object.dta.size() < 10'))).object;
  expect(created.status).toEqual({});
  const checked = await until('p', (p) => status(p).observedGeneration === 1);
  expect(status(checked)).toEqual({ observedGeneration: 1, typeChecking: { expressionWarnings: [{ fieldRef: 'spec.validations[0].expression', warning: WARNING }] } });
  expect(checked.metadata.managedFields?.some((m) => m.manager === POLICY_STATUS_FIELD_MANAGER && m.subresource === 'status')).toBe(true);

  await policies.update('', 'p', { ...checked, spec: policy('p', 'object.data.size() < 10').spec });
  const fixed = await until('p', (p) => status(p).observedGeneration === 2);
  expect(fixed.metadata.generation).toBe(2);
  expect(status(fixed)).toEqual({ observedGeneration: 2, typeChecking: {} });
});

test('a policy without warnings gets an empty typeChecking; conditions of others are kept', async () => {
  await policies.create('', policy('q', "object.data['k'] == 'v'"));
  const checked = await until('q', (p) => status(p).observedGeneration === 1);
  expect(status(checked)).toEqual({ observedGeneration: 1, typeChecking: {} });

  const condition = { type: 'Reviewed', status: 'True', lastTransitionTime: '2024-01-01T00:00:00Z', reason: 'ByHand', message: '' };
  await policies.update('', 'q', { ...checked, status: { ...status(checked), conditions: [condition] } }, { subresource: 'status' });
  const current = await policies.get('', 'q');
  await policies.update('', 'q', { ...current, spec: policy('q', 'object.nope == 1').spec });
  const rechecked = await until('q', (p) => status(p).observedGeneration === 2);
  expect(status(rechecked).conditions).toEqual([condition]);
  expect(status(rechecked).typeChecking.expressionWarnings).toHaveLength(1);
});

test('metadata changes do not bump the generation and are not re-checked; each generation is checked once', async () => {
  await policies.create('', policy('r', 'object.nope == 1'));
  const checked = await until('r', (p) => status(p).observedGeneration === 1);
  await policies.update('', 'r', { ...checked, metadata: { ...checked.metadata, labels: { a: 'b' } } });
  // A second policy's check proves the controller went through the label's event (passes run in order).
  await policies.create('', policy('s', 'true'));
  await until('s', (p) => status(p).observedGeneration === 1);
  expect(checks.filter((c) => c.name === 'r')).toEqual([{ name: 'r', generation: 1 }]);
  expect((await policies.get('', 'r')).metadata.generation).toBe(1);
});

test('policies present before the controller starts are checked', async () => {
  await controller.stop();
  await policies.create('', policy('early', 'object.dta.size() < 10'));
  controller = startPolicyStatusController({
    policies,
    resources: store.served,
    onChecked: () => {
      for (const w of writes.splice(0)) w();
    },
  });
  const checked = await until('early', (p) => status(p).observedGeneration === 1);
  expect(status(checked).typeChecking.expressionWarnings[0].warning).toBe(WARNING);
});
