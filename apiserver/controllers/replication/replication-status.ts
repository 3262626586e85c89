/**
 * A ReplicationController's status from the active pods it owns, as kube's calculateStatus:
 *
 * - `replicas`: the active owned pods (terminating and Succeeded/Failed pods are not counted);
 * - `fullyLabeledReplicas`: those whose labels include every TEMPLATE label (not only the selector's);
 * - `readyReplicas`: those Ready; `availableReplicas`: those ready for longer than `minReadySeconds`;
 * - the `ReplicaFailure` condition: set (True, reason `FailedCreate` when pods were missing,
 *   `FailedDelete` when there were too many, message the error) when this sync's create or delete failed
 *   and no such condition exists; removed once a sync manages the replicas without error;
 * - `observedGeneration` is set by the writer (`statusChanged` tells whether a write is needed).
 */
import type { KubeObject } from '../../api/object.js';
import { rfc3339 } from '../../registry/generic/system-fields.js';
import { isPodAvailable, isPodReady, labelsMatch } from './pod-state.js';

export interface RcCondition {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface RcStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: RcCondition[];
}

export const REPLICA_FAILURE = 'ReplicaFailure';

interface RcSpecLike {
  readonly replicas?: number;
  readonly minReadySeconds?: number;
  readonly selector?: Record<string, string>;
  readonly template?: { readonly metadata?: { readonly labels?: Record<string, string> } };
}

export const rcSpec = (rc: KubeObject): RcSpecLike => (rc.spec ?? {}) as RcSpecLike;
export const rcStatus = (rc: KubeObject): RcStatus => (rc.status ?? { replicas: 0 }) as RcStatus;
/** `spec.replicas`, 1 when unset (the registry defaults it; kept for objects from elsewhere). */
export const desiredReplicas = (rc: KubeObject): number => rcSpec(rc).replicas ?? 1;

export function calculateStatus(rc: KubeObject, pods: readonly KubeObject[], manageError: Error | undefined, now: Date): RcStatus {
  const spec = rcSpec(rc);
  const templateLabels = spec.template?.metadata?.labels;
  const minReady = spec.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    if (labelsMatch(templateLabels, pod.metadata.labels)) fullyLabeled++;
    if (isPodReady(pod)) ready++;
    if (isPodAvailable(pod, minReady, now.getTime())) available++;
  }
  const old = rcStatus(rc);
  let conditions = [...(old.conditions ?? [])];
  const failure = conditions.find((c) => c.type === REPLICA_FAILURE);
  if (manageError !== undefined && failure === undefined) {
    const diff = pods.length - desiredReplicas(rc);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    const cond: RcCondition = { type: REPLICA_FAILURE, status: 'True', lastTransitionTime: rfc3339(now), ...(reason === '' ? {} : { reason }), message: manageError.message };
    conditions = [...conditions, cond];
  } else if (manageError === undefined && failure !== undefined) {
    conditions = conditions.filter((c) => c.type !== REPLICA_FAILURE);
  }
  // Zero counts are left out, as kube's omitempty members are on the wire.
  const status: RcStatus = { replicas: pods.length };
  if (fullyLabeled > 0) status.fullyLabeledReplicas = fullyLabeled;
  if (ready > 0) status.readyReplicas = ready;
  if (available > 0) status.availableReplicas = available;
  if (old.observedGeneration !== undefined) status.observedGeneration = old.observedGeneration;
  if (conditions.length > 0) status.conditions = conditions;
  return status;
}

/** kube's updateReplicaSetStatus short cut: nothing to write when the counts, conditions and observedGeneration already match. */
export function statusChanged(rc: KubeObject, status: RcStatus): boolean {
  const old = rcStatus(rc);
  return (
    (old.replicas ?? 0) !== status.replicas ||
    (old.fullyLabeledReplicas ?? 0) !== (status.fullyLabeledReplicas ?? 0) ||
    (old.readyReplicas ?? 0) !== (status.readyReplicas ?? 0) ||
    (old.availableReplicas ?? 0) !== (status.availableReplicas ?? 0) ||
    (rc.metadata.generation ?? 0) !== (old.observedGeneration ?? 0) ||
    JSON.stringify(old.conditions ?? []) !== JSON.stringify(status.conditions ?? [])
  );
}
