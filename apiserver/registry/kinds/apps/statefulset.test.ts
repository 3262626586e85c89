/**
 * StatefulSet through the registry's create, update and status paths (no store): Kubernetes v1.32's
 * defaults and validation with exact field paths and reasons, document 2's additions (serviceName
 * required, claim templates mounted, condition statuses), the immutable spec fields, the status rules,
 * the Scale hooks and the table.
 */
import type { KubeObject } from '../../../api/object.js';
import { createAs, updateAs, updateStatusAs, type Cause } from '../storage/testing.js';
import { statefulSets } from './statefulset.js';
import { IMMUTABLE_SPEC_MESSAGE } from './statefulset-validation.js';

type Spec = Record<string, unknown>;

const container = (extra: Spec = {}): Spec => ({ name: 'nginx', image: 'nginx:1.27', volumeMounts: [{ name: 'data', mountPath: '/data' }], ...extra });
const claim = (name = 'data', extra: Spec = {}): Spec => ({
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  ...extra,
});

function sts(edit: (spec: Spec) => void = () => {}, status?: Spec): KubeObject {
  const spec: Spec = {
    serviceName: 'web',
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container()] } },
    volumeClaimTemplates: [claim()],
  };
  edit(spec);
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web', namespace: 'default' }, spec, ...(status === undefined ? {} : { status }) };
}

const podSpec = (s: Spec): Spec => (s.template as { spec: Spec }).spec;
const required = (field: string, detail = ''): Cause => ({ reason: 'FieldValueRequired', field, message: detail === '' ? 'Required value' : `Required value: ${detail}` });
const invalid = (field: string, value: unknown, detail: string): Cause => ({
  reason: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${JSON.stringify(value)}${detail === '' ? '' : `: ${detail}`}`,
});
const unsupported = (field: string, value: string, valid: string[]): Cause => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}`,
});
const forbidden = (field: string, detail: string): Cause => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
const NEGATIVE = 'must be greater than or equal to 0';
const MISMATCH = '`selector` does not match template `labels`';
const UNMOUNTED = 'must match the name of a volumeMount of a container in the template';
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

