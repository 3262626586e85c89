/**
 * kube's ReplicaCalculator (pkg/controller/podautoscaler/replica_calculator.go) for the one metric an
 * autoscaling/v1 HPA has: CPU utilization as a percentage of the pods' requests.
 *
 * - Pods being deleted and Failed pods are ignored (their samples dropped). Pending pods, and pods whose
 *   CPU sample cannot be trusted yet (no Ready condition or start time; within the CPU initialization
 *   period: not Ready, or sampled less than one window after the last Ready transition; after it: not
 *   Ready and never ready since start) are "unready": their samples are dropped too.
 * - Pods without a sample are "missing".
 * - Requests: the sum of every container's (and restartable init container's) `cpu` request; a container
 *   without one fails the calculation (`missing request for cpu in container <c> of Pod <p>`).
 * - utilization = floor(100 × Σusage / Σrequest) over the sampled pods; usage ratio = utilization / target.
 * - Without unready (on a scale-up) or missing pods: within the tolerance, the current count; else
 *   ceil(ratio × ready pods).
 * - Else the change is damped: missing pods count as using 100 % of their request on a scale-down and 0 %
 *   on a scale-up, unready pods 0 % on a scale-up; the ratio is computed again, and the current count is
 *   kept if the new ratio is within tolerance or would reverse the direction, or if the new count would.
 *
 * Errors are thrown with kube's messages; the controller turns them into its condition and events.
 */
import type { KubeObject } from '../../api/object.js';
import { isObject } from '../../api/json.js';
import { milliValue } from './milli-value.js';
import type { PodMetric, PodMetricsSource } from './metrics-source.js';

export interface ReplicaCalculatorOptions {
  /** Relative change below which the count stays. kube: 0.1. */
  readonly tolerance: number;
  /** `--horizontal-pod-autoscaler-cpu-initialization-period`. kube: 5 min. */
  readonly cpuInitializationPeriodMs: number;
  /** `--horizontal-pod-autoscaler-initial-readiness-delay`. kube: 30 s. */
  readonly delayOfInitialReadinessStatusMs: number;
  readonly now: () => Date;
}

export interface ResourceReplicas {
  readonly replicas: number;
  /** The current utilization in percent of the requests (Go's int32 division). */
  readonly utilization: number;
  /** The average usage per sampled pod, in millicores. */
  readonly rawUtilization: number;
  readonly timestamp: Date;
}

/** A calculation that failed, with kube's message. */
export class ReplicaCalculationError extends Error {
  override readonly name = 'ReplicaCalculationError';
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isObject(v) ? (v as Obj) : {});
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObject).map((x) => x as Obj) : []);

const nameOf = (pod: KubeObject): string => pod.metadata.name ?? '';

/** The sum of the pod's CPU requests in millicores; throws for a container without one. */
export function podCpuRequest(pod: KubeObject): number {
  const spec = obj(pod.spec);
  const containers = [...list(spec.containers), ...list(spec.initContainers).filter((c) => c.restartPolicy === 'Always')];
  let sum = 0;
  for (const c of containers) {
    const request = milliValue(obj(obj(c.resources).requests).cpu);
    if (request === undefined) throw new ReplicaCalculationError(`missing request for cpu in container ${String(c.name ?? '')} of Pod ${nameOf(pod)}`);
    sum += request;
  }
  return sum;
}

interface Grouped {
  readonly readyPodCount: number;
  readonly unready: Set<string>;
  readonly missing: Set<string>;
  readonly ignored: Set<string>;
}

const timeOf = (v: unknown): number | undefined => {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
};

