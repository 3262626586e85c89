/**
 * ReplicationController through the registry's create, update and status paths (no store): Kubernetes
 * v1.32's defaults (selector and labels from the template, replicas 1) and validation with exact field
 * paths and reasons, document 2's condition rule, the status rules, the Scale hooks and the table.
 */
import type { KubeObject } from '../../../api/object.js';
import { createAs, updateAs, updateStatusAs, type Cause } from '../storage/testing.js';
import { replicationControllers } from './replicationcontroller.js';

type Spec = Record<string, unknown>;

function rc(edit: (spec: Spec, meta: Spec) => void = () => {}, status?: Spec): KubeObject {
  const spec: Spec = {
    selector: { app: 'web' },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
  };
  const metadata: Spec = { name: 'web', namespace: 'default' };
  edit(spec, metadata);
  return { apiVersion: 'v1', kind: 'ReplicationController', metadata, spec, ...(status === undefined ? {} : { status }) } as KubeObject;
}

const podSpec = (s: Spec): Spec => (s.template as { spec: Spec }).spec;
const required = (field: string, detail = ''): Cause => ({ reason: 'FieldValueRequired', field, message: detail === '' ? 'Required value' : `Required value: ${detail}` });
const invalid = (field: string, value: unknown, detail: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
const unsupported = (field: string, value: string, valid: string[]): Cause => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}`,
});
const NEGATIVE = 'must be greater than or equal to 0';
const MISMATCH = '`selector` does not match template `labels`';
const GCE_PD = 'must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only';

const cases: [string, (s: Spec, m: Spec) => void, Cause[]][] = [
  ['a valid controller', () => {}, []],
  ['no selector (defaulted from the template labels)', (s) => { delete s.selector; }, []],
  ['a selector that is a subset of the template labels', (s) => { (s.template as { metadata: Spec }).metadata.labels = { app: 'web', tier: 'fe' }; }, []],
  ['zero replicas', (s) => { s.replicas = 0; }, []],
  ['a read-only GCE disk with 3 replicas', (s) => {
    s.replicas = 3;
    podSpec(s).volumes = [{ name: 'pd', gcePersistentDisk: { pdName: 'disk', readOnly: true } }];
  }, []],
  ['a writable GCE disk with one replica', (s) => { podSpec(s).volumes = [{ name: 'pd', gcePersistentDisk: { pdName: 'disk' } }]; }, []],
  ['no template (nothing to default the selector from)', (s) => { delete s.template; delete s.selector; }, [required('spec.selector'), required('spec.template')]],
  ['no template with a selector', (s) => { delete s.template; }, [required('spec.template')]],
  ['a template without labels and no selector', (s) => { delete s.selector; (s.template as { metadata: Spec }).metadata = {}; }, [required('spec.selector')]],
  ['a selector that does not match the template', (s) => { s.selector = { app: 'db' }; }, [invalid('spec.template.metadata.labels', { app: 'web' }, MISMATCH)]],
  ['a selector with a key the template lacks', (s) => { s.selector = { app: 'web', tier: 'fe' }; }, [invalid('spec.template.metadata.labels', { app: 'web' }, MISMATCH)]],
  ['negative replicas', (s) => { s.replicas = -2; }, [invalid('spec.replicas', -2, NEGATIVE)]],
  ['negative minReadySeconds', (s) => { s.minReadySeconds = -1; }, [invalid('spec.minReadySeconds', -1, NEGATIVE)]],
  ['restartPolicy Never', (s) => { podSpec(s).restartPolicy = 'Never'; }, [unsupported('spec.template.spec.restartPolicy', 'Never', ['Always'])]],
  ['restartPolicy OnFailure', (s) => { podSpec(s).restartPolicy = 'OnFailure'; }, [unsupported('spec.template.spec.restartPolicy', 'OnFailure', ['Always'])]],
  ['an unknown restartPolicy (the pod spec check, then the controller one)', (s) => { podSpec(s).restartPolicy = 'Sometimes'; }, [
    unsupported('spec.template.spec.restartPolicy', 'Sometimes', ['Always', 'OnFailure', 'Never']),
    unsupported('spec.template.spec.restartPolicy', 'Sometimes', ['Always']),
  ]],
  ['activeDeadlineSeconds', (s) => { podSpec(s).activeDeadlineSeconds = 60; }, [
    { reason: 'FieldValueForbidden', field: 'spec.template.spec.activeDeadlineSeconds', message: 'Forbidden: activeDeadlineSeconds in ReplicationController is not Supported' },
  ]],
  ['a writable GCE disk with 2 replicas', (s) => {
    s.replicas = 2;
    podSpec(s).volumes = [{ name: 'pd', gcePersistentDisk: { pdName: 'disk' } }];
  }, [invalid('spec.template.spec.volumes[0].gcePersistentDisk.readOnly', false, GCE_PD)]],
  ['no containers', (s) => { podSpec(s).containers = []; }, [required('spec.template.spec.containers')]],
  ['a container without an image', (s) => { podSpec(s).containers = [{ name: 'nginx' }]; }, [required('spec.template.spec.containers[0].image')]],
  ['template labels that are not valid', (s) => {
    s.selector = { app: 'web' };
    (s.template as { metadata: Spec }).metadata.labels = { app: 'web', 'bad key': 'x' };
  }, [
    invalid(
      'spec.template.labels',
      'bad key',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ),
  ]],
];

describe('ReplicationController validation on create', () => {
  test.each(cases)('%s', (_name, edit, expected) => {
    expect(createAs(replicationControllers, rc(edit)).causes).toEqual(expected);
  });
});

describe('ReplicationController defaults', () => {
  test('selector and labels from the template, replicas 1, the pod defaults, an empty status', () => {
    const { obj, causes } = createAs(replicationControllers, rc((s) => { delete s.selector; }, { replicas: 4 }));
    expect(causes).toEqual([]);
    const spec = obj.spec as Spec;
    expect(spec.selector).toEqual({ app: 'web' });
    expect(obj.metadata.labels).toEqual({ app: 'web' });
    expect(spec.replicas).toBe(1);
    expect(podSpec(spec)).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' });
    expect(obj.status).toEqual({ replicas: 0 });
  });

  test('an explicit zero, a selector and labels of its own are kept', () => {
    const { obj } = createAs(replicationControllers, rc((s, m) => {
      s.replicas = 0;
      m.labels = { owner: 'me' };
    }));
    expect((obj.spec as Spec).replicas).toBe(0);
    expect((obj.spec as Spec).selector).toEqual({ app: 'web' });
    expect(obj.metadata.labels).toEqual({ owner: 'me' });
  });

  test('updates are defaulted too, and nothing in the spec is immutable', () => {
    const stored = createAs(replicationControllers, rc()).obj;
    const { obj, causes } = updateAs(replicationControllers, rc((s) => {
      delete s.selector;
      s.replicas = 5;
      (s.template as { metadata: Spec }).metadata.labels = { app: 'api' };
    }), stored);
    expect(causes).toEqual([]);
    expect((obj.spec as Spec).selector).toEqual({ app: 'api' });
    expect((obj.spec as Spec).replicas).toBe(5);
  });
});

describe('ReplicationController status writes', () => {
  const stored: KubeObject = { ...createAs(replicationControllers, rc()).obj, status: { replicas: 1 } };
  const write = (status: Spec): Cause[] => updateStatusAs(replicationControllers, rc(undefined, status), stored).causes;
  const ok = { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 2, availableReplicas: 1, observedGeneration: 2 };

  test.each<[string, Spec, Cause[]]>([
    ['a consistent status', ok, []],
    ['conditions True, False and Unknown', { ...ok, conditions: [{ type: 'ReplicaFailure', status: 'True' }, { type: 'B', status: 'False' }, { type: 'C', status: 'Unknown' }] }, []],
    ['negative counts', { replicas: 0, fullyLabeledReplicas: -1, readyReplicas: -1, availableReplicas: -1, observedGeneration: -1 }, [
      invalid('status.fullyLabeledReplicas', -1, NEGATIVE),
      invalid('status.readyReplicas', -1, NEGATIVE),
      invalid('status.availableReplicas', -1, NEGATIVE),
      invalid('status.observedGeneration', -1, NEGATIVE),
    ]],
    ['negative replicas (then every other count exceeds them)', { replicas: -1 }, [
      invalid('status.replicas', -1, NEGATIVE),
      ...['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'].map((f) => invalid(`status.${f}`, 0, 'cannot be greater than status.replicas')),
    ]],
    ['more fully labeled replicas than replicas', { ...ok, fullyLabeledReplicas: 4 }, [invalid('status.fullyLabeledReplicas', 4, 'cannot be greater than status.replicas')]],
    ['more ready replicas than replicas', { ...ok, readyReplicas: 5, availableReplicas: 1 }, [invalid('status.readyReplicas', 5, 'cannot be greater than status.replicas')]],
    ['more available than ready replicas', { ...ok, availableReplicas: 3 }, [invalid('status.availableReplicas', 3, 'cannot be greater than readyReplicas')]],
    ['more available replicas than replicas', { ...ok, readyReplicas: 3, availableReplicas: 4 }, [
      invalid('status.availableReplicas', 4, 'cannot be greater than status.replicas'),
      invalid('status.availableReplicas', 4, 'cannot be greater than readyReplicas'),
    ]],
    ['a condition status outside True, False, Unknown', { ...ok, conditions: [{ type: 'ReplicaFailure', status: 'yes' }] }, [
      unsupported('status.conditions[0].status', 'yes', ['True', 'False', 'Unknown']),
    ]],
    ['a condition without type or status', { ...ok, conditions: [{ message: 'x' }] }, [required('status.conditions[0].type'), required('status.conditions[0].status')]],
  ])('%s', (_name, status, expected) => {
    expect(write(status)).toEqual(expected);
  });

  test('a status write keeps the stored spec', () => {
    const { obj } = updateStatusAs(replicationControllers, rc((s) => { s.replicas = 7; }, ok), stored);
    expect((obj.spec as Spec).replicas).toBe(1);
    expect(obj.status).toEqual(ok);
  });
});

describe('ReplicationController scale and table', () => {
  const stored: KubeObject = {
    ...createAs(replicationControllers, rc((s) => { s.replicas = 3; s.selector = { tier: 'fe', app: 'web' }; (s.template as { metadata: Spec }).metadata.labels = { app: 'web', tier: 'fe' }; })).obj,
    status: { replicas: 2, readyReplicas: 1 },
  };
  stored.metadata.creationTimestamp = new Date(Date.now() - 3 * 3600_000).toISOString();

  test('the field selector status.replicas reads the observed count', () => {
    expect(replicationControllers.selectableFields['status.replicas'](stored)).toBe('2');
    expect(replicationControllers.selectableFields['status.replicas'](rc())).toBe('0');
  });

  test('the Scale selector is spec.selector as text, keys sorted', () => {
    expect(replicationControllers.scale.selector(stored)).toBe('app=web,tier=fe');
  });

  test('NAME, DESIRED, CURRENT, READY, AGE; wide CONTAINERS, IMAGES, SELECTOR', () => {
    expect(replicationControllers.table.columns.map((c) => [c.name, c.type, c.priority])).toEqual([
      ['Name', 'string', 0], ['Desired', 'integer', 0], ['Current', 'integer', 0], ['Ready', 'integer', 0], ['Age', 'string', 0],
      ['Containers', 'string', 1], ['Images', 'string', 1], ['Selector', 'string', 1],
    ]);
    expect(replicationControllers.table.cells(stored, new Date())).toEqual(['web', 3, 2, 1, '3h', 'nginx', 'nginx:1.27', 'app=web,tier=fe']);
  });
});
