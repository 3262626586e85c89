/**
 * kube's normalization of a recommended replica count for an HPA without `behavior` (every autoscaling/v1
 * HPA: v1 has no behavior member), normalizeDesiredReplicas in horizontal.go:
 *
 * 1. scale-down stabilisation: the highest recommendation of the last `downscaleStabilisationWindowMs`
 *    (5 min; `--horizontal-pod-autoscaler-downscale-stabilization`) wins, so a count only goes down once
 *    every recommendation in the window agrees; scale-ups are not stabilised;
 * 2. the rules: at least minReplicas, at most maxReplicas, and at most max(2 × current, 4) in one step.
 *
 * The recommendations are kept per HPA key for the controller's lifetime (a new leader starts empty, as a
 * new kube-controller-manager does); the first sync records the current count as a recommendation.
 */
import type { ConditionUpdate } from './hpa-conditions.js';

interface Recommendation {
  readonly replicas: number;
  readonly at: number;
}

export class Recommendations {
  readonly #byKey = new Map<string, Recommendation[]>();

  constructor(private readonly windowMs: number, private readonly now: () => Date) {}

  /** kube's recordInitialRecommendation: the current count, once per key. */
  recordInitial(key: string, current: number): void {
    if (!this.#byKey.has(key)) this.#byKey.set(key, [{ replicas: current, at: this.now().getTime() }]);
  }

  forget(key: string): void {
    this.#byKey.delete(key);
  }

  /**
   * kube's stabilizeRecommendation: records `replicas` (reusing one expired slot) and returns the highest
   * recommendation within the window, `replicas` included.
   */
  stabilize(key: string, replicas: number): number {
    const now = this.now().getTime();
    const cutoff = now - this.windowMs;
    const recs = this.#byKey.get(key) ?? [];
    let max = replicas;
    let old = -1;
    recs.forEach((r, i) => {
      if (r.at < cutoff) old = i;
      else if (r.replicas > max) max = r.replicas;
    });
    const rec = { replicas, at: now };
    if (old >= 0) recs[old] = rec;
    else recs.push(rec);
    this.#byKey.set(key, recs);
    return max;
  }
}

/** kube's calculateScaleUpLimit: at most double, and at least 4. */
export const scaleUpLimit = (current: number): number => Math.trunc(Math.max(2 * current, 4));

/** kube's convertDesiredReplicasWithRules: the count within the rules, and the ScalingLimited reason. */
export function convertDesiredReplicasWithRules(current: number, desired: number, min: number, max: number): { replicas: number; reason: string; message: string } {
  const limit = scaleUpLimit(current);
  let maximum: number;
  let reason: string;
  let message: string;
  if (max > limit) {
    maximum = limit;
    reason = 'ScaleUpLimit';
    message = 'the desired replica count is increasing faster than the maximum scale rate';
  } else {
    maximum = max;
    reason = 'TooManyReplicas';
    message = 'the desired replica count is more than the maximum replica count';
  }
  if (desired < min) return { replicas: min, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
  if (desired > maximum) return { replicas: maximum, reason, message };
  return { replicas: desired, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };
}

/**
 * kube's normalizeDesiredReplicas: the stabilised, rule-bound count, and the AbleToScale and ScalingLimited
 * conditions it sets.
 */
export function normalizeDesiredReplicas(
  recommendations: Recommendations,
  key: string,
  current: number,
  desired: number,
  min: number,
  max: number,
): { replicas: number; conditions: ConditionUpdate[] } {
  const stabilized = recommendations.stabilize(key, desired);
  const conditions: ConditionUpdate[] = [
    stabilized !== desired
      ? { type: 'AbleToScale', status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' }
      : { type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' },
  ];
  const ruled = convertDesiredReplicasWithRules(current, stabilized, min, max);
  conditions.push({ type: 'ScalingLimited', status: ruled.replicas === stabilized ? 'False' : 'True', reason: ruled.reason, message: ruled.message });
  return { replicas: ruled.replicas, conditions };
}
