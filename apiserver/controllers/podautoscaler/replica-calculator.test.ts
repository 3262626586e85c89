/**
 * The pure parts of the HPA: kube's replica calculator (grouping of pods into ready, unready, missing and
 * ignored; requests; the utilization ratio; tolerance and damping), the normalization (stabilisation
 * window, scale-up limit, min/max with the ScalingLimited reasons), Go's MilliValue, and the conditions'
 * lastTransitionTime rule. Cases are kube's replica_calculator_test / horizontal_test numbers.
 */
import type { KubeObject } from '../../api/object.js';
import { setCondition, type HpaCondition } from './hpa-conditions.js';
import { milliValue } from './milli-value.js';
import type { PodMetric, PodMetricsSource } from './metrics-source.js';
import { convertDesiredReplicasWithRules, normalizeDesiredReplicas, Recommendations } from './normalize.js';
import { groupPods, podCpuRequest, ReplicaCalculationError, resourceReplicas, type ReplicaCalculatorOptions } from './replica-calculator.js';

const NOW = new Date('2024-06-01T12:00:00Z');
const at = (secondsBefore: number): string => new Date(NOW.getTime() - secondsBefore * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
const opts: ReplicaCalculatorOptions = { tolerance: 0.1, cpuInitializationPeriodMs: 300_000, delayOfInitialReadinessStatusMs: 30_000, now: () => NOW };

interface PodOpts { phase?: string; ready?: 'True' | 'False' | null; started?: number | null; transition?: number; deleting?: boolean; request?: string | null }
function pod(name: string, o: PodOpts = {}): KubeObject {
  const started = o.started === undefined ? 3600 : o.started;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(o.deleting ? { deletionTimestamp: at(1) } : {}) },
    spec: { containers: [{ name: 'c', ...(o.request === null ? {} : { resources: { requests: { cpu: o.request ?? '1' } } }) }] },
    status: {
      phase: o.phase ?? 'Running',
      ...(started === null ? {} : { startTime: at(started) }),
      conditions: o.ready === null ? [] : [{ type: 'Ready', status: o.ready ?? 'True', lastTransitionTime: at(o.transition ?? 3000) }],
    },
  };
}

const sample = (milliCpu: number, secondsBefore = 0, windowS = 30): PodMetric => ({ milliCpu, timestamp: new Date(NOW.getTime() - secondsBefore * 1000), windowMs: windowS * 1000 });
const source = (m: Record<string, PodMetric>): PodMetricsSource => ({ podCpu: async () => ({ metrics: new Map(Object.entries(m)), timestamp: NOW }) });

test('groupPods: deleted and Failed ignored, Pending unready, no sample missing, readiness within and after the initialization period', () => {
  const pods = [
    pod('ok'),
    pod('gone', { deleting: true }),
    pod('failed', { phase: 'Failed' }),
    pod('pending', { phase: 'Pending', ready: null }),
    pod('nosample'),
    pod('noready', { ready: null }),
    pod('nostart', { started: null }),
    // Started 60 s ago (within the 5 min period): Ready but the sample predates one window after the transition.
    pod('young-early', { started: 60, transition: 20 }),
    pod('young-ready', { started: 60, transition: 50 }),
    pod('young-unready', { started: 60, ready: 'False', transition: 50 }),
    // After the period: not Ready and never ready since start (transition within 30 s of start) -> unready;
    // became unready later -> counted.
    pod('old-never-ready', { started: 3600, ready: 'False', transition: 3590 }),
    pod('old-went-unready', { started: 3600, ready: 'False', transition: 100 }),
  ];
  const metrics = new Map<string, PodMetric>();
  for (const p of pods) if (p.metadata.name !== 'nosample') metrics.set(p.metadata.name!, sample(500, 0));
  metrics.set('young-early', sample(500, 0, 30)); // transition 20 s ago + 30 s window > now
  const g = groupPods(pods, metrics, opts);
  expect([...g.ignored].sort()).toEqual(['failed', 'gone']);
  expect([...g.unready].sort()).toEqual(['noready', 'nostart', 'old-never-ready', 'pending', 'young-early', 'young-unready']);
  expect([...g.missing]).toEqual(['nosample']);
  expect(g.readyPodCount).toBe(3); // ok, young-ready, old-went-unready
});

