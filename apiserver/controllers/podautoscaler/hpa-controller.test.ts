/**
 * The HPA controller over the real registries on the embedded store, with an in-memory metrics source
 * (the test plays the metrics server and the node agent: pods and their status are written directly; no
 * workload controller runs, so the target's pods stay as the test made them):
 * scale-up (the scale-up limit step by step, then maxReplicas), the tolerance band, scale-down only after
 * the stabilisation window, min/max bounds and ScalingLimited, ScalingDisabled at 0 replicas, missing
 * metrics and unready pods damping the change, pods without requests, a missing or unscalable target, a
 * custom resource with a scale sub-resource, a target without a selector, two HPAs over the same pods,
 * the status members and the v1 conditions annotation, and kube's events.
 */
import type { KubeObject } from '../../api/object.js';
import { createEventRecorder } from '../../events/event-recorder.js';
import { naming } from '../../naming/naming.js';
import type { GenericRegistry } from '../../registry/generic/generic-registry.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import { customResourceKinds, CUSTOM_RESOURCE_VALIDATION_STYLE } from '../../registry/kinds/apiextensions/custom-resource-kinds.js';
import { createInformerFactory, type InformerFactory } from '../informer.js';
import { openServedStore, type ServedStore } from '../testing/served-store.js';
import { HPA_EVENT_COMPONENT, startHorizontalPodAutoscalerController, type HorizontalPodAutoscalerControllerOptions } from './hpa-controller.js';
import { NO_METRICS_RETURNED, type PodMetric, type PodMetricsSource } from './metrics-source.js';
import { until } from '../../../test/harness/until.js';

const names = naming('k8s.io');
const NS = 'default';
const CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';
const METRICS = 'autoscaling.alpha.kubernetes.io/current-metrics';
let store: ServedStore;
let rcs: GenericRegistry;
let pods: GenericRegistry;
let hpas: GenericRegistry;
let events: GenericRegistry;
let informers: InformerFactory;
let controller: { stop(): Promise<void> } | undefined;
let errors: unknown[];

/** The in-memory metrics source: CPU usage in millicores per pod name. */
class FakeMetrics implements PodMetricsSource {
  readonly usage = new Map<string, number>();
  calls = 0;
  async podCpu(): Promise<{ metrics: Map<string, PodMetric>; timestamp: Date }> {
    this.calls++;
    if (this.usage.size === 0) throw new Error(NO_METRICS_RETURNED);
    const timestamp = new Date();
    const metrics = new Map<string, PodMetric>();
    for (const [pod, milliCpu] of this.usage) metrics.set(pod, { milliCpu, timestamp, windowMs: 30_000 });
    return { metrics, timestamp };
  }
}
let metrics: FakeMetrics;

beforeEach(async () => {
  store = await openServedStore(names);
  rcs = store.served.lookup('', 'v1', 'replicationcontrollers')!.registry;
  pods = store.served.lookup('', 'v1', 'pods')!.registry;
  hpas = store.served.lookup('autoscaling', 'v1', 'horizontalpodautoscalers')!.registry;
  events = store.served.lookup('', 'v1', 'events')!.registry;
  errors = [];
  metrics = new FakeMetrics();
  informers = createInformerFactory({ onError: (err) => errors.push(err), rewatchDelayMs: 50 });
});

afterEach(async () => {
  await controller?.stop();
  controller = undefined;
  await informers.stop();
  await store.close();
});

function start(o: Partial<HorizontalPodAutoscalerControllerOptions> = {}): void {
  controller = startHorizontalPodAutoscalerController({
    resources: store.served,
    informers,
    naming: names,
    metrics,
    recorder: createEventRecorder({ events, component: HPA_EVENT_COMPONENT }),
    syncPeriodMs: 40,
    onError: (err) => errors.push(err),
    ...o,
  });
}


const hourAgo = (): string => rfc3339(new Date(Date.now() - 3_600_000));

async function rc(name: string, replicas: number, app = name): Promise<void> {
  await rcs.create(NS, {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name },
    spec: { replicas, selector: { app }, template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  });
}