/** kube's groupPods for the CPU resource. */
export function groupPods(pods: readonly KubeObject[], metrics: ReadonlyMap<string, PodMetric>, o: ReplicaCalculatorOptions): Grouped {
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  let readyPodCount = 0;
  const now = o.now().getTime();
  for (const pod of pods) {
    const name = nameOf(pod);
    const status = obj(pod.status);
    if (pod.metadata.deletionTimestamp != null || status.phase === 'Failed') {
      ignored.add(name);
      continue;
    }
    if (status.phase === 'Pending') {
      unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (metric === undefined) {
      missing.add(name);
      continue;
    }
    const ready = list(status.conditions).find((c) => c.type === 'Ready');
    const start = timeOf(status.startTime);
    let isUnready: boolean;
    if (ready === undefined || start === undefined) {
      isUnready = true;
    } else {
      const transition = timeOf(ready.lastTransitionTime) ?? 0;
      if (start + o.cpuInitializationPeriodMs > now) {
        // Within the initialization period: not Ready, or no full window sampled since the last transition.
        isUnready = ready.status === 'False' || metric.timestamp.getTime() < transition + metric.windowMs;
      } else {
        // After it: not Ready and never Ready since the pod started.
        isUnready = ready.status === 'False' && start + o.delayOfInitialReadinessStatusMs > transition;
      }
    }
    if (isUnready) {
      unready.add(name);
      continue;
    }
    readyPodCount++;
  }
  return { readyPodCount, unready, missing, ignored };
}

/** kube's GetResourceUtilizationRatio: samples of pods without a known request are left out. */
export function utilizationRatio(metrics: ReadonlyMap<string, number>, requests: ReadonlyMap<string, number>, target: number): { ratio: number; utilization: number; raw: number } {
  let usage = 0;
  let requested = 0;
  let entries = 0;
  for (const [pod, value] of metrics) {
    const request = requests.get(pod);
    if (request === undefined) continue;
    usage += value;
    requested += request;
    entries++;
  }
  if (requested === 0) throw new ReplicaCalculationError('no metrics returned matched known pods');
  const utilization = Math.trunc((usage * 100) / requested);
  return { ratio: utilization / target, utilization, raw: Math.trunc(usage / entries) };
}

/**
 * kube's GetResourceReplicas: the replica count that brings the pods' CPU utilization to `target` percent.
 * `pods` are the target's pods (the HPA's selector, its namespace).
 */
export async function resourceReplicas(
  source: PodMetricsSource,
  namespace: string,
  selector: string,
  pods: readonly KubeObject[],
  currentReplicas: number,
  target: number,
  o: ReplicaCalculatorOptions,
): Promise<ResourceReplicas> {
  let fetched;
  try {
    fetched = await source.podCpu(namespace, selector);
  } catch (err) {
    throw new ReplicaCalculationError(`unable to get metrics for resource cpu: ${err instanceof Error ? err.message : String(err)}`);
  }
  const { timestamp } = fetched;
  if (pods.length === 0) throw new ReplicaCalculationError('no pods returned by selector while calculating replica count');

  const { readyPodCount, unready, missing, ignored } = groupPods(pods, fetched.metrics, o);
  const metrics = new Map<string, number>();
  for (const [name, m] of fetched.metrics) if (!ignored.has(name) && !unready.has(name)) metrics.set(name, m.milliCpu);
  const requests = new Map<string, number>();
  for (const pod of pods) requests.set(nameOf(pod), podCpuRequest(pod));
  if (metrics.size === 0) throw new ReplicaCalculationError('did not receive metrics for any ready pods');

  const { ratio, utilization, raw } = utilizationRatio(metrics, requests, target);
  const result = (replicas: number): ResourceReplicas => ({ replicas, utilization, rawUtilization: raw, timestamp });

  const scaleUpWithUnready = unready.size > 0 && ratio > 1.0;
  if (!scaleUpWithUnready && missing.size === 0) {
    if (Math.abs(1.0 - ratio) <= o.tolerance) return result(currentReplicas);
    return result(Math.ceil(ratio * readyPodCount));
  }

  if (missing.size > 0) {
    // Damp the change: a missing pod pulls towards the current count.
    if (ratio < 1.0) for (const name of missing) metrics.set(name, requests.get(name) ?? 0);
    else if (ratio > 1.0) for (const name of missing) metrics.set(name, 0);
  }
  if (scaleUpWithUnready) for (const name of unready) metrics.set(name, 0);

  const again = utilizationRatio(metrics, requests, target).ratio;
  if (Math.abs(1.0 - again) <= o.tolerance || (ratio < 1.0 && again > 1.0) || (ratio > 1.0 && again < 1.0)) return result(currentReplicas);
  const replicas = Math.ceil(again * metrics.size);
  if ((again < 1.0 && replicas > currentReplicas) || (again > 1.0 && replicas < currentReplicas)) return result(currentReplicas);
  return result(replicas);
}
