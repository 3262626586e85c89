/**
 * Job through the registry's create and update paths (no store): Kubernetes v1.32's spec validation with
 * its field paths and reasons, the defaults, the generated selector in both domain modes, the immutable
 * fields and the suspended-job template rules, the table and the field selector.
 */
import type { KubeObject } from '../../../api/object.js';
import { applyDefaults } from '../../../schema/defaults.js';
import { testContext } from '../shared/test-context.js';
import { createAs, updateAs, type Cause } from '../storage/testing.js';
import { jobs } from './job.js';

type Json = Record<string, unknown>;

const UID = '0f6b8c1e-2d4a-4e0b-9d7f-3c5a1b2e4f60';
const CONTAINER = { name: 'pi', image: 'perl:5.34' };
const podSpec = (extra: Json = {}): Json => ({ restartPolicy: 'Never', containers: [CONTAINER], ...extra });

const job = (spec: Json = {}, meta: Json = {}): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'pi', namespace: 'default', uid: UID, ...meta },
  spec: { template: { spec: podSpec() }, ...spec },
});

const create = (spec: Json = {}, meta: Json = {}) => createAs(jobs, job(spec, meta));
const specOf = (o: KubeObject): Json => o.spec as Json;

const required = (field: string, detail = ''): Cause => ({ reason: 'FieldValueRequired', field, message: detail === '' ? 'Required value' : `Required value: ${detail}` });
const invalid = (field: string, value: unknown, detail: string): Cause => ({
  reason: 'FieldValueInvalid',
  field,
  message: value === undefined ? `Invalid value: ${detail}` : `Invalid value: ${JSON.stringify(value)}: ${detail}`,
});
const notSupported = (field: string, value: string, values: string[]): Cause => ({
  reason: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${values.map((v) => JSON.stringify(v)).join(', ')}`,
});
const tooMany = (field: string, actual: number, max: number): Cause => ({ reason: 'FieldValueTooMany', field, message: `Too many: ${actual}: must have at most ${max} items` });
const negative = (field: string, value: number): Cause => invalid(field, value, 'must be greater than or equal to 0');

const exitRule = (operator: string, values: number[], extra: Json = {}): Json => ({ action: 'FailJob', onExitCodes: { operator, values, ...extra } });
const conditionRule = (patterns: Json[], action = 'Ignore'): Json => ({ action, onPodConditions: patterns });
const indexed = (extra: Json = {}): Json => ({ completionMode: 'Indexed', completions: 10, parallelism: 3, ...extra });

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

const cases: [string, Json, Cause[]][] = [
  ['a plain job', {}, []],
  ['restartPolicy OnFailure', { template: { spec: podSpec({ restartPolicy: 'OnFailure' }) } }, []],
  ['an Indexed job with a success policy', indexed({ successPolicy: { rules: [{ succeededIndexes: '0,2-5', succeededCount: 3 }, { succeededCount: 10 }] } }), []],
  ['an Indexed job with a per-index backoff, FailIndex and max failed indexes', indexed({
    backoffLimitPerIndex: 1, maxFailedIndexes: 5,
    podFailurePolicy: { rules: [exitRule('In', [1, 42], { containerName: 'pi' }), { ...exitRule('NotIn', [0, 3]), action: 'FailIndex' }, conditionRule([{ type: 'DisruptionTarget' }])] },
  }), []],
  ['a managedBy domain-prefixed path', { managedBy: 'kueue.x-k8s.io/multikueue' }, []],
  ['podReplacementPolicy Failed', { podReplacementPolicy: 'Failed' }, []],
  ['a manual selector that matches the template', {
    manualSelector: true, selector: { matchLabels: { app: 'pi' } }, template: { metadata: { labels: { app: 'pi' } }, spec: podSpec() },
  }, []],
  ['restartPolicy unset (defaulted to Always)', { template: { spec: { containers: [CONTAINER] } } }, [
    required('spec.template.spec.restartPolicy', 'valid values: "OnFailure", "Never"'),
  ]],
  ['restartPolicy Always', { template: { spec: podSpec({ restartPolicy: 'Always' }) } }, [
    required('spec.template.spec.restartPolicy', 'valid values: "OnFailure", "Never"'),
  ]],
  ['an unknown restartPolicy', { template: { spec: podSpec({ restartPolicy: 'Sometimes' }) } }, [
    notSupported('spec.template.spec.restartPolicy', 'Sometimes', ['Always', 'OnFailure', 'Never']),
    notSupported('spec.template.spec.restartPolicy', 'Sometimes', ['OnFailure', 'Never']),
  ]],
  ['negative counters', { parallelism: -1, completions: -2, activeDeadlineSeconds: -3, backoffLimit: -4, ttlSecondsAfterFinished: -5 }, [
    negative('spec.parallelism', -1),
    negative('spec.completions', -2),
    negative('spec.activeDeadlineSeconds', -3),
    negative('spec.backoffLimit', -4),
    negative('spec.ttlSecondsAfterFinished', -5),
  ]],
  ['an unknown completion mode', { completionMode: 'Sharded' }, [notSupported('spec.completionMode', 'Sharded', ['NonIndexed', 'Indexed'])]],
  ['Indexed without completions, parallelism above 10^5', { completionMode: 'Indexed', parallelism: 100_001 }, [
    required('spec.completions', 'when completion mode is Indexed'),
    invalid('spec.parallelism', 100_001, 'must be less than or equal to 100000 when completion mode is Indexed'),
  ]],
  ['per-index backoff on a NonIndexed job', { backoffLimitPerIndex: 2, maxFailedIndexes: 1 }, [
    invalid('spec.backoffLimitPerIndex', 2, 'requires indexed completion mode'),
    invalid('spec.maxFailedIndexes', 1, 'requires indexed completion mode'),
  ]],
  ['maxFailedIndexes without backoffLimitPerIndex, above completions', indexed({ maxFailedIndexes: 11 }), [
    required('spec.backoffLimitPerIndex', 'when maxFailedIndexes is specified'),
    invalid('spec.maxFailedIndexes', 11, 'must be less than or equal to completions'),
  ]],
  ['more than 10^5 completions with a per-index backoff', indexed({ completions: 200_000, parallelism: 20_000, backoffLimitPerIndex: 1 }), [
    required('spec.maxFailedIndexes', 'must be specified when completions is above 100000'),
    invalid('spec.parallelism', 20_000, 'must be less than or equal to 10000 when completions are above 100000 and used with backoff limit per index'),
  ]],
  ['managedBy without a path', { managedBy: 'example.com' }, [invalid('spec.managedBy', 'example.com', 'must be a domain-prefixed path (such as "acme.io/foo")')]],
  ['managedBy with a bad domain and too long', { managedBy: `Example.com/${'x'.repeat(60)}` }, [
    invalid('spec.managedBy', 'Example.com', SUBDOMAIN_MSG),
    { reason: 'FieldValueTooLong', field: 'spec.managedBy', message: 'Too long: may not be more than 63 bytes' },
  ]],
  ['a success policy on a NonIndexed job', { successPolicy: { rules: [{ succeededCount: 1 }] } }, [
    invalid('spec.successPolicy', { rules: [{ succeededCount: 1 }] }, 'requires indexed completion mode'),
  ]],
  ['success policy rules: none set, bad indexes, counts too large', indexed({ successPolicy: { rules: [{}, { succeededIndexes: '3-1' }, { succeededIndexes: '1,12' }, { succeededIndexes: '0-1', succeededCount: 3 }, { succeededCount: 11 }] } }), [
    required('spec.successPolicy.rules[0]', 'at least one of succeededCount or succeededIndexes must be specified'),
    invalid('spec.successPolicy.rules[1].succeededIndexes', '3-1', 'error parsing succeededIndexes: non-increasing order, previous: 3, current: 1'),
    invalid('spec.successPolicy.rules[2].succeededIndexes', '1,12', 'error parsing succeededIndexes: too large index: "12"'),
    invalid('spec.successPolicy.rules[3].succeededCount', 3, 'must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)'),
    invalid('spec.successPolicy.rules[4].succeededCount', 11, 'must be less than or equal to 10 (the number of specified completions)'),
  ]],
  ['a success policy without rules', indexed({ successPolicy: { rules: [] } }), [
    required('spec.successPolicy.rules', 'at least one rules must be specified when the successPolicy is specified'),
  ]],
  ['pod failure policy with restartPolicy OnFailure', { podFailurePolicy: { rules: [exitRule('In', [1])] }, template: { spec: podSpec({ restartPolicy: 'OnFailure' }) } }, [
    invalid('spec.template.spec.restartPolicy', 'OnFailure', 'only "Never" is supported when podFailurePolicy is specified'),
  ]],
  ['pod failure policy with podReplacementPolicy TerminatingOrFailed', { podFailurePolicy: { rules: [exitRule('In', [1])] }, podReplacementPolicy: 'TerminatingOrFailed' }, [
    notSupported('spec.podReplacementPolicy', 'TerminatingOrFailed', ['Failed']),
  ]],
  ['an unknown podReplacementPolicy', { podReplacementPolicy: 'Never' }, [notSupported('spec.podReplacementPolicy', 'Never', ['Failed', 'TerminatingOrFailed'])]],
  ['pod failure rules: actions', { podFailurePolicy: { rules: [{ ...exitRule('In', [1]), action: '' }, { ...exitRule('In', [1]), action: 'FailIndex' }, { ...exitRule('In', [1]), action: 'Retry' }] } }, [
    required('spec.podFailurePolicy.rules[0].action', 'valid values: ["Count" "FailIndex" "FailJob" "Ignore"]'),
    invalid('spec.podFailurePolicy.rules[1].action', 'FailIndex', 'requires the backoffLimitPerIndex to be set'),
    notSupported('spec.podFailurePolicy.rules[2].action', 'Retry', ['Count', 'FailIndex', 'FailJob', 'Ignore']),
  ]],
  ['pod failure rules: both and neither requirement', { podFailurePolicy: { rules: [{ ...exitRule('In', [1]), onPodConditions: [{ type: 'Ready' }] }, { action: 'Count' }] } }, [
    invalid('spec.podFailurePolicy.rules[0]', undefined, 'specifying both OnExitCodes and OnPodConditions is not supported'),
    invalid('spec.podFailurePolicy.rules[1]', undefined, 'specifying one of OnExitCodes and OnPodConditions is required'),
  ]],
  ['exit codes: operator, container, zero with In, order, duplicates', { podFailurePolicy: { rules: [
    exitRule('', [1]),
    exitRule('Between', [1]),
    exitRule('In', [0, 5, 3, 3], { containerName: 'sidecar' }),
    exitRule('NotIn', []),
  ] } }, [
    // The schema's set list reports the duplicate, before the kind's own checks.
    { reason: 'FieldValueDuplicate', field: 'spec.podFailurePolicy.rules[2].onExitCodes.values[3]', message: 'Duplicate value: 3' },
    required('spec.podFailurePolicy.rules[0].onExitCodes.operator', 'valid values: ["In" "NotIn"]'),
    notSupported('spec.podFailurePolicy.rules[1].onExitCodes.operator', 'Between', ['In', 'NotIn']),
    invalid('spec.podFailurePolicy.rules[2].onExitCodes.containerName', 'sidecar', 'must be one of the container or initContainer names in the pod template'),
    invalid('spec.podFailurePolicy.rules[2].onExitCodes.values[0]', 0, 'must not be 0 for the In operator'),
    invalid('spec.podFailurePolicy.rules[2].onExitCodes.values', [0, 5, 3, 3], 'must be ordered'),
    invalid('spec.podFailurePolicy.rules[3].onExitCodes.values', [], 'at least one value is required'),
  ]],
  ['pod condition patterns: type and status', { podFailurePolicy: { rules: [conditionRule([{ type: 'bad type!' }, { type: 'Ready', status: 'Maybe' }])] } }, [
    invalid('spec.podFailurePolicy.rules[0].onPodConditions[0].type', 'bad type!', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    notSupported('spec.podFailurePolicy.rules[0].onPodConditions[1].status', 'Maybe', ['False', 'True', 'Unknown']),
  ]],
  ['21 pod failure rules', { podFailurePolicy: { rules: Array.from({ length: 21 }, () => exitRule('In', [1])) } }, [tooMany('spec.podFailurePolicy.rules', 21, 20)]],
  ['a manual selector that does not match the template', { manualSelector: true, selector: { matchLabels: { app: 'other' } }, template: { metadata: { labels: { app: 'pi' } }, spec: podSpec() } }, [
    invalid('spec.template.metadata.labels', { app: 'pi' }, '`selector` does not match template `labels`'),
  ]],
  ['a manual selector left out', { manualSelector: true, template: { metadata: { labels: { app: 'pi' } }, spec: podSpec() } }, [
    required('spec.selector'),
    invalid('spec.template.metadata.labels', { app: 'pi' }, '`selector` does not match template `labels`'),
  ]],
  ['a generated selector with a conflicting job-name label', { template: { metadata: { labels: { 'job-name': 'other' } }, spec: podSpec() } }, [
    invalid('spec.template.metadata.labels[job-name]', { 'job-name': 'other', 'batch.platform.io/job-name': 'pi', 'controller-uid': UID, 'batch.platform.io/controller-uid': UID }, "must be 'pi'"),
  ]],
  ['a selector naming another uid', { selector: { matchLabels: { 'batch.platform.io/controller-uid': 'someone-else' } } }, [
    invalid('spec.selector', { matchLabels: { 'batch.platform.io/controller-uid': 'someone-else' } }, '`selector` not auto-generated'),
    invalid('spec.template.metadata.labels', { 'job-name': 'pi', 'batch.platform.io/job-name': 'pi', 'controller-uid': UID, 'batch.platform.io/controller-uid': UID }, '`selector` does not match template `labels`'),
  ]],
  ['an invalid selector operator', { manualSelector: true, selector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['x'] }] } }, [
    invalid('spec.selector.matchExpressions[0].operator', 'Near', 'not a valid selector operator'),
  ]],
  ['the template validated as a pod template (no containers)', { template: { spec: { restartPolicy: 'Never' } } }, [required('spec.template.spec.containers')]],
];

describe('Job validation on create', () => {
  test.each(cases)('%s', (_name, spec, expected) => {
    expect(create(spec).causes).toEqual(expected);
  });

  test('an Indexed job whose largest pod hostname is not a DNS label', () => {
    const name = 'x'.repeat(62);
    expect(create(indexed(), { name }).causes).toEqual([invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${name}-9`)]);
  });

  test('metadata.uid is required for a generated selector', () => {
    const { causes } = createAs(jobs, { ...job(), metadata: { name: 'pi', namespace: 'default' } });
    expect(causes).toEqual([required('metadata.uid')]);
  });
});

