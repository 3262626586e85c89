/**
 * kube's TriggerTimeTracker: the `endpoints.<legacy domain>/last-change-trigger-time` of a sync — the
 * earliest change since the previous sync that made the Service's endpoints change:
 *
 * - for a Service not seen before: its creationTimestamp;
 * - otherwise the earliest of: each pod's Ready condition lastTransitionTime that is later than the one
 *   recorded at the previous sync, and the Service's creationTimestamp if it is later than recorded;
 * - undefined when nothing changed (the annotation is then removed from the slices written).
 *
 * Formatted as Go's RFC 3339 with nanoseconds (trailing zero fractions dropped).
 */
import type { KubeObject } from '../../api/object.js';
import { podReadyCondition } from '../replication/pod-state.js';

interface State {
  readonly pods: Map<string, number>;
  readonly service: number;
}

const parse = (s: string | undefined): number | undefined => {
  if (s === undefined) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
};

/** Go's time.RFC3339Nano of a UTC time. */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac === '' ? 'Z' : `.${frac}Z`));
}

export interface TriggerTimeTracker {
  compute(serviceKey: string, service: KubeObject, pods: readonly KubeObject[]): number | undefined;
  deleteService(serviceKey: string): void;
}

export function createTriggerTimeTracker(): TriggerTimeTracker {
  const states = new Map<string, State>();
  return {
    compute(key, service, pods) {
      const previous = states.get(key);
      const next: State = { pods: new Map(), service: parse(service.metadata.creationTimestamp) ?? 0 };
      const changed: number[] = [];
      for (const pod of pods) {
        const t = parse(podReadyCondition(pod)?.lastTransitionTime);
        if (t === undefined) continue;
        next.pods.set(pod.metadata.name ?? '', t);
        if (t > (previous?.pods.get(pod.metadata.name ?? '') ?? 0)) changed.push(t);
      }
      if (next.service > (previous?.service ?? 0)) changed.push(next.service);
      states.set(key, next);
      if (previous === undefined) return parse(service.metadata.creationTimestamp);
      return changed.length === 0 ? undefined : Math.min(...changed);
    },
    deleteService: (key) => void states.delete(key),
  };
}