/** A Running pod of `app` with a 100m CPU request (unless `request` says otherwise), Ready unless told. */
async function pod(name: string, app: string, o: { request?: string | null; phase?: string; ready?: boolean } = {}): Promise<void> {
  const resources = o.request === null ? {} : { requests: { cpu: o.request ?? '100m' } };
  await pods.create(NS, { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app } }, spec: { containers: [{ name: 'c', image: 'busybox', resources }] } });
  const phase = o.phase ?? 'Running';
  const status = {
    phase,
    startTime: hourAgo(),
    conditions: phase === 'Pending' ? [] : [{ type: 'Ready', status: o.ready === false ? 'False' : 'True', lastTransitionTime: hourAgo() }],
  };
  await pods.patch(NS, name, (p) => ({ ...p, status }), { subresource: 'status' });
}

async function hpa(name: string, o: { target?: object; min?: number; max?: number; cpu?: number } = {}): Promise<void> {
  await hpas.create(NS, {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name },
    spec: {
      scaleTargetRef: o.target ?? { apiVersion: 'v1', kind: 'ReplicationController', name },
      ...(o.min === undefined ? {} : { minReplicas: o.min }),
      maxReplicas: o.max ?? 10,
      ...(o.cpu === undefined ? { targetCPUUtilizationPercentage: 50 } : { targetCPUUtilizationPercentage: o.cpu }),
    },
  });
}

const replicasOf = async (name: string): Promise<number> => ((await rcs.get(NS, name)).spec as { replicas: number }).replicas;
const getHpa = (name: string): Promise<KubeObject> => hpas.get(NS, name);
const statusOf = async (name: string): Promise<Record<string, unknown>> => ((await getHpa(name)).status ?? {}) as Record<string, unknown>;
interface Condition { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }
const conditionsOf = async (name: string): Promise<Condition[]> => JSON.parse((await getHpa(name)).metadata.annotations?.[CONDITIONS] ?? '[]') as Condition[];
const condition = async (name: string, type: string): Promise<Condition | undefined> => (await conditionsOf(name)).find((c) => c.type === type);
const eventsOf = async (name: string): Promise<Array<{ reason: string; message: string; type: string; count: number }>> =>
  (await events.list(NS)).items
    .filter((e) => (e.involvedObject as { name?: string }).name === name)
    .map((e) => ({ reason: e.reason as string, message: e.message as string, type: e.type as string, count: e.count as number }));
const hasEvent = async (name: string, reason: string, message?: string): Promise<true | undefined> =>
  (await eventsOf(name)).some((e) => e.reason === reason && (message === undefined || e.message === message)) ? true : undefined;