describe('Job defaults', () => {
  test('a plain job: completions and parallelism 1, backoffLimit 6, NonIndexed, not suspended, generated selector and labels, empty status', () => {
    const { obj, causes } = createAs(jobs, { ...job(), status: { active: 3 } });
    expect(causes).toEqual([]);
    const labels = { 'job-name': 'pi', 'batch.platform.io/job-name': 'pi', 'controller-uid': UID, 'batch.platform.io/controller-uid': UID };
    expect(specOf(obj)).toEqual(expect.objectContaining({
      completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, manualSelector: false,
      podReplacementPolicy: 'TerminatingOrFailed', selector: { matchLabels: { 'batch.platform.io/controller-uid': UID } },
    }));
    expect((specOf(obj).template as Json).metadata).toEqual({ labels });
    // Kubernetes shows the template's labels on a job without labels of its own.
    expect(obj.metadata.labels).toEqual(labels);
    expect(obj.status).toEqual({});
  });

  test('completions alone keep parallelism 1; parallelism alone leaves completions unset', () => {
    expect(specOf(create({ completions: 5 }).obj)).toEqual(expect.objectContaining({ completions: 5, parallelism: 1 }));
    const spec = specOf(create({ parallelism: 4 }).obj);
    expect(spec.parallelism).toBe(4);
    expect(spec.completions).toBeUndefined();
  });

  test('backoffLimit is MaxInt32 with a per-index backoff; a pod failure policy makes replacements wait for Failed and its patterns default to True', () => {
    const spec = specOf(create(indexed({ backoffLimitPerIndex: 2, podFailurePolicy: { rules: [conditionRule([{ type: 'DisruptionTarget' }])] } })).obj);
    expect(spec.backoffLimit).toBe(2147483647);
    expect(spec.podReplacementPolicy).toBe('Failed');
    expect(spec.podFailurePolicy).toEqual({ rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] });
  });

  test('the job keeps its own labels; the user\'s template labels are copied before the generated ones', () => {
    expect(create({}, { labels: { team: 'a' } }).obj.metadata.labels).toEqual({ team: 'a' });
    expect(create({ template: { metadata: { labels: { app: 'pi' } }, spec: podSpec() } }).obj.metadata.labels).toEqual({ app: 'pi' });
  });

  test('a manual selector generates nothing', () => {
    const { obj } = create({ manualSelector: true, selector: { matchLabels: { app: 'pi' } }, template: { metadata: { labels: { app: 'pi' } }, spec: podSpec() } });
    expect(specOf(obj).selector).toEqual({ matchLabels: { app: 'pi' } });
    expect(((specOf(obj).template as Json).metadata as Json).labels).toEqual({ app: 'pi' });
  });

  test('under --group-domain=k8s.io the prefixed labels are Kubernetes\' batch.kubernetes.io ones', () => {
    const obj = job();
    applyDefaults(obj, jobs.schema);
    const ctx = testContext('k8s.io', 'default');
    jobs.prepareForCreate(obj, ctx);
    expect(specOf(obj).selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': UID } });
    expect(Object.keys(obj.metadata.labels ?? {}).sort()).toEqual(['batch.kubernetes.io/controller-uid', 'batch.kubernetes.io/job-name', 'controller-uid', 'job-name']);
    expect(jobs.validate(obj, ctx)).toEqual([]);
    // The platform.io names are not the ones k8s.io mode expects.
    expect(jobs.validate(create().obj, ctx).map((e) => e.field)).toEqual([
      'spec.template.metadata.labels[batch.kubernetes.io/controller-uid]',
      'spec.template.metadata.labels[batch.kubernetes.io/job-name]',
      'spec.selector',
    ]);
  });

  test('warnings: a name that is not a DNS label', () => {
    const obj = create({}, { name: 'pi.v2' }).obj;
    expect(jobs.warnings(obj, undefined)).toEqual([
      "metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]",
    ]);
  });
});