test('requests: every container and restartable init container; a missing one fails with kube words', () => {
  const p: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: {
      initContainers: [{ name: 'init', resources: { requests: { cpu: '5' } } }, { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '50m' } } }],
      containers: [{ name: 'a', resources: { requests: { cpu: '100m' } } }, { name: 'b', resources: { requests: { cpu: '0.25' } } }],
    },
  };
  expect(podCpuRequest(p)).toBe(400);
  expect(() => podCpuRequest(pod('x', { request: null }))).toThrow(new ReplicaCalculationError('missing request for cpu in container c of Pod x'));
});

test('the calculation: plain scale-up and -down, the tolerance band, damping by missing and unready pods', async () => {
  const run = (pods: KubeObject[], m: Record<string, PodMetric>, current: number, target: number) => resourceReplicas(source(m), 'ns', 'app=x', pods, current, target, opts);
  // kube: 3 pods at 300m, 500m, 700m of 1 cpu, target 30 % -> 50 % -> ceil(3 × 5/3) = 5.
  let r = await run([pod('a'), pod('b'), pod('c')], { a: sample(300), b: sample(500), c: sample(700) }, 3, 30);
  expect(r).toMatchObject({ replicas: 5, utilization: 50, rawUtilization: 500 });
  // Scale-down: 100m, 300m, 500m, 250m, 250m against 50 % -> 28 % -> ceil(0.56 × 5) = 3.
  r = await run(['a', 'b', 'c', 'd', 'e'].map((n) => pod(n)), { a: sample(100), b: sample(300), c: sample(500), d: sample(250), e: sample(250) }, 5, 50);
  expect(r).toMatchObject({ replicas: 3, utilization: 28 });
  // Within tolerance: 1.08 keeps 3.
  r = await run([pod('a'), pod('b'), pod('c')], { a: sample(540), b: sample(540), c: sample(540) }, 3, 50);
  expect(r.replicas).toBe(3);
  // Missing pod on a scale-down counts as 100 %: (100+100+1000)/3000 = 40 % -> 0.8 -> ceil(2.4) = 3, not 1.
  r = await run([pod('a'), pod('b'), pod('c')], { a: sample(100), b: sample(100) }, 3, 50);
  expect(r).toMatchObject({ replicas: 3, utilization: 10 });
  // Missing pods on a scale-up count as 0 %: 1000m alone is ratio 2 (ceil(2 × 1 ready) = 2); with the two
  // missing pods at 0, 33 % is below target: the direction would flip, so the count stays.
  r = await run([pod('a'), pod('b'), pod('c')], { a: sample(1000) }, 3, 50);
  expect(r).toMatchObject({ replicas: 3, utilization: 100 });
  // Missing pods that do not flip the direction: (1000+1000+0)/3000 = 66 % against 40 % -> ceil(1.65 × 3) = 5.
  r = await run([pod('a'), pod('b'), pod('c')], { a: sample(1000), b: sample(1000) }, 3, 40);
  expect(r.replicas).toBe(5);
  // Unready pod on a scale-up counts as 0 %; the direction flip keeps the current count.
  r = await run([pod('a'), pod('b'), pod('p', { phase: 'Pending', ready: null })], { a: sample(800), b: sample(800) }, 3, 50);
  expect(r.replicas).toBe(3);
  // An unready pod does not damp a scale-down: ceil(0.2 × 2 ready) = 1.
  r = await run([pod('a'), pod('b'), pod('p', { phase: 'Pending', ready: null })], { a: sample(100), b: sample(100) }, 3, 50);
  expect(r.replicas).toBe(1);
});