test('scales up step by step (at most double, at least 4) to maxReplicas, with status, conditions and events', async () => {
  await rc('web', 1);
  await pod('web-1', 'web');
  await pod('web-2', 'web');
  // 400 % of the request against a 50 % target: ratio 8, ceil(8 × 2 ready pods) = 16 wanted.
  metrics.usage.set('web-1', 400).set('web-2', 400);
  await hpa('web', { max: 10 });
  start();

  await until('maxReplicas', async () => ((await replicasOf('web')) === 10 ? true : undefined));
  await until('the status of the last sync', async () => ((await statusOf('web')).currentReplicas === 10 ? true : undefined));
  // The conditions annotation is a second write (the main resource, after /status).
  await until('the conditions of the last sync', async () => ((await condition('web', 'AbleToScale'))?.reason === 'ReadyForNewScale' ? true : undefined));
  await until('three rescales', async () => ((await eventsOf('web')).filter((e) => e.reason === 'SuccessfulRescale').length === 3 ? true : undefined));

  const rescales = (await eventsOf('web')).filter((e) => e.reason === 'SuccessfulRescale').map((e) => e.message);
  const reason = 'cpu resource utilization (percentage of request) above target';
  // 1 -> 4 (the floor of the scale-up limit), 4 -> 8 (double), 8 -> 10 (maxReplicas).
  expect(rescales).toEqual([`New size: 4; reason: ${reason}`, `New size: 8; reason: ${reason}`, `New size: 10; reason: ${reason}`]);
  expect((await eventsOf('web')).every((e) => e.type === 'Normal')).toBe(true);

  const status = await statusOf('web');
  expect(status).toMatchObject({ currentReplicas: 10, desiredReplicas: 10, currentCPUUtilizationPercentage: 400 });
  expect(typeof status.lastScaleTime).toBe('string');
  expect(await conditionsOf('web')).toEqual([
    expect.objectContaining({ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' }),
    expect.objectContaining({ type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)' }),
    expect.objectContaining({ type: 'ScalingLimited', status: 'True', reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' }),
  ]);
  expect((await getHpa('web')).metadata.annotations?.[METRICS]).toBe('[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":400,"currentAverageValue":"400m"}}]');
  // The scale writes are the controller's, through the scale sub-resource.
  const managed = (await rcs.get(NS, 'web')).metadata.managedFields as Array<{ manager: string; subresource?: string }>;
  expect(managed).toEqual(expect.arrayContaining([expect.objectContaining({ manager: 'kube-controller-manager', subresource: 'scale' })]));
  expect(errors).toEqual([]);
});

test('a change within the tolerance keeps the count; lastScaleTime stays unset', async () => {
  await rc('calm', 2);
  await pod('calm-1', 'calm');
  await pod('calm-2', 'calm');
  metrics.usage.set('calm-1', 54).set('calm-2', 54); // 54 % against 50 %: ratio 1.08
  await hpa('calm');
  start();
  await until('a synced status', async () => ((await statusOf('calm')).currentCPUUtilizationPercentage === 54 ? true : undefined));
  const before = metrics.calls;
  await until('more syncs', async () => (metrics.calls >= before + 3 ? true : undefined));
  expect(await replicasOf('calm')).toBe(2);
  const status = await statusOf('calm');
  expect(status).toEqual({ currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 54 });
  expect(await hasEvent('calm', 'SuccessfulRescale')).toBeUndefined();
  expect(await condition('calm', 'ScalingLimited')).toMatchObject({ status: 'False', reason: 'DesiredWithinRange' });
});

test('scales down only once the stabilisation window has passed', async () => {
  await rc('down', 4);
  for (const i of [1, 2, 3, 4]) {
    await pod(`down-${i}`, 'down');
    metrics.usage.set(`down-${i}`, 10); // 10 % against 50 %: ratio 0.2, ceil(0.2 × 4) = 1
  }
  await hpa('down', { min: 1 });
  const windowMs = 1500;
  const started = Date.now();
  start({ downscaleStabilizationMs: windowMs });
  await until('the stabilised recommendation', async () => ((await condition('down', 'AbleToScale'))?.reason === 'ScaleDownStabilized' ? true : undefined));
  expect(await replicasOf('down')).toBe(4);
  expect(await statusOf('down')).toMatchObject({ currentReplicas: 4, desiredReplicas: 4, currentCPUUtilizationPercentage: 10 });
  expect(await condition('down', 'AbleToScale')).toMatchObject({ status: 'True', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });

  await until('the scale-down', async () => ((await replicasOf('down')) === 1 ? true : undefined));
  expect(Date.now() - started).toBeGreaterThanOrEqual(windowMs);
  await until('the event', () => hasEvent('down', 'SuccessfulRescale', 'New size: 1; reason: All metrics below target'));
  await until('the status', async () => ((await statusOf('down')).desiredReplicas === 1 ? true : undefined));
});

test('bounds: above max and below min go straight to the bound; a count held at min is ScalingLimited TooFewReplicas', async () => {
  await rc('big', 12, 'big');
  await rc('small', 1, 'small');
  await rc('floor', 2, 'floor');
  for (const app of ['big', 'small', 'floor']) {
    await pod(`${app}-1`, app);
    metrics.usage.set(`${app}-1`, 10);
  }
  await hpa('big', { max: 5 });
  await hpa('small', { min: 3, max: 5 });
  await hpa('floor', { min: 2, max: 5 });
  start({ downscaleStabilizationMs: 0 });
  await until('big at max', async () => ((await replicasOf('big')) === 5 ? true : undefined));
  await until('small at min', async () => ((await replicasOf('small')) === 3 ? true : undefined));
  // Events are recorded without holding the sync up: awaited too.
  await until('big event', () => hasEvent('big', 'SuccessfulRescale', 'New size: 5; reason: Current number of replicas above Spec.MaxReplicas'));
  await until('small event', () => hasEvent('small', 'SuccessfulRescale', 'New size: 3; reason: Current number of replicas below Spec.MinReplicas'));

  await until('floor limited', async () => ((await condition('floor', 'ScalingLimited'))?.reason === 'TooFewReplicas' ? true : undefined));
  expect(await condition('floor', 'ScalingLimited')).toMatchObject({ status: 'True', message: 'the desired replica count is less than the minimum replica count' });
  expect(await replicasOf('floor')).toBe(2);
  expect(await statusOf('floor')).toMatchObject({ currentReplicas: 2, desiredReplicas: 2 });
});

test('a target at 0 replicas disables scaling', async () => {
  await rc('idle', 0);
  await pod('idle-1', 'idle');
  metrics.usage.set('idle-1', 500);
  await hpa('idle');
  start();
  await until('ScalingDisabled', async () => ((await condition('idle', 'ScalingActive'))?.reason === 'ScalingDisabled' ? true : undefined));
  expect(await condition('idle', 'ScalingActive')).toMatchObject({ status: 'False', message: 'scaling is disabled since the replica count of the target is zero' });
  expect(await replicasOf('idle')).toBe(0);
  expect(await statusOf('idle')).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
  expect(metrics.calls).toBe(0);
});

test('missing metrics damp a scale-down (counted at 100 %), unready pods damp a scale-up (counted at 0 %)', async () => {
  await rc('miss', 3);
  for (const i of [1, 2, 3]) await pod(`miss-${i}`, 'miss');
  metrics.usage.set('miss-1', 10).set('miss-2', 10); // miss-3 has no sample: 10 % alone would give 1 replica
  await rc('slow', 3);
  await pod('slow-1', 'slow');
  await pod('slow-2', 'slow');
  await pod('slow-3', 'slow', { phase: 'Pending' });
  metrics.usage.set('slow-1', 80).set('slow-2', 80); // 160 % of target alone would give 4 replicas
  await hpa('miss');
  await hpa('slow');
  start({ downscaleStabilizationMs: 0 });
  await until('miss synced', async () => ((await statusOf('miss')).currentCPUUtilizationPercentage === 10 ? true : undefined));
  await until('slow synced', async () => ((await statusOf('slow')).currentCPUUtilizationPercentage === 80 ? true : undefined));
  const before = metrics.calls;
  await until('more syncs', async () => (metrics.calls >= before + 4 ? true : undefined));
  expect(await replicasOf('miss')).toBe(3);
  expect(await replicasOf('slow')).toBe(3);
  expect(await statusOf('miss')).toMatchObject({ currentReplicas: 3, desiredReplicas: 3 });
  expect(await statusOf('slow')).toMatchObject({ currentReplicas: 3, desiredReplicas: 3 });
  expect(await hasEvent('miss', 'SuccessfulRescale')).toBeUndefined();
  expect(await hasEvent('slow', 'SuccessfulRescale')).toBeUndefined();

  // Once the missing pod reports, the scale-down goes ahead.
  metrics.usage.set('miss-3', 10);
  await until('miss scaled down', async () => ((await replicasOf('miss')) === 1 ? true : undefined));
});

test('pods without a CPU request: ScalingActive False FailedGetResourceMetric, with events', async () => {
  await rc('noreq', 1);
  await pod('noreq-1', 'noreq', { request: null });
  metrics.usage.set('noreq-1', 100);
  await hpa('noreq');
  start();
  const failed = 'failed to get cpu utilization: missing request for cpu in container c of Pod noreq-1';
  await until('the condition', async () => ((await condition('noreq', 'ScalingActive'))?.reason === 'FailedGetResourceMetric' ? true : undefined));
  expect(await condition('noreq', 'ScalingActive')).toMatchObject({ status: 'False', message: `the HPA was unable to compute the replica count: ${failed}` });
  expect(await condition('noreq', 'AbleToScale')).toMatchObject({ status: 'True', reason: 'SucceededGetScale' });
  await until('FailedGetResourceMetric', () => hasEvent('noreq', 'FailedGetResourceMetric', failed));
  await until('FailedComputeMetricsReplicas', () =>
    hasEvent('noreq', 'FailedComputeMetricsReplicas', `invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${failed}`));
  expect(await statusOf('noreq')).toEqual({ currentReplicas: 1, desiredReplicas: 0 });
  expect((await getHpa('noreq')).metadata.annotations?.[METRICS]).toBe('[{"type":""}]');
  expect(await replicasOf('noreq')).toBe(1);
});

test('no metrics at all: the metrics source error, wrapped as kube wraps it', async () => {
  await rc('dark', 1);
  await pod('dark-1', 'dark');
  await hpa('dark');
  start();
  await until('the condition', async () => ((await condition('dark', 'ScalingActive'))?.reason === 'FailedGetResourceMetric' ? true : undefined));
  expect((await condition('dark', 'ScalingActive'))?.message).toBe(
    `the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: ${NO_METRICS_RETURNED}`,
  );
});

test('a target that does not exist, an unknown kind and a kind without /scale: AbleToScale False FailedGetScale', async () => {
  await hpa('ghost', { target: { apiVersion: 'v1', kind: 'ReplicationController', name: 'nope' } });
  await hpa('alien', { target: { apiVersion: 'apps/v1', kind: 'Gadget', name: 'x' } });
  await store.served.lookup('', 'v1', 'configmaps')!.registry.create(NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } });
  await hpa('flat', { target: { apiVersion: 'v1', kind: 'ConfigMap', name: 'cm' } });
  await hpa('badref', { target: { apiVersion: 'a/b/c', kind: 'ReplicationController', name: 'x' } });
  start();
  const prefix = "the HPA controller was unable to get the target's current scale: ";
  const cases: Array<[string, string]> = [
    ['ghost', 'replicationcontrollers "nope" not found'],
    ['alien', 'no matches for kind "Gadget" in group "apps"'],
    ['flat', 'the server could not find the requested resource'],
    ['badref', 'unexpected GroupVersion string: a/b/c'],
  ];
  for (const [name, cause] of cases) {
    await until(`${name} condition`, async () => ((await condition(name, 'AbleToScale'))?.reason === 'FailedGetScale' ? true : undefined));
    expect(await condition(name, 'AbleToScale')).toMatchObject({ status: 'False', message: prefix + cause });
    await until(`${name} event`, () => hasEvent(name, 'FailedGetScale', cause));
    expect((await eventsOf(name)).find((e) => e.reason === 'FailedGetScale')?.type).toBe('Warning');
    // The status was never computed: the create's zeros stay.
    expect(await statusOf(name)).toEqual({ currentReplicas: 0, desiredReplicas: 0 });
  }
  expect(errors.some((e) => String(e).includes('failed to query scale subresource for ReplicationController/default/nope'))).toBe(true);
});

test('a custom resource with a scale sub-resource is scaled through it; without a selector it is InvalidSelector', async () => {
  const crd: KubeObject = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } } } } },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
      }],
    },
  };
  store.served.serveSet('widgets.example.com', customResourceKinds(crd, names), { resourcePrefix: 'example.com/widgets', validationStyle: CUSTOM_RESOURCE_VALIDATION_STYLE });
  const widgets = store.served.lookup('example.com', 'v1', 'widgets')!.registry;
  await widgets.create(NS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1 } });
  await widgets.patch(NS, 'w', (w) => ({ ...w, status: { replicas: 1, selector: 'app=w' } }), { subresource: 'status' });
  await widgets.create(NS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'bare' }, spec: { replicas: 1 } });
  await pod('w-1', 'w');
  metrics.usage.set('w-1', 150); // 150 % against 50 %: 3 replicas
  await hpa('w', { target: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'w' } });
  await hpa('bare', { target: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'bare' } });
  start();
  await until('the widget scaled', async () => (((await widgets.get(NS, 'w')).spec as { replicas: number }).replicas === 3 ? true : undefined));
  await until('the HPA status', async () => ((await statusOf('w')).desiredReplicas === 3 ? true : undefined));
  expect(await statusOf('w')).toMatchObject({ currentReplicas: 1, desiredReplicas: 3, currentCPUUtilizationPercentage: 150 });

  await until('InvalidSelector', async () => ((await condition('bare', 'ScalingActive'))?.reason === 'InvalidSelector' ? true : undefined));
  expect(await condition('bare', 'ScalingActive')).toMatchObject({ status: 'False', message: "the HPA target's scale is missing a selector" });
  await until('SelectorRequired', () => hasEvent('bare', 'SelectorRequired', 'selector is required'));
  await until('FailedComputeMetricsReplicas', () => hasEvent('bare', 'FailedComputeMetricsReplicas', 'selector is required'));
  expect((await getHpa('bare')).metadata.annotations?.[METRICS]).toBeUndefined();
});