describe('Job updates', () => {
  const stored = (spec: Json = {}, status: Json = {}): KubeObject => ({ ...create(spec).obj, status });
  const withSpec = (old: KubeObject, changes: Json): KubeObject => ({ ...old, spec: { ...specOf(old), ...changes } });
  const withTemplateSpec = (old: KubeObject, changes: Json): KubeObject => {
    const template = specOf(old).template as Json;
    return withSpec(old, { template: { ...template, spec: { ...(template.spec as Json), ...changes } } });
  };

  test('parallelism, suspend, activeDeadlineSeconds, backoffLimit and ttl may change', () => {
    const old = stored();
    expect(updateAs(jobs, withSpec(old, { parallelism: 3, suspend: true, activeDeadlineSeconds: 60, backoffLimit: 1, ttlSecondsAfterFinished: 100 }), old).causes).toEqual([]);
  });

  test('the immutable fields', () => {
    const old = stored();
    const next = withSpec(old, { completions: 4, completionMode: 'Indexed', managedBy: 'example.com/ctl', podFailurePolicy: { rules: [exitRule('In', [1])] }, podReplacementPolicy: 'Failed' });
    expect(updateAs(jobs, next, old).causes.filter((c) => c.message.endsWith('field is immutable')).map((c) => c.field)).toEqual([
      'spec.completionMode',
      'spec.podFailurePolicy',
      'spec.managedBy',
    ]);
  });

  test('completions of a NonIndexed job are immutable', () => {
    const old = stored({ completions: 2 });
    expect(updateAs(jobs, withSpec(old, { completions: 3 }), old).causes).toEqual([invalid('spec.completions', 3, 'field is immutable')]);
  });

  test('an elastic Indexed job changes completions only in tandem with parallelism', () => {
    const old = stored(indexed({ completions: 3, parallelism: 3 }));
    expect(updateAs(jobs, withSpec(old, { completions: 5, parallelism: 5 }), old).causes).toEqual([]);
    expect(updateAs(jobs, withSpec(old, { completions: 5 }), old).causes).toEqual([invalid('spec.completions', 5, 'can only be modified in tandem with spec.parallelism')]);
  });

  test('selector, successPolicy and backoffLimitPerIndex are immutable', () => {
    const old = stored(indexed({ backoffLimitPerIndex: 1, successPolicy: { rules: [{ succeededCount: 1 }] } }));
    const selector = { matchLabels: { ...((specOf(old).selector as Json).matchLabels as Json), extra: 'x' } };
    const causes = updateAs(jobs, withSpec(old, { selector, backoffLimitPerIndex: 2, successPolicy: { rules: [{ succeededCount: 2 }] } }), old).causes;
    expect(causes.filter((c) => c.message.endsWith('field is immutable')).map((c) => c.field)).toEqual(['spec.selector', 'spec.backoffLimitPerIndex', 'spec.successPolicy']);
  });

  test('the template is immutable while the job runs', () => {
    const old = stored();
    const causes = updateAs(jobs, withTemplateSpec(old, { nodeSelector: { disk: 'ssd' } }), old).causes;
    expect(causes.map((c) => [c.field, c.reason])).toEqual([['spec.template', 'FieldValueInvalid']]);
    expect(causes[0]!.message).toMatch(/: field is immutable$/);
  });

  test('a suspended job that never started may change its scheduling directives, labels and annotations, nothing else', () => {
    const old = stored({ suspend: true });
    const template = specOf(old).template as Json;
    const scheduled = withSpec(old, {
      template: {
        metadata: { labels: { ...((template.metadata as Json).labels as Json), tier: 'batch' }, annotations: { note: 'x' } },
        spec: {
          ...(template.spec as Json),
          nodeSelector: { disk: 'ssd' },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' }],
          schedulingGates: [{ name: 'example.com/quota' }],
          affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } } },
        },
      },
    });
    expect(updateAs(jobs, scheduled, old).causes).toEqual([]);
    expect(updateAs(jobs, withTemplateSpec(old, { containers: [{ ...CONTAINER, image: 'perl:5.36' }] }), old).causes.map((c) => c.field)).toEqual(['spec.template']);
    // Once started (a startTime), even a suspended job's template is fixed.
    const started = stored({ suspend: true }, { startTime: '2026-01-01T00:00:00Z' });
    expect(updateAs(jobs, withTemplateSpec(started, { nodeSelector: { disk: 'ssd' } }), started).causes.map((c) => c.field)).toEqual(['spec.template']);
  });

  test('a spec error is listed once on update', () => {
    const old = stored();
    expect(updateAs(jobs, withSpec(old, { parallelism: -1 }), old).causes).toEqual([negative('spec.parallelism', -1)]);
  });

  test('jobs without the prefixed labels (created before they existed) may be updated without them', () => {
    const old = stored({ manualSelector: false });
    const template = specOf(old).template as Json;
    const legacy = { 'job-name': 'pi', 'controller-uid': UID };
    const oldLegacy = withSpec(old, { selector: { matchLabels: { 'controller-uid': UID } }, template: { ...template, metadata: { labels: legacy } } });
    expect(updateAs(jobs, withSpec(oldLegacy, { parallelism: 2 }), oldLegacy).causes).toEqual([]);
  });
});

