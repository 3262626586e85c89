/**
 * The horizontal-pod-autoscaler-controller (kube-controller-manager's pkg/controller/podautoscaler for the
 * autoscaling/v1 HPAs this server serves): every HPA is synced once per `syncPeriodMs` (15 s; kube's
 * fixed-interval queue: an added or changed HPA waits for the period too). A sync:
 *
 * 1. resolves `scaleTargetRef` (scale-target.ts) and reads its Scale; failures: event and AbleToScale
 *    False `FailedGetScale`;
 * 2. target at 0 replicas (minReplicas not 0): ScalingActive False `ScalingDisabled`, nothing scaled; above
 *    maxReplicas / below minReplicas: straight to the bound;
 * 3. else the Scale's selector (required, parsed, not shared with another HPA's pods) chooses the pods,
 *    and the replica calculator (replica-calculator.ts) proposes a count from their CPU utilization against
 *    `targetCPUUtilizationPercentage` (80 when unset) with the metrics source; the proposal is normalized
 *    (normalize.ts: scale-down stabilisation, min/max, scale-up limit);
 * 4. a count that differs is written to the target's `/scale` (event SuccessfulRescale `New size: N;
 *    reason: ...`, or FailedRescale and AbleToScale False `FailedUpdateScale`);
 * 5. the status (currentReplicas, desiredReplicas, currentCPUUtilizationPercentage, lastScaleTime when it
 *    scaled) is written through `/status` when it changed, and the v1 annotations of the conditions and
 *    current metrics (hpa-conditions.ts) through the main resource when they changed. Both writes carry the
 *    resourceVersion read (a conflict waits for the next sync), field manager `kube-controller-manager`.
 *    As kube's, the status is rebuilt from those members: `observedGeneration` is never set (and dropped).
 *
 * Events are kube's (`horizontal-pod-autoscaler` component): SuccessfulRescale, FailedRescale,
 * FailedGetScale, SelectorRequired, InvalidSelector, AmbiguousSelector, FailedGetResourceMetric,
 * FailedComputeMetricsReplicas, FailedUpdateStatus. Errors of a sync go to `onError` (kube logs them); the
 * HPA is synced again after the period either way.
 */
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../api/object.js';
import { isObject } from '../../api/json.js';
import type { EventRecorder, EventType } from '../../events/event-recorder.js';
import { referenceOf } from '../../events/object-reference.js';
import type { Naming } from '../../naming/naming.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import type { ServedResources } from '../../registry/served-resources.js';
import { parseLabelSelector, nothing } from '../../selectors/label-selector.js';
import type { LabelSelector } from '../../selectors/selector.js';
import { CONTROLLER_FIELD_MANAGER } from '../field-manager.js';
import type { InformerFactory } from '../informer.js';
import { keyOf, splitKey, startWorkQueue } from '../work-queue.js';
import {
  conditionsAnnotation,
  conditionsText,
  cpuMetricText,
  currentMetricsAnnotation,
  readConditions,
  setCondition,
  type ConditionUpdate,
  type HpaCondition,
} from './hpa-conditions.js';
import type { PodMetricsSource } from './metrics-source.js';
import { normalizeDesiredReplicas, Recommendations } from './normalize.js';
import { resourceReplicas, type ReplicaCalculatorOptions } from './replica-calculator.js';
import { mappingsFor, parseGroupVersion, readTargetScale, writeTargetScale, type TargetScale } from './scale-target.js';

/** kube-controller-manager's name of this controller (`--controllers`). */
export const HPA_CONTROLLER_NAME = 'horizontal-pod-autoscaler-controller';
/** The events' source component, as kube's. */
export const HPA_EVENT_COMPONENT = 'horizontal-pod-autoscaler';
/** kube's DefaultCPUUtilization: the target of an HPA without targetCPUUtilizationPercentage. */
const DEFAULT_CPU_UTILIZATION = 80;

export interface HorizontalPodAutoscalerControllerOptions {
  readonly resources: ServedResources;
  readonly informers: InformerFactory;
  readonly naming: Naming;
  readonly metrics: PodMetricsSource;
  readonly recorder?: EventRecorder;
  /** A sync that failed (kube logs it), with the HPA's key. */
  readonly onError?: (err: unknown, key: string) => void;
  /** `--horizontal-pod-autoscaler-sync-period`. Default 15 s. */
  readonly syncPeriodMs?: number;
  /** `--horizontal-pod-autoscaler-downscale-stabilization`. Default 5 min. */
  readonly downscaleStabilizationMs?: number;
  /** `--horizontal-pod-autoscaler-tolerance`. Default 0.1. */
  readonly tolerance?: number;
  /** `--horizontal-pod-autoscaler-cpu-initialization-period`. Default 5 min. */
  readonly cpuInitializationPeriodMs?: number;
  /** `--horizontal-pod-autoscaler-initial-readiness-delay`. Default 30 s. */
  readonly initialReadinessDelayMs?: number;
  readonly now?: () => Date;
}