test('two HPAs over the same pods: AmbiguousSelector, then nothing scaled', async () => {
  await rc('one', 1, 'shared');
  await rc('two', 1, 'shared');
  await pod('shared-1', 'shared');
  metrics.usage.set('shared-1', 500);
  await hpa('one');
  await hpa('two');
  start();
  const message = 'pods by selector app=shared are controlled by multiple HPAs: [default/one default/two]';
  await until('AmbiguousSelector', async () => ((await condition('two', 'ScalingActive'))?.reason === 'AmbiguousSelector' ? true : undefined));
  await until('AmbiguousSelector on one', async () => ((await condition('one', 'ScalingActive'))?.reason === 'AmbiguousSelector' ? true : undefined));
  expect(await condition('one', 'ScalingActive')).toMatchObject({ status: 'False', message });
  await until('the event', () => hasEvent('one', 'AmbiguousSelector', message));
  await until('FailedComputeMetricsReplicas', () => hasEvent('one', 'FailedComputeMetricsReplicas', message));
  // As in kube, the first HPA synced may scale before it knows the other's selector; after that, neither does.
  const counts = [await replicasOf('one'), await replicasOf('two')];
  const before = metrics.calls;
  // Each sync records the event again (its count grows): three more syncs of both.
  const countOf = async (name: string): Promise<number> => (await eventsOf(name)).find((e) => e.reason === 'AmbiguousSelector')?.count ?? 0;
  const [one, two] = [await countOf('one'), await countOf('two')];
  await until('three more syncs', async () => ((await countOf('one')) >= one + 3 && (await countOf('two')) >= two + 3 ? true : undefined));
  expect([await replicasOf('one'), await replicasOf('two')]).toEqual(counts);
  expect(metrics.calls).toBe(before);
});