describe('Job table and field selector', () => {
  const now = new Date('2026-01-01T00:10:00Z');
  const cells = (spec: Json, status: Json, meta: Json = {}) => jobs.table.cells({ ...create(spec).obj, status, metadata: { ...create(spec).obj.metadata, ...meta } }, now);

  test('columns as kubectl prints them', () => {
    expect(jobs.table.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0], ['Status', 0], ['Completions', 0], ['Duration', 0], ['Age', 0], ['Containers', 1], ['Images', 1], ['Selector', 1],
    ]);
  });

  test.each([
    ['a new job', {}, {}, ['Running', '0/1', '']],
    ['running for 5 minutes', { completions: 3 }, { startTime: '2026-01-01T00:05:00Z', succeeded: 1 }, ['Running', '1/3', '5m']],
    ['complete after 90 s', {}, {
      startTime: '2026-01-01T00:00:00Z', completionTime: '2026-01-01T00:01:30Z', succeeded: 1,
      conditions: [{ type: 'SuccessCriteriaMet', status: 'True' }, { type: 'Complete', status: 'True' }],
    }, ['Complete', '1/1', '90s']],
    ['failed', {}, { conditions: [{ type: 'FailureTarget', status: 'True' }, { type: 'Failed', status: 'True' }] }, ['Failed', '0/1', '']],
    ['suspended', { suspend: true }, { conditions: [{ type: 'Suspended', status: 'True' }] }, ['Suspended', '0/1', '']],
    ['resumed (Suspended=False)', {}, { conditions: [{ type: 'Suspended', status: 'False' }] }, ['Running', '0/1', '']],
    ['failure target', {}, { conditions: [{ type: 'FailureTarget', status: 'True' }] }, ['FailureTarget', '0/1', '']],
    ['no completions, parallelism 4', { parallelism: 4 }, { succeeded: 2 }, ['Running', '2/1 of 4', '']],
  ])('%s', (_n, spec, status, expected) => {
    expect(cells(spec, status).slice(1, 4)).toEqual(expected);
  });

  test('a job being deleted is Terminating; wide cells', () => {
    const row = cells({}, {}, { deletionTimestamp: '2026-01-01T00:09:00Z' });
    expect(row[1]).toBe('Terminating');
    expect(row.slice(5)).toEqual(['pi', 'perl:5.34', `batch.platform.io/controller-uid=${UID}`]);
  });

  test('status.successful selects by the succeeded count', () => {
    expect(jobs.selectableFields['status.successful']!({ ...create().obj, status: { succeeded: 3 } })).toBe('3');
    expect(jobs.selectableFields['status.successful']!(create().obj)).toBe('0');
  });

  test('identity: batch/v1, namespaced, status, category all, no short names', () => {
    expect([jobs.group, jobs.version, jobs.resource, jobs.namespaced, jobs.subresources, jobs.categories]).toEqual(['batch', 'v1', 'jobs', true, ['status'], ['all']]);
    expect((jobs as { shortNames?: unknown }).shortNames).toBeUndefined();
    expect((jobs as { deleteReturnsObject?: unknown }).deleteReturnsObject).toBeUndefined();
  });
});