test('calculation errors with kube words', async () => {
  const run = (pods: KubeObject[], src: PodMetricsSource) => resourceReplicas(src, 'ns', 'app=x', pods, 1, 50, opts);
  await expect(run([], source({ a: sample(1) }))).rejects.toThrow('no pods returned by selector while calculating replica count');
  await expect(run([pod('a', { phase: 'Pending' })], source({ a: sample(1) }))).rejects.toThrow('did not receive metrics for any ready pods');
  await expect(run([pod('a')], { podCpu: async () => { throw new Error('boom'); } })).rejects.toThrow('unable to get metrics for resource cpu: boom');
  await expect(run([pod('a', { request: '0' })], source({ a: sample(1) }))).rejects.toThrow('no metrics returned matched known pods');
});

test('normalization: stabilisation of scale-downs only, then the rules', () => {
  let clock = 0;
  const recs = new Recommendations(1000, () => new Date(clock));
  recs.recordInitial('k', 5);
  let n = normalizeDesiredReplicas(recs, 'k', 5, 2, 1, 10);
  expect(n.replicas).toBe(5);
  expect(n.conditions[0]).toMatchObject({ reason: 'ScaleDownStabilized' });
  clock = 500;
  n = normalizeDesiredReplicas(recs, 'k', 5, 9, 1, 10); // a scale-up is not held back: limit max(10, 4)
  expect(n.replicas).toBe(9);
  expect(n.conditions).toEqual([
    expect.objectContaining({ type: 'AbleToScale', reason: 'ReadyForNewScale' }),
    expect.objectContaining({ type: 'ScalingLimited', status: 'False', reason: 'DesiredWithinRange' }),
  ]);
  clock = 1400; // the 5 of t=0 expired, the 9 of t=500 still counts
  expect(normalizeDesiredReplicas(recs, 'k', 9, 2, 1, 10).replicas).toBe(9);
  clock = 2600; // all expired but the 2 of t=1400 and t=2600
  expect(normalizeDesiredReplicas(recs, 'k', 9, 2, 1, 10).replicas).toBe(2);

  expect(convertDesiredReplicasWithRules(1, 20, 1, 10)).toMatchObject({ replicas: 4, reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' });
  expect(convertDesiredReplicasWithRules(3, 20, 1, 10)).toMatchObject({ replicas: 6, reason: 'ScaleUpLimit' });
  expect(convertDesiredReplicasWithRules(6, 20, 1, 10)).toMatchObject({ replicas: 10, reason: 'TooManyReplicas' });
  expect(convertDesiredReplicasWithRules(6, 1, 2, 10)).toMatchObject({ replicas: 2, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' });
  expect(convertDesiredReplicasWithRules(6, 5, 2, 10)).toMatchObject({ replicas: 5, reason: 'DesiredWithinRange' });
});

test("Go's MilliValue and the conditions' lastTransitionTime", () => {
  expect([milliValue('1'), milliValue('250m'), milliValue('0.1'), milliValue('1n'), milliValue('1500001n'), milliValue('1Ki'), milliValue('2e-3'), milliValue('x')]).toEqual([1000, 250, 100, 1, 2, 1_024_000, 2, undefined]);
  const list: HpaCondition[] = [];
  setCondition(list, { type: 'ScalingActive', status: 'True', reason: 'A', message: 'a' }, new Date('2024-01-01T00:00:00Z'));
  setCondition(list, { type: 'ScalingActive', status: 'True', reason: 'B', message: 'b' }, new Date('2024-01-02T00:00:00Z'));
  expect(list).toEqual([{ type: 'ScalingActive', status: 'True', reason: 'B', message: 'b', lastTransitionTime: '2024-01-01T00:00:00Z' }]);
  setCondition(list, { type: 'ScalingActive', status: 'False', reason: 'C', message: 'c' }, new Date('2024-01-03T00:00:00Z'));
  expect(list[0]!.lastTransitionTime).toBe('2024-01-03T00:00:00Z');
});