test('lastTransitionTime moves only when a condition changes status', async () => {
  await rc('flip', 2);
  await pod('flip-1', 'flip');
  await pod('flip-2', 'flip');
  metrics.usage.set('flip-1', 50).set('flip-2', 50);
  await hpa('flip');
  start();
  await until('ValidMetricFound', async () => ((await condition('flip', 'ScalingActive'))?.status === 'True' ? true : undefined));
  const first = (await condition('flip', 'ScalingActive'))!.lastTransitionTime;
  const before = metrics.calls;
  await until('more syncs', async () => (metrics.calls >= before + 3 ? true : undefined));
  expect((await condition('flip', 'ScalingActive'))!.lastTransitionTime).toBe(first);
  metrics.usage.clear();
  await until('the failure', async () => ((await condition('flip', 'ScalingActive'))?.status === 'False' ? true : undefined));
});

test('a StatefulSet (apps group) is scaled through its scale sub-resource, its selector from spec.selector', async () => {
  const sets = store.served.lookup('apps', 'v1', 'statefulsets')!.registry;
  await sets.create(NS, {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db' },
    spec: { replicas: 1, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  });
  await pod('db-0', 'db');
  metrics.usage.set('db-0', 100); // 100 % against 50 %: 2 replicas
  await hpa('db', { target: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' } });
  start();
  await until('the StatefulSet scaled', async () => (((await sets.get(NS, 'db')).spec as { replicas: number }).replicas === 2 ? true : undefined));
  await until('the event', () => hasEvent('db', 'SuccessfulRescale', 'New size: 2; reason: cpu resource utilization (percentage of request) above target'));
});
