/**
 * Pod through the registry's create, update and status paths (no store): Kubernetes v1.32's
 * ValidatePodCreate / ValidatePodUpdate / ValidatePodStatusUpdate with their field paths and reasons, the
 * pod defaults and initial status, QoS classes, graceful deletion periods, field selectors, the table, and
 * the ServiceAccount admission's secret reference rule.
 */
import type { KubeObject } from '../../../api/object.js';
import { applyDefaults } from '../../../schema/defaults.js';
import { validateValue } from '../../../schema/validate.js';
import { toCauses, type FieldError } from '../../../validation/field-error.js';
import { disallowedSecretReference } from '../../../admission/plugins/service-account.js';
import { jsonClone } from '../../patch/json-value.js';
import { gracefulStep } from '../../generic/graceful-delete.js';
import { testContext } from '../shared/test-context.js';
import { pods } from './pod.js';
import { validateBinding } from './pod-binding.js';
import { computeQosClass } from './pod/pod-qos.js';

interface Cause {
  readonly reason: string;
  readonly field: string;
  readonly message: string;
}
const causes = (errs: FieldError[]): Cause[] => toCauses(errs).map((c) => ({ reason: c.reason, field: c.field, message: c.message }));

const pod = (spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', ...meta },
  spec: { serviceAccountName: 'default', containers: [{ name: 'web', image: 'nginx:1.27' }], ...spec },
});

/** A create as the registry runs it. */
function create(obj: KubeObject): { causes: Cause[]; obj: KubeObject } {
  const o = jsonClone(obj);
  const ctx = testContext('platform.io', 'default', '', 'create');
  applyDefaults(o, pods.schema);
  pods.prepareForCreate(o);
  return { causes: causes([...validateValue(o, pods.schema, undefined, { style: 'builtin' }), ...pods.validate(o, ctx)]), obj: o };
}

/** A stored pod (created without errors). */
function stored(obj: KubeObject = pod()): KubeObject {
  const r = create(obj);
  expect(r.causes).toEqual([]);
  return r.obj;
}

/** A main-resource update: the status stays the stored one, as the registry keeps it. */
function update(obj: KubeObject, old: KubeObject): Cause[] {
  const o = jsonClone(obj);
  o.status = jsonClone(old.status);
  const ctx = testContext('platform.io', 'default', '', 'update');
  applyDefaults(o, pods.schema);
  pods.prepareForUpdate(o);
  return causes([...validateValue(o, pods.schema, undefined, { style: 'builtin' }), ...pods.validate(o, ctx), ...pods.validateUpdate(o, old, ctx)]);
}

/** A `/status` write of `status` (and optionally a changed spec) over `old`. */
function updateStatus(old: KubeObject, status: Record<string, unknown>, spec?: Record<string, unknown>): { causes: Cause[]; obj: KubeObject } {
  const o: KubeObject = { ...jsonClone(old), status, ...(spec === undefined ? {} : { spec }) };
  pods.prepareForStatusUpdate(o, old);
  applyDefaults(o, pods.schema);
  const ctx = testContext('platform.io', 'default', 'status', 'update');
  return { causes: causes([...validateValue(o, pods.schema, undefined, { style: 'builtin' }), ...pods.validateStatusUpdate(o, old, ctx)]), obj: o };
}