export const HPA_DEFAULTS = Object.freeze({
  syncPeriodMs: 15_000,
  downscaleStabilizationMs: 300_000,
  tolerance: 0.1,
  cpuInitializationPeriodMs: 300_000,
  initialReadinessDelayMs: 30_000,
});

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isObject(v) ? (v as Obj) : {});
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** The v1 status and annotations a sync computes, compared with what is stored before writing. */
interface Outcome {
  currentReplicas: number;
  desiredReplicas: number;
  lastScaleTime: string | undefined;
  /** status.currentCPUUtilizationPercentage. */
  cpuPercent: number | undefined;
  /** The current-metrics annotation (kube's v2 currentMetrics as a v1 client reads them); undefined: none. */
  metricsText: string | undefined;
  conditions: HpaCondition[];
}

/** The current-metrics annotation of one metric that failed: kube's zero-valued MetricStatus. */
const FAILED_METRIC_TEXT = '[{"type":""}]';

export function startHorizontalPodAutoscalerController(o: HorizontalPodAutoscalerControllerOptions): { stop(): Promise<void> } {
  const hpaResource = o.resources.lookup('autoscaling', 'v1', 'horizontalpodautoscalers');
  const podResource = o.resources.lookup('', 'v1', 'pods');
  if (hpaResource === undefined || podResource === undefined) return { stop: async () => undefined };
  const hpas = o.informers.informer(hpaResource.registry);
  const pods = o.informers.informer(podResource.registry);
  const now = o.now ?? (() => new Date());
  const period = o.syncPeriodMs ?? HPA_DEFAULTS.syncPeriodMs;
  const calc: ReplicaCalculatorOptions = {
    tolerance: o.tolerance ?? HPA_DEFAULTS.tolerance,
    cpuInitializationPeriodMs: o.cpuInitializationPeriodMs ?? HPA_DEFAULTS.cpuInitializationPeriodMs,
    delayOfInitialReadinessStatusMs: o.initialReadinessDelayMs ?? HPA_DEFAULTS.initialReadinessDelayMs,
    now,
  };
  const recommendations = new Recommendations(o.downscaleStabilizationMs ?? HPA_DEFAULTS.downscaleStabilizationMs, now);
  /** kube's hpaSelectors: the last selector of each known HPA (nothing until its first sync). */
  const selectors = new Map<string, LabelSelector>();
  const conditionsKey = conditionsAnnotation(o.naming);
  const metricsKey = currentMetricsAnnotation(o.naming);

  const event = (hpa: KubeObject, type: EventType, reason: string, text: string): void => {
    void o.recorder?.event(referenceOf(hpa), type, reason, text);
  };

  /** kube's validateAndParseSelector; throws after setting the condition and recording the event. */
  const podsOf = (hpa: KubeObject, key: string, selectorText: string, conditions: HpaCondition[]): KubeObject[] => {
    const fail = (reason: string, eventReason: string, eventText: string, conditionText: string): never => {
      event(hpa, 'Warning', eventReason, eventText);
      setCondition(conditions, { type: 'ScalingActive', status: 'False', reason, message: conditionText }, now());
      throw new Error(eventText);
    };
    if (selectorText === '') return fail('InvalidSelector', 'SelectorRequired', 'selector is required', "the HPA target's scale is missing a selector");
    let selector: LabelSelector;
    try {
      selector = parseLabelSelector(selectorText);
    } catch (err) {
      const text = `couldn't convert selector into a corresponding internal selector object: ${message(err)}`;
      return fail('InvalidSelector', 'InvalidSelector', text, text);
    }
    if (selectors.has(key)) selectors.set(key, selector);
    const namespace = hpa.metadata.namespace ?? '';
    const selected = pods.list(namespace).filter((p) => selector.matches(p.metadata.labels));
    const controlling = new Set<string>();
    for (const [other, s] of selectors) {
      if (splitKey(other).namespace !== namespace) continue;
      if (selected.some((p) => s.matches(p.metadata.labels))) controlling.add(other);
    }
    if (controlling.size > 1) {
      const text = `pods by selector ${selectorText} are controlled by multiple HPAs: [${[...controlling].sort().join(' ')}]`;
      return fail('AmbiguousSelector', 'AmbiguousSelector', text, text);
    }
    return selected;
  };

  /** Writes what changed: the status, then the annotations. */
  const write = async (hpa: KubeObject, out: Outcome): Promise<void> => {
    const status: Obj = { currentReplicas: out.currentReplicas, desiredReplicas: out.desiredReplicas };
    if (out.lastScaleTime !== undefined) status.lastScaleTime = out.lastScaleTime;
    if (out.cpuPercent !== undefined) status.currentCPUUtilizationPercentage = out.cpuPercent;
    const annotations: Record<string, string> = { ...(hpa.metadata.annotations ?? {}) };
    delete annotations[conditionsKey];
    delete annotations[metricsKey];
    if (out.conditions.length > 0) annotations[conditionsKey] = conditionsText(out.conditions);
    if (out.metricsText !== undefined) annotations[metricsKey] = out.metricsText;

    const namespace = hpa.metadata.namespace ?? '';
    const name = hpa.metadata.name ?? '';
    let resourceVersion = hpa.metadata.resourceVersion;
    try {
      if (!isDeepStrictEqual(status, hpa.status ?? {})) {
        const updated = await hpaResource.registry.update(namespace, name, { ...structuredClone(hpa), status }, { subresource: 'status', fieldManager: CONTROLLER_FIELD_MANAGER });
        resourceVersion = updated.object.metadata.resourceVersion;
      }
      const before = hpa.metadata.annotations ?? {};
      if (before[conditionsKey] !== annotations[conditionsKey] || before[metricsKey] !== annotations[metricsKey]) {
        const copy = structuredClone(hpa);
        copy.metadata.annotations = annotations;
        if (resourceVersion !== undefined) copy.metadata.resourceVersion = resourceVersion;
        await hpaResource.registry.update(namespace, name, copy, { fieldManager: CONTROLLER_FIELD_MANAGER });
      }
    } catch (err) {
      event(hpa, 'Warning', 'FailedUpdateStatus', message(err));
      throw new Error(`failed to update status for ${name}: ${message(err)}`);
    }
  };

  /** kube's reconcileAutoscaler. */
  const reconcile = async (hpa: KubeObject, key: string): Promise<void> => {
    const spec = obj(hpa.spec);
    const ref = obj(spec.scaleTargetRef);
    const namespace = hpa.metadata.namespace ?? '';
    const targetName = typeof ref.name === 'string' ? ref.name : '';
    const kind = typeof ref.kind === 'string' ? ref.kind : '';
    const reference = `${kind}/${namespace}/${targetName}`;
    const stored = obj(hpa.status);
    const conditions = readConditions(hpa.metadata.annotations, o.naming);
    const set = (u: ConditionUpdate): void => setCondition(conditions, u, now());
    const out: Outcome = {
      currentReplicas: int(stored.currentReplicas) ?? 0,
      desiredReplicas: int(stored.desiredReplicas) ?? 0,
      lastScaleTime: typeof stored.lastScaleTime === 'string' ? stored.lastScaleTime : undefined,
      // Kept as stored until the sync gets as far as the metrics (kube keeps the v2 currentMetrics then).
      cpuPercent: int(stored.currentCPUUtilizationPercentage),
      metricsText: hpa.metadata.annotations?.[metricsKey],
      conditions,
    };

    const scaleFailure = async (err: unknown, wrapped: string): Promise<never> => {
      event(hpa, 'Warning', 'FailedGetScale', message(err));
      set({ type: 'AbleToScale', status: 'False', reason: 'FailedGetScale', message: `the HPA controller was unable to get the target's current scale: ${message(err)}` });
      await write(hpa, out).catch((e: unknown) => o.onError?.(e, key));
      throw new Error(wrapped);
    };

    let group: string;
    try {
      group = parseGroupVersion(typeof ref.apiVersion === 'string' ? ref.apiVersion : '').group;
    } catch (err) {
      return scaleFailure(err, `invalid API version in scale target reference: ${message(err)}`);
    }
    let mappings;
    try {
      mappings = mappingsFor(o.resources, group, kind);
    } catch (err) {
      return scaleFailure(err, `unable to determine resource for scale target reference: ${message(err)}`);
    }
    let scale: TargetScale;
    try {
      scale = await readTargetScale(mappings, namespace, targetName);
    } catch (err) {
      return scaleFailure(err, `failed to query scale subresource for ${reference}: ${message(err)}`);
    }
    set({ type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale', message: "the HPA controller was able to get the target's current scale" });
    const currentReplicas = scale.specReplicas;
    recommendations.recordInitial(key, currentReplicas);

    const minReplicas = int(spec.minReplicas) ?? 1;
    const maxReplicas = int(spec.maxReplicas) ?? 0;
    let desiredReplicas = 0;
    let rescaleReason = '';
    let rescale = true;
    out.cpuPercent = undefined;
    out.metricsText = undefined;
    if (currentReplicas === 0 && minReplicas !== 0) {
      rescale = false;
      set({ type: 'ScalingActive', status: 'False', reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero' });
    } else if (currentReplicas > maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desiredReplicas = maxReplicas;
    } else if (currentReplicas < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desiredReplicas = minReplicas;
    } else {
      // computeReplicasForMetrics with the one metric of a v1 HPA: CPU utilization.
      let proposal: number;
      const metricName = 'cpu resource utilization (percentage of request)';
      try {
        const selected = podsOf(hpa, key, scale.selector, conditions);
        const target = int(spec.targetCPUUtilizationPercentage) ?? DEFAULT_CPU_UTILIZATION;
        try {
          const r = await resourceReplicas(o.metrics, namespace, scale.selector, selected, currentReplicas, target, calc);
          proposal = r.replicas;
          out.cpuPercent = r.utilization;
          out.metricsText = cpuMetricText(r.utilization, r.rawUtilization);
        } catch (err) {
          out.metricsText = FAILED_METRIC_TEXT;
          const failed = `failed to get cpu utilization: ${message(err)}`;
          event(hpa, 'Warning', 'FailedGetResourceMetric', failed);
          set({ type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric', message: `the HPA was unable to compute the replica count: ${failed}` });
          throw new Error(`invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: ${failed}`);
        }
      } catch (err) {
        out.currentReplicas = currentReplicas;
        await write(hpa, out).catch((e: unknown) => o.onError?.(e, key));
        event(hpa, 'Warning', 'FailedComputeMetricsReplicas', message(err));
        throw new Error(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${message(err)}`);
      }
      set({ type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound', message: `the HPA was able to successfully calculate a replica count from ${metricName}` });
      let rescaleMetric = '';
      if (proposal > desiredReplicas) {
        desiredReplicas = proposal;
        rescaleMetric = metricName;
      }
      if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
      if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
      const normalized = normalizeDesiredReplicas(recommendations, key, currentReplicas, desiredReplicas, minReplicas, maxReplicas);
      for (const c of normalized.conditions) set(c);
      desiredReplicas = normalized.replicas;
      rescale = desiredReplicas !== currentReplicas;
    }

    if (rescale) {
      try {
        await writeTargetScale(scale, namespace, targetName, desiredReplicas, CONTROLLER_FIELD_MANAGER);
      } catch (err) {
        event(hpa, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${message(err)}`);
        set({ type: 'AbleToScale', status: 'False', reason: 'FailedUpdateScale', message: `the HPA controller was unable to update the target scale: ${message(err)}` });
        out.currentReplicas = currentReplicas;
        await write(hpa, out).catch((e: unknown) => o.onError?.(e, key));
        throw new Error(`failed to rescale ${reference}: ${message(err)}`);
      }
      set({ type: 'AbleToScale', status: 'True', reason: 'SucceededRescale', message: `the HPA controller was able to update the target scale to ${desiredReplicas}` });
      event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`);
      out.lastScaleTime = rfc3339(now());
    } else {
      desiredReplicas = currentReplicas;
    }
    out.currentReplicas = currentReplicas;
    out.desiredReplicas = desiredReplicas;
    await write(hpa, out);
  };

  let markStopped: () => void = () => undefined;
  const stopped = new Promise<'stopped'>((resolve) => (markStopped = () => resolve('stopped')));
  const queue = startWorkQueue(async (key) => {
    // Not before both caches are loaded; a stop while they load ends the wait (stop() awaits this sync).
    if ((await Promise.race([Promise.all([hpas.synced, pods.synced]), stopped])) === 'stopped') return;
    const { namespace, name } = splitKey(key);
    const shared = hpas.get(namespace, name);
    if (shared === undefined) {
      recommendations.forget(key);
      selectors.delete(key);
      return;
    }
    try {
      await reconcile(structuredClone(shared), key);
    } catch (err) {
      o.onError?.(err, key);
    }
    // kube's fixed-interval queue: every HPA comes back after the period, failed or not.
    queue.addAfter(key, period);
  });

  const enqueue = (hpa: KubeObject): void => {
    const key = keyOf(hpa);
    if (!selectors.has(key)) selectors.set(key, nothing);
    queue.addAfter(key, period);
  };
  const unsubscribe = hpas.on({
    added: enqueue,
    updated: (_old, hpa) => enqueue(hpa),
    deleted: (hpa) => {
      const key = keyOf(hpa);
      selectors.delete(key);
      queue.forget(key);
      // Synced once more to drop its recommendations (the informer no longer has it).
      queue.add(key);
    },
  });

  return {
    async stop() {
      unsubscribe();
      markStopped();
      await queue.stop();
    },
  };
}