const cases: [string, (s: Spec) => void, Cause[]][] = [
  ['a valid set', () => {}, []],
  ['no claim templates', (s) => { delete s.volumeClaimTemplates; podSpec(s).containers = [container({ volumeMounts: undefined })]; }, []],
  ['Parallel pod management', (s) => { s.podManagementPolicy = 'Parallel'; }, []],
  ['OnDelete without rollingUpdate', (s) => { s.updateStrategy = { type: 'OnDelete' }; }, []],
  ['a claim mounted by an init container only', (s) => {
    podSpec(s).containers = [container({ volumeMounts: undefined })];
    podSpec(s).initContainers = [container({ name: 'init' })];
  }, []],
  ['a claim that replaces a template volume of its name', (s) => { podSpec(s).volumes = [{ name: 'data', emptyDir: {} }]; }, []],
  ['ordinals starting at 5', (s) => { s.ordinals = { start: 5 }; }, []],
  ['a Delete retention policy', (s) => { s.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Delete', whenScaled: 'Delete' }; }, []],
  ['no serviceName (document 2: required)', (s) => { delete s.serviceName; }, [required('spec.serviceName')]],
  ['an empty serviceName', (s) => { s.serviceName = ''; }, [required('spec.serviceName')]],
  ['no selector', (s) => { delete s.selector; }, [required('spec.selector'), invalid('spec.template.metadata.labels', { app: 'web' }, MISMATCH)]],
  ['an empty selector', (s) => { s.selector = {}; }, [invalid('spec.selector', {}, 'empty selector is invalid for statefulset')]],
  ['a selector that does not match the template', (s) => { s.selector = { matchLabels: { app: 'db' } }; }, [invalid('spec.template.metadata.labels', { app: 'web' }, MISMATCH)]],
  ['a selector with a bad operator', (s) => { s.selector = { matchExpressions: [{ key: 'app', operator: 'Near', values: ['web'] }] }; }, [
    invalid('spec.selector.matchExpressions[0].operator', 'Near', 'not a valid selector operator'),
    invalid('spec.selector', { matchExpressions: [{ key: 'app', operator: 'Near', values: ['web'] }] }, ''),
  ]],
  ['a selector In without values', (s) => { s.selector = { matchExpressions: [{ key: 'app', operator: 'In' }] }; }, [
    required('spec.selector.matchExpressions[0].values', "must be specified when `operator` is 'In' or 'NotIn'"),
    invalid('spec.selector', { matchExpressions: [{ key: 'app', operator: 'In' }] }, ''),
  ]],
  ['restartPolicy Never', (s) => { podSpec(s).restartPolicy = 'Never'; }, [unsupported('spec.template.spec.restartPolicy', 'Never', ['Always'])]],
  ['restartPolicy OnFailure', (s) => { podSpec(s).restartPolicy = 'OnFailure'; }, [unsupported('spec.template.spec.restartPolicy', 'OnFailure', ['Always'])]],
  ['activeDeadlineSeconds', (s) => { podSpec(s).activeDeadlineSeconds = 30; }, [
    forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'),
  ]],
  ['no containers in the template', (s) => { podSpec(s).containers = []; s.volumeClaimTemplates = []; }, [required('spec.template.spec.containers')]],
  ['an unknown pod management policy', (s) => { s.podManagementPolicy = 'Random'; }, [invalid('spec.podManagementPolicy', 'Random', "must be 'OrderedReady' or 'Parallel'")]],
  ['an unknown update strategy', (s) => { s.updateStrategy = { type: 'Recreate' }; }, [invalid('spec.updateStrategy', { type: 'Recreate' }, "must be 'RollingUpdate' or 'OnDelete'")]],
  ['OnDelete with rollingUpdate', (s) => { s.updateStrategy = { type: 'OnDelete', rollingUpdate: { partition: 1 } }; }, [
    invalid('spec.updateStrategy.rollingUpdate', { partition: 1 }, "only allowed for updateStrategy 'RollingUpdate'"),
  ]],
  ['a negative partition', (s) => { s.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: -1 } }; }, [
    invalid('spec.updateStrategy.rollingUpdate.partition', -1, NEGATIVE),
  ]],
  ['negative replicas', (s) => { s.replicas = -1; }, [invalid('spec.replicas', -1, NEGATIVE)]],
  ['negative minReadySeconds', (s) => { s.minReadySeconds = -5; }, [invalid('spec.minReadySeconds', -5, NEGATIVE)]],
  ['a negative ordinals start', (s) => { s.ordinals = { start: -1 }; }, [invalid('spec.ordinals.start', -1, NEGATIVE)]],
  ['an unknown retention policy', (s) => { s.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Archive' }; }, [
    unsupported('spec.persistentVolumeClaimRetentionPolicy.whenDeleted', 'Archive', ['Retain', 'Delete']),
  ]],
  ['a claim nobody mounts', (s) => { (s.volumeClaimTemplates as Spec[]).push(claim('logs')); }, [invalid('spec.volumeClaimTemplates[1].metadata.name', 'logs', UNMOUNTED)]],
  ['a claim without a name', (s) => { s.volumeClaimTemplates = [claim('')]; podSpec(s).containers = [container({ volumeMounts: undefined })]; }, [
    required('spec.volumeClaimTemplates[0].metadata.name'),
  ]],
  ['a claim name that is not a DNS label', (s) => { s.volumeClaimTemplates = [claim('Data')]; podSpec(s).containers = [container({ volumeMounts: undefined })]; }, [
    invalid('spec.volumeClaimTemplates[0].metadata.name', 'Data', LABEL_MSG),
  ]],
  ['two claims of one name', (s) => { s.volumeClaimTemplates = [claim(), claim()]; }, [
    { reason: 'FieldValueDuplicate', field: 'spec.volumeClaimTemplates[1].metadata.name', message: 'Duplicate value: "data"' },
  ]],
  ['a mount of neither a volume nor a claim', (s) => { s.volumeClaimTemplates = []; }, [
    { reason: 'FieldValueNotFound', field: 'spec.template.spec.containers[0].volumeMounts[0].name', message: 'Not found: "data"' },
  ]],
];

describe('StatefulSet validation on create', () => {
  test.each(cases)('%s', (_name, edit, expected) => {
    expect(createAs(statefulSets, sts(edit)).causes).toEqual(expected);
  });
});