const required = (field: string, detail = ''): Cause => ({ reason: 'FieldValueRequired', field, message: detail === '' ? 'Required value' : `Required value: ${detail}` });
const forbidden = (field: string, detail: string): Cause => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
const invalid = (field: string, value: unknown, detail: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${JSON.stringify(value)}: ${detail}` });
const notSupported = (field: string, value: string, valid: string[]): Cause => ({
  reason: 'FieldValueNotSupported', field, message: `Unsupported value: "${value}": supported values: ${valid.map((v) => `"${v}"`).join(', ')}`,
});
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const IP_MSG = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

describe('Pod create validation', () => {
  const cases: [string, Record<string, unknown>, Cause[]][] = [
    ['a minimal pod', {}, []],
    ['restartPolicy OnFailure', { restartPolicy: 'OnFailure' }, []],
    ['restartPolicy Never', { restartPolicy: 'Never' }, []],
    ['a pod bound at create (no gates)', { nodeName: 'node-1' }, []],
    ['scheduling gates without a node', { schedulingGates: [{ name: 'example.com/quota' }] }, []],
    ['a projected token with a service account', { volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] }, []],
    ['an init container and a sidecar', { initContainers: [{ name: 'init', image: 'busybox' }, { name: 'side', image: 'envoy', restartPolicy: 'Always' }] }, []],
    ['host network with matching ports (defaulted)', { hostNetwork: true, containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 8080 }] }] }, []],
    ['an unknown restartPolicy', { restartPolicy: 'Sometimes' }, [notSupported('spec.restartPolicy', 'Sometimes', ['Always', 'OnFailure', 'Never'])]],
    ['no containers', { containers: [] }, [required('spec.containers')]],
    ['a container without an image', { containers: [{ name: 'web' }] }, [required('spec.containers[0].image')]],
    ['an image with blanks around it', { containers: [{ name: 'web', image: ' nginx ' }] }, [invalid('spec.containers[0].image', ' nginx ', 'must not have leading or trailing whitespace')]],
    ['an init container image with a trailing blank', { initContainers: [{ name: 'init', image: 'busybox ' }] }, [invalid('spec.initContainers[0].image', 'busybox ', 'must not have leading or trailing whitespace')]],
    ['ephemeral containers on create', { ephemeralContainers: [{ name: 'debug', image: 'busybox' }] }, [forbidden('spec.ephemeralContainers', 'cannot be set on create')]],
    ['a node name with scheduling gates', { nodeName: 'node-1', schedulingGates: [{ name: 'gate' }] }, [forbidden('spec.nodeName', 'cannot be set until all schedulingGates have been cleared')]],
    ['a projected token without a service account (serviceAccountName empty)', {
      serviceAccountName: '', volumes: [{ name: 't', projected: { sources: [{ configMap: { name: 'c' } }, { serviceAccountToken: { path: 'token' } }] } }],
    }, [forbidden('spec.volumes[0].projected.sources[1].serviceAccountToken', 'must not be specified when serviceAccountName is not set')]],
    ['a node name that is not a subdomain', { nodeName: 'Node_1' }, [invalid('spec.nodeName', 'Node_1', SUBDOMAIN_MSG)]],
    ['activeDeadlineSeconds 0', { activeDeadlineSeconds: 0 }, [invalid('spec.activeDeadlineSeconds', 0, 'must be between 1 and 2147483647, inclusive')]],
    ['an unknown dnsPolicy', { dnsPolicy: 'Custom' }, [notSupported('spec.dnsPolicy', 'Custom', ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'])]],
    ['dnsPolicy None without dnsConfig', { dnsPolicy: 'None' }, [required('spec.dnsConfig', 'must provide `dnsConfig` when `dnsPolicy` is None')]],
    ['duplicate container names (the list key, then kube\'s name check)', { containers: [{ name: 'a', image: 'x' }, { name: 'a', image: 'y' }] }, [
      { reason: 'FieldValueDuplicate', field: 'spec.containers[1]', message: 'Duplicate value: {"name":"a"}' },
      { reason: 'FieldValueDuplicate', field: 'spec.containers[1].name', message: 'Duplicate value: "a"' },
    ]],
    ['a mount of a missing volume', { containers: [{ name: 'web', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] }, [
      { reason: 'FieldValueNotFound', field: 'spec.containers[0].volumeMounts[0].name', message: 'Not found: "data"' },
    ]],
    ['an unknown preemptionPolicy', { preemptionPolicy: 'Sometimes' }, [notSupported('spec.preemptionPolicy', 'Sometimes', ['PreemptLowerPriority', 'Never'])]],
  ];
  it.each(cases)('%s', (_name, spec, want) => {
    expect(create(pod(spec)).causes).toEqual(want);
  });

  it('defaults a pod as Kubernetes 1.32 (spec defaults, requests from limits, service links, host ports)', () => {
    const p = stored(pod({
      hostNetwork: true,
      containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 8080 }], resources: { limits: { cpu: '1', memory: '1Gi' } } }],
    }));
    const spec = p.spec as Record<string, any>;
    expect([spec.restartPolicy, spec.dnsPolicy, spec.schedulerName, spec.terminationGracePeriodSeconds, spec.enableServiceLinks])
      .toEqual(['Always', 'ClusterFirst', 'default-scheduler', 30, true]);
    expect(spec.containers[0].resources.requests).toEqual({ cpu: '1', memory: '1Gi' });
    expect(spec.containers[0].ports[0]).toEqual({ containerPort: 8080, hostPort: 8080, protocol: 'TCP' });
    expect(spec.containers[0].imagePullPolicy).toBe('Always');
    expect(p.status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
  });

  it('resets a status sent on create and marks a gated pod SchedulingGated', () => {
    const p = stored({ ...pod({ schedulingGates: [{ name: 'gate' }] }), status: { phase: 'Running', podIP: '10.0.0.1' } });
    expect(p.status).toEqual({
      phase: 'Pending', qosClass: 'BestEffort',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }],
    });
  });

  it('warns when the name is not a DNS label', () => {
    expect(pods.warnings(pod({}, { name: 'web.v1' }), undefined)).toEqual([
      "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')]",
    ]);
    expect(pods.warnings(pod(), undefined)).toEqual([]);
  });
});

describe('Pod update validation', () => {
  const base = stored(pod({
    activeDeadlineSeconds: 600,
    tolerations: [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute', tolerationSeconds: 30 }],
    initContainers: [{ name: 'init', image: 'busybox:1' }],
  }));
  const gated = stored(pod({ schedulingGates: [{ name: 'a' }, { name: 'b' }], nodeSelector: { disk: 'ssd' } }));
  const negativeGrace = stored(pod({ terminationGracePeriodSeconds: -1 }));
  const mirror = stored(pod({ serviceAccountName: '' }, { annotations: { 'platform.io/config.mirror': 'x' } }));
  const withSpec = (p: KubeObject, change: (spec: Record<string, any>) => void): KubeObject => {
    const o = jsonClone(p);
    change(o.spec as Record<string, any>);
    return o;
  };
  const MSG_PREFIX = 'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n';
  const specForbidden = (...paths: string[]): Cause => ({ reason: 'FieldValueForbidden', field: 'spec', message: MSG_PREFIX + paths.map((p) => `  ${p}: changed`).join('\n') });

  const cases: [string, KubeObject, KubeObject, Cause[]][] = [
    ['no change', base, base, []],
    ['a new image', withSpec(base, (s) => { s.containers[0].image = 'nginx:1.28'; }), base, []],
    ['a new init container image', withSpec(base, (s) => { s.initContainers[0].image = 'busybox:2'; }), base, []],
    ['a lower activeDeadlineSeconds', withSpec(base, (s) => { s.activeDeadlineSeconds = 300; }), base, []],
    ['an added toleration', withSpec(base, (s) => { s.tolerations.push({ operator: 'Exists' }); }), base, []],
    ['a changed tolerationSeconds', withSpec(base, (s) => { s.tolerations[0].tolerationSeconds = 10; }), base, []],
    ['labels change (metadata is free)', { ...base, metadata: { ...base.metadata, labels: { a: 'b' } } }, base, []],
    ['a removed scheduling gate', withSpec(gated, (s) => { s.schedulingGates = [{ name: 'b' }]; }), gated, []],
    ['an added nodeSelector entry while gated', withSpec(gated, (s) => { s.nodeSelector.zone = 'a'; }), gated, []],
    ['terminationGracePeriodSeconds from negative to 1', withSpec(negativeGrace, (s) => { s.terminationGracePeriodSeconds = 1; }), negativeGrace, []],
    ['an empty tolerations list equals none', withSpec(gated, (s) => { s.tolerations = []; }), gated, []],
    ['a higher activeDeadlineSeconds', withSpec(base, (s) => { s.activeDeadlineSeconds = 900; }), base, [
      invalid('spec.activeDeadlineSeconds', 900, 'must be less than or equal to previous value'),
    ]],
    ['activeDeadlineSeconds removed', withSpec(base, (s) => { delete s.activeDeadlineSeconds; }), base, [
      invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'),
    ]],
    ['a removed toleration', withSpec(base, (s) => { s.tolerations = []; }), base, [
      forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'),
    ]],
    ['a changed toleration value', withSpec(base, (s) => { s.tolerations[0].value = 'w'; }), base, [
      forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'),
    ]],
    ['an added scheduling gate', withSpec(gated, (s) => { s.schedulingGates.push({ name: 'c' }); }), gated, [
      forbidden('spec.schedulingGates', "only deletion is allowed, but found new scheduling gate 'c'"),
    ]],
    ['an added container', withSpec(base, (s) => { s.containers.push({ name: 'b', image: 'x' }); }), base, [
      forbidden('spec.containers', 'pod updates may not add or remove containers'),
    ]],
    ['a removed init container', withSpec(base, (s) => { s.initContainers = []; }), base, [
      forbidden('spec.initContainers', 'pod updates may not add or remove containers'),
    ]],
    ['an emptied image', withSpec(base, (s) => { s.containers[0].image = ''; }), base, [
      required('spec.containers[0].image'), required('spec.containers[0].image'),
    ]],
    ['a changed container port', withSpec(base, (s) => { s.containers[0].ports = [{ containerPort: 80, protocol: 'TCP' }]; }), base, [
      specForbidden('spec.containers[0].ports'),
    ]],
    ['a new nodeName through update', withSpec(base, (s) => { s.nodeName = 'node-1'; }), base, [specForbidden('spec.nodeName')]],
    ['restartPolicy and serviceAccountName changed', withSpec(base, (s) => { s.restartPolicy = 'Never'; s.serviceAccountName = 'other'; s.serviceAccount = 'other'; }), base, [
      specForbidden('spec.restartPolicy', 'spec.serviceAccount', 'spec.serviceAccountName'),
    ]],
    ['a changed nodeSelector entry while gated', withSpec(gated, (s) => { s.nodeSelector.disk = 'hdd'; }), gated, [
      invalid('spec.nodeSelector', { disk: 'hdd' }, 'only additions to spec.nodeSelector are allowed (no mutations or deletions)'),
      specForbidden('spec.nodeSelector.disk'),
    ]],
    ['an added nodeSelector on a pod that is not gated', withSpec(base, (s) => { s.nodeSelector = { disk: 'ssd' }; }), base, [specForbidden('spec.nodeSelector')]],
    ['terminationGracePeriodSeconds changed otherwise', withSpec(base, (s) => { s.terminationGracePeriodSeconds = 5; }), base, [
      specForbidden('spec.terminationGracePeriodSeconds'),
    ]],
    ['the mirror pod annotation added', { ...base, metadata: { ...base.metadata, annotations: { 'platform.io/config.mirror': 'x' } } }, base, [
      forbidden('metadata.annotations[platform.io/config.mirror]', 'may not add mirror pod annotation'),
    ]],
    ['the mirror pod annotation changed', { ...mirror, metadata: { ...mirror.metadata, annotations: { 'platform.io/config.mirror': 'y' } } }, mirror, [
      forbidden('metadata.annotations[platform.io/config.mirror]', 'may not remove or update mirror pod annotation'),
    ]],
    ['ephemeral containers through the main resource', withSpec(base, (s) => { s.ephemeralContainers = [{ name: 'debug', image: 'busybox' }]; }), base, [
      specForbidden('spec.ephemeralContainers'),
    ]],
  ];
  it.each(cases)('%s', (_name, next, old, want) => {
    expect(update(next, old)).toEqual(want);
  });

  it('keeps the stored status on a main-resource update', () => {
    const o = jsonClone(base);
    o.status = { phase: 'Failed' };
    const u = jsonClone(o);
    u.status = jsonClone(base.status);
    expect(update(o, base)).toEqual([]);
  });
});

describe('Pod status validation', () => {
  const bound = stored(pod({ nodeName: 'node-1', restartPolicy: 'Never', resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu' }] }));
  const st = (extra: Record<string, unknown>) => ({ ...(bound.status as Record<string, unknown>), ...extra });
  const terminated = { name: 'web', ready: false, restartCount: 0, image: 'nginx', imageID: '', state: { terminated: { exitCode: 0 } } };
  const afterTerminated = { ...bound, status: st({ phase: 'Succeeded', containerStatuses: [terminated] }) };
  const always = stored(pod({ nodeName: 'node-1' }));
  const alwaysTerminated = { ...always, status: { ...(always.status as Record<string, unknown>), containerStatuses: [terminated] } };
  const running = { ...terminated, state: { running: { startedAt: '2024-01-01T00:00:00Z' } } };

  const cases: [string, KubeObject, Record<string, unknown>, Record<string, unknown> | undefined, Cause[]][] = [
    ['phase Running with IPs and conditions', bound, st({
      phase: 'Running', podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }], hostIP: '192.168.1.2', hostIPs: [{ ip: '192.168.1.2' }],
      conditions: [{ type: 'Ready', status: 'True' }, { type: 'example.com/gate', status: 'False' }], startTime: '2024-01-01T00:00:00Z',
    }), undefined, []],
    ['a nominated node', bound, st({ nominatedNodeName: 'node-2' }), undefined, []],
    ['container statuses of every state', bound, st({ containerStatuses: [{ ...running, ready: true, restartCount: 2, lastState: { terminated: { exitCode: 1, reason: 'Error' } } }] }), undefined, []],
    ['a resource claim status of a spec claim', bound, st({ resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'web-gpu-x1' }] }), undefined, []],
    ['a restarted container of an Always pod', alwaysTerminated, { ...(always.status as Record<string, unknown>), containerStatuses: [running] }, undefined, []],
    ['a dropped qosClass is backfilled', bound, { phase: 'Running' }, undefined, []],
    ['any phase value (kube does not check it)', bound, st({ phase: 'Dancing' }), undefined, []],
    ['a custom condition type that is not a qualified name', bound, st({ conditions: [{ type: 'not valid!', status: 'True' }] }), undefined, [
      invalid('metadata.conditions[0].Type', 'not valid!', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ]],
    ['a nominated node that is not a subdomain', bound, st({ nominatedNodeName: 'Node_2' }), undefined, [invalid('status.nominatedNodeName', 'Node_2', SUBDOMAIN_MSG)]],
    ['a changed qosClass', bound, st({ qosClass: 'Guaranteed' }), undefined, [invalid('status.qosClass', 'Guaranteed', 'field is immutable')]],
    ['a terminated container running again (restartPolicy Never)', afterTerminated, st({ phase: 'Running', containerStatuses: [running] }), undefined, [
      forbidden('status.containerStatuses[0].state', 'may not be transitioned to non-terminated state'),
    ]],
    ['an invalid pod IP', bound, st({ podIPs: [{ ip: '10.0.0.300' }] }), undefined, [invalid('status.podIPs[0]', '10.0.0.300', IP_MSG)]],
    ['two IPv4 pod IPs', bound, st({ podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }] }), undefined, [
      invalid('status.podIPs', [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], 'may specify no more than one IP for each IP family'),
    ]],
    ['a repeated pod IP (the list key, then the family rule)', bound, st({ podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.1' }] }), undefined, [
      { reason: 'FieldValueDuplicate', field: 'status.podIPs[1]', message: 'Duplicate value: {"ip":"10.0.0.1"}' },
      invalid('status.podIPs', [{ ip: '10.0.0.1' }, { ip: '10.0.0.1' }], 'may specify no more than one IP for each IP family'),
    ]],
    ['a repeated host IP', bound, st({ hostIP: '10.1.0.1', hostIPs: [{ ip: '10.1.0.1' }, { ip: '10.1.0.1' }] }), undefined, [
      invalid('status.hostIPs', [{ ip: '10.1.0.1' }, { ip: '10.1.0.1' }], 'may specify no more than one IP for each IP family'),
      { reason: 'FieldValueDuplicate', field: 'status.hostIPs[1]', message: 'Duplicate value: {"ip":"10.1.0.1"}' },
    ]],
    ['hostIPs[0] differs from hostIP', bound, st({ hostIP: '192.168.1.2', hostIPs: [{ ip: '192.168.1.3' }] }), undefined, [
      invalid('status.hostIPs[0].ip', '192.168.1.3', 'must be equal to `hostIP`'),
    ]],
    ['hostIPs without hostIP', bound, st({ hostIPs: [{ ip: '192.168.1.3' }] }), undefined, [invalid('status.hostIPs[0].ip', '192.168.1.3', 'must be equal to `hostIP`')]],
    ['an invalid host IP', bound, st({ hostIP: 'host', hostIPs: [{ ip: 'host' }] }), undefined, [invalid('status.hostIPs[0]', 'host', IP_MSG)]],
    ['a resource claim status of an unknown claim', bound, st({ resourceClaimStatuses: [{ name: 'fpga' }] }), undefined, [
      invalid('status.resourceClaimStatuses[0].name', 'fpga', 'must match the name of an entry in `spec.resourceClaims`'),
    ]],
    ['a repeated resource claim status (the list key)', bound, st({ resourceClaimStatuses: [{ name: 'gpu' }, { name: 'gpu' }] }), undefined, [
      { reason: 'FieldValueDuplicate', field: 'status.resourceClaimStatuses[1]', message: 'Duplicate value: {"name":"gpu"}' },
    ]],
    ['a terminated init container running again (restartPolicy Never)', { ...bound, status: st({ initContainerStatuses: [{ ...terminated, name: 'init' }] }) },
      st({ initContainerStatuses: [{ ...running, name: 'init' }] }), undefined, [
        forbidden('status.initContainerStatuses[0].state', 'may not be transitioned to non-terminated state'),
      ]],
    ['spec changes through /status are dropped', bound, st({ phase: 'Running' }), { ...(bound.spec as Record<string, unknown>), nodeName: 'node-9' }, []],
  ];
  it.each(cases)('%s', (_name, old, status, spec, want) => {
    expect(updateStatus(old, status, spec).causes).toEqual(want);
  });

  it('keeps the spec, backfills qosClass and makes podIP authoritative over podIPs', () => {
    const r = updateStatus(bound, { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }] }, { ...(bound.spec as object), nodeName: 'x' });
    expect((r.obj.spec as { nodeName: string }).nodeName).toBe('node-1');
    expect(r.obj.status).toEqual({ phase: 'Running', qosClass: 'BestEffort', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.9' }] });
    expect(updateStatus(bound, { phase: 'Running', podIPs: [{ ip: '10.0.0.1' }] }).obj.status).toEqual(expect.objectContaining({ podIP: '10.0.0.1' }));
  });

  it('keeps the mirror pod annotation through /status too', () => {
    const mirrored = { ...jsonClone(bound), metadata: { ...bound.metadata, annotations: { 'platform.io/config.mirror': 'x' } } };
    const ctx = testContext('platform.io', 'default', 'status', 'update');
    const o = jsonClone(bound);
    pods.prepareForStatusUpdate(o, mirrored);
    expect(causes(pods.validateStatusUpdate(o, mirrored, ctx))).toEqual([
      forbidden('metadata.annotations[platform.io/config.mirror]', 'may not remove or update mirror pod annotation'),
    ]);
  });

  it('forbids a nodeName change when the status strategy is bypassed', () => {
    const moved = { ...jsonClone(bound), spec: { ...(bound.spec as object), nodeName: 'node-2' } };
    expect(causes(pods.validateStatusUpdate(moved, bound, testContext('platform.io', 'default', 'status', 'update')))).toEqual([
      forbidden('status.nodeName', 'may not be changed directly'),
    ]);
  });
});

describe('Pod QoS, deletion, selectors, binding and table', () => {
  const c = (resources: Record<string, unknown>) => ({ name: 'c', image: 'x', resources });
  it.each([
    ['BestEffort', [c({})]],
    ['BestEffort', [c({ requests: { 'nvidia.com/gpu': '1' } })]],
    ['Guaranteed', [c({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1000m', memory: '1Gi' } })]],
    ['Burstable', [c({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } })]],
    ['Burstable', [c({ requests: { cpu: '100m' } })]],
    ['Burstable', [c({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1', memory: '1Gi' } }), c({})]],
  ])('%s', (want, containers) => {
    expect(computeQosClass({ containers })).toBe(want);
  });

  it('deletes gracefully only bound pods that are not terminal', () => {
    const now = new Date('2024-01-01T00:00:00Z');
    const unbound = stored();
    const bound = stored(pod({ nodeName: 'n1', terminationGracePeriodSeconds: 45 }));
    expect(gracefulStep(pods, unbound, undefined, now)).toEqual({ type: 'now' });
    expect(gracefulStep(pods, bound, undefined, now)).toEqual({ type: 'mark', deletionTimestamp: '2024-01-01T00:00:45Z', gracePeriodSeconds: 45 });
    expect(gracefulStep(pods, bound, 10, now)).toEqual({ type: 'mark', deletionTimestamp: '2024-01-01T00:00:10Z', gracePeriodSeconds: 10 });
    expect(gracefulStep(pods, bound, -5, now)).toEqual({ type: 'mark', deletionTimestamp: '2024-01-01T00:00:01Z', gracePeriodSeconds: 1 });
    expect(gracefulStep(pods, bound, 0, now)).toEqual({ type: 'now' });
    expect(gracefulStep(pods, { ...bound, status: { phase: 'Succeeded' } }, undefined, now)).toEqual({ type: 'now' });
    const marked = { ...bound, metadata: { ...bound.metadata, deletionTimestamp: '2024-01-01T00:00:45Z', deletionGracePeriodSeconds: 45 } };
    expect(gracefulStep(pods, marked, undefined, now)).toEqual({ type: 'pending' });
    expect(gracefulStep(pods, marked, 60, now)).toEqual({ type: 'pending' });
    expect(gracefulStep(pods, marked, 5, now)).toEqual({ type: 'mark', deletionTimestamp: '2024-01-01T00:00:05Z', gracePeriodSeconds: 5 });
    expect(gracefulStep(pods, marked, 0, now)).toEqual({ type: 'now' });
    // An int64 period far past year 9999 ends at the latest time RFC 3339 can say, never a 500.
    expect(gracefulStep(pods, bound, 9_000_000_000_000_000_000, now)).toEqual({ type: 'mark', deletionTimestamp: '9999-12-31T23:59:59Z', gracePeriodSeconds: 9_000_000_000_000_000_000 });
  });

  it('answers the field selectors kube offers', () => {
    const p = { ...stored(pod({ nodeName: 'n1', hostNetwork: true })), status: { phase: 'Running', podIPs: [{ ip: '10.0.0.5' }], nominatedNodeName: 'n2' } };
    const fields = Object.fromEntries(Object.entries(pods.selectableFields).map(([k, f]) => [k, f(p)]));
    expect(fields).toEqual({
      'spec.nodeName': 'n1', 'spec.restartPolicy': 'Always', 'spec.schedulerName': 'default-scheduler', 'spec.serviceAccountName': 'default',
      'spec.hostNetwork': 'true', 'status.phase': 'Running', 'status.podIP': '10.0.0.5', 'status.nominatedNodeName': 'n2',
      'spec.host': 'n1', 'status.podIPs': '',
    });
  });

  it('validates a Binding as kube (target kind Node or empty, name required)', () => {
    expect(validateBinding({ metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } })).toEqual([]);
    expect(causes(validateBinding({ metadata: { name: 'p' }, target: { kind: 'Pod' } }))).toEqual([
      notSupported('target.kind', 'Pod', ['Node', '<empty>']),
      required('target.name'),
    ]);
  });

  it('prints kubectl get pods cells: ready, status reasons, restarts, wide columns', () => {
    const now = new Date('2024-01-01T01:00:00Z');
    const base: KubeObject = { ...stored(), metadata: { name: 'web', namespace: 'default', creationTimestamp: '2024-01-01T00:00:00Z' } };
    const cells = (p: KubeObject) => pods.table.cells(p, now);
    expect(cells(base)).toEqual(['web', '0/1', 'Pending', '0', '60m', '<none>', '<none>', '<none>', '<none>']);
    const running = {
      ...base,
      spec: { ...(base.spec as object), nodeName: 'n1', readinessGates: [{ conditionType: 'example.com/lb' }] },
      status: {
        phase: 'Running', podIPs: [{ ip: '10.0.0.5' }], conditions: [{ type: 'example.com/lb', status: 'True' }],
        containerStatuses: [{
          name: 'web', ready: true, restartCount: 3, image: 'nginx', imageID: '', state: { running: {} },
          lastState: { terminated: { exitCode: 1, finishedAt: '2024-01-01T00:55:00Z' } },
        }],
      },
    };
    expect(cells(running)).toEqual(['web', '1/1', 'Running', '3 (5m ago)', '60m', '10.0.0.5', 'n1', '<none>', '1/1']);
    const crash = { ...running, status: { ...running.status, containerStatuses: [{ ...running.status.containerStatuses[0], ready: false, state: { waiting: { reason: 'CrashLoopBackOff' } } }] } };
    expect(cells(crash).slice(1, 3)).toEqual(['0/1', 'CrashLoopBackOff']);
    const done = { ...base, status: { phase: 'Succeeded', containerStatuses: [{ name: 'web', ready: false, restartCount: 0, image: '', imageID: '', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] } };
    expect(cells(done)[2]).toBe('Completed');
    const initializing = {
      ...base,
      spec: { ...(base.spec as object), initContainers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }] },
      status: { phase: 'Pending', initContainerStatuses: [
        { name: 'a', ready: false, restartCount: 0, image: '', imageID: '', state: { terminated: { exitCode: 0 } } },
        { name: 'b', ready: false, restartCount: 0, image: '', imageID: '', state: { running: {} } },
      ] },
    };
    expect(cells(initializing)[2]).toBe('Init:1/2');
    const terminating = { ...running, metadata: { ...running.metadata, deletionTimestamp: '2024-01-01T01:00:30Z' } };
    expect(cells(terminating)[2]).toBe('Terminating');
    expect(pods.table.columns.map((col) => [col.name, col.priority])).toEqual([
      ['Name', 0], ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1],
    ]);
  });
});

describe('ServiceAccount mountable secrets', () => {
  const account = (secrets: string[], pulls: string[] = []): KubeObject => ({
    metadata: { name: 'builder', namespace: 'default' },
    secrets: secrets.map((name) => ({ name })),
    imagePullSecrets: pulls.map((name) => ({ name })),
  });
  it.each([
    ['no secrets at all', {}, undefined],
    ['a listed secret volume and env', { volumes: [{ name: 'v', secret: { secretName: 'ok' } }], containers: [{ name: 'c', image: 'x', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'ok', key: 'k' } } }] }] }, undefined],
    ['an unlisted secret volume', { volumes: [{ name: 'v', secret: { secretName: 'other' } }] },
      'volume with secret.secretName="other" is not allowed because service account builder does not reference that secret'],
    ['an unlisted env secret', { containers: [{ name: 'c', image: 'x', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'other', key: 'k' } } }] }] },
      'container c with envVar E referencing secret.secretName="other" is not allowed because service account builder does not reference that secret'],
    ['an unlisted envFrom secret of an init container', { initContainers: [{ name: 'i', image: 'x', envFrom: [{ secretRef: { name: 'other' } }] }], containers: [] },
      'init container i with envFrom referencing secret.secretName="other" is not allowed because service account builder does not reference that secret'],
    ['an unlisted pull secret', { imagePullSecrets: [{ name: 'ok' }, { name: 'regcred' }] },
      'imagePullSecrets[0].name="ok" is not allowed because service account builder does not reference that imagePullSecret'],
  ])('%s', (_name, spec, want) => {
    const p: KubeObject = { metadata: { name: 'p' }, spec: { containers: [], ...spec } };
    expect(disallowedSecretReference(p, account(['ok']))).toBe(want);
  });

  it('allows pull secrets the account lists in imagePullSecrets', () => {
    const p: KubeObject = { metadata: { name: 'p' }, spec: { containers: [], imagePullSecrets: [{ name: 'regcred' }] } };
    expect(disallowedSecretReference(p, account([], ['regcred']))).toBeUndefined();
  });
});