describe('StatefulSet defaults', () => {
  test('a minimal set gets Kubernetes v1.32 defaults', () => {
    const { obj, causes } = createAs(statefulSets, sts());
    expect(causes).toEqual([]);
    const spec = obj.spec as Spec;
    expect(spec.replicas).toBe(1);
    expect(spec.podManagementPolicy).toBe('OrderedReady');
    expect(spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    expect(spec.revisionHistoryLimit).toBe(10);
    expect(spec.persistentVolumeClaimRetentionPolicy).toEqual({ whenDeleted: 'Retain', whenScaled: 'Retain' });
    expect(podSpec(spec)).toMatchObject({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler', terminationGracePeriodSeconds: 30 });
    expect((podSpec(spec).containers as Spec[])[0]!.imagePullPolicy).toBe('IfNotPresent');
    expect((spec.volumeClaimTemplates as Spec[])[0]).toMatchObject({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      spec: { volumeMode: 'Filesystem' },
      status: { phase: 'Pending' },
    });
    expect(obj.status).toEqual({ replicas: 0, availableReplicas: 0 });
  });

  test('an explicit RollingUpdate without rollingUpdate stays without one; explicit values are kept', () => {
    const { obj } = createAs(statefulSets, sts((s) => {
      s.updateStrategy = { type: 'RollingUpdate' };
      s.replicas = 0;
      s.podManagementPolicy = '';
      s.persistentVolumeClaimRetentionPolicy = { whenScaled: 'Delete' };
    }));
    const spec = obj.spec as Spec;
    expect(spec.updateStrategy).toEqual({ type: 'RollingUpdate' });
    expect(spec.replicas).toBe(0);
    expect(spec.podManagementPolicy).toBe('OrderedReady');
    expect(spec.persistentVolumeClaimRetentionPolicy).toEqual({ whenDeleted: 'Retain', whenScaled: 'Delete' });
  });

  test('maxUnavailable is dropped (its alpha gate is off) unless the stored set uses it', () => {
    const withMax = (s: Spec): void => { s.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } }; };
    const created = createAs(statefulSets, sts(withMax)).obj;
    expect((created.spec as Spec).updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    const stored = createAs(statefulSets, sts()).obj;
    (stored.spec as { updateStrategy: Spec }).updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } };
    const updated = updateAs(statefulSets, sts((s) => { s.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '0%' } }; }), stored);
    expect(updated.causes).toEqual([invalid('spec.updateStrategy.rollingUpdate.maxUnavailable', '0%', 'cannot be 0')]);
  });

  test('a create starts from an empty status, whatever it sends', () => {
    const { obj } = createAs(statefulSets, sts(undefined, { replicas: 3, readyReplicas: 3 }));
    expect(obj.status).toEqual({ replicas: 0, availableReplicas: 0 });
  });
});

describe('StatefulSet updates', () => {
  const stored = createAs(statefulSets, sts()).obj;

  test.each([
    ['replicas', (s: Spec) => { s.replicas = 5; }],
    ['the template', (s: Spec) => { (podSpec(s).containers as Spec[])[0]!.image = 'nginx:1.28'; }],
    ['the update strategy', (s: Spec) => { s.updateStrategy = { type: 'OnDelete' }; }],
    ['minReadySeconds', (s: Spec) => { s.minReadySeconds = 10; }],
    ['ordinals', (s: Spec) => { s.ordinals = { start: 3 }; }],
    ['revisionHistoryLimit', (s: Spec) => { s.revisionHistoryLimit = 3; }],
    ['the retention policy', (s: Spec) => { s.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Delete', whenScaled: 'Retain' }; }],
  ])('%s may change', (_name, edit) => {
    expect(updateAs(statefulSets, sts(edit), stored).causes).toEqual([]);
  });

  test.each([
    ['serviceName', (s: Spec) => { s.serviceName = 'other'; }],
    ['podManagementPolicy', (s: Spec) => { s.podManagementPolicy = 'Parallel'; }],
    ['the selector', (s: Spec) => { s.selector = { matchLabels: { app: 'web', tier: 'x' } }; (s.template as { metadata: Spec }).metadata.labels = { app: 'web', tier: 'x' }; }],
    ['a claim template', (s: Spec) => { s.volumeClaimTemplates = [claim('data', { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } })]; }],
  ])('%s is immutable', (_name, edit) => {
    expect(updateAs(statefulSets, sts(edit), stored).causes).toEqual([forbidden('spec', IMMUTABLE_SPEC_MESSAGE)]);
  });

  test('an update is validated in full too', () => {
    expect(updateAs(statefulSets, sts((s) => { podSpec(s).restartPolicy = 'Never'; }), stored).causes).toEqual([
      unsupported('spec.template.spec.restartPolicy', 'Never', ['Always']),
    ]);
  });
});

describe('StatefulSet status writes', () => {
  const stored: KubeObject = { ...createAs(statefulSets, sts()).obj, status: { replicas: 2, availableReplicas: 1, readyReplicas: 1, collisionCount: 2 } };
  const write = (status: Spec): Cause[] => updateStatusAs(statefulSets, sts(undefined, status), stored).causes;
  const ok = { replicas: 3, readyReplicas: 2, currentReplicas: 3, updatedReplicas: 1, availableReplicas: 2, observedGeneration: 1, collisionCount: 2 };

  test.each<[string, Spec, Cause[]]>([
    ['a consistent status', ok, []],
    ['conditions True, False and Unknown', { ...ok, conditions: [{ type: 'A', status: 'True' }, { type: 'B', status: 'False' }, { type: 'C', status: 'Unknown' }] }, []],
    ['negative replicas (then every other count exceeds them)', { ...ok, replicas: -1, readyReplicas: 0, currentReplicas: 0, updatedReplicas: 0, availableReplicas: 0 }, [
      invalid('status.replicas', -1, NEGATIVE),
      ...['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'].map((f) => invalid(`status.${f}`, 0, 'cannot be greater than status.replicas')),
    ]],
    ['negative ready, current, updated and available replicas', { ...ok, readyReplicas: -1, currentReplicas: -1, updatedReplicas: -1, availableReplicas: -2 }, [
      invalid('status.readyReplicas', -1, NEGATIVE),
      invalid('status.currentReplicas', -1, NEGATIVE),
      invalid('status.updatedReplicas', -1, NEGATIVE),
      invalid('status.availableReplicas', -2, NEGATIVE),
    ]],
    ['a negative observedGeneration', { ...ok, observedGeneration: -1 }, [invalid('status.observedGeneration', -1, NEGATIVE)]],
    ['more ready replicas than replicas', { ...ok, readyReplicas: 4, availableReplicas: 2 }, [invalid('status.readyReplicas', 4, 'cannot be greater than status.replicas')]],
    ['more current and updated replicas than replicas', { ...ok, currentReplicas: 4, updatedReplicas: 5 }, [
      invalid('status.currentReplicas', 4, 'cannot be greater than status.replicas'),
      invalid('status.updatedReplicas', 5, 'cannot be greater than status.replicas'),
    ]],
    ['more available than ready replicas', { ...ok, availableReplicas: 3 }, [invalid('status.availableReplicas', 3, 'cannot be greater than status.readyReplicas')]],
    ['a decremented collisionCount', { ...ok, collisionCount: 1 }, [invalid('status.collisionCount', 1, 'cannot be decremented')]],
    ['a dropped collisionCount', { replicas: 0 }, [invalid('status.collisionCount', 0, 'cannot be decremented')]],
    ['a condition status outside True, False, Unknown', { ...ok, conditions: [{ type: 'A', status: 'Maybe' }] }, [
      unsupported('status.conditions[0].status', 'Maybe', ['True', 'False', 'Unknown']),
    ]],
    ['a condition without type or status', { ...ok, conditions: [{ reason: 'x' }] }, [required('status.conditions[0].type'), required('status.conditions[0].status')]],
  ])('%s', (_name, status, expected) => {
    expect(write(status)).toEqual(expected);
  });

  test('a status write keeps the stored spec', () => {
    const { obj } = updateStatusAs(statefulSets, sts((s) => { s.replicas = 9; }, ok), stored);
    expect((obj.spec as Spec).replicas).toBe(1);
    expect(obj.status).toEqual(ok);
  });
});

describe('StatefulSet scale and table', () => {
  // One clock for the age: under 3 minutes kube prints seconds, so a second between the two reads showed 2m1s.
  const now = new Date();
  const stored: KubeObject = { ...createAs(statefulSets, sts((s) => { s.replicas = 3; })).obj, metadata: { name: 'web', creationTimestamp: new Date(now.getTime() - 120_000).toISOString() }, status: { replicas: 3, readyReplicas: 2 } };

  test('the Scale selector is the spec selector as text', () => {
    expect(statefulSets.scale.selector(stored)).toBe('app=web');
    const expr = sts((s) => { s.selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] }; });
    expect(statefulSets.scale.selector(expr)).toBe('app=web,tier in (a,b)');
  });

  test('a negative Scale is refused on the Scale', () => {
    expect(statefulSets.scale.validateScale({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: {}, spec: { replicas: -1 } })).toEqual([
      { type: 'FieldValueInvalid', field: 'spec.replicas', value: -1, detail: NEGATIVE },
    ]);
  });

  test('NAME, READY, AGE; wide CONTAINERS, IMAGES', () => {
    expect(statefulSets.table.columns.map((c) => [c.name, c.priority])).toEqual([['Name', 0], ['Ready', 0], ['Age', 0], ['Containers', 1], ['Images', 1]]);
    expect(statefulSets.table.cells(stored, now)).toEqual(['web', '2/3', '2m', 'nginx', 'nginx:1.27']);
  });
});
